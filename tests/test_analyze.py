"""Game analysis (heuri.analyze, heuri.analyze_batch, heuri.report, heuri.render, `heuri analyze`).

Real records from tests/data/gcg (es, en, fr) and a self-play game of heuri3 against
greedy played here from a fixed seed: the engine's own choice loses nothing, greedy's turns
lose equity, a missed bingo is a legal bingo of the move generator, turn counts and scores
are the record's; bad input is reported with the file and line and the batch goes on.
"""
from __future__ import annotations

import json
import re

import numpy as np
import polars as pl
import pytest

from heuri.analyze import ROW_SCHEMA, UNKNOWN_RACK, Analyzer, AnalysisError
from heuri.cli import main
from heuri.evaluate import make_evaluator
from heuri.game import Game
from heuri.gcg import game_to_gcg, read_gcg, write_gcg
from heuri.move import Move
from heuri.movegen import generate
from heuri.players import make_player
from heuri.probability import augmented_bag

from shared_cases import CASES

TURN_KINDS = ("play", "exchange", "pass")


@pytest.fixture(scope="module")
def analyzer():
    return Analyzer("heuri3")


@pytest.fixture(scope="module")
def real(analyzer):
    """Analyses of real records: Spanish, French and two English ones (phony withdrawn,
    exchange of a counted number of tiles, passes, endgames)."""
    cases = CASES
    out = {}
    for name, lang in (("es/001", None), ("fr/001", None), ("en/001", "en"), ("en/002", "en")):
        out[name] = analyzer.analyze(cases / f"{name}.gcg", lang=lang, game_id=name.replace("/", "-"))
    return out


def selfplay_gcg(pack, seed: int = 11) -> str:
    """A whole game of heuri3 (first) against greedy, as GCG text."""
    spec = pack.spec
    game = Game(spec, seed=seed, words=pack.words)
    players = [make_player("heuri3", pack), make_player("greedy", pack)]
    while not game.over:
        game.play(players[game.position.to_move].choose(game.position))
    return write_gcg(game_to_gcg(game, nicks=("heuri3", "greedy"), lexicon=spec.lexicon))


@pytest.fixture(scope="module")
def selfplay(pack_es, analyzer, tmp_path_factory):
    path = tmp_path_factory.mktemp("selfplay") / "es-heuri3-vs-greedy.gcg"
    path.write_text(selfplay_gcg(pack_es), encoding="utf-8")
    return path, analyzer.analyze(path, lang="es")


# -- values ------------------------------------------------------------------------------------
def test_engine_choice_loses_nothing_on_real_records(real, pack_es, pack_en, pack_fr):
    packs = {"es": pack_es, "en": pack_en, "fr": pack_fr}
    for name, g in real.items():
        pack = packs[g.lang]
        ev = make_evaluator(pack, "heuri3")
        ranked = [(r, v) for r, v in zip(g.rows, g.views) if r["analysed"] and r["rack_known"]]
        assert len(ranked) >= 15, name
        agree = 0
        for r, v in ranked:
            if r["off_list"]:  # not in the pack's lexicon: a status of its own, never a loss
                assert r["equity_lost"] is None and r["rank"] is None, (name, r["turn"])
                continue
            assert r["equity_lost"] >= 0, (name, r["turn"])
            if r["endgame"]:
                continue
            # the best move is the top of the engine's own ranking of that position
            rack = np.bincount(pack.spec.parse_tiles(r["rack"]), minlength=pack.spec.n_kinds)
            U = augmented_bag(pack.spec, v.before.letters, v.before.blanks, rack)
            top = ev.rank_arrays(v.before.letters, v.before.blanks, rack, U, r["bag"])
            assert r["best"] == Move.from_record(top.moves[0], pack.spec).gcg(pack.spec)
            assert r["best_v"] == pytest.approx(float(top.v[0]))
            if r["rank"] == 1:  # the player chose what the engine chooses: nothing lost
                agree += 1
                assert r["equity_lost"] == 0 and r["v"] == r["best_v"]
            else:
                assert r["v"] <= r["best_v"] + 1e-9 or r["equity_lost"] == 0
        assert agree >= 3, name


def test_playing_the_engines_best_instead_loses_nothing(real, analyzer, tmp_path):
    """Cut a real record before a turn and play the engine's best there instead: that turn
    then loses 0 (and ranks 1), with the score the engine gives it."""
    cases = CASES
    for name, g in real.items():
        lines = (cases / f"{name}.gcg").read_text(encoding="utf-8").splitlines()
        events = read_gcg(cases / f"{name}.gcg").events
        picked = [r for r in g.rows if r["analysed"] and r["rack_known"] and not r["endgame"]
                  and r["rank"] != 1 and not r["withdrawn"]][:3]
        assert len(picked) == 3, name
        for r in picked:
            before = [e for e in events if e.line < r["line"]]
            total = next((e.total for e in reversed(before) if e.nick == r["player"]), 0)
            text = "\n".join(lines[:r["line"] - 1] + [
                f">{r['player']}: {r['rack']} {r['best']} +{r['best_j']} {total + r['best_j']}"]) + "\n"
            path = tmp_path / f"{name.replace('/', '-')}-{r['turn']}.gcg"
            path.write_text(text, encoding="utf-8")
            last = analyzer.analyze(path, lang=g.lang).rows[-1]
            assert (last["turn"], last["move"], last["rank"]) == (r["turn"], r["best"], 1)
            assert last["equity_lost"] == 0 and last["v"] == pytest.approx(r["best_v"])


def test_selfplay_greedy_loses_equity_and_heuri3_does_not(selfplay):
    _, g = selfplay
    h3 = [r for r in g.rows if r["player"] == "heuri3"]
    gr = [r for r in g.rows if r["player"] == "greedy"]
    assert all(r["analysed"] and r["rack_known"] for r in g.rows)
    assert [r["equity_lost"] for r in h3] == [0.0] * len(h3)
    assert all(r["rank"] == 1 for r in h3 if not r["endgame"])
    lost = [r["equity_lost"] for r in gr]
    assert sum(x > 0 for x in lost) >= 3 and sum(lost) > 20, lost
    s = g.summary()["per_player"]
    assert s["heuri3"]["agreement"] == 1.0 and s["heuri3"]["equity_lost"] == 0
    assert s["greedy"]["agreement"] < 1.0


def test_missed_bingos_are_legal_bingos_of_the_generator(real, selfplay, pack_es, pack_en, pack_fr):
    packs = {"es": pack_es, "en": pack_en, "fr": pack_fr}
    games = list(real.values()) + [selfplay[1]]
    missed = 0
    for g in games:
        pack = packs[g.lang]
        spec = pack.spec
        for r, v in zip(g.rows, g.views):
            if not (r["analysed"] and r["rack_known"]):
                assert not r["missed_bingo"]
                continue
            if not r["bingos"]:
                assert r["best_bingo"] == "" and not r["missed_bingo"]
                continue
            m = Move.from_gcg(r["best_bingo"], v.before, spec)
            assert m.n_tiles == spec.rack_size
            words = v.before.check(m, pack.words)  # every word it forms is in the pack's list
            assert words and v.before.score(m) == r["best_bingo_j"]
            rack = np.bincount(spec.parse_tiles(r["rack"]), minlength=spec.n_kinds)
            gen = generate(pack, v.before.letters, v.before.blanks, rack, bag_size=r["bag"])
            bingos = gen[(gen["kind"] == 0) & (gen["n_tiles"] == spec.rack_size)]
            assert len(bingos) == r["bingos"]
            assert any(Move.from_record(b, spec) == v.before.canonical(m) for b in bingos)
            missed += r["missed_bingo"]
    # es/001 turn 16: p2 passes holding ?ACCEMO, with 2A CArCOME on the board
    es16 = real["es/001"].rows[15]
    assert es16["rack"] == "?ACCEMO" and es16["missed_bingo"] and es16["best_bingo"] == "2A CArCOME"
    assert missed >= 2


def test_turns_and_scores_are_the_records(real, selfplay):
    cases = CASES
    items = [(cases / f"{n}.gcg", g) for n, g in real.items()] + [selfplay]
    for path, g in items:
        events = read_gcg(path).events
        turns = [e for e in events if e.kind in TURN_KINDS]
        assert len(g.rows) == len(turns), path
        assert [r["line"] for r in g.rows] == [e.line for e in turns]
        assert [r["points"] for r in g.rows] == [e.score for e in turns]
        assert [r["move"] for r in g.rows] == [e.move for e in turns]
        last = {}
        for e in events:
            last[e.player] = e.total
        assert g.final == [last[0], last[1]]
        for r in g.rows:  # totals after each turn: the last recorded line of that turn
            assert r["spread"] == r["score"] - r["opp_score"]
        s = g.summary()
        assert [s["per_player"][n]["final"] for n, _ in g.players] == g.final
        assert sum(p["turns"] for p in s["per_player"].values()) == len(turns)
    # en/001: a phony withdrawn (the turn scores 0 after the -- line), a pass, an exchange of "-N"
    rows = real["en/001"].rows
    w = [r for r in rows if r["withdrawn"]]
    assert len(w) == 1 and "valued as the pass" in w[0]["note"]
    i = rows.index(w[0])
    assert w[0]["score"] == (rows[i - 2]["score"] if i >= 2 else 0)
    assert w[0]["equity_lost"] == pytest.approx(w[0]["best_v"])  # the pass is worth v = 0
    counted = [r for r in rows if re.fullmatch(r"-\d+", r["move"] or "")]
    assert counted and all(not r["analysed"] for r in counted)


def test_moves_outside_the_lexicon_are_flagged_never_scored(real, pack_fr):
    """The real French record (FRA24) against the bundled French list: each play forming a
    word the pack does not hold is "not in <lexicon>", with no rank and no equity lost, left
    out of the figures, counted in the summary and in the page's banner."""
    from heuri.report import game_html

    g = real["fr/001"]
    lex = pack_fr.spec.lexicon
    assert g.lexicon == lex and g.record_lexicon == "FRA24"
    assert g.warnings[0] == (0, f"the record names lexicon FRA24; heuri's fr pack answers with another "
                                f"word list: {lex}")
    # the words each play forms, checked here against the pack's words
    events = [e for e in read_gcg(CASES / "fr" / "001.gcg").events if e.kind in TURN_KINDS]
    off = {}
    for r, v, e in zip(g.rows, g.views, events):
        if e.kind == "play":
            formed = [w for w, _ in v.before.words(v.before.canonical(Move.from_gcg(e.move, v.before, pack_fr.spec)))]
            bad = [w for w in formed if w not in pack_fr.words]
            if bad:
                off[r["turn"]] = ", ".join(bad)
    assert {r["turn"]: r["off_words"] for r in g.rows if r["off_list"]} == off
    if lex.startswith("an-array-of-french-words"):  # the list the record was first measured on
        assert off == {8: "WUSHU", 10: "PUCK", 14: "TEC", 15: "TOS, PUCKS", 18: "LADINOS", 21: "UD", 22: "OM"}
    assert off, "the FRA24 record has words outside the bundled list"
    for r in g.rows:
        if r["off_list"]:
            assert r["analysed"] and r["equity_lost"] is None and r["rank"] is None
            assert f"not in {lex}" in r["note"]
        elif r["analysed"] and r["rack_known"]:
            assert r["equity_lost"] is not None and r["rank"] is not None
    s = g.summary()
    assert s["off_list"] == len(off) and s["lexicon"] == lex and s["record_lexicon"] == "FRA24"
    per = s["per_player"]
    assert sum(p["off_list"] for p in per.values()) == len(off)
    assert sum(p["analysed"] for p in per.values()) == sum(
        r["analysed"] and r["rack_known"] and not r["off_list"] for r in g.rows)
    html = game_html(g, ui_lang="en")
    banner = re.search(r'<p class="banner" id="off-list-banner">(.*?)</p>', html, re.S).group(1)
    assert f"{len(off)} moves not in {lex}" in banner
    assert html.index('id="off-list-banner"') < html.index('id="summary"')  # at the top
    table = html[html.index('<table id="turns">'):]
    assert table.count(f'<span class="badge offlist">not in {lex}</span>') == len(off)
    for row in re.findall(r'<tr class="turnrow.*?</tr>', table, re.S):
        turn = int(re.search(r'data-turn="(\d+)"', row).group(1))
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)  # #, player, rack, move, pts, rank, v, best, best v, lost
        if turn in off:  # no rank, and "not in <lexicon>" where the equity lost stands
            assert cells[5] == "" and cells[9] == f'<span class="badge offlist">not in {lex}</span>', turn
        else:
            assert "offlist" not in row
    # the page of a French game speaks French unless told otherwise: the same marks, in words
    fr = game_html(g)
    banner = re.search(r'<p class="banner" id="off-list-banner">(.*?)</p>', fr, re.S).group(1)
    assert f"{len(off)} coups absents de {lex}" in banner and '<html lang="fr">' in fr
    table = fr[fr.index('<table id="turns">'):]
    assert table.count(f'<span class="badge offlist">absent de {lex}</span>') == len(off)


def test_the_records_lexicon_answers_when_built(fra24_build, monkeypatch, tmp_path, capsys):
    """With a pack of FRA24 built (conftest: the record's own words), the FRA24 record is
    answered with it: no move outside the list, every analysed turn ranked and scored, and
    the command, the summary and the page say FRA24."""
    build, _ = fra24_build
    monkeypatch.setenv("HEURI_BUILD", str(build))
    monkeypatch.delenv("HEURI_LEXICON", raising=False)
    g = Analyzer("greedy").analyze(CASES / "fr" / "001.gcg")
    assert (g.lexicon, g.record_lexicon, g.off_list) == ("FRA24", "FRA24", 0)
    assert not any("names lexicon" in msg for _, msg in g.warnings)
    assert all(r["rank"] is not None and r["equity_lost"] is not None
               for r in g.rows if r["analysed"] and r["rack_known"])
    out = tmp_path / "a"
    assert main(["analyze", str(CASES / "fr" / "001.gcg"), "--engine", "greedy", "--out", str(out), "--quiet"]) == 0
    assert "lexicon: FRA24" in capsys.readouterr().out
    s = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert s["lexicons"] == ["FRA24"] and s["off_list"] == 0 and s["games"][0]["lexicon"] == "FRA24"
    assert set(pl.read_parquet(out / "turns.parquet")["lexicon"]) == {"FRA24"}
    assert 'lexique <span id="lexicon">FRA24</span>' in (out / "games" / "001.html").read_text(encoding="utf-8")


def test_unknown_racks_are_marked_never_guessed(analyzer, pack_es, tmp_path):
    cases = CASES
    text = (cases / "es" / "001.gcg").read_text(encoding="utf-8")
    # drop p2's racks: only the tiles played are known
    stripped = re.sub(r"^(>p2: )\S+ (?=[0-9A-O]+[0-9A-O]* |-)", r"\1", text, flags=re.M)
    assert stripped.count(">p2: ") == text.count(">p2: ") and stripped != text
    path = tmp_path / "no-racks.gcg"
    path.write_text(stripped, encoding="utf-8")
    g = analyzer.analyze(path)
    full = analyzer.analyze(cases / "es" / "001.gcg")
    spec = pack_es.spec
    for r, v, f in zip(g.rows, g.views, full.rows):
        assert r["points"] == f["points"] and r["score"] == f["score"]
        if r["player"] == "p1":
            assert {k: x for k, x in r.items() if k not in ("game", "path")} == \
                {k: x for k, x in f.items() if k not in ("game", "path")}
            continue
        assert r["rack"] == "" and not r["rack_known"]
        if r["kind"] == "pass":
            assert not r["analysed"] and "nothing to analyse" in r["note"]
            continue
        assert r["analysed"] and UNKNOWN_RACK in r["note"]
        # every candidate used only the tiles played: the played move leaves nothing
        assert r["leave"] == "" and r["rank"] is not None
        played = Move.from_gcg(r["move"], v.before, spec).rack_counts(spec)
        assert (Move.from_gcg(r["best"], v.before, spec).rack_counts(spec) <= played).all()
        assert not r["missed_bingo"]
        assert r["cgp"].split()[1] == "/"  # no rack in the CGP: neither is known
    s = g.summary()["per_player"]["p2"]
    assert s["analysed"] == 0 and s["equity_lost_per_turn"] is None


def test_player_option_and_unknown_player(analyzer):
    cases = CASES
    g = analyzer.analyze(cases / "es" / "001.gcg", player="Player Two")
    assert all(r["analysed"] == (r["player"] == "p2") for r in g.rows if r["rack"])
    with pytest.raises(AnalysisError, match="no player 'nobody'; the players are p1 \\(Player One\\)"):
        analyzer.analyze(cases / "es" / "001.gcg", player="nobody")


# -- rendering ------------------------------------------------------------------------------------
def test_board_svg_shows_digraphs_blanks_and_both_moves(real, pack_es):
    from heuri.render import board_svg

    g = real["es/001"]
    v = g.views[8]  # turn 9: 1G [CH]ICAS played; the engine's best L12 [CH]IC elsewhere
    assert v.row["move"] == "1G [CH]ICAS" and v.row["best"] == "L12 [CH]IC"
    svg = board_svg(v.board, played=v.played, second=v.best)
    assert svg.count('class="tl tile played"') == 5
    assert re.search(r'<g class="tl tile played" data-sq="1G">.*?>CH</text>', svg)
    assert svg.count('class="second"') == 3 and 'data-sq="12L"' in svg
    assert svg.count('class="sq ') == 225
    v = g.views[10]  # turn 11: N4 ÑaJO, a blank for the A
    assert v.row["move"] == "N4 ÑaJO" and int(v.board.blanks.sum()) == 1
    svg = board_svg(v.board, played=v.played)
    assert len(re.findall(r'<g class="tl tile blank played" data-sq="5N">.*?>A</text></g>', svg)) == 1


# -- the command ----------------------------------------------------------------------------------
def test_cli_batch_outputs_and_bad_records(tmp_path, capsys, selfplay):
    cases = CASES
    bad = tmp_path / "in" / "bad.gcg"
    bad.parent.mkdir()
    bad.write_text("#player1 a A\n#player2 b B\n>a: AEINRST 8D RETSINA +66 66\n>b: ABC 8X ZZ +3 3\n",
                   encoding="utf-8")
    out = tmp_path / "out"
    rc = main(["analyze", str(cases / "es" / "001.gcg"), str(bad), str(selfplay[0]), "--lang", "es",
               "--out", str(out), "--jobs", "2", "--quiet", "--engine", "heuri3"])  # the self-play game's engine
    text = capsys.readouterr().out
    assert rc == 1
    assert f"{bad}:4:" in text and "1 of 3 records failed" in text  # file and line named
    df = pl.read_parquet(out / "turns.parquet")
    assert df.columns == list(ROW_SCHEMA) and df.height == 23 + len(selfplay[1].rows)
    assert sorted(df["game"].unique()) == ["001", "es-heuri3-vs-greedy"]
    s = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert [g["id"] for g in s["games"]] == ["001", "es-heuri3-vs-greedy"]
    assert s["failed"][0][0] == str(bad) and "bad.gcg:4" in s["failed"][0][1]
    players = {p["nick"]: p for p in s["players"]}
    assert players["greedy"]["games"] == 1 and len(players["greedy"]["worst"]) == 5
    assert players["heuri3"]["equity_lost_per_turn"] == 0
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "Valoración v = j + e, con j los puntos" in index  # heuri3's v; Spanish games, a Spanish page
    w = players["greedy"]["worst"][0]
    assert f'href="games/{w["game"]}.html#turn-{w["turn"]}"' in index
    page = (out / "games" / "001.html").read_text(encoding="utf-8")
    assert page.count('<section class="turn') == 23
    assert not re.search(r'(src|href)="(https?:)?//|url\((?!#)|@import|<link', page)  # nothing to fetch
    # nothing is overwritten without --force
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    rc = main(["analyze", str(selfplay[0]), "--out", str(out), "--quiet"])
    assert rc == 2 and "give --force" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert main(["analyze", str(selfplay[0]), "--lang", "es", "--out", str(out), "--force", "--quiet"]) == 0
    assert set(pl.read_parquet(out / "turns.parquet")["engine"]) == {"heuri5"}  # heuri.DEFAULT_ENGINE
    # heuri5's v is not j + e: the pages say what it subtracts and adds
    assert "v = j + e − c − 3·Δe_opp + P" in (out / "index.html").read_text(encoding="utf-8")


def test_cli_unknown_language_and_missing_pack(tmp_path, capsys, monkeypatch):
    cases = CASES
    empty = tmp_path / "empty"  # a build folder without a pl pack
    empty.mkdir()
    monkeypatch.setenv("HEURI_BUILD", str(empty))
    rc = main(["--build", str(empty), "analyze", str(cases / "pl" / "001.gcg"), "--lang", "pl",
               "--out", str(tmp_path / "a"), "--quiet"])
    err = capsys.readouterr().err  # refused before anything is written
    # Polish has a spec and a bundled word list: the message says how to build its pack
    assert rc == 2 and "no built pl pack" in err and "snakemake --cores 2 pl" in err
    assert "write lexicons/pl/spec.toml" not in err
    assert not (tmp_path / "a").exists()
    monkeypatch.delenv("HEURI_BUILD")
    rc = main(["analyze", str(cases / "pl" / "001.gcg"), "--lang", "xx", "--out", str(tmp_path / "a"), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and "no language 'xx'" in err and "snakemake --cores 2 xx" in err
    rc = main(["analyze", str(cases / "pl" / "001.gcg"), "--out", str(tmp_path / "b"), "--quiet"])
    assert rc == 1 and "cannot tell the language" in capsys.readouterr().out
    monkeypatch.setenv("HEURI_BUILD", str(tmp_path / "empty"))
    rc = main(["analyze", str(cases / "es" / "001.gcg"), "--out", str(tmp_path / "c"), "--quiet"])
    out = capsys.readouterr().out
    assert rc == 1 and "no built es pack" in out and "snakemake --cores 2 es" in out
    assert main(["analyze", str(tmp_path / "nowhere.gcg"), "--out", str(tmp_path / "d")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_turns_show_the_engines_top_moves_with_their_terms(real):
    """Each analysed turn carries the engine's first five moves as named terms adding up to
    their equity (the first is the row's best), and the played move's terms (its v); the
    page draws them with a legend, and the engine's choice on a small board."""
    from heuri.report import game_html

    for name, g in real.items():
        for r, v in zip(g.rows, g.views):
            if not r["analysed"]:
                assert v.alternatives == [] and v.played_terms is None
                continue
            assert len(v.alternatives) == min(5, r["candidates"])
            assert [a.rank for a in v.alternatives] == list(range(1, len(v.alternatives) + 1))
            for a in v.alternatives + [v.played_terms]:
                assert abs(a.total() - a.equity) < 1e-9
            if not r["endgame"]:
                assert v.alternatives[0].move == r["best"] and v.alternatives[0].equity == r["best_v"]
                assert v.played_terms.equity == pytest.approx(r["v"], abs=1e-9)
                assert v.played_terms.rank == (r["rank"] or 0) or r["off_list"]
    html = game_html(real["fr/001"], ui_lang="en")
    assert html.count('<table class="alts">') == sum(r["analysed"] for r in real["fr/001"].rows)
    assert 'id="terms-legend"' in html and "<b>bingo next turn</b>" in html
    assert "lanes for the opponent" not in html  # heuri3 has no lanes term: no column, no legend line
    # turn 2: p2 played 8D VERBE (63rd), heuri3 exchanges: the played move's row is added
    assert re.search(r'<tr class="played"><td class="n">\d+</td><td>8D VERBE <span class="badge played">', html)
    assert html.count('<figure class="choice">') == sum(
        1 for r, v in zip(real["fr/001"].rows, real["fr/001"].views)
        if v.best is not None and v.best.kind == 0 and v.best != v.played)


def test_partial_racks_are_marked_and_left_out(real):
    """en/001 gives p2's racks as the tiles played only (``AAEGL`` on turn 6, with 80 tiles in
    the bag): those turns are marked partial, analysed on those tiles, and left out of the
    player's figures; the summary counts moves that cost more than 10 points."""
    from heuri.analyze import COSTLY
    from heuri.report import game_html

    g = real["en/001"]
    r6 = g.rows[5]
    assert (r6["turn"], r6["player"], r6["move"], r6["rack"]) == (6, "p2", "H11 ALGAE", "AAEGL")
    assert r6["rack_partial"] and "partial rack: the record gives 5 of 7 tiles" in r6["note"]
    full = [r for r in g.rows if r["rack_known"] and len(r["rack"]) == 7]
    assert not any(r["rack_partial"] for r in full)
    s = g.summary()["per_player"]
    for seat, nick in enumerate(("p1", "p2")):
        known = [r for r in g.rows if r["seat"] == seat and r["analysed"] and r["rack_known"]
                 and not r["rack_partial"] and r["equity_lost"] is not None]
        assert s[nick]["analysed"] == len(known)
        assert s[nick]["costly_turns"] == [r["turn"] for r in known if r["equity_lost"] > COSTLY]
        assert s[nick]["points_played"] == sum(r["j"] for r in known if not r["endgame"])
        assert s[nick]["partial_racks"] == sum(bool(r["rack_partial"]) for r in g.rows if r["seat"] == seat)
    assert s["p2"]["partial_racks"] > 0
    html = game_html(g)
    assert 'badge unknown partial' in html and 'id="summary-help"' in html


def test_a_pass_is_said_in_the_pages_language(real):
    """es/001's passes (turn 16: ?ACCEMO, the engine's best 2A CArCOME) read "pase" on the
    Spanish page and "pass" on the English one; placements read the same in both."""
    from heuri.report import game_html

    g = real["es/001"]
    passes = [r["turn"] for r in g.rows if r["move"] == "-"]
    assert 16 in passes
    es, en = game_html(g), game_html(g, ui_lang="en")
    for html, word in ((es, "pase"), (en, "pass")):
        table = html[html.index('<table id="turns">'):]
        row = re.search(r'<tr class="turnrow[^"]*"[^>]*data-turn="16".*?</tr>', table, re.S).group(0)
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        assert cells[3].startswith(word) and cells[7] == "2A CArCOME", cells


def test_think_longer_races_the_move_played_on_each_turn(tmp_path, capsys):
    """``--iterations 4 --candidates 3``: every turn with tiles in the bag and a whole rack is
    simulated, the move played racing to the end (4 rollouts) beside the engine's best 3;
    ``sim_lost`` is the best mean minus the played move's, 0 when the simulation picks the
    move played; the bag-empty turns are left to the endgame. The draws are seeded by each
    position, so two worker processes give the rows an in-process analysis on two threads gives."""
    from heuri.apps.analyze import Think, analyze_game

    cases = CASES
    out = tmp_path / "think"
    args = ["analyze", str(cases / "es" / "001.gcg"), str(cases / "fr" / "001.gcg"), "--out", str(out),
            "--iterations", "4", "--candidates", "3", "--jobs", "2", "--quiet"]
    assert main(args) == 0
    assert "turns simmed" in capsys.readouterr().out
    df = pl.read_parquet(out / "turns.parquet")
    # two rollout threads in process, one in each of the two workers: the same race
    mine = analyze_game(cases / "es" / "001.gcg", think=Think(iterations=4, candidates=3, threads=2))
    import threading

    # the analysis closed its simulator: no rollout thread outlives it
    assert not [t for t in threading.enumerate() if t.name.startswith("heuri-sim")]
    sim_cols = [c for c in ROW_SCHEMA if c.startswith("sim_")]
    es = df.filter(pl.col("game") == "es-001").select(sim_cols).to_dicts()
    assert es == [{c: r[c] for c in sim_cols} for r in mine.rows]
    for r in df.to_dicts():
        raced = r["bag"] > 0 and r["rack_known"] and not r["rack_partial"] and not r["off_list"]
        assert (r["sim_mean"] is not None) == raced, r["turn"]
        if raced:
            assert r["sim_rollouts"] == 4
            assert r["sim_lost"] == pytest.approx(max(0.0, r["sim_best_mean"] - r["sim_mean"]), abs=1e-3)
            if r["sim_best"] == r["move"]:
                assert r["sim_lost"] == 0
    assert df["sim_mean"].is_not_null().sum() >= 30
    # the progress bar's units: each record's turns (0 for one that cannot be read)
    from heuri.apps.analyze_batch import turn_counts

    assert turn_counts([cases / "es" / "001.gcg", cases / "fr" / "001.gcg", tmp_path / "none.gcg"]) == \
        [df.filter(pl.col("game") == "es-001").height, df.filter(pl.col("game") == "fr-001").height, 0]
    marker = json.loads((out / ".heuri-output.json").read_text(encoding="utf-8").splitlines()[0])
    assert marker["params"]["think"] == {"seconds": None, "iterations": 4, "candidates": 3, "rollout": "full"}
    g = json.loads((out / "games" / "es-001.json").read_text(encoding="utf-8"))
    for nick, p in g["per_player"].items():
        rows = [r for r in df.filter(pl.col("game") == "es-001").to_dicts()
                if r["player"] == nick and r["sim_lost"] is not None]
        assert p["simulated"] == len(rows) and p["sim_lost"] == pytest.approx(sum(r["sim_lost"] for r in rows))
    page = (out / "games" / "es-001.html").read_text(encoding="utf-8")
    assert page.count('<tr class="sim">') == df.filter(pl.col("game") == "es-001")["sim_mean"].is_not_null().sum()
    assert "cedido en la simulación" in page and "Turnos simulados" in page  # a Spanish game, a Spanish page
    assert "cédé dans la simulation" in (out / "games" / "fr-001.html").read_text(encoding="utf-8")
    # another budget is another analysis: refused without --force, the folder untouched
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert main(args[:-5] + ["--iterations", "8", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "2 records; it differs in the simulation (--think/--iterations" in err and "give --force" in err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    # a simulation's shape without its budget, and a bad budget, are refused before any work
    assert main(["analyze", str(cases / "es" / "001.gcg"), "--out", str(tmp_path / "x"), "--candidates", "3"]) == 2
    assert "give --think SECONDS or --iterations N" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    for bad in (dict(seconds=1, iterations=2), dict(iterations=0), dict(candidates=1), dict(rollout="slow"),
                dict(threads=0)):
        with pytest.raises(AnalysisError, match="think"):
            Think(**bad)

