"""The duplicate trainer's JSON API (``/api/duplicate/...``) through Starlette's test client,
on a clock the test moves: seeded master games' real draws and tops (as ``heuri
duplicate new`` gives them), the arbitrated scores, the time limit, what the page may not
see before its turn, the sheet read back by ``heuri duplicate score``'s reader, the errors
and the bounds."""
from __future__ import annotations

import csv
import io
import json
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e .[web])")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

DATA = Path(__file__).parent / "data"


class Clock:
    """The service's clock (seconds), moved by the test."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def clock():
    return Clock()


@pytest.fixture(scope="module")
def service(pack_es, pack_fr, clock):
    from heuri.web.service import Service

    return Service(packs={"fr": pack_fr, "es": pack_es}, clock=clock)


@pytest.fixture(scope="module")
def client(service):
    from heuri.web.app import create_app

    with TestClient(create_app(service, port=8765), base_url="http://127.0.0.1:8765") as c:
        yield c


def _ok(r) -> dict:
    assert r.status_code == 200, r.text
    return r.json()


def _sheet_totals(text: str, game, pack, tmp_path):
    """``heuri duplicate score``'s reading of a sheet: its reader, then the arbitrator."""
    from heuri.arbitration import read_sheets
    from heuri.duplicate import arbitrate

    p = tmp_path / "sheet.csv"
    p.write_text(text, encoding="utf-8", newline="")
    subs = read_sheets([p], game)
    return subs, arbitrate(game, subs, pack.words)


def test_a_seeded_french_game_turn_by_turn(client, clock, pack_fr, tmp_path):
    from heuri.duplicate import master_game

    r = client.post("/api/duplicate", json={"lang": "fr", "seed": 1, "seconds": 60, "player": "Ana"})
    d = _ok(r)
    gid = d["id"]
    assert (d["phase"], d["turn"], d["turns"], d["seconds"], d["left_s"]) == ("turn", 1, 24, 60, 60.0)
    assert d["draw"]["text"] == "EEGJMUV" and d["draw"]["rejected"] == ["ADLMSTX"]  # the rule's redraw, shown
    assert [x["tile"] for x in d["draw"]["new"]] == list("EEGJMUV") and d["draw"]["leave"] == []
    assert d["game"] == master_game(pack_fr, seed=1, explain=False).game_id == "fr-8d5e444590a0"
    # nothing of the turn's top, of a later draw or of the seed before the end
    assert "seed" not in d and "result" not in d
    for secret in ("JUGEE", "MV+AEINQ", "AEINQ", "ANSTUV"):
        assert secret not in r.text
    assert d["board"]["grid"][7] == [""] * 15

    clock.now += 20
    d = _ok(client.post(f"/api/duplicate/{gid}/move", json={"turn": 1, "move": "8H JUGE"}))
    res = d["result"]
    assert (d["phase"], res["move"], res["score"], res["top"], res["top_score"], res["is_top"]) == \
        ("result", "8H JUGE", 24, "8D JUGEE", 42, False)
    assert d["totals"] == {"you": 24, "top": 42, "percent": 57.14, "tops": 0}
    assert "MV+AEINQ" not in json.dumps(d)  # the next draw only once the next turn starts

    d = _ok(client.post(f"/api/duplicate/{gid}/next", json={"turn": 1}))
    assert (d["turn"], d["draw"]["text"], d["left_s"]) == (2, "MV+AEINQ", 60.0)
    assert [x["tile"] for x in d["draw"]["leave"]] == ["M", "V"]
    assert "".join(d["board"]["grid"][7][3:8]) == "JUGEE"  # the top is on the board, not the move handed in
    # the whole word through the board's U, typed with the coordinate
    d = _ok(client.post(f"/api/duplicate/{gid}/move", json={"turn": 2, "move": "E3 VAINQUE"}))
    assert (d["result"]["score"], d["result"]["is_top"]) == (34, True)
    assert d["totals"] == {"you": 58, "top": 76, "percent": 76.32, "tops": 1}

    # turn 3: a word not in the list scores 0 with the reason (nullity)
    d = _ok(client.post(f"/api/duplicate/{gid}/next", json={"turn": 2}))
    assert d["draw"]["text"] == "M+ANSTUV"
    d = _ok(client.post(f"/api/duplicate/{gid}/move", json={"turn": 3, "move": "E3 VAINQUENS"}))
    res = d["result"]
    assert (res["score"], res["top"], res["top_score"]) == (0, "E3 (VAINQUE)NT", 38)
    assert "VAINQUENS" in res["reason"] and d["totals"]["top"] == 114
    # and its parts, for the page to say it in its own language
    assert (res["reason_kind"], res["reason_params"]) == ("phony", {"move": "E3 VAINQUENS", "words": "VAINQUENS"})

    # turn 4: handed in past the time and its grace: not taken
    _ok(client.post(f"/api/duplicate/{gid}/next", json={"turn": 3}))
    clock.now += 66
    d = _ok(client.post(f"/api/duplicate/{gid}/move", json={"turn": 4, "move": "4A HALVAS"}))
    res = d["result"]
    assert (res["move"], res["score"], res["top"], res["top_score"]) == ("", 0, "4A HALV(A)S", 32)
    assert "after the time" in res["reason"] and res["refused"][0][0] == "4A HALVAS"
    assert (res["reason_kind"], res["reason_params"]) == ("late", {"seconds": 6})

    # turn 5: the page is gone; its time runs out and the turn is settled without a move
    d = _ok(client.post(f"/api/duplicate/{gid}/next", json={"turn": 4}))
    assert d["turn"] == 5
    clock.now += 300
    d = _ok(client.get(f"/api/duplicate/{gid}"))
    assert (d["phase"], d["result"]["move"], d["result"]["timed_out"]) == ("result", "", True)
    assert d["totals"]["you"] == 58 and len(d["history"]) == 5

    # the sheet, read by heuri duplicate score: the same points
    r = client.get(f"/api/duplicate/{gid}/sheet")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert "attachment" in r.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(r.text)))
    assert rows == [["player", "turn", "move", "score", "game"], ["Ana", "1", "8H JUGE", "24", "fr-8d5e444590a0"],
                    ["Ana", "2", "E3 VAINQUE", "34", "fr-8d5e444590a0"],
                    ["Ana", "3", "E3 VAINQUENS", "0", "fr-8d5e444590a0"]]
    game = master_game(pack_fr, seed=1, explain=False)
    subs, (res,) = _sheet_totals(r.text, game, pack_fr, tmp_path)
    assert (res.player, res.total, res.tops) == ("Ana", d["totals"]["you"], d["totals"]["tops"])
    assert [v.points for v in res.verdicts[:5]] == [h["score"] for h in d["history"]] == [24, 34, 0, 0, 0]
    assert [v.kind for v in res.verdicts[:5]] == ["valid", "top", "illegal", "missing", "missing"]


def test_a_spanish_game_to_the_end_at_the_top(client, pack_es, tmp_path):
    from heuri.duplicate import master_game

    game = master_game(pack_es, seed=3, explain=False)
    spec = pack_es.spec
    d = _ok(client.post("/api/duplicate", json={"lang": "es", "seed": 3}))
    gid = d["id"]
    assert (d["seconds"], d["turns"], d["draw"]["text"]) == (180, 21, "A[CH]DESST")  # 3 minutes by default
    assert [x["tile"] for x in d["draw"]["new"]] == ["A", "[CH]", "D", "E", "S", "S", "T"]
    for t in game.turns:
        assert (d["phase"], d["turn"], d["draw"]["text"]) == ("turn", t.number, t.draw.text(spec))
        d = _ok(client.post(f"/api/duplicate/{gid}/move", json={"turn": t.number, "move": t.top_text(spec)}))
        assert (d["result"]["score"], d["result"]["is_top"]) == (t.score, True)
        if t.number < len(game.turns):
            assert not d["over"] and "seed" not in d
            d = _ok(client.post(f"/api/duplicate/{gid}/next", json={"turn": t.number}))
    assert d["over"] and (d["seed"], d["end"]) == (3, game.end)
    assert d["totals"] == {"you": 927, "top": 927, "percent": 100.0, "tops": 21} and game.total == 927
    assert [h["top_score"] for h in d["history"][:3]] == [28, 83, 98]
    r = client.post(f"/api/duplicate/{gid}/next", json={"turn": 21})
    assert r.status_code == 400 and "over" in r.json()["error"]
    _, (res,) = _sheet_totals(client.get(f"/api/duplicate/{gid}/sheet").text, game, pack_es, tmp_path)
    assert (res.total, res.tops, res.percent) == (927, 21, 100.0)


def test_a_master_games_record_uploaded(client, pack_fr, pack_es):
    from heuri.duplicate import master_game, to_gcg
    from heuri.gcg import write_gcg

    text = write_gcg(to_gcg(master_game(pack_fr, seed=2, explain=False)))
    d = _ok(client.post("/api/duplicate", json={"lang": "fr", "master": text, "name": "fr-2.gcg", "seconds": 120}))
    assert d["game"] == master_game(pack_fr, seed=2, explain=False).game_id and d["seconds"] == 120
    assert (d["draw"]["text"], "seed" in d) == ("BEFILTT", False)
    # no language given: the record's (#tile-distribution spanish), not the first served (fr)
    es_text = write_gcg(to_gcg(master_game(pack_es, seed=3, explain=False)))
    d = _ok(client.post("/api/duplicate", json={"master": es_text}))
    assert (d["lang"], d["draw"]["text"]) == ("es", "A[CH]DESST")
    classic = (DATA / "es_pass_with_bingo.gcg").read_text(encoding="utf-8")  # a game between two players
    r = client.post("/api/duplicate", json={"lang": "es", "master": classic, "name": "es_pass_with_bingo.gcg"})
    assert r.status_code == 400 and r.json()["error"].startswith("es_pass_with_bingo.gcg: not a duplicate master game")
    # a top changed: its score is not the top of the draw
    first = next(line for line in text.splitlines() if line.startswith(">master:"))
    r = client.post("/api/duplicate", json={"lang": "fr", "master": text.replace(first, first.replace("8D ", "8E ", 1)),
                                            "name": "x.gcg"})
    assert r.status_code == 400 and r.json()["error"].startswith("x.gcg:"), r.text
    r = client.post("/api/duplicate", json={"lang": "fr", "master": text, "seed": 2})
    assert r.status_code == 400 and "not both" in r.json()["error"]
    # a record longer than a game: refused with its count, which the page says in its language
    long = "#player1 master master\n#player2 x x\n" + "".join(">master: ABCDEFG - +0 0\n" for _ in range(301))
    r = client.post("/api/duplicate", json={"lang": "fr", "master": long})
    assert r.status_code == 422 and r.json()["kind"] == "too-long", r.text
    assert r.json()["params"] == {"count": 301, "size": 300}


@pytest.mark.parametrize("body, words", [
    ({"lang": "fr", "seconds": 90}, "seconds: 90: choose one of 60, 120, 180"),
    ({"lang": "fr", "seconds": "3"}, "seconds"),
    ({"lang": "fr", "seed": -1}, "seed"),
    ({"lang": "fr", "seed": 1.5}, "seed"),
    ({"lang": "fr", "notation": "xyz"}, "notation"),
    ({"lang": "fr", "tiles": "ABC"}, "'tiles': duplicate takes no such field"),
    ({"lang": "pl"}, "lang: 'pl' is not served here"),
    ({"lang": "fr", "player": "a\nb"}, "player"),
])
def test_bad_requests_name_the_field(client, body, words):
    r = client.post("/api/duplicate", json=body)
    assert r.status_code == 400 and words in r.json()["error"], r.text


def test_stale_and_malformed_moves_change_nothing(client):
    d = _ok(client.post("/api/duplicate", json={"lang": "fr", "seed": 1}))
    gid = d["id"]
    # not a move at all: refused (400), the turn still runs
    for text in ("hello", "8D JU1", "Z9 JUGE"):
        r = client.post(f"/api/duplicate/{gid}/move", json={"turn": 1, "move": text})
        assert r.status_code == 400 and r.json()["error"].startswith("move: "), r.text
    assert _ok(client.get(f"/api/duplicate/{gid}"))["phase"] == "turn"
    r = client.post(f"/api/duplicate/{gid}/move", json={"turn": 2, "move": "8D JUGEE"})
    assert r.status_code == 409 and r.json()["kind"] == "stale-turn"
    r = client.post(f"/api/duplicate/{gid}/next", json={"turn": 1})  # the turn is running, not settled
    assert r.status_code == 409
    d = _ok(client.post(f"/api/duplicate/{gid}/move", json={"turn": 1, "move": "8D JUGEE"}))
    assert d["result"]["is_top"]
    r = client.post(f"/api/duplicate/{gid}/move", json={"turn": 1, "move": "8D JUGEE"})  # sent twice
    assert r.status_code == 409
    assert _ok(client.get(f"/api/duplicate/{gid}"))["totals"]["you"] == 42
    r = client.post(f"/api/duplicate/{gid}/move", json={"turn": 1, "move": "8D JUGEE", "score": 42})
    assert r.status_code == 400 and "'score'" in r.json()["error"]
    # JSON only, through the board's Guard
    r = client.post(f"/api/duplicate/{gid}/next", content=b'{"turn": 1}', headers={"content-type": "text/plain"})
    assert r.status_code == 415
    for path in ("/api/duplicate/0123", "/api/duplicate/0123/sheet"):
        r = client.get(path)
        assert r.status_code == 404 and r.json()["kind"] == "no-game"


def test_games_are_bounded_and_expire(pack_fr):
    from heuri.web.app import create_app
    from heuri.web.service import IDLE_S, Service

    clock = Clock()
    svc = Service(packs={"fr": pack_fr}, max_games=2, clock=clock)
    with TestClient(create_app(svc, port=8765), base_url="http://127.0.0.1:8765") as c:
        first = _ok(c.post("/api/duplicate", json={"seed": 1}))["id"]
        _ok(c.post("/api/duplicate", json={"seed": 2}))
        r = c.post("/api/duplicate", json={"seed": 3})
        assert r.status_code == 429 and r.json()["kind"] == "too-many-games"
        assert _ok(c.get(f"/api/duplicate/{first}"))["turn"] == 1  # none dropped for the new one
        clock.now += IDLE_S + 1
        r = c.get(f"/api/duplicate/{first}")
        assert r.status_code == 404
        _ok(c.post("/api/duplicate", json={"seed": 3}))  # room again


# -- fuzz: no request to the trainer gets a 500 ----------------------------------------------------
def test_fuzz_the_trainer_api_never_500(client):
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10**40), max_value=10**40),
                        st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
                        st.sampled_from(["fr", "es", "gcg", "fisf", "8D JUGEE", "8H JUGE", "E3 VAINQUE", "", " ",
                                         "#game-type duplicate\n#player1 master M\n>master: ABC 8D AB +2 2\n",
                                         60, 120, 180, 1, 2]))
    values = st.recursive(scalars, lambda kids: st.one_of(st.lists(kids, max_size=3),
                                                           st.dictionaries(st.text(max_size=4), kids, max_size=2)),
                          max_leaves=6)
    fields = ["lang", "lexicon", "seed", "master", "name", "seconds", "notation", "player", "turn", "move"]
    bodies = st.dictionaries(st.one_of(st.sampled_from(fields), st.text(max_size=6)), values, max_size=4)
    game: list = []

    @hypothesis.settings(max_examples=50, deadline=None, derandomize=True,
                         suppress_health_check=list(hypothesis.HealthCheck))
    @hypothesis.given(kind=st.sampled_from(["new", "move", "next"]), body=bodies)
    def run(kind, body):
        if kind == "new":
            path = "/api/duplicate"
        else:
            if not game or client.get(f"/api/duplicate/{game[0]}").json().get("over", True):
                game[:] = [client.post("/api/duplicate", json={"lang": "fr", "seed": 1}).json()["id"]]
            path = f"/api/duplicate/{game[0]}/{kind}"
        raw = json.dumps(body, allow_nan=True, ensure_ascii=False).encode("utf-8", "surrogatepass")
        r = client.post(path, content=raw, headers={"content-type": "application/json"})
        assert r.status_code in (200, 400, 404, 409, 422, 429), (path, raw[:300], r.text)
        if r.status_code != 200:
            assert "\n" not in r.json()["error"]

    run()


def test_fisf_coordinates(client, tmp_path, pack_fr):
    """In FISF notation (row letter first = across) the moves are typed and the tops shown
    that way; the sheet holds GCG, as heuri duplicate score reads it by default."""
    from heuri.duplicate import master_game

    d = _ok(client.post("/api/duplicate", json={"lang": "fr", "seed": 1, "notation": "fisf"}))
    gid = d["id"]
    d = _ok(client.post(f"/api/duplicate/{gid}/move", json={"turn": 1, "move": "H4 JUGEE"}))
    assert (d["result"]["score"], d["result"]["top"], d["result"]["is_top"]) == (42, "H4 JUGEE", True)
    _ok(client.post(f"/api/duplicate/{gid}/next", json={"turn": 1}))
    d = _ok(client.post(f"/api/duplicate/{gid}/move", json={"turn": 2, "move": "5C VAINQUE"}))
    assert (d["result"]["score"], d["result"]["top"]) == (34, "5C VAINQ(U)E")
    text = client.get(f"/api/duplicate/{gid}/sheet").text
    assert text.splitlines()[1:] == ["me,1,8D JUGEE,42,fr-8d5e444590a0", "me,2,E3 VAINQUE,34,fr-8d5e444590a0"]
    _, (res,) = _sheet_totals(text, master_game(pack_fr, seed=1, explain=False), pack_fr, tmp_path)
    assert (res.total, res.tops) == (76, 2)


def test_a_stored_game_is_small(pack_fr):
    """A duplicate game kept by the server (the master game's turns and the trainer) takes
    about 40 KB: 1,000 games are about 40 MB. (The move generator's buffer, one a thread
    grown to the longest move list met, is not a game's: left out.)"""
    import gc
    import tracemalloc

    from heuri.web.service import Service

    svc = Service(packs={"fr": pack_fr})
    svc.duplicate.new({"seed": 100})  # first-use allocations before measuring
    keep = [tracemalloc.Filter(False, "*/core/movegen.py")]
    tracemalloc.start()
    try:
        gc.collect()
        before = tracemalloc.take_snapshot().filter_traces(keep)
        for seed in range(6):
            svc.duplicate.new({"seed": 10 + seed})
        gc.collect()
        after = tracemalloc.take_snapshot().filter_traces(keep)
        per_game = sum(st.size_diff for st in after.compare_to(before, "filename")) / 6
    finally:
        tracemalloc.stop()
    assert len(svc.duplicate._games) == 7
    print(f"a stored duplicate game: {per_game / 1024:.1f} KB")
    assert per_game < 100 * 1024, per_game
