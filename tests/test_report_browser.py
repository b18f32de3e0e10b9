"""The analysis report in a real browser: Debian's chromium, headless, driven by Playwright's
Python package with the system browser (no browser download).

For one real record a language (es, en, fr) the page is loaded from a file; the board, the
turn table and the three plots must be laid out with a non-zero size, stepping to the next
turn must show the next board, and a screenshot of each language is kept under the test's
output folder (``$HEURI_SCREENSHOTS`` if set, else pytest's temporary folder; the paths
are printed). Skipped, saying why, where chromium or Playwright is not installed
(``apt-get install chromium``; ``pip install -e .[browser]``; .ci/run does both).
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from shared_cases import CASES

BROWSER = next((p for p in (os.environ.get("HEURI_CHROMIUM"), shutil.which("chromium"),
                            shutil.which("chromium-browser"), "/usr/bin/chromium") if p and Path(p).is_file()), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"]
RECORDS = {"es": ("es/001.gcg", None), "en": ("en/002.gcg", "en"), "fr": ("fr/001.gcg", None)}


@pytest.fixture(scope="module")
def browser():
    if BROWSER is None:
        pytest.skip("no chromium found (apt-get install chromium, or set HEURI_CHROMIUM)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed "
                                   "(pip install -e .[browser])")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=BROWSER, args=FLAGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    d = Path(os.environ["HEURI_SCREENSHOTS"]) if os.environ.get("HEURI_SCREENSHOTS") else \
        tmp_path_factory.mktemp("screenshots")
    d.mkdir(parents=True, exist_ok=True)
    return d


def _box(el):
    b = el.bounding_box()
    return (b["width"], b["height"]) if b else (0, 0)


@pytest.mark.parametrize("lang", list(RECORDS))
def test_report_renders_in_chromium(lang, browser, shots, tmp_path):
    from heuri.analyze import Analyzer
    from heuri.report import game_html

    cases = CASES
    rec, code = RECORDS[lang]
    g = Analyzer("heuri3").analyze(cases / rec, lang=code, game_id=f"{lang}-report")
    page_file = tmp_path / f"{lang}.html"
    page_file.write_text(game_html(g), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1250, "height": 1500})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(page_file.as_uri())
    # the board of the first turn is the one shown, with 225 squares
    shown = page.locator("section.turn.show")
    assert shown.count() == 1 and shown.get_attribute("data-turn") == "1"
    board = shown.locator(".boardbox svg.board")  # the turn's board (the engine's choice has a small one)
    w, h = _box(board)
    assert w > 300 and h > 300
    assert board.locator("rect.sq").count() == 225
    first = g.views[0].played
    assert board.locator("g.tile.played").count() == (first.n_tiles if first.kind == 0 else 0)
    # the turn table: one row a turn, laid out
    rows = page.locator("#turns tr.turnrow")
    assert rows.count() == len(g.rows)
    assert all(x > 0 for x in _box(page.locator("#turns")))
    # nothing wider than the window: the summary's and the turns' tables wrap their headings
    assert page.evaluate("document.documentElement.scrollWidth") <= 1250
    # the three plots are drawn (Matplotlib SVG with paths inside)
    for name in ("equity", "score", "bingo"):
        svg = page.locator(f"#plot-{name} svg")
        pw, ph = _box(svg)
        assert pw > 200 and ph > 100, name
        assert svg.locator("path").count() > 20, name
    # stepping: the next button shows turn 2, a click on a table row shows that turn
    page.click("#next")
    assert page.locator("section.turn.show").get_attribute("data-turn") == "2"
    rows.nth(4).click()
    assert page.locator("section.turn.show").get_attribute("data-turn") == "5"
    assert errors == []
    page.goto(page_file.as_uri() + "#turn-9")
    shot = shots / f"report-{lang}.png"
    page.locator("section.turn.show").scroll_into_view_if_needed()
    page.screenshot(path=str(shot))
    page.close()
    assert shot.stat().st_size > 20_000
    print(f"screenshot: {shot}")
