"""The JSON API of ``heuri serve`` through Starlette's test client: answers equal to the
command line's (``heuri best``, ``heuri moves``), real scores, the errors as 4xx in plain
words, the limits (413, 422), and a whole game against heuri to its endgame."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e .[web])")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

with warnings.catch_warnings():  # Starlette 1.x would rather have httpx2; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

DATA = Path(__file__).parent / "data"
GAME = DATA / "es_pass_with_bingo.gcg"
OPENING = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEIRS[CH]?/ 0/0 0"


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """The records folder the server may read (``heuri serve --records``): the test game."""
    import shutil

    root = tmp_path_factory.mktemp("records")
    shutil.copy(GAME, root / GAME.name)
    return root


@pytest.fixture(scope="module")
def client(pack_es, pack_en, records):
    from heuri.web.app import create_app
    from heuri.web.service import Service

    svc = Service(packs={"es": pack_es, "en": pack_en}, records=records)  # the session's packs, not a second load
    with TestClient(create_app(svc, port=8765), base_url="http://127.0.0.1:8765") as c:
        yield c


def _cli(capsys, *argv) -> list[dict]:
    from heuri.cli import main

    capsys.readouterr()
    assert main(list(argv)) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.fixture(scope="module")
def midgame(client):
    """The position of tests/data/es_pass_with_bingo.gcg after 12 events (heuri3 to move
    with ABDJ[LL]TU), as the game view gives it."""
    r = client.post("/api/game", json={"path": GAME.name})
    assert r.status_code == 200, r.text
    turns = r.json()["turns"]
    t = next(t for t in turns if t["rack"] == "ABDJ[LL]TU")
    return t["cgp"]


def test_best_equals_heuri_best(client, capsys, midgame):
    r = client.post("/api/best", json={"lang": "es", "cgp": midgame, "top": 8, "engine": "heuri3"})
    assert r.status_code == 200, r.text
    d = r.json()
    # README: heuri3 ranks 10H TU[LL].D (29, keeping ABJ: e = 17.0) above 1N JU (36)
    assert d["rows"][0]["move"] == "10H TU[LL].D" and d["rows"][0]["score"] == 29 and d["rows"][0]["leave"] == "ABJ"
    assert round(d["rows"][0]["bingo_expectation"], 1) == 17.0
    assert d["rows"] == _cli(capsys, "best", "--lang", "es", "--cgp", midgame, "--json", "--top", "8",
                             "--engine", "heuri3")
    # no engine named: the same default as heuri best's
    d = client.post("/api/best", json={"lang": "es", "cgp": midgame, "top": 8}).json()
    assert d["engine"] == "heuri5"
    assert d["rows"] == _cli(capsys, "best", "--lang", "es", "--cgp", midgame, "--json", "--top", "8")
    # the opening with [CH] and a blank: 8D [CH]IScARE, 80 points, as the README's SIU session
    d = client.post("/api/best", json={"lang": "es", "cgp": OPENING, "top": 5, "engine": "heuri2"}).json()
    assert d["rows"] == _cli(capsys, "best", "--lang", "es", "--cgp", OPENING, "--json", "--top", "5",
                             "--engine", "heuri2")
    assert d["rows"][0]["score"] == 80


def test_moves_equal_heuri_moves(client, capsys, midgame):
    d = client.post("/api/moves", json={"lang": "es", "cgp": midgame}).json()
    cli = _cli(capsys, "moves", "--lang", "es", "--cgp", midgame, "--json")
    assert d["count"] == len(cli) and d["moves"] == cli
    assert d["moves"][0]["score"] == max(m["score"] for m in cli)
    top = client.post("/api/moves", json={"lang": "es", "cgp": midgame, "top": 3}).json()
    assert top["moves"] == cli[:3] and top["count"] == len(cli)


def test_position_and_preview(client):
    d = client.post("/api/position", json={"lang": "es", "cgp": OPENING}).json()
    assert d["rack"] == "A[CH]EIRS?" and d["bag"] == 100 - 7 - 7 and d["svg"].count('class="sq ') == 225
    # on the empty board the bingo lanes are the 7-square runs through the centre: 7 across, 7 down
    assert len(d["lanes"]) == 14 and all(l[3] == 7 for l in d["lanes"])
    p = client.post("/api/preview", json={"lang": "es", "cgp": OPENING, "move": "8D [CH]IScARE"}).json()
    assert p["score"] == 80 and p["words"] == ["CHISCARE"] and p["leave"] == ""
    assert p["svg"].count('class="tl tile played"') + p["svg"].count('class="tl tile blank played"') == 7
    # after it, the lanes are the board's: none through its own squares, some beside it
    assert p["lanes"] and not any(r == 7 and 3 <= c <= 9 for r, c in p["lane_squares"])
    after = client.post("/api/position", json={"lang": "es", "cgp": p["cgp_after"]}).json()
    assert after["lanes"] == p["lanes"]
    assert after["grid"][7][3] == "[CH]" and after["grid"][7][6] == "c" and after["scores"] == [80, 0]


@pytest.mark.parametrize("body, status, words", [
    ({"lang": "es", "cgp": OPENING.replace("AEIRS", "AEIRW")}, 400, "'W' is not a tile of"),
    ({"lang": "es", "cgp": "15/15 A/ 0"}, 400, "expected 4 fields"),
    ({"lang": "es", "cgp": "16/15/15/15/15/15/15/15/15/15/15/15/15/15/15 A/ 0/0 0"}, 400, "covers 16 squares"),
    ({"lang": "de", "cgp": OPENING}, 400, "not served here"),
    ({"lang": "es", "cgp": OPENING, "engine": "heuri9"}, 400, "choose one of"),
    ({"lang": "es", "cgp": OPENING, "top": 0}, 400, "top: 0"),
    ({"lang": "es"}, 400, "cgp: missing"),
])
def test_best_errors_in_plain_words(client, body, status, words):
    r = client.post("/api/best", json=body)
    assert r.status_code == status and words in r.json()["error"], r.text


def test_preview_refuses_illegal_moves(client):
    for move, kind, words in [("8D [CH]IScARX", "phony", "CHISCARX, not in the word list"),
                              ("8D [CH]ISCARE", "tiles-not-in-rack", "lacks C"),
                              ("1A [CH]IScARE", "centre-not-covered", "centre"),
                              ("8D", "malformed-play", "expected")]:
        r = client.post("/api/preview", json={"lang": "es", "cgp": OPENING, "move": move})
        assert r.status_code == 400 and r.json()["kind"] == kind and words in r.json()["error"], r.text


def test_limits_and_bad_requests(client):
    r = client.post("/api/game", content=b"{" + b" " * (10 << 20) + b"}", headers={"content-type": "application/json"})
    assert r.status_code == 413 and "at most" in r.json()["error"]
    head = "#player1 a A\n#player2 b B\n"
    big = head + "".join(f">{'ab'[i % 2]}: AEINRST - +0 0\n" for i in range(1000))
    r = client.post("/api/game", json={"gcg": big, "lang": "es"})
    assert r.status_code == 422 and "more than 300 moves" in r.json()["error"]
    assert _page_message(r.json()) == ("upload.gcg holds more than 300 moves; a real game has 20 to 60, so a record "
                                       "this long is refused.")
    r = client.post("/api/game", json={"gcg": head + ">a: AEINRST 8D XYZZY +10\n", "lang": "en"})
    assert r.status_code == 400 and "upload.gcg:3" in r.json()["error"]
    r = client.post("/api/best", content=b"not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    r = client.post("/api/nowhere", json={})
    assert r.status_code == 404 and "Not Found" in r.json()["error"]
    assert client.get("/api/play/0123/gcg").status_code == 404
    r = client.post("/api/game", json={"path": "/etc/passwd"})
    assert r.status_code == 400 and "outside the records folder" in r.json()["error"]
    r = client.post("/api/game", json={"path": "nothere.gcg"})
    assert r.status_code == 404 and "no such .gcg file" in r.json()["error"]


def test_think_longer_is_the_simulation_of_best_think(client, midgame, pack_es):
    """``POST /api/think``: the race :class:`Simulator` (seed 0; the full rollout, or the fast
    one on request) runs on the same position, row for row; an iteration budget makes it the
    same race anywhere."""
    from heuri.core.game import Position
    from heuri.core.move import Move
    from heuri.search.simulation import Simulator
    from heuri.web.service import ApiError, Service

    for rollout in ("fast", None):
        body = {"lang": "es", "cgp": midgame, "iterations": 8, "candidates": 4}
        r = client.post("/api/think", json=body if rollout is None else {**body, "rollout": rollout})
        assert r.status_code == 200, r.text
        d = r.json()
        res = Simulator(pack_es, candidates=4, seed=0, table=rollout == "fast").simulate(
            Position.from_cgp(midgame, pack_es.spec), seconds=None, iterations=8)
        assert [x["mean"] for x in d["rows"]] == [round(c.mean, 2) for c in res.candidates]
    spec = pack_es.spec
    assert [x["move"] for x in d["rows"]] == [Move.from_record(c.record, spec).gcg(spec) for c in res.candidates]
    assert [x["rollouts"] for x in d["rows"]] == [c.n for c in res.candidates] and d["rollouts"] == res.rollouts == 24
    assert [x["mean"] for x in d["rows"]] == [round(c.mean, 2) for c in res.candidates]
    assert [x["alive"] for x in d["rows"]] == [True, True, False, False] and d["stopped_by"] == "done"
    assert d["rows"][0]["word"] and d["lexicon"] == spec.lexicon
    for body, words in (({"iterations": 4, "seconds": 1}, "not both"), ({"seconds": 0}, "seconds: 0"),
                        ({"rollout": "slow"}, "rollout"),
                        ({"seconds": 11}, "from 0.1 to 10"), ({"candidates": 1}, "candidates: 1"),
                        ({"depth": 2}, "no such field")):
        r = client.post("/api/think", json={"lang": "es", "cgp": midgame, **body})
        assert r.status_code == 400 and words in r.json()["error"], (body, r.text)
    from heuri.core.game import Game
    from heuri.play.players import GreedyPlayer

    g, greedy = Game(spec, seed=2, words=pack_es.words), GreedyPlayer(pack_es)
    while g.position.bag_size > 0 and not g.over:
        g.play(greedy.choose(g.position))
    assert g.position.bag_size == 0 and not g.over
    r = client.post("/api/think", json={"lang": "es", "cgp": g.position.cgp(hide_others=True)})
    assert r.status_code == 400 and "the bag is empty" in r.json()["error"]
    svc = Service(packs={"es": pack_es})
    svc._thinking.acquire()  # a race already running
    with pytest.raises(ApiError) as busy:
        svc.think({"lang": "es", "cgp": midgame, "iterations": 2})
    assert busy.value.status == 429 and busy.value.kind == "busy"


def test_game_view_steps_a_record(client):
    d = client.post("/api/game", json={"gcg": GAME.read_text(encoding="utf-8"), "name": GAME.name}).json()
    from heuri.gcg import read_gcg

    events = [e for e in read_gcg(GAME).events if e.kind in ("play", "exchange", "pass")]
    assert [t["move"] for t in d["turns"]] == [e.move for e in events]
    t = d["turns"][1]  # greedy's bingo through the G of GETICA: 7 tiles outlined
    assert t["move"] == "K4 ALBR.CIE" and t["score"] == 98 and t["total"] == 98 and t["svg"].count(' played"') == 7
    assert d["turns"][14]["kind"] == "pass" and d["turns"][14]["svg"].count(' played"') == 0
    a = client.post("/api/game", json={"path": GAME.name, "analyze": True}).json()
    mine = next(t for t in a["turns"] if t["rack"] == "ABDJ[LL]TU")
    # ranked by heuri analyze's default, heuri5 (heuri3 played the game): heuri5 prefers E8 TA[LL]UD.
    # (heuri4 preferred E9 [LL]AJU., 2.00 points)
    assert a["engine"] == "heuri5" and mine["move"] == "10H TU[LL].D" and mine["best"] == "E8 TA[LL]UD."
    assert round(mine["equity_lost"], 2) == 2.98
    assert all(t["equity_lost"] is None or t["equity_lost"] >= 0 for t in a["turns"])


def test_game_view_reads_an_analysis(client, records):
    from heuri.analyze import analyze_game, rows_frame

    g = analyze_game(GAME, engine="greedy")
    (records / "season").mkdir()
    rows_frame(g.rows).write_parquet(records / "season" / "turns.parquet")
    d = client.post("/api/game", json={"path": str(records / GAME.name), "analysis": "season"}).json()
    assert d["analysed"] and d["engine"] == "greedy"
    assert [t["equity_lost"] for t in d["turns"]] == [r["equity_lost"] for r in g.rows]
    lost = next(t for t in d["turns"] if t["equity_lost"])  # greedy's best, dashed on the board
    assert lost["best"] != lost["move"] and 'class="second"' in lost["svg"]
    other = records / "other"
    other.mkdir()
    rows_frame(g.rows[:-1]).write_parquet(other / "turns.parquet")
    r = client.post("/api/game", json={"path": GAME.name, "analysis": "other/turns.parquet"})
    assert r.status_code == 404 and "has this record's moves" in r.json()["error"]
    assert "sim_mean" not in d["turns"][0]  # no simulation in that analysis


def test_game_view_gives_the_lexicon_warnings_parts(client, records, pack_es):
    """A record naming another word list (FILE2017, the Spanish federation's): the first
    warning says so, and its parts come apart for the page to say it in its language."""
    import shutil

    from heuri.core.cgp import named_lexicon_warning

    shutil.copy(DATA / "gcg" / "es" / "001.gcg", records / "fise.gcg")
    for req in ({"path": "fise.gcg"}, {"path": "fise.gcg", "analyze": True}):
        d = client.post("/api/game", json=req).json()
        assert d["lexicon_warning"] == {"named": "FILE2017", "pack": "es", "words": pack_es.spec.lexicon}
        assert d["warnings"][0] == named_lexicon_warning("FILE2017", pack_es.spec)
    d = client.post("/api/game", json={"path": str(records / GAME.name)}).json()
    assert d["lexicon_warning"] is None


def test_game_view_reads_a_simulated_analysis(client, records):
    """An analysis that thought longer (``--iterations 2 --candidates 2``): each simulated
    turn brings its simulation's figures, the best move as people read it; the others none."""
    from heuri.analyze import Think, analyze_game, rows_frame

    g = analyze_game(GAME, think=Think(iterations=2, candidates=2))
    (records / "sims").mkdir()
    rows_frame(g.rows).write_parquet(records / "sims" / "turns.parquet")
    d = client.post("/api/game", json={"path": GAME.name, "analysis": "sims"}).json()
    simmed = [(t, r) for t, r in zip(d["turns"], g.rows) if r["sim_mean"] is not None]
    assert len(simmed) >= 10
    for t, r in simmed:
        assert (t["sim_best"], t["sim_mean"], t["sim_lost"], t["sim_rollouts"]) == \
            (r["sim_best"], r["sim_mean"], r["sim_lost"], 2)
        assert t["sim_best_word"] == r["sim_best_word"]  # standard coordinates, as the table wrote it
    assert all("sim_mean" not in t for t, r in zip(d["turns"], g.rows) if r["sim_mean"] is None)


def test_play_a_game_against_heuri_to_the_end(client):
    from heuri.gcg import read_gcg, replay
    from heuri.spec import load_spec

    d = client.post("/api/play", json={"lang": "es", "engine": "heuri3", "seed": 11}).json()
    gid = d["id"]
    assert d["to_move"] == "you" and d["bag"] == 86 and len(d["history"]) == 0
    r = client.post(f"/api/play/{gid}/move", json={"move": "8D XQZW", "turn": 0})
    assert r.status_code == 400, r.text
    assert client.get(f"/api/play/{gid}").json()["history"] == []  # refused: nothing changed
    turns = 0
    while not d["over"]:
        best = client.post("/api/best", json={"lang": "es", "cgp": d["cgp"], "top": 1}).json()["rows"][0]
        d = client.post(f"/api/play/{gid}/move", json={"move": best["move"], "turn": d["turn"]}).json()
        assert "error" not in d, d
        turns += 1
        assert turns < 60
    assert d["result"] in ("you win", "heuri wins", "a draw")
    g = client.get(f"/api/play/{gid}/gcg")
    assert g.status_code == 200 and "attachment" in g.headers["content-disposition"]
    rec = read_gcg(g.text)
    rep = replay(rec, load_spec("es"))
    assert rep.ok and rep.over and rep.steps[-1].recorded_totals == [d["scores"]["you"], d["scores"]["heuri"]]
    r = client.post(f"/api/play/{gid}/move", json={"move": "-", "turn": d["turn"]})
    assert r.status_code == 400 and "over" in r.json()["error"]


def test_exchange_and_pass_against_heuri(client):
    d = client.post("/api/play", json={"lang": "en", "engine": "greedy", "seed": 4, "first": "heuri"}).json()
    assert len(d["history"]) == 1 and d["history"][0]["nick"] == "heuri" and d["to_move"] == "you"
    rack = d["rack"]
    d = client.post(f"/api/play/{d['id']}/move", json={"move": "-" + rack[:3], "turn": 1}).json()
    mine = d["history"][1]
    assert {k: mine[k] for k in ("nick", "move", "word", "score", "total", "rack", "kind")} == {
        "nick": "you", "move": "-" + rack[:3], "word": "-" + rack[:3], "score": 0, "total": d["scores"]["you"], "rack": rack, "kind": "exchange"}
    # heuri's review of the exchange: its own choice for that rack, valued against yours
    rv = mine["review"]
    assert rv["score"] == 0 and rv["equity_lost"] == round(max(0.0, rv["best_equity"] - rv["equity"]), 4)
    assert rv["points_lost"] == rv["best_score"] and d["review"] == rv and d["history"][0]["review"] is None
    assert len(d["history"]) == 3 and sum(n for _, n in d["unseen"]) == 100 - 7 - sum(
        len(h["move"].split()[1].replace(".", "")) for h in d["history"] if not h["move"].startswith("-"))
    r = client.post(f"/api/play/{d['id']}/move", json={"move": "-" + "Q" * 8, "turn": d["turn"]})
    assert r.status_code == 400 and r.json()["kind"] in ("tiles-not-in-rack", "exchange-not-allowed")


def test_serve_command_checks_its_arguments(capsys):
    from heuri.cli import main

    assert main(["serve", "--port", "0"]) == 2
    assert "--port 0" in capsys.readouterr().err


def test_threads_get_the_answers_of_one_thread(pack_es):
    """The server answers from a thread pool and the compiled kernels release the
    interpreter lock: requests that run at the same time must not share scratch arrays
    (movegen's per-thread contexts, the leave kernel's per-thread scratch)."""
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from heuri.bingo import random_board
    from heuri.board import Board
    from heuri.cgp import CgpRecord, format_cgp
    from heuri.web.service import Service

    svc = Service(packs={"es": pack_es})
    rng = np.random.default_rng(3)
    spec = pack_es.spec
    cgps = []
    while len(cgps) < 12:  # midgame boards, a rack drawn from the tiles left (bench_serve's)
        letters, blanks = random_board(pack_es, int(rng.integers(8, 15)), rng)
        board = Board(spec, letters, blanks)
        bag = np.repeat(np.arange(spec.n_kinds), spec.distribution() - board.tile_counts())
        if len(bag) >= 14:
            rack = tuple(int(t) for t in rng.choice(bag, spec.rack_size, replace=False))
            cgps.append(format_cgp(CgpRecord(board, (rack, None), (150, 150), 0)))
    jobs = [("best", c) for c in cgps] + [("moves", c) for c in cgps]

    def answer(job):
        kind, cgp = job
        return getattr(svc, kind)({"lang": "es", "cgp": cgp, "top": 30})

    alone = [answer(j) for j in jobs]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(answer, jobs * 3))
    assert together == alone * 3
    assert sum(len(a.get("rows", a.get("moves", []))) for a in alone) > 300  # real rankings


# -- lexicons: a record answered by the pack of its #lexicon, words outside the list flagged ----
FRA24 = DATA / "gcg" / "fr" / "001.gcg"


@pytest.fixture(scope="module")
def fr_client(pack_fr, fra24_build):
    """A server of French with the default pack and the imported FRA24 pack (conftest)."""
    from heuri.web.app import create_app
    from heuri.web.service import Service

    build, _ = fra24_build
    with pytest.MonkeyPatch.context() as mp:  # the packs offered are those of the build folder at start
        mp.setenv("HEURI_BUILD", str(build))
        mp.delenv("HEURI_LEXICON", raising=False)
        svc = Service(packs={"fr": pack_fr})
    with TestClient(create_app(svc, port=8765), base_url="http://127.0.0.1:8765") as c:
        yield c


def _off_list_turns(pack, path=FRA24) -> dict:
    """Turn number → the words of that play the pack does not hold, computed here."""
    from heuri.gcg import read_gcg, replay

    r = replay(read_gcg(path), pack.spec)
    turns = [st for st in r.steps if st.event.kind in ("play", "exchange", "pass")]
    return {i + 1: ", ".join(w for w in st.words if w not in pack.words)
            for i, st in enumerate(turns) if any(w not in pack.words for w in st.words)}


def test_lexicons_offered_and_the_records_lexicon_answers(fr_client, pack_fr):
    info = fr_client.get("/api/info").json()
    fr = next(x for x in info["langs"] if x["code"] == "fr")
    assert fr["lexicons"] == [{"name": pack_fr.spec.lexicon, "default": True}, {"name": "FRA24", "default": False}]
    text = FRA24.read_text(encoding="utf-8")
    d = fr_client.post("/api/game", json={"gcg": text, "name": "001.gcg"}).json()
    # the record's #lexicon FRA24 is built: its pack answers, and holds every word of the record
    assert (d["lexicon"], d["record_lexicon"], d["off_list"]) == ("FRA24", "FRA24", 0)
    assert not any(t["off_list"] for t in d["turns"]) and len(d["turns"]) == 24
    assert not any("names lexicon" in w for w in d["warnings"])


def test_game_view_flags_moves_outside_the_lexicon(fr_client, pack_fr):
    lex = pack_fr.spec.lexicon
    off = _off_list_turns(pack_fr)
    assert off  # the FRA24 record has words outside the bundled French list
    text = FRA24.read_text(encoding="utf-8")
    d = fr_client.post("/api/game", json={"gcg": text, "name": "001.gcg", "lexicon": lex}).json()
    assert d["lexicon"] == lex and d["off_list"] == len(off)
    assert {t["n"]: t["off_words"] for t in d["turns"] if t["off_list"]} == off
    assert d["warnings"][0] == f"the record names lexicon FRA24; heuri's fr pack answers with another word list: {lex}"
    # analysed: a move outside the list has no rank and no equity lost, never "lost 0.0"
    a = fr_client.post("/api/game", json={"gcg": text, "name": "001.gcg", "lexicon": lex, "analyze": True,
                                          "engine": "greedy"}).json()
    assert a["lexicon"] == lex and a["off_list"] == len(off)
    for t in a["turns"]:
        if t["n"] in off:
            assert t["off_list"] and t["off_words"] == off[t["n"]]
            assert t["equity_lost"] is None and t["rank"] is None, t
        else:
            assert not t["off_list"]
    assert any(t["equity_lost"] is not None for t in a["turns"])


def test_a_missing_lexicon_is_one_line_with_the_command(fr_client):
    text = FRA24.read_text(encoding="utf-8")
    r = fr_client.post("/api/game", json={"gcg": text, "lexicon": "CSW21"})
    msg = r.json()["error"]
    assert r.status_code == 400 and "\n" not in msg
    assert "no pack of lexicon CSW21" in msg and "heuri lexicon import CSW21.kwg --lang fr --name CSW21" in msg
    r = fr_client.post("/api/position", json={"cgp": OPENING.replace("AEIRS[CH]?", "AEIRST?") + " lex CSW21;",
                                              "lexicon": "CSW21", "lang": "fr"})
    assert r.status_code == 400 and "no pack of lexicon CSW21" in r.json()["error"]


def test_a_cgps_lex_chooses_the_built_pack(fr_client, pack_fr, fra24_build):
    _, words = fra24_build
    cgp = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AAEHILR/ 0/0 0 lex FRA24;"
    d = fr_client.post("/api/best", json={"cgp": cgp, "engine": "greedy", "top": 5000}).json()
    assert d["lexicon"] == "FRA24" and d["warning"] is None and d["lang"] == "fr"
    # every placement forms a word of FRA24's 35 (HALERAI, HALERAIT, HE, ... here)
    assert d["rows"] and all(r["move"].split()[1].upper() in words for r in d["rows"] if not r["move"].startswith("-"))
    assert any(r["move"].endswith(" HALERAI") for r in d["rows"])
    d2 = fr_client.post("/api/best", json={"cgp": cgp, "engine": "greedy", "lexicon": pack_fr.spec.lexicon}).json()
    assert d2["lexicon"] == pack_fr.spec.lexicon and "names lexicon FRA24" in d2["warning"]
    assert d2["count"] > d["count"]
    p = fr_client.post("/api/position", json={"cgp": cgp}).json()
    assert p["lexicon"] == "FRA24"


def test_your_name_in_the_game_and_its_record(client):
    """A name typed for the Play view: on the scoreboard's names and the record's #player
    line; a name that is not one is refused naming the field, and no game is made."""
    for bad, why in (("***", "at least one letter or digit"), ("A\u0007na", "control character (U+0007)"),
                     ("x" * 41, "41 characters; a name has at most 40"), (7, "is not a string")):
        r = client.post("/api/play", json={"lang": "es", "seed": 7, "name": bad})
        assert r.status_code == 400 and r.json()["error"].startswith("name: ") and why in r.json()["error"], bad
    d = client.post("/api/play", json={"lang": "es", "seed": 7, "name": "  Ana   María "}).json()
    assert d["names"] == {"you": "Ana María", "heuri": "heuri"} and d["review"] is None
    gcg = client.get(f"/api/play/{d['id']}/gcg").text
    assert "#player1 you Ana María\n" in gcg and "#player2 heuri heuri (heuri5)\n" in gcg
    # seed 7 deals AEILMPT: heuri's choice is the bingo through the centre, 8H TIEMPAL: T I E M
    # P A L = 1+1+1+3+3+1+1, the P on 8L's double letter: (11 + 3) × 2 (the star) + 50 = 78
    moves = client.post("/api/moves", json={"lang": "es", "cgp": d["cgp"]}).json()["moves"]
    other = next(m for m in moves if m["tiles_played"] == 3)  # a three-tile play, not heuri's choice
    d = client.post(f"/api/play/{d['id']}/move", json={"move": other["move"], "turn": 0}).json()
    rv = d["history"][0]["review"]
    assert rv["best"] == "8H TIEMPAL" and rv["best_score"] == 78 and rv["score"] == other["score"]
    assert rv["points_lost"] == 78 - other["score"] and rv["equity_lost"] > 0


def test_what_heuri_may_hold(client, pack_en):
    """``GET /api/play/{id}/infer``: the posterior over what heuri kept with its last move,
    from what you saw (the board before it, its tiles, your rack): the same as
    heuri.search.inference on that position; a 409 before heuri has moved."""
    import numpy as np

    from heuri.eval.evaluate import make_evaluator
    from heuri.search.inference import infer_from_position
    from heuri.web.service import Service

    d = client.post("/api/play", json={"lang": "en", "engine": "greedy", "seed": 4}).json()
    r = client.get(f"/api/play/{d['id']}/infer")
    assert r.status_code == 409 and r.json()["kind"] == "no-move"  # you move first
    svc = Service(packs={"en": pack_en})
    d = svc.play_new({"lang": "en", "engine": "greedy", "seed": 3, "first": "heuri"})  # 8D THUJA
    got = svc.play_infer(d["id"])
    heuri_move = d["history"][0]
    assert got["word"] == heuri_move["word"]
    n_played = sum(1 for _ in heuri_move["move"].split()[1].replace(".", "")) if heuri_move["kind"] == "play" else 0
    assert got["leave_size"] == 7 - n_played
    pos, mv, _ = svc._game(d["id"]).game.history[0]
    want = infer_from_position(make_evaluator(pack_en, "heuri2"), pos, mv, time_limit=1.0)
    assert got["exact"] == want.exact
    if got["exact"] or got["samples"] == want.samples:  # the same racks (a seeded sample cut by no clock)
        assert [x["prob"] for x in got["leaves"]] == [round(float(p), 4) for p in want.posterior[:10]]
    assert all(len(x["leave"].replace("-", "")) == got["leave_size"] for x in got["leaves"])
    assert [x["prob"] for x in got["leaves"]] == sorted((x["prob"] for x in got["leaves"]), reverse=True)
    post_x, _ = want.tile_expectation()
    assert float(np.sum(post_x)) == pytest.approx(got["leave_size"])
    assert client.get("/api/play/nope/infer").status_code == 404
    assert client.get(f"/api/play/{d['id']}/infer?coords=x").status_code == 400


# -- refusals the page says in its own language ----------------------------------------------
I18N_JS = Path(__file__).parent.parent / "runtime" / "heuri" / "apps" / "web" / "static" / "i18n.js"


def _page_templates() -> dict[str, str]:
    """The refusals the page says again in its language: i18n.js's ERRORS, kind[:form] → message."""
    import re

    text = I18N_JS.read_text(encoding="utf-8")
    return dict(re.findall(r'^\s*"([a-z-]+(?::[a-z-]+)?)": N_\("(.*)"\),$', text, re.M))


def _page_message(data: dict) -> str:
    """The message the page shows for an API refusal, as i18n.js's heuriErrorText finds it:
    the first template of ``kind:form``, ``kind``, ``cause:form``, ``cause`` or
    ``source:where`` whose every part the answer carries, filled from ``params`` (the
    coordinates' examples come from the page). Fails when none is (the page would show
    the server's English sentence)."""
    import re

    templates = _page_templates()
    p = dict(data.get("params") or {})
    keys = [x for k in (data["kind"], p.get("cause")) if k for x in ([f"{k}:{p['form']}"] if p.get("form") else []) + [k]]
    if p.get("source"):
        keys.append(f"{p['source']}:{p['where']}")
    p.update(across="8H", down="H8")
    if isinstance(p.get("square"), list):
        r, c = p["square"]
        p["square"] = f"{r + 1}{chr(65 + c)}"
    key = next((k for k in keys if k in templates and set(re.findall(r"\{(\w+)\}", templates[k])) <= set(p)), None)
    assert key is not None, (keys, data)
    return re.sub(r"\{(\w+)\}", lambda m: str(p[m.group(1)]), templates[key])


@pytest.mark.parametrize("move, kind, message", [
    ("1A AS", "centre-not-covered", "1A AS: the first move must cover the centre square, 8H."),
    ("8H SRIA", "phony", "8H SRIA forms a word not in the word list: SRIA."),
    ("8H SOL", "tiles-not-in-rack", "8H SOL: the rack A[CH]EIRS? lacks LO."),
    ("8H", "malformed-play", "8H cannot be read as a move: write the coordinate, a space and the word (8H WORD), "
                             "-ABC to exchange those tiles, or - to pass."),
    ("99 SOL", "bad-coordinate", "99 is not a coordinate: write the square as 8H for a word across, H8 for a "
                                 "word down."),
    ("8N SERIA", "play-out-of-bounds", "8N SERIA runs off the board."),
    ("Z9 SOL", "play-out-of-bounds", "Z9 SOL runs off the board."),
])
def test_a_refused_move_carries_its_parts(client, move, kind, message):
    """A refused move answers its ``kind`` and ``params`` (the move as typed, the words, the
    square), from which the page writes the message in its language (i18n.js)."""
    r = client.post("/api/preview", json={"lang": "es", "cgp": OPENING, "move": move})
    assert r.status_code == 400 and r.json()["kind"] == kind, r.text
    assert r.json()["params"]["move"] == move
    assert _page_message(r.json()) == message


@pytest.mark.parametrize("rack, message", [
    ("AEIOUBCDX", "The rack AEIOUBCDX has 9 tiles; a rack holds 7. Write a tile of several letters in brackets: "
                  "[CH], [LL], [RR]."),
    ("AEIK", "The rack AEIK: K is not a tile of this game."),
    ("AEI1", "The rack AEI1: 1 is not a tile: write capital letters, ? for a blank and a tile of several letters "
             "in brackets."),
])
def test_a_refused_rack_carries_its_parts(client, rack, message):
    cgp = OPENING.replace("AEIRS[CH]?", rack)
    r = client.post("/api/position", json={"lang": "es", "cgp": cgp})
    assert r.status_code == 400 and r.json()["kind"] == "bad-rack", r.text
    assert _page_message(r.json()) == message


def test_every_page_template_is_translated_and_keeps_its_parts():
    """Each refusal the page says again is in the Spanish and French catalogues, with the
    same {parts} as the English (a translation that drops {move} would show a hole)."""
    import re

    from heuri.apps.i18n import messages

    for lang in ("es", "fr"):
        cat = messages(lang)
        for key, english in _page_templates().items():
            assert english in cat and cat[english] != english, (lang, key)
            assert set(re.findall(r"\{(\w+)\}", cat[english])) == set(re.findall(r"\{(\w+)\}", english)), (lang, key)


def _page_notes() -> dict[str, str]:
    """The record warnings the page says again in its language: i18n.js's NOTES."""
    import re

    text = I18N_JS.read_text(encoding="utf-8")
    start = text.index("const NOTES = {")
    notes = text[start:text.index("\n  };", start)]
    return dict(re.findall(r'^\s*"([a-z-]+(?::[a-z-]+)?)": N_\("(.*)"\),$', notes, re.M))


def _page_note(parts: dict) -> str:
    """What i18n.js's heuriNoteText writes for one warning's ``{line, kind, params}`` (in
    English): the template of ``kind:form`` or ``kind`` filled, after ``line N: ``."""
    import re

    notes = _page_notes()
    p = parts["params"]
    key = next(k for k in ([f"{parts['kind']}:{p['form']}"] if p.get("form") else []) + [parts["kind"]]
               if k in notes and set(re.findall(r"\{(\w+)\}", notes[k])) <= set(p))
    said = re.sub(r"\{(\w+)\}", lambda m: str(p[m.group(1)]), notes[key])
    return f"line {parts['line']}: {said}" if parts["line"] else said


EN_PLAYERS = "#player1 p1 Player One\n#player2 p2 Player Two\n"


@pytest.mark.parametrize("gcg, said", [
    ("#note before anything\n#player1 a Sam Smith\n#player2 b Sam Smith\n>a: AEINRST 8H ANTSIER +66 66\n"
     "#rack2 DEIILTZ\n>b: DEIILTZ N2 DITZIE. +38 38\n",
     ["The players a and b share the full name Sam Smith.",
      "line 1: #note before the first move: a note comments on the move before it.",
      "line 5: #rack2 DEIILTZ stands before the last move (line 6); a #rackN line gives a rack after the last move."]),
    (EN_PLAYERS + ">p1: QXZAEIO 8G QXZ +56 56\n",
     ["line 3: 8G QXZ: QXZ not in {lexicon}."]),
    (EN_PLAYERS + ">p1: AEINRST 8H ANTSIER +66 66\n>p2: DEIILTZ N2 DITZIE. +38 38\n>p2: ZZ (challenge) +5 43\n",
     ["line 5: The rack field ZZ of the (challenge) line is not a rack the tile set allows here; it is ignored."]),
    (EN_PLAYERS + ">p1: AEINRSX 8H SNARE +12 12\n>p2: DEIILTX K4 EDIT.IX +30 30\n",
     ["line 4: The rack DEIILTX and the tiles known on the other rack need X more than the tile set has left off "
      "the board."]),
    (EN_PLAYERS + ">p1: AEINRSX 8H SNARE +12 12\n#rack2 DEIILTX\n",
     ["line 4: #rack2 DEIILTX and the tiles known on the other rack need X more than the tile set has left off "
      "the board."]),
    (EN_PLAYERS + "".join(f">p{i % 2 + 1}: ABCDEFG - +0 0\n" for i in range(6))
     + ">p1: ABCDEFG (ABCDEFG) -16 -16\n>p2: ABC (ABD) -6 -6\n",
     ["line 10: End-of-game line: the tiles in parentheses (ABD) differ from the rack ABC; scored on (ABD)."]),
    (EN_PLAYERS + ">p1: AEINRST 8H ANTSIER +60 60\n",
     ["line 3: p1 8H ANTSIER: recorded 60, heuri scores 66."]),
])
def test_a_records_warnings_carry_their_parts(client, gcg, said):
    """The Game view answers each warning's kind and parts beside the English sentence, and
    the page's template filled from them says the same thing (i18n.js's heuriNoteText)."""
    d = client.post("/api/game", json={"gcg": gcg, "lang": "en"}).json()
    assert len(d["warning_parts"]) == len(d["warnings"]), d
    lexicon = d["lexicon"]
    assert [_page_note(p) for p in d["warning_parts"]] == [s.format(lexicon=lexicon) for s in said]


def test_every_warning_kind_of_a_record_has_a_page_template():
    """Each kind of Note the record reader writes (heuri.formats.gcg) is said again by the page,
    and the catalogues translate each template with the same parts."""
    import re

    from heuri.apps.i18n import messages

    source = (Path(__file__).parent.parent / "runtime" / "heuri" / "formats" / "gcg.py").read_text(encoding="utf-8")
    kinds = set(re.findall(r'"(gcg-[a-z-]+)"', source))
    notes = _page_notes()
    assert len(kinds) == 8 and all(k in notes or any(n.startswith(k + ":") for n in notes) for k in kinds), kinds
    for lang in ("es", "fr"):
        cat = messages(lang)
        for english in list(notes.values()) + ["line {line}: {text}"]:
            assert english in cat and cat[english] != english, (lang, english)
            assert set(re.findall(r"\{(\w+)\}", cat[english])) == set(re.findall(r"\{(\w+)\}", english))


def test_a_warning_names_the_lexicons_for_the_page(client):
    d = client.post("/api/position", json={"cgp": OPENING + " lex FILE2017;"}).json()
    assert d["warning"] and d["warning_params"]["named"] == "FILE2017" and d["warning_params"]["pack"] == "es"
    assert d["warning_params"]["words"] == d["lexicon"]
    assert client.post("/api/position", json={"lang": "es", "cgp": OPENING}).json()["warning_params"] is None


@pytest.mark.parametrize("cgp, message", [
    ("15/15 A/ 0/0 0", "The CGP's board has 2 rows; it needs 15, separated by /."),
    (OPENING.replace("15 AEIRS", "14 AEIRS"), "Row 15 of the CGP's board covers 14 squares; it needs 15."),
    ("/".join(["15"] * 14 + ["K14"]) + " A/ 0/0 0", "Row 15 of the CGP's board: K is not a tile of this game."),
    (OPENING.replace("0/0 0", "0/x 0"), "The CGP's scores 0/x: write whole numbers separated by /."),
    (OPENING.replace("0/0 0", "0/0/0 0"), "The CGP's racks and scores do not match: 2 racks, 3 scores."),
    (OPENING.replace("AEIRS[CH]?/ 0/0", "AEIRS[CH]? 0"), "The CGP's racks AEIRS[CH]?: write two, separated by / (RACK/ "
                                                  "when the other is unknown)."),
    (OPENING.replace("0/0 0", "0/0 x"), "The CGP's count of scoreless turns, x, is not a whole number."),
    (OPENING + " lex FILE2017", "The CGP's operations lex FILE2017: each ends with ;."),
])
def test_a_refused_position_carries_its_parts(client, cgp, message):
    r = client.post("/api/position", json={"lang": "es", "cgp": cgp})
    assert r.status_code == 400, r.text
    assert _page_message(r.json()) == message


def test_a_refused_record_and_name_carry_their_parts(client):
    r = client.post("/api/game", json={"gcg": "#character-encoding UTF-8\n>A: AEINRST 8D AEINRSTX +99 99\n",
                                       "lang": "es"})
    assert r.status_code == 400, r.text
    msg = _page_message(r.json())
    assert msg.startswith("The record cannot be read (line 2): ") and r.json()["params"]["detail"] in msg
    r = client.post("/api/play", json={"lang": "es", "name": "x" * 200})
    assert r.status_code == 400 and r.json()["kind"] == "bad-name", r.text
    assert _page_message(r.json()).startswith("A name has at most ") and "(200 typed)" in _page_message(r.json())
