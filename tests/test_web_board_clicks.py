"""``heuri serve`` in a real browser, the web board's clicks, keys and fields: a click in the
middle of a premium square or the centre star, the arrow keys after ticking "analyse", the
Play view placed by clicking the rack and the board, its hint, its review of each of your
moves, your name, the record downloaded at any time, the end-of-game rack rows, and bad
input answered next to the field that holds it (the text kept).

Headless chromium through Playwright, one server and one page for the module (the fixtures
of tests/test_web_browser.py); screenshots of each view at 1280×900 and 390×844 under
``$HEURI_SCREENSHOTS`` (else pytest's temporary folder; the paths are printed).
"""
from __future__ import annotations

import pytest

from shared_cases import CASES
from test_report_browser import browser, shots  # noqa: F401 (fixtures: headless chromium, the screenshot folder)
from test_web_browser import server  # noqa: F401 (fixture: heuri serve on a free port, Spanish)

pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install -e .[web])")

#: the Play view's game: seed 7 deals you AEILMPT; heuri's best first move is the bingo
#: 8H TIEMPAL (78 points: 2 × (1+1+1+3+3+1+1) + 50, through the centre star and 8L's DL),
#: and the whole game, both sides playing heuri's best, takes 20 moves and ends with
#: heuri going out: +6 for its (CDT), -6 for yours.
SEED = 7
FIRST = "8H TIEMPAL"


@pytest.fixture(scope="module")
def page(server, browser):  # noqa: F811
    pg = browser.new_page(viewport={"width": 1280, "height": 900})
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" and "Content Security Policy" in m.text
          else None)
    pg.goto(server + "/")
    pg.wait_for_selector("#pos-board svg rect.sq")
    try:
        yield pg
    finally:
        pg.close()


def _centre(page, selector):
    """The page coordinates of the middle of the element (where a person clicks); a board
    redrawn meanwhile (its SVG replaced) is looked up again."""
    for _ in range(50):
        b = page.locator(selector).bounding_box()
        if b is not None:
            return b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
        page.wait_for_timeout(20)
    raise AssertionError(f"{selector}: not on the page")


def _shoot(page, shots, name):  # noqa: F811
    """The page at 1280×900 and at a phone's 390×844, full length; the paths printed."""
    for w, h, tag in ((1280, 900, "wide"), (390, 844, "phone")):
        page.set_viewport_size({"width": w, "height": h})
        shot = shots / f"serve-{name}-{tag}.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"screenshot: {shot}")
    page.set_viewport_size({"width": 1280, "height": 900})


def test_click_on_a_premium_label_selects_the_square(page):
    """The centre star and a double-word square's label are under the click: the square is
    selected all the same, and a letter typed goes there."""
    page.click('#tabs button[data-view="position"]')
    page.click("#clear")
    page.wait_for_function("() => document.querySelector('#cgp').value.startsWith('15/15/15/15/15/15/15/15/')")
    for sq, row, want in (("8H", 7, "7A7"), ("2B", 1, "1E13")):  # the star; a double word (DW)
        x, y = _centre(page, f'#pos-board rect.sq[data-sq="{sq}"]')
        label = page.evaluate(f"""[...document.querySelectorAll('#pos-board svg text')].filter(t => {{
            const b = t.getBoundingClientRect(); return b.left <= {x} && {x} <= b.right && b.top <= {y} && {y} <= b.bottom;
            }}).map(t => t.textContent)""")
        assert len(label) == 1 and label[0] != ""  # the square's label lies under the click
        page.mouse.click(x, y)
        assert page.evaluate("S.sel") == [row, int(sq[1:], 36) - 10]
        page.keyboard.press("a" if sq == "8H" else "e")
        page.wait_for_function(f"() => document.querySelector('#cgp').value.split('/')[{row}] === '{want}'")
    assert page.errors == []


def test_typing_a_word_on_the_board(page):
    """Click a square and type a word: each letter moves the selection on (across; down after
    the down arrow); Backspace on the empty square after a word takes its last letter back."""
    page.click('#tabs button[data-view="position"]')
    page.click("#clear")
    page.wait_for_function("() => document.querySelector('#cgp').value.startsWith('15/15/15/15/15/15/15/15/')")
    page.click('#pos-board rect.sq[data-sq="8H"]')
    page.keyboard.type("perro")
    page.wait_for_function("() => document.querySelector('#cgp').value.split('/')[7] === '7PERRO3'")
    assert page.evaluate("S.sel") == [7, 12]
    page.keyboard.press("Backspace")
    page.wait_for_function("() => document.querySelector('#cgp').value.split('/')[7] === '7PERR4'")
    page.click('#pos-board rect.sq[data-sq="9H"]')
    page.keyboard.press("ArrowDown")  # down from 9H: the next letters go down from 10H
    page.keyboard.type("os")
    page.wait_for_function("() => document.querySelector('#cgp').value.split('/').slice(9, 11).join('/') === '7O7/7S7'")
    page.click("#clear")
    assert page.errors == []


def test_palette_values_clear_of_two_letter_tiles(page):
    """CH, LL and RR in the palette: the letters and the value do not overlap."""
    page.click('#tabs button[data-view="position"]')
    for tile in ("[CH]", "[LL]", "[RR]", "Ñ"):
        btn = page.locator(f'#palette button[data-tile="{tile}"]')
        letters, value, box = btn.locator(".l").bounding_box(), btn.locator("sub").bounding_box(), btn.bounding_box()
        # the letters end left of the value, and both lie inside the button
        assert letters["x"] + letters["width"] <= value["x"] + 0.5, tile
        assert box["x"] <= letters["x"] and value["x"] + value["width"] <= box["x"] + box["width"], tile


def test_arrow_keys_step_after_ticking_analyse(page, shots):  # noqa: F811
    """Tick "analyse", upload a record: the focus stays on the box or the file chosen, and the
    arrow keys step through the game all the same."""
    page.click('#tabs button[data-view="game"]')
    default = page.input_value("#engine")
    page.select_option("#engine", "greedy")  # the quickest analysis: the keys are what is tested
    page.check("#gcg-analyze")
    page.set_input_files("#gcg-file", str(CASES / "es" / "001.gcg"))
    page.wait_for_function("() => document.querySelector('#game-head').textContent.includes('engine')", timeout=120_000)
    assert page.evaluate("document.activeElement.tagName") == "INPUT"  # the page was not clicked elsewhere
    assert page.inner_text("#turn-no") == "turn 1 of 23"
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert page.inner_text("#turn-no") == "turn 4 of 23"
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#turn-no") == "turn 3 of 23"
    _shoot(page, shots, "game-analysed")
    page.uncheck("#gcg-analyze")
    page.select_option("#engine", default)
    assert page.errors == []


def test_bad_input_is_answered_next_to_its_field(page, shots):  # noqa: F811
    """Rack, CGP and a GCG upload: the message beside the field, the text as typed."""
    page.click('#tabs button[data-view="position"]')
    page.fill("#rack", "AEIW")
    page.click("#rank")
    page.wait_for_function("() => document.querySelector('#rack-error').textContent.includes('is not a tile')")
    assert page.input_value("#rack") == "AEIW" and page.inner_text("#pos-error") == ""
    _shoot(page, shots, "position-rack-error")
    page.fill("#rack", "ÑÑ")  # Spanish has one Ñ
    page.click("#rank")
    page.wait_for_function("() => document.querySelector('#rack-error').textContent.includes('more Ñ')")
    assert page.inner_text("#pos-error") == ""
    page.fill("#rack", "")
    page.click("#rank")
    assert page.inner_text("#rack-error").startswith("Type a rack first")
    page.fill("#rack", "AEIRS")  # typing clears the message
    assert page.inner_text("#rack-error") == ""
    page.click("#cgp-box summary")
    page.fill("#cgp", "15/15 AB/ 0/0 0")
    page.click("#load-cgp")
    page.wait_for_function("() => document.querySelector('#cgp-error').textContent.includes('rows')")
    assert page.input_value("#cgp") == "15/15 AB/ 0/0 0" and page.inner_text("#pos-error") == ""
    page.click("#cgp-box summary")
    page.click('#tabs button[data-view="game"]')
    page.set_input_files("#gcg-file", files=[{"name": "bad.gcg", "mimeType": "text/plain",
                                              "buffer": b"#player1 a A\n#player2 b B\n>a: ABC 8H NOTHING +5 5\n"}])
    page.wait_for_function("() => document.querySelector('#gcg-file-error').textContent.includes('bad.gcg')")
    assert page.inner_text("#game-error") == ""
    assert page.errors == []


def _click_rack_tile(page, letter):
    """Click the first tile of the rack showing ``letter`` that is not on the board yet."""
    idx = page.evaluate("""(letter) => { for (const g of document.querySelectorAll('#play-rack g.tile')) {
        if (g.textContent.startsWith(letter) && !g.classList.contains('used')) return g.getAttribute('data-sq'); } }""",
                        letter)
    assert idx, f"no {letter} left on the rack"
    page.mouse.click(*_centre(page, f'#play-rack g.tile[data-sq="{idx}"]'))


def test_play_view_places_a_two_letter_tile_and_a_blank_by_clicks(page):
    """Seed 23 deals AC[CH]EHU?: the CH tile clicked then 8H writes [CH]; the blank asks its
    letter (LL: [ll], lower case), a letter the game lacks is refused next to the move and the
    blank stays on the rack."""
    page.click('#tabs button[data-view="play"]')
    page.fill("#play-seed", "23")
    page.click("#play-new")
    page.wait_for_function("() => document.querySelector('#play-status').textContent === 'your turn'"
                           " && S.play.rack.includes('[CH]')")
    _click_rack_tile(page, "CH")
    page.mouse.click(*_centre(page, '#play-board rect.sq[data-sq="8H"]'))
    assert page.input_value("#play-move") == "8H [CH]"
    page.once("dialog", lambda d: d.accept("w"))
    _click_rack_tile(page, "?")
    page.mouse.click(*_centre(page, '#play-board rect.sq[data-sq="8I"]'))
    assert page.inner_text("#play-move-error") == "w is not a letter of this game; the blank stays on the rack."
    assert page.input_value("#play-move") == "8H [CH]" and page.locator("#play-rack g.tile.used").count() == 1
    page.once("dialog", lambda d: d.accept("ll"))
    _click_rack_tile(page, "?")
    page.mouse.click(*_centre(page, '#play-board rect.sq[data-sq="8I"]'))
    assert page.input_value("#play-move") == "8H [CH][ll]" and page.inner_text("#play-move-error") == ""
    page.click("#play-clear")
    assert page.input_value("#play-move") == "" and page.locator("#play-rack g.tile.used").count() == 0
    assert page.errors == []


def test_play_view_by_clicks_to_the_end(page, shots, server):  # noqa: F811
    page.click('#tabs button[data-view="play"]')
    page.fill("#play-seed", str(SEED))
    page.fill("#play-name", "***")  # not a name: refused next to the field, kept
    page.click("#play-new")
    page.wait_for_function("() => document.querySelector('#play-name-error').textContent.includes('letter or digit')")
    assert page.input_value("#play-name") == "***"
    page.fill("#play-name", "Ana")
    page.click("#play-new")
    page.wait_for_function("() => document.querySelector('#play-status').textContent === 'your turn'")
    assert page.locator(".score span").all_inner_texts() == ["Ana", "heuri"]
    # the record can be downloaded before any move: your name on the #player line
    href = page.get_attribute("#play-download", "href")
    gcg = page.request.get(server + href).text()
    assert "#player1 you Ana\n" in gcg and ">" not in gcg
    # the hint: heuri's best for your rack, shown, not played
    page.click("#play-hint")
    page.wait_for_function("() => document.querySelector('#play-hint-text').textContent.startsWith('Hint:')")
    assert page.inner_text("#play-hint-text").startswith(f"Hint: {FIRST}, 78 points (equity ")
    assert page.evaluate("S.play.turn") == 0
    # a bad move: the message next to the move, the text kept
    page.fill("#play-move", "8G ZZZ")
    page.press("#play-move", "Enter")
    page.wait_for_function("() => document.querySelector('#play-move-error').textContent !== ''")
    assert page.input_value("#play-move") == "8G ZZZ" and page.inner_text("#play-error") == ""
    page.fill("#play-ex", "ZZ")
    page.click("#play-exchange")
    page.wait_for_function("() => document.querySelector('#play-ex-error').textContent !== ''")
    assert page.input_value("#play-ex") == "ZZ"
    page.fill("#play-ex", "")
    page.click("#play-clear")
    # the first move by clicks: a rack tile, then its square (the first one the centre star)
    word = FIRST.split()[1]
    for k, letter in enumerate(word):
        _click_rack_tile(page, letter)
        page.mouse.click(*_centre(page, f'#play-board rect.sq[data-sq="8{chr(ord("H") + k)}"]'))
    assert page.input_value("#play-move") == FIRST
    assert page.locator("#play-board g.pending").count() == 7 and page.locator("#play-rack g.tile.used").count() == 7
    _shoot(page, shots, "play-placed")
    page.click("#play-go")
    page.wait_for_function("() => document.querySelectorAll('#play-history tbody tr').length === 2")
    assert page.inner_text("#play-review") == f"heuri would have played the same: {FIRST}, 78 points."
    assert page.locator("#play-board g.pending").count() == 0 and page.input_value("#play-move") == ""
    # one tile placed by clicks, then turned down by the arrow button: the word runs through
    # the tiles on the board below it; Escape takes it back
    letter = page.evaluate("[...document.querySelectorAll('#play-rack g.tile text')].map(x => x.textContent)"
                           ".find(x => x !== '?')")
    tok = f"[{letter}]" if len(letter) > 1 else letter
    _click_rack_tile(page, letter)
    page.mouse.click(*_centre(page, '#play-board rect.sq[data-sq="7H"]'))
    assert page.input_value("#play-move") == f"7H {tok}"
    page.click("#play-dir")
    assert page.input_value("#play-move").startswith(f"H7 {tok}..")  # 8H T and 9H E (heuri's 9G AEDA)
    page.locator("#play-board").hover()
    page.keyboard.press("Escape")
    assert page.input_value("#play-move") == "" and page.locator("#play-board g.pending").count() == 0
    # the rest of the game: heuri's best each turn, played through the page's own functions
    page.evaluate("""async () => { while (!S.play.over) {
        const b = await api('/api/best', { lang: S.play.lang, cgp: S.play.cgp, top: 1 });
        await playMove(b.rows[0].move); } }""")
    page.wait_for_function("() => document.querySelector('#play-status').textContent === 'game over'")
    hist = page.evaluate("S.play.history")
    scores = page.evaluate("S.play.scores")
    ends = [h for h in hist if h["kind"] in ("end_points", "end_penalty")]
    assert [(h["nick"], h["move"], h["score"]) for h in ends] == [("heuri", "(CDT)", 6), ("you", "(CDT)", -6)]
    assert hist[-2:] == ends  # the list ends with the racks left
    for who in ("you", "heuri"):  # the list's last totals are the scoreboard's
        assert [h["total"] for h in hist if h["nick"] == who][-1] == scores[who]
    assert page.locator("#play-history tbody tr.endrow").count() == 2
    top = page.locator("#play-history tbody tr").first.locator("td")
    assert top.nth(2).inner_text() == "(CDT)" and top.nth(4).inner_text() == str(scores["you"])
    assert [int(x) for x in page.locator(".score b").all_inner_texts()] == [scores["you"], scores["heuri"]]
    gcg = page.request.get(server + page.get_attribute("#play-download", "href")).text()
    assert gcg.splitlines()[-2:] == [f">heuri: (CDT) +6 {scores['heuri']}", f">you: CDT (CDT) -6 {scores['you']}"]
    _shoot(page, shots, "play-over")
    assert page.errors == []
