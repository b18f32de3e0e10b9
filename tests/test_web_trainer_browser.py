"""The web board's Duplicate view in a real browser (Debian's chromium, headless, through
Playwright, as tests/test_web_browser.py; skipped, saying why, without them).

For a French and a Spanish master game of a known seed, two turns are trained: the first
move typed, the second placed by clicking the tiles of the draw and the squares of the
board (the middle of premium squares included); after each, the top and the running
percentage; then the sheet is downloaded and read by ``heuri duplicate score``'s reader
and arbitrator, which give the page's totals. Screenshots at 1280×900 and 390×844 go to
``$HEURI_SCREENSHOTS`` (else pytest's temporary folder; the paths are printed).
"""
from __future__ import annotations

import socket
import threading
import time
import warnings

import pytest

from test_report_browser import browser, shots  # noqa: F401 (fixtures: headless chromium, the screenshot folder)

pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install -e .[web])")

# seed, the typed move (turn 1) and its points, the squares clicked (turn 2) and the move
# they make, each turn's top and points (heuri duplicate new --lang L --seed S)
# (squares named as the board's rect data-sq, GCG: row number, column letter); the Spanish
# run writes FISF coordinates (row letter first = across), the sheet holds GCG
GAMES = {
    "fr": dict(seed=1, notation="gcg", draw1="EEGJMUV", typed="8H JUGE", typed_gcg="8H JUGE", typed_pts=24,
               top1=("8D JUGEE", 42), draw2="MV+AEINQ",
               clicks=[("V", "3E"), ("A", "4E"), ("I", "5E"), ("N", "6E"), ("Q", "7E"), ("E", "9E")],
               clicked="E3 VAINQUE", clicked_gcg="E3 VAINQUE", top2=("E3 VAINQ(U)E", 34), percent="76.3"),
    "es": dict(seed=3, notation="fisf", draw1="A[CH]DESST", typed="H4 [CH]ESAS", typed_gcg="8D [CH]ESAS",
               typed_pts=28, top1=("H4 CHESAS", 28), draw2="DT+AAEIN",
               clicks=[("T", "1H"), ("A", "2H"), ("N", "3H"), ("D", "4H"), ("E", "5H"), ("A", "6H"), ("I", "7H")],
               clicked="8A TANDEAIS", clicked_gcg="H1 TANDEAIS", top2=("8A TANDEAIS", 83), percent="100.0"),
}


@pytest.fixture(scope="module")
def server(pack_es, pack_fr):
    import uvicorn

    from heuri.web.app import create_app
    from heuri.web.service import Service

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = create_app(Service(packs={"es": pack_es, "fr": pack_fr}))  # the trainer needs no evaluator: no warm-up
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


def _click_square(page, sq: str) -> None:
    """A click in the middle of a board square, as a person makes it (a premium square's
    label included)."""
    b = page.locator(f'#tr-board rect.sq[data-sq="{sq}"]').bounding_box()
    page.mouse.click(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)


@pytest.mark.parametrize("lang", ["fr", "es"])
def test_train_two_turns_and_download_the_sheet(lang, server, browser, shots, tmp_path, request):  # noqa: F811
    from heuri.arbitration import read_sheets
    from heuri.duplicate import arbitrate, master_game

    G = GAMES[lang]
    pack = request.getfixturevalue(f"pack_{lang}")
    page = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto(server + "/")
        page.wait_for_selector("#pos-board svg rect.sq")
        page.select_option("#lang", lang)
        page.click('#tabs button[data-view="trainer"]')
        assert page.is_visible("#view-trainer #tr-start")
        assert page.input_value("#tr-seconds") == "180"  # 3 minutes a turn, as in clubs
        page.fill("#tr-seed", str(G["seed"]))
        page.select_option("#tr-notation", G["notation"])
        page.click("#tr-start")
        page.wait_for_selector("#tr-draw button.tilebtn")
        assert page.inner_text("#tr-drawtext").endswith(G["draw1"])
        assert page.inner_text("#tr-clock") in ("3:00", "2:59", "2:58")
        assert page.locator("#tr-draw button.tilebtn").count() == 7
        # the board's coordinates as the notation writes them: FISF rows A-O, columns 1-15
        labels = page.eval_on_selector_all("#tr-board svg > text", "ts => ts.slice(0, 4).map(t => t.textContent)")
        assert labels == (["1", "A", "2", "B"] if G["notation"] == "fisf" else ["A", "1", "B", "2"])
        # turn 1: typed
        page.fill("#tr-move", G["typed"])
        page.press("#tr-move", "Enter")
        page.wait_for_selector("#tr-top")
        top, pts = G["top1"]
        assert f"{top}, {pts} points" in page.inner_text("#tr-top")
        assert f"{G['typed']}: {G['typed_pts']} points" in page.inner_text("#tr-yours")
        assert page.locator("#tr-history tbody tr").count() == 1
        # turn 2: the board has the top; the move placed by clicks
        page.click("#tr-next")
        page.wait_for_function(f"() => document.querySelector('#tr-drawtext').textContent.endsWith('{G['draw2']}')")
        from heuri.formats.render import parse_move_text

        first = parse_move_text(top, pack.spec, coords="fisf" if G["notation"] == "fisf" else "standard")
        assert page.locator("#tr-board g.tile").count() == sum(first.new)
        for tile, sq in G["clicks"]:
            page.locator(f'#tr-draw button[data-tile="{tile}"]:not([disabled])').first.click()
            _click_square(page, sq)
        assert page.input_value("#tr-move") == G["clicked"]
        assert page.locator("#tr-board g.tent").count() == len(G["clicks"])
        shot = shots / f"serve-trainer-{lang}-turn.png"
        page.screenshot(path=str(shot))
        print(f"screenshot: {shot}")
        page.click("#tr-submit")
        page.wait_for_function("() => document.querySelector('#tr-head').textContent.includes('· you')"
                               " && document.querySelector('#tr-history tbody').children.length === 2")
        top2, pts2 = G["top2"]
        assert "the top!" in page.inner_text("#tr-yours")
        you = G["typed_pts"] + pts2
        total = G["top1"][1] + pts2
        assert page.inner_text("#tr-total").startswith(f"So far: you {you} of {total} points ({G['percent']} %)")
        shot = shots / f"serve-trainer-{lang}-result.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"screenshot: {shot}")
        # the sheet, as heuri duplicate score reads it: the same totals
        with page.expect_download() as dl:
            page.click("#tr-sheet")
        sheet = tmp_path / "sheet.csv"
        dl.value.save_as(str(sheet))
        game = master_game(pack, seed=G["seed"], explain=False)
        subs = read_sheets([sheet], game)
        assert subs == {"me": {1: (G["typed_gcg"], G["typed_pts"]), 2: (G["clicked_gcg"], pts2)}}
        (res,) = arbitrate(game, subs, pack.words)
        assert (res.total, res.tops, [v.points for v in res.verdicts[:2]]) == (you, 1 + (G["typed_pts"] == pts), [G["typed_pts"], pts2])
        # a phone's screen
        page.set_viewport_size({"width": 390, "height": 844})
        shot = shots / f"serve-trainer-{lang}-phone.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"screenshot: {shot}")
        assert errors == []
    finally:
        page.close()


def test_a_master_games_record_uploaded(server, browser, shots, pack_fr, tmp_path):  # noqa: F811
    """A master game written by heuri duplicate new, chosen as a file: its draws, whatever
    the language chosen at the top; a move not written as a move is refused beside the field
    and stays there to be corrected; a blank placed by clicks and its letter chosen; every
    turn at the top, to the summary."""
    from heuri.duplicate import master_game, to_gcg
    from heuri.gcg import write_gcg

    rec = tmp_path / "fr-2.gcg"
    rec.write_text(write_gcg(to_gcg(master_game(pack_fr, seed=2, explain=False))), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(server + "/")
        page.wait_for_selector("#pos-board svg rect.sq")
        page.select_option("#lang", "es")
        page.click('#tabs button[data-view="trainer"]')
        page.set_input_files("#tr-master", str(rec))
        assert page.inner_text("#tr-lang") == "The master game's record says its language and lexicon."
        page.select_option("#tr-seconds", "60")
        page.click("#tr-start")
        page.wait_for_selector("#tr-draw button.tilebtn")
        assert page.inner_text("#tr-drawtext").endswith("BEFILTT")
        assert page.inner_text("#tr-head").endswith(f"· fr, lexicon {pack_fr.spec.lexicon}")  # the record's, not es
        assert page.inner_text("#tr-clock") in ("1:00", "0:59", "0:58")
        page.fill("#tr-move", "FILET")
        page.click("#tr-submit")
        page.wait_for_function("() => document.querySelector('#tr-move-error').textContent.includes('coordinate')")
        assert page.input_value("#tr-move") == "FILET" and not page.is_visible("#tr-top")
        page.fill("#tr-move", "8D FILET")
        page.press("#tr-move", "Enter")
        page.wait_for_selector("#tr-top")
        assert "8D FILET, 24 points" in page.inner_text("#tr-top") and "the top!" in page.inner_text("#tr-yours")
        # the other turns at the top, to the summary
        game = master_game(pack_fr, seed=2, explain=False)
        for t in game.turns[1:]:
            page.click("#tr-next")
            page.wait_for_function(f"() => document.querySelector('#tr-head').textContent.startsWith('Turn {t.number} ')"
                                   " && !document.querySelector('#tr-move').disabled")
            if t.number == 3:  # H+AEENU?: the blank placed by clicks, its letter chosen
                assert t.top_text(pack_fr.spec) == "10A HAUb.NEE"
                for tile, sq in [("H", "10A"), ("A", "10B"), ("U", "10C"), ("?", "10D"), ("N", "10F"), ("E", "10G"),
                                 ("E", "10H")]:
                    page.locator(f'#tr-draw button[data-tile="{tile}"]:not([disabled])').first.click()
                    _click_square(page, sq)
                    if tile == "?":
                        assert page.input_value("#tr-move") == "" and "blank" in page.inner_text("#tr-move-error")
                        page.click('#tr-blank button[data-letter="B"]')
                assert page.input_value("#tr-move") == "10A HAUbANEE"
                page.click("#tr-submit")
            else:
                page.fill("#tr-move", t.top_text(pack_fr.spec))
                page.press("#tr-move", "Enter")
            page.wait_for_function(f"() => document.querySelector('#tr-history tbody').children.length === {t.number}")
        final = page.inner_text("#tr-final")
        assert final == (f"Game over: you scored {game.total} of the master game's {game.total} points (100.0 %), "
                         f"with {len(game.turns)} tops in {len(game.turns)} turns.")
        assert not page.is_visible("#tr-next") and page.inner_text("#tr-clock") == "Game over"
        shot = shots / "serve-trainer-summary.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"screenshot: {shot}")
        assert errors == []
    finally:
        page.close()
