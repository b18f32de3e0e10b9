"""The web board in French, Spanish and English in a real browser (headless chromium via
Playwright, as tests/test_web_browser.py; skipped, saying why, without them).

A browser whose language is French gets the French board; the switch turns it Spanish,
and the choice is kept for the next visit; English again on request. The Game view heads
a French record with its own language while the board's language is Spanish. A screenshot
of each language is kept under ``$HEURI_SCREENSHOTS`` (else pytest's temporary folder).
"""
from __future__ import annotations

import socket
import threading
import time
import warnings

import pytest

from shared_cases import CASES
from test_report_browser import browser, shots  # noqa: F401 (fixtures: headless chromium, the screenshot folder)

pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install -e .[web])")


@pytest.fixture(scope="module")
def server(pack_es, pack_fr):
    import uvicorn

    from heuri.web.app import create_app
    from heuri.web.service import Service

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        svc = Service(packs={"es": pack_es, "fr": pack_fr})  # Spanish first: the board's default
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


def _open(ctx, url):
    pg = ctx.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" else None)
    pg.goto(url)
    pg.wait_for_selector("#pos-board svg rect.sq")
    pg.wait_for_function("() => document.querySelector('#engine').options.length > 0")
    return pg


def _shot(pg, shots, name):
    """A screenshot of the page kept as ``name`` in the screenshots' folder."""
    shot = shots / name
    pg.screenshot(path=str(shot))
    print(f"screenshot: {shot}")


def _refusal(pg, move):
    """Type ``move`` in the Play view and hand it in: the message shown beside the field."""
    pg.fill("#play-move", move)
    pg.press("#play-move", "Enter")
    pg.wait_for_function("() => document.querySelector('#play-move-error').textContent !== ''")
    return pg.inner_text("#play-move-error")


def _switch(pg, lang):
    """Choose the interface language ``lang`` with the header's switch; the page reloads in it."""
    with pg.expect_navigation():
        pg.select_option("#ui-lang", lang)
    pg.wait_for_function(f"() => document.documentElement.lang === '{lang}'")


def _labels(pg):
    return {"tabs": pg.locator("#tabs button").all_inner_texts(), "rank": pg.inner_text("#rank"),
            "rack": pg.inner_text("label:has(#rack) span"), "lang": pg.evaluate("document.documentElement.lang"),
            "switch": pg.input_value("#ui-lang"), "placeholder": pg.get_attribute("#rack", "placeholder")}


def test_board_speaks_the_browsers_language_and_the_switch_is_kept(server, browser, shots):  # noqa: F811
    ctx = browser.new_context(locale="fr-FR", viewport={"width": 1300, "height": 1000})
    try:
        pg = _open(ctx, server + "/")
        assert _labels(pg) == {"tabs": ["Position", "Partie", "Jouer", "Duplicate"], "rank": "Classer les coups",
                               "rack": "Tirage", "lang": "fr", "switch": "fr", "placeholder": "p. ex. AEIRS[CH]?"}
        assert pg.inner_text("label:has(#edit-blank)").strip() == "en joker"
        assert pg.input_value("#coords") == "fisf"  # a French page writes FISF until told otherwise
        assert pg.inner_text("label:has(#coords) span") == "Coordonnées"
        # the premium squares as the FISF writes them (mot/lettre compte triple/double)
        squares = "() => Array.from(document.querySelectorAll('#pos-board svg text')).map((x) => x.textContent)"
        assert {"MT", "MD", "LT", "LD"} <= set(pg.evaluate(squares)) and "3W" not in pg.evaluate(squares)
        assert pg.locator("#palette button[data-tile='?']").get_attribute("title") == "un joker"
        assert pg.locator("#lang option").first.inner_text() == "espagnol (es)"
        # the rack's example is the board language's: no [CH] on a French board
        pg.select_option("#lang", "fr")
        assert pg.get_attribute("#rack", "placeholder") == "p. ex. AEIRST?"
        pg.select_option("#lang", "es")
        assert pg.get_attribute("#rack", "placeholder") == "p. ex. AEIRS[CH]?"
        # a ranking in French: the count line, and a rack forgotten says so in French
        pg.click("#rank")
        pg.wait_for_function("() => document.querySelector('#rack-error').textContent !== ''")
        assert pg.inner_text("#rack-error") == "Tapez d’abord un tirage (p. ex. AEIRS[CH]?)."  # beside the field
        pg.fill("#rack", "AEIRS[CH]?")
        pg.click("#rank")
        pg.wait_for_function("() => document.querySelector('#moves tbody tr') || document.querySelector('#pos-error').textContent")
        assert pg.inner_text("#pos-error") == ""
        assert "coups candidats" in pg.inner_text("#moves-count")
        _shot(pg, shots, "serve-fr.png")
        # the record's language heads the Game view, not the board's (Spanish here)
        pg.click('#tabs button[data-view="game"]')
        pg.set_input_files("#gcg-file", str(CASES / "fr" / "001.gcg"))
        pg.wait_for_selector("#turns tbody tr")
        assert pg.inner_text("#game-head").startswith("français (fr) · lexique ")
        assert pg.input_value("#lang") == "fr" and pg.locator("#lang").is_disabled()
        assert pg.inner_text("#turn-no").startswith("coup 1 sur ")
        _shot(pg, shots, "serve-fr-game.png")
        pg.click('#tabs button[data-view="position"]')
        assert pg.input_value("#lang") == "es" and not pg.locator("#lang").is_disabled()  # the board's again
        assert pg.errors == []
        # the switch: Spanish, at once and on the next visit
        with pg.expect_navigation():
            pg.select_option("#ui-lang", "es")
        pg.wait_for_function("() => document.documentElement.lang === 'es'")
        pg.wait_for_selector("#pos-board svg rect.sq")
        assert _labels(pg)["tabs"] == ["Posición", "Partida", "Jugar", "Duplicada"] and pg.inner_text("#rank") == "Ordenar jugadas"
        pg.close()
        pg = _open(ctx, server + "/")
        pg.wait_for_function("() => document.documentElement.lang === 'es'")
        assert _labels(pg) == {"tabs": ["Posición", "Partida", "Jugar", "Duplicada"], "rank": "Ordenar jugadas",
                               "rack": "Atril", "lang": "es", "switch": "es", "placeholder": "p. ej. AEIRS[CH]?"}
        pg.click('#tabs button[data-view="play"]')
        pg.fill("#play-seed", "3")
        pg.click("#play-new")
        pg.wait_for_function("() => document.querySelector('#play-status').textContent === 'le toca'")
        assert pg.locator("#play-scores .score span").first.inner_text() == "usted"
        labels = pg.evaluate("() => Array.from(document.querySelectorAll('#play-board svg text')).map((x) => x.textContent)")
        assert {"TP", "DP", "TL", "DL"} <= set(labels) and "2L" not in labels
        assert pg.inner_text("h3:has(#play-bag)").startswith("Fichas por salir (bolsa ")
        pg.click("#play-infer")  # before heuri's first move: said at once, in the page's language
        assert pg.inner_text("#play-infer-text") == "heuri aún no ha jugado."
        _shot(pg, shots, "serve-es.png")
        # what heuri may hold after its first move (heuri starts this game)
        pg.select_option("#play-first", "heuri")
        pg.click("#play-new")
        pg.wait_for_function("() => document.querySelector('#play-status').textContent === 'le toca'")
        pg.click("#play-infer")
        pg.wait_for_function("() => document.querySelector('#play-infer-text').textContent.startsWith('Tras ')")
        text = pg.inner_text("#play-infer-text")
        assert "heuri probablemente se quedó con:" in text and "(antes de su jugada " in text
        _shot(pg, shots, "serve-es-infer.png")
        # and English: the page comes back on the view it was showing
        with pg.expect_navigation():
            pg.select_option("#ui-lang", "en")
        pg.wait_for_function("() => document.documentElement.lang === 'en'")
        pg.wait_for_selector("#view-play.on")
        pg.click('#tabs button[data-view="position"]')
        pg.wait_for_selector("#pos-board svg rect.sq")
        assert _labels(pg) == {"tabs": ["Position", "Game", "Play", "Duplicate"], "rank": "Rank moves", "rack": "Rack",
                               "lang": "en", "switch": "en", "placeholder": "e.g. AEIRS[CH]?"}
        _shot(pg, shots, "serve-en.png")
        assert pg.errors == []
    finally:
        ctx.close()


def test_the_duplicate_trainer_speaks_the_page_language(server, browser, shots):  # noqa: F811
    """The trainer's form is built once the page's catalogue is loaded: its labels in
    French (Spanish after the switch), and a French page's trainer writes FISF by default."""
    ctx = browser.new_context(locale="fr-FR", viewport={"width": 1300, "height": 900})
    try:
        pg = _open(ctx, server + "/")
        pg.click('#tabs button[data-view="trainer"]')
        assert pg.inner_text("#tr-start") == "Commencer une partie"
        assert pg.input_value("#tr-notation") == "fisf"
        assert pg.locator("#tr-seed").get_attribute("placeholder") != "random"
        with pg.expect_navigation():
            pg.select_option("#ui-lang", "es")
        pg.wait_for_function("() => document.documentElement.lang === 'es'")
        pg.wait_for_selector("#tr-start", state="attached")
        assert pg.text_content("#tr-start") == "Empezar una partida"
        assert pg.input_value("#tr-notation") == "gcg"  # a Spanish page: standard coordinates
        assert pg.errors == []
    finally:
        ctx.close()


def test_refusals_are_said_in_the_page_language(server, browser, shots):  # noqa: F811
    """The server's refusals (a word not in the list, a coordinate it cannot read, a rack of
    too many tiles) beside the field, in the page's language, with the move as typed; the
    text typed stays in the field."""
    ctx = browser.new_context(locale="fr-FR", viewport={"width": 1300, "height": 1000})
    try:
        pg = _open(ctx, server + "/")
        pg.fill("#rack", "AEIOUBCDX")
        pg.click("#rank")
        pg.wait_for_function("() => document.querySelector('#rack-error').textContent !== ''")
        assert pg.inner_text("#rack-error") == ("Le tirage AEIOUBCDX compte 9 lettres ; un tirage en compte 7. Écrivez "
                                                "entre crochets une lettre de plusieurs caractères : [CH], [LL], [RR].")
        pg.click('#tabs button[data-view="play"]')
        pg.fill("#play-seed", "3")
        pg.click("#play-new")
        pg.wait_for_function("() => document.querySelector('#play-status').textContent === 'à vous'")
        # FISF on a French page: down from H8, over the centre
        assert _refusal(pg, "8H SRIA") == "8H SRIA forme un mot absent du lexique : SRIA."
        assert pg.input_value("#play-move") == "8H SRIA"
        _shot(pg, shots, "serve-fr-refusal.png")
        _switch(pg, "es")
        pg.wait_for_selector("#view-play.on")
        pg.fill("#play-seed", "3")
        pg.click("#play-new")
        pg.wait_for_function("() => document.querySelector('#play-status').textContent === 'le toca'")
        assert _refusal(pg, "99 SOL") == ("99 no es una coordenada: escribe la casilla como 8H para una "
                                          "palabra horizontal, H8 para una vertical.")
        # the browser logs each refusal's 400; nothing else went wrong
        assert [e for e in pg.errors if "status of 400" not in e] == []
    finally:
        ctx.close()


def test_a_records_warning_is_said_in_the_page_language(server, browser, shots, tmp_path):  # noqa: F811
    """A record that does not name its language is refused in the page's language; once the
    language is chosen, the Game view's count of the record's warnings and the first of them
    (a score the record gives and heuri does not: 8H ENTRAIS is 7 × 2 doubled + 50 = 66) in
    French, its move in the French federation's coordinates, then in Spanish."""
    record = tmp_path / "score.gcg"
    record.write_text("#player1 p1 Un\n#player2 p2 Deux\n>p1: AEINRST 8H ENTRAIS +60 60\n", encoding="utf-8")

    def load(refused=False):
        pg.set_input_files("#gcg-file", str(record))
        if refused:
            pg.wait_for_function("() => document.querySelector('#gcg-file-error').textContent")
        else:
            pg.wait_for_selector("#turns tbody tr")

    ctx = browser.new_context(locale="fr-FR", viewport={"width": 1300, "height": 1000})
    try:
        pg = _open(ctx, server + "/")
        pg.click('#tabs button[data-view="game"]')
        load(refused=True)
        assert pg.inner_text("#gcg-file-error") == ("score.gcg ne dit pas sa langue (aucun #lexicon ni "
                                                    "#tile-distribution ne la nomme) : choisissez-la sous Langue.")
        pg.select_option("#gcg-lang", "fr")
        pg.click("#gcg-load")  # the same file again: the field does not change
        pg.wait_for_selector("#turns tbody tr")
        # the move in the French federation's coordinates
        assert "1 avertissement(s) : ligne 3 : p1 H8 ENTRAIS : noté 60, heuri compte 66." in pg.inner_text("#turn-info")
        _shot(pg, shots, "serve-fr-game-warning.png")
        _switch(pg, "es")
        pg.click('#tabs button[data-view="game"]')
        pg.select_option("#gcg-lang", "fr")
        load()
        assert "1 aviso(s): línea 3: p1 8H ENTRAIS: anotado 60, heuri cuenta 66." in pg.inner_text("#turn-info")
        assert [e for e in pg.errors if "status of 400" not in e] == []
    finally:
        ctx.close()


def test_a_record_longer_than_a_game_is_refused_in_the_page_language(server, browser, shots, tmp_path):  # noqa: F811
    """A record of 301 moves is refused (422) with the count the server gives, in French, then
    in Spanish: the Game view's message filled from the refusal's parts."""
    record = tmp_path / "long.gcg"
    record.write_text("#player1 p1 Un\n#player2 p2 Deux\n" + "".join(f">p{i % 2 + 1}: AEINRST - +0 0\n"
                                                                     for i in range(301)), encoding="utf-8")
    ctx = browser.new_context(locale="fr-FR", viewport={"width": 1300, "height": 1000})
    try:
        pg = _open(ctx, server + "/")
        said = {"fr": "long.gcg compte plus de 300 coups ; une vraie partie en a de 20 à 60, un enregistrement "
                      "aussi long est donc refusé.",
                "es": "long.gcg tiene más de 300 jugadas; una partida real tiene de 20 a 60, así que un registro "
                      "tan largo se rechaza."}
        for lang in ("fr", "es"):
            if lang != "fr":
                _switch(pg, lang)
            pg.click('#tabs button[data-view="game"]')
            pg.set_input_files("#gcg-file", str(record))
            pg.wait_for_function("() => document.querySelector('#gcg-file-error').textContent")
            assert pg.inner_text("#gcg-file-error") == said[lang]
            _shot(pg, shots, f"serve-{lang}-game-too-long.png")
        assert [e for e in pg.errors if "status of 422" not in e] == []
    finally:
        ctx.close()


def test_think_longer_in_three_languages(server, browser, shots):  # noqa: F811
    """"Think longer" on a Spanish position: the race's table under the ranking, its button,
    its columns and its summary in French, then Spanish, then English; a screenshot each."""
    cgp = "/".join(["15"] * 7 + ["4CASAS6"] + ["15"] * 7) + " AEIRSTU/ 0/0 0"
    ctx = browser.new_context(locale="fr-FR", viewport={"width": 1300, "height": 1100})
    try:
        pg = _open(ctx, server + "/")
        for lang, button, summary in (("fr", "Réfléchir plus longtemps", "simulations en"),
                                      ("es", "Pensar más", "simulaciones en"),
                                      ("en", "Think longer", "rollouts in")):
            if lang != "fr":
                with pg.expect_navigation():
                    pg.select_option("#ui-lang", lang)
                pg.wait_for_function(f"() => document.documentElement.lang === '{lang}'")
                pg.wait_for_selector("#pos-board svg rect.sq")
            pg.click("#cgp-box summary")
            pg.fill("#cgp", cgp)
            pg.click("#load-cgp")
            pg.wait_for_function("() => document.querySelector('#rack').value === 'AEIRSTU'")
            pg.click("#rank")
            pg.wait_for_selector("#think-box:not([hidden])")
            assert pg.inner_text("#think") == button
            assert pg.input_value("#think-seconds") == "3"
            pg.click("#think")
            pg.wait_for_selector("#think-table:not([hidden])", timeout=30_000)
            rows = pg.locator("#think-table tbody tr")
            assert rows.count() == 8
            assert summary in pg.inner_text("#think-status")
            first = rows.first
            assert "out" not in (first.get_attribute("class") or "")  # the choice is still in the race
            assert int(first.locator("td").nth(4).inner_text()) >= 2  # its rollouts: a mean ± its error
            assert " ± " in first.locator("td.v").inner_text()
            moves = pg.locator("#moves tbody tr td.mv").all_inner_texts()
            assert first.locator("td.mv").inner_text() in moves
            first.click()  # a raced move is previewed on the board, as a ranked one is
            pg.wait_for_selector("#preview:not([hidden])")
            assert pg.inner_text("#preview-text").startswith(first.locator("td.mv").inner_text())
            # the row clicked is marked, and so is the same move in the ranking
            assert "on" in first.get_attribute("class").split()
            assert pg.locator("#moves tbody tr.on td.mv").first.inner_text() == first.locator("td.mv").inner_text()
            ranked = pg.eval_on_selector_all("#moves tbody tr", "trs => trs.map(tr => tr.querySelector('td.mv').textContent)")
            other = next(k for k, w in enumerate(ranked) if w != first.locator("td.mv").inner_text())
            pg.locator("#moves tbody tr").nth(other).click()  # another ranked move: the race's mark moves with it
            pg.wait_for_function("() => !document.querySelector('#think-table tbody tr:first-child').classList.contains('on')")
            pg.locator("#think-box").scroll_into_view_if_needed()
            _shot(pg, shots, f"serve-think-{lang}.png")
        assert pg.errors == []
    finally:
        ctx.close()
