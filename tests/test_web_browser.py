"""``heuri serve`` in a real browser: Debian's chromium, headless, driven by Playwright
(as tests/test_report_browser.py; skipped, saying why, without them).

A server runs in a thread on a free port (Spanish, the session's pack). The test enters a
Spanish rack with [CH] (from the tile palette) and a blank, sees the top move equal to
``heuri best`` for the same position, puts it on the board, edits a square, steps through
a shared record (uploaded) with the arrow keys, and plays five turns against heuri. A screenshot of
each view is kept under ``$HEURI_SCREENSHOTS`` (else pytest's temporary folder; the paths
are printed).
"""
from __future__ import annotations

import json
import socket
import threading
import time
import warnings

import pytest

from shared_cases import CASES
from test_report_browser import browser, shots  # noqa: F401 (fixtures: headless chromium, the screenshot folder)

pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install -e .[web])")


@pytest.fixture(scope="module")
def server(pack_es):
    import uvicorn

    from heuri.web.app import create_app
    from heuri.web.service import Service

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        svc = Service(packs={"es": pack_es})
        svc.warm_up()
        app = create_app(svc)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    th.join(10)


@pytest.fixture(scope="module")
def page(server, browser):  # noqa: F811 (the report test's chromium fixture)
    pg = browser.new_page(viewport={"width": 1300, "height": 1000})
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    # the page runs under the server's Content-Security-Policy: a blocked script, style or
    # image is a console error (the waits below are functions, not strings to eval)
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" and "Content Security Policy" in m.text
          else None)
    pg.goto(server + "/")
    pg.wait_for_selector("#pos-board svg rect.sq")
    try:
        yield pg
    finally:
        pg.close()


def test_position_view(page, shots, capsys):  # noqa: F811
    from heuri.cli import main

    page.click("#rack")
    page.keyboard.type("AEIRS")
    page.click('#palette button[data-tile="[CH]"]')
    page.keyboard.type("?")  # the rack keeps the focus: the palette adds to it
    assert page.input_value("#rack") == "AEIRS[CH]?"
    page.click("#rank")
    page.wait_for_selector("#moves tbody tr")
    cgp = page.input_value("#cgp")
    capsys.readouterr()
    assert main(["best", "--lang", "es", "--cgp", cgp, "--json", "--top", "1"]) == 0
    top = json.loads(capsys.readouterr().out.splitlines()[0])
    first = page.locator("#moves tbody tr").first
    # the move as people read it (the word field; "move" keeps GCG's brackets)
    assert top["move"] == "8D [CH]ER[ch]AIS"
    assert first.locator("td.mv").first.inner_text() == top["word"] == "8D CHERchAIS"
    assert first.locator("td").nth(2).inner_text() == str(top["score"]) == "80"
    first.click()
    page.wait_for_selector("#preview:not([hidden])")
    assert page.locator("#pos-board g.tile.played").count() == 7
    page.check("#lanes")  # the overlay: lanes drawn on the preview's empty squares
    page.click("#apply")
    page.wait_for_function("() => document.querySelector('#cgp').value.includes('3[CH]ER[ch]AIS5')")
    assert page.locator("#pos-board g.tile").count() == 7 and page.input_value("#rack") == ""
    assert page.locator("#pos-board rect.lane").count() > 20
    # edit the board: a click on 9H, a letter, then the same square cleared
    page.click('#pos-board rect.sq[data-sq="9H"]')
    page.keyboard.press("s")
    page.wait_for_function("() => document.querySelector('#cgp').value.split('/')[8] === '7S7'")
    page.keyboard.press("Backspace")
    page.wait_for_function("() => document.querySelector('#cgp').value.split('/')[8] === '15'")
    page.fill("#rack", "DEJOQUS")
    page.click("#rank")
    page.wait_for_function("() => (document.querySelector('#moves tbody tr td.mv') || {}).textContent === 'E3 DESQU(E)JO'")
    page.locator("#moves tbody tr").first.click()
    page.wait_for_selector("#preview:not([hidden])")
    # the French federation's coordinates: the same move as 5C (column 5, row C, down)
    page.select_option("#coords", "fisf")
    page.wait_for_function("() => (document.querySelector('#moves tbody tr td.mv') || {}).textContent === '5C DESQU(E)JO'")
    page.locator("#moves tbody tr").first.click()
    page.wait_for_function("() => document.querySelector('#preview-text').textContent.startsWith('5C DESQU(E)JO: ')")
    shot = shots / "serve-position-fisf.png"
    page.screenshot(path=str(shot))
    print(f"screenshot: {shot}")
    page.select_option("#coords", "standard")
    page.wait_for_function("() => (document.querySelector('#moves tbody tr td.mv') || {}).textContent === 'E3 DESQU(E)JO'")
    page.locator("#moves tbody tr").first.click()
    page.wait_for_selector("#preview:not([hidden])")
    shot = shots / "serve-position.png"
    page.screenshot(path=str(shot))
    print(f"screenshot: {shot}")
    # an unknown tile is refused in plain words
    page.fill("#rack", "AEIW")
    page.click("#rank")
    page.wait_for_function("() => document.querySelector('#rack-error').textContent.includes('is not a tile')")
    assert page.errors == []


def test_game_view(page, shots):  # noqa: F811
    cases = CASES
    page.click('#tabs button[data-view="game"]')
    page.set_input_files("#gcg-file", str(cases / "es" / "001.gcg"))  # an upload: read in the page, sent as text
    page.wait_for_selector("#turns tbody tr")
    n = page.locator("#turns tbody tr").count()
    assert n == 23  # es/001: 23 turns (MANIFEST.tsv)
    assert page.inner_text("#turn-no") == f"turn 1 of {n}"
    page.locator("#game-board").click()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert page.inner_text("#turn-no") == f"turn 4 of {n}"
    assert "6G (L)UELLO" in page.inner_text("#turn-info")
    assert page.locator("#game-board g.tile.played").count() == 4  # U E [LL] O around the board's G
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#turn-no") == f"turn 3 of {n}"
    shot = shots / "serve-game.png"
    page.screenshot(path=str(shot))
    print(f"screenshot: {shot}")
    assert page.errors == []


def test_play_view_five_turns(page, shots, server):  # noqa: F811
    page.click('#tabs button[data-view="play"]')
    page.fill("#play-seed", "7")
    page.click("#play-new")
    page.wait_for_function("() => document.querySelector('#play-status').textContent === 'your turn'")
    # a word outside the word list is refused with the reason
    page.fill("#play-move", "8G ZZZ")
    page.press("#play-move", "Enter")
    page.wait_for_function("() => document.querySelector('#play-move-error').textContent !== ''")
    assert page.locator("#play-history tbody tr").count() == 0
    for k in range(5):
        cgp = page.evaluate("S.play.cgp")
        best = page.request.post(server + "/api/best", data={"lang": "es", "cgp": cgp, "top": 1}).json()["rows"][0]
        page.fill("#play-move", best["move"] if k else best["word"])  # the first typed as people write it
        page.press("#play-move", "Enter")
        page.wait_for_function(f"() => document.querySelectorAll('#play-history tbody tr').length === {2 * (k + 1)}")
        assert page.inner_text("#play-error") == page.inner_text("#play-move-error") == ""
    rows = page.locator("#play-history tbody tr")
    assert rows.count() == 10
    assert page.inner_text("#play-lexicon") == f"lexicon {page.evaluate('S.play.lexicon')}" != "lexicon undefined"
    you = int(page.locator(".score").first.locator("b").inner_text())
    assert you == page.evaluate("S.play.history.filter(h => h.nick === 'you').reduce((a, h) => a + h.score, 0)") > 0
    bag = int(page.evaluate("S.play.bag"))
    assert bag == 100 - 14 - sum(int(x) for x in page.evaluate("S.play.history.map(h => h.move.startsWith('-') ? 0 : "
                                                               "h.move.split(' ')[1].replace(/\\./g, '')"
                                                               ".replace(/\\[[^\\]]*\\]/g, 'x').length)"))
    shot = shots / "serve-play.png"
    page.screenshot(path=str(shot))
    print(f"screenshot: {shot}")
    assert page.errors == []


@pytest.fixture(scope="module")
def fr_page(pack_fr, fra24_build, browser):  # noqa: F811
    """The board served with the default French pack and the imported FRA24 pack."""
    import uvicorn

    from heuri.web.app import create_app
    from heuri.web.service import Service

    build, _ = fra24_build
    with warnings.catch_warnings(), pytest.MonkeyPatch.context() as mp:
        warnings.simplefilter("ignore")
        mp.setenv("HEURI_BUILD", str(build))
        mp.delenv("HEURI_LEXICON", raising=False)
        app = create_app(Service(packs={"fr": pack_fr}))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    pg = browser.new_page(viewport={"width": 1300, "height": 1000})
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.goto(f"http://127.0.0.1:{port}/")
    pg.wait_for_selector("#pos-board svg rect.sq")
    try:
        yield pg
    finally:
        pg.close()
        srv.should_exit = True
        th.join(10)


def test_game_view_marks_moves_outside_the_lexicon(fr_page, pack_fr, shots):  # noqa: F811
    """The real FRA24 record answered with the bundled French list (chosen in the page): the
    header names the lexicon, a banner counts the moves outside it, and each such turn reads
    "not in <lexicon>" where the equity lost stands; with the record's own lexicon, none."""
    page = fr_page
    lex = pack_fr.spec.lexicon
    assert not page.locator("#lexicon-box").is_hidden()  # two French packs: a choice
    assert page.locator("#lexicon option").all_inner_texts() == [f"{lex} (default)", "FRA24"]
    page.click('#tabs button[data-view="game"]')
    page.select_option("#gcg-lexicon", label="FRA24 (fr)")
    page.set_input_files("#gcg-file", str(CASES / "fr" / "001.gcg"))
    page.wait_for_selector("#turns tbody tr")
    # the record's language heads the view, and the header's language select shows it too
    assert page.inner_text("#game-head").startswith("French (fr) · lexicon FRA24")
    assert page.input_value("#lang") == "fr" and page.locator("#lang").is_disabled()
    assert page.locator("#game-banner").is_hidden() and page.locator("#turns .badge.offlist").count() == 0
    # the same record answered with the default French list, chosen in the page
    page.select_option("#gcg-lexicon", label=f"{lex} (fr, default)")
    page.check("#gcg-analyze")
    page.select_option("#engine", "greedy")
    page.click("#gcg-load")
    page.wait_for_function("() => document.querySelector('#game-head').textContent.includes('engine')")
    head = page.inner_text("#game-head")
    assert head.startswith(f"French (fr) · lexicon {lex} (the record's: FRA24)")
    banner = page.inner_text("#game-banner")
    n = page.locator("#turns .badge.offlist").count()
    assert n >= 1 and banner.startswith(f"{n} move{'' if n == 1 else 's'} not in {lex}")
    for row in page.locator("#turns tbody tr.offlist").all():
        assert row.locator("td").nth(6).inner_text() == f"not in {lex}"  # the "lost" column
    first = page.locator("#turns tbody tr.offlist").first
    first.click()
    assert f"not in {lex}" in page.inner_text("#turn-info")
    shot = shots / "serve-game-off-list.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot: {shot}")
    assert page.errors == []
