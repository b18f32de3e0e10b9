"""``heuri serve`` against a hostile or careless client: each probe of the board's security
review is a test here. Files: only ``.gcg`` files under ``--records`` are read (no path
outside it, no symbolic link, no file named by an upload); requests: the ``Host`` must be
this server's, another site's page is refused (``Origin``, ``Sec-Fetch-Site``), a POST must
be JSON, and every answer carries the security headers; fields: NaN, infinities, huge
numbers, lists, deep nesting get a 400 naming the field, an unexpected failure a JSON 500
with an id; games: no seed or hidden rack in an answer, turn-numbered moves (409), expiry
by age and a cap that refuses new games (none dropped), bounded pools. A hypothesis fuzz
of the JSON API asserts that no request gets a 500 (``HEURI_FUZZ_EXAMPLES=N`` sets its
examples, as tests/test_fuzz.py)."""
from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e .[web])")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

with warnings.catch_warnings():  # Starlette 1.x would rather have httpx2; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

DATA = Path(__file__).parent / "data"
GAME = DATA / "es_pass_with_bingo.gcg"
EMPTY = "/".join(["15"] * 15)
OPENING = f"{EMPTY} AEIRS[CH]?/ 0/0 0"
CHEAP = f"{EMPTY} QZ/ 0/0 0"  # two tiles: no move on the empty board but exchanges and the pass
URL = "http://127.0.0.1:8765"
JSON = {"content-type": "application/json"}


def _client(svc, **kw):
    from heuri.web.app import create_app

    return TestClient(create_app(svc, port=8765, **kw), base_url=URL, raise_server_exceptions=False)


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """A records folder: the test game, a symbolic link named .gcg to /etc/passwd, a linked
    folder, a text file, a record over the size cap."""
    root = tmp_path_factory.mktemp("records")
    shutil.copy(GAME, root / "game.gcg")
    (root / "sub").mkdir()
    shutil.copy(GAME, root / "sub" / "inner.gcg")
    os.symlink("/etc/passwd", root / "passwd.gcg")
    outside = tmp_path_factory.mktemp("outside")
    shutil.copy(GAME, outside / "secret.gcg")
    os.symlink(outside, root / "linked")
    os.symlink(outside / "secret.gcg", root / "secret.gcg")
    (root / "notes.txt").write_text("#player1 a A\n", encoding="utf-8")
    (root / "big.gcg").write_bytes(b"#note " + b"x" * (2 << 20) + b"\n")
    return root


@pytest.fixture(scope="module")
def svc(pack_es, records):
    from heuri.web.service import Service

    return Service(packs={"es": pack_es}, records=records)


@pytest.fixture(scope="module")
def client(svc):
    with _client(svc) as c:
        yield c


@pytest.fixture(scope="module")
def closed(pack_es):
    """A server started without --records."""
    from heuri.web.service import Service

    with _client(Service(packs={"es": pack_es})) as c:
        yield c


# -- files ----------------------------------------------------------------------------------------
def test_no_records_folder_no_file_read(closed):
    for body in ({"path": "/etc/passwd"}, {"path": str(GAME)}, {"path": "game.gcg"},
                 {"gcg": GAME.read_text(encoding="utf-8"), "analysis": "/tmp"}):
        r = closed.post("/api/game", json=body)
        assert r.status_code == 400, r.text
        assert "heuri serve --records DIR" in r.json()["error"] and "root:" not in r.text
    assert closed.get("/api/info").json()["records"] is False


def test_upload_is_text_never_a_path(client):
    """``gcg`` naming a file (one line, as the old parser took a path) is record text: the
    file is not read, the answer is a parse error of that one line."""
    r = client.post("/api/game", json={"gcg": "/etc/passwd"})
    assert r.status_code == 400 and "upload.gcg:1" in r.json()["error"] and "root:" not in r.text
    r = client.post("/api/game", json={"gcg": str(GAME)})  # a valid record's path: not its moves
    assert r.status_code == 400 and "upload.gcg:1" in r.json()["error"] and "turns" not in r.json()


@pytest.mark.parametrize("path", ["/etc/passwd", "/etc/nonexistent.gcg", "../outside/secret.gcg",
                                  "sub/../../x.gcg", str(GAME), "/", "~/x.gcg"])
def test_paths_outside_the_records_folder_are_one_answer(client, path):
    """Outside the folder: the same 400 whether the file exists or not (no 404/413 that
    tells), and nothing of a file in the message."""
    r = client.post("/api/game", json={"path": path})
    assert r.status_code == 400 and r.json()["kind"] == "bad-input", r.text
    assert "outside the records folder" in r.json()["error"] and "root:" not in r.text
    r = client.post("/api/game", json={"gcg": GAME.read_text(encoding="utf-8"), "analysis": path})
    assert r.status_code == 400 and "outside the records folder" in r.json()["error"]


def test_symbolic_links_are_refused(client):
    for path in ("passwd.gcg", "secret.gcg", "linked/secret.gcg"):
        r = client.post("/api/game", json={"path": path})
        assert r.status_code == 400 and "symbolic link" in r.json()["error"] and "root:" not in r.text, r.text


def test_records_inside_the_folder(client, records):
    d = client.post("/api/game", json={"path": "game.gcg"}).json()
    assert d["name"] == "game.gcg" and d["turns"][1]["move"] == "K4 ALBR.CIE" and d["turns"][1]["score"] == 98
    assert client.post("/api/game", json={"path": "sub/inner.gcg"}).json()["turns"][1]["score"] == 98
    assert client.post("/api/game", json={"path": str(records / "game.gcg")}).status_code == 200
    r = client.post("/api/game", json={"path": "notes.txt"})
    assert r.status_code == 400 and "only .gcg files" in r.json()["error"]
    r = client.post("/api/game", json={"path": "big.gcg"})
    assert r.status_code == 413 and "at most 1,048,576 are read" in r.json()["error"]
    r = client.post("/api/game", json={"path": "missing.gcg"})
    assert r.status_code == 404 and r.json()["kind"] == "no-file"
    r = client.post("/api/game", json={"gcg": GAME.read_text(encoding="utf-8"), "analysis": "sub"})
    assert r.status_code == 404 and "turns.parquet" in r.json()["error"]


# -- who may drive it -------------------------------------------------------------------------------
@pytest.mark.parametrize("host, status", [("evil.example.com", 421), ("evil.example.com:8765", 421),
                                          ("127.0.0.1:9999", 421), ("127.0.0.1", 421), ("", 421),
                                          ("127.0.0.1:8765", 200), ("localhost:8765", 200),
                                          ("[::1]:8765", 200)])
def test_host_header(client, host, status):
    r = client.get("/api/info", headers={"host": host})
    assert r.status_code == status, r.text
    r = client.post("/api/position", json={"cgp": OPENING}, headers={"host": host})
    assert r.status_code == status


@pytest.mark.parametrize("headers, status", [
    ({"origin": "http://evil.example"}, 403), ({"origin": "null"}, 403),
    ({"origin": "http://127.0.0.1:9999"}, 403), ({"origin": "http://localhost:8765"}, 403),
    ({"sec-fetch-site": "cross-site"}, 403), ({"sec-fetch-site": "same-site"}, 403),
    ({"origin": URL}, 200), ({"origin": URL, "sec-fetch-site": "same-origin"}, 200), ({}, 200)])
def test_origin(client, headers, status):
    r = client.post("/api/position", json={"cgp": OPENING}, headers=headers)
    assert r.status_code == status, r.text
    if status == 403:
        assert r.json()["kind"] == "cross-origin"


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None])
def test_post_must_be_json(client, ctype):
    body = json.dumps({"cgp": OPENING}).encode()
    headers = {"content-type": ctype} if ctype else {}
    r = client.post("/api/position", content=body, headers=headers)
    assert r.status_code == 415 and r.json()["kind"] == "not-json", r.text
    assert client.post("/api/position", content=body,
                       headers={"content-type": "application/json; charset=utf-8"}).status_code == 200


def test_headers_on_every_answer(client):
    for r in (client.get("/"), client.get("/static/app.js"), client.get("/api/info"), client.get("/api/nowhere"),
              client.post("/api/best", json={"cgp": 1}), client.get("/api/info", headers={"host": "evil"})):
        h = r.headers
        assert h["x-frame-options"] == "DENY" and h["x-content-type-options"] == "nosniff"
        assert h["referrer-policy"] == "no-referrer"
        csp = h["content-security-policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "script-src 'self';" in csp
    assert client.get("/api/info").headers["cache-control"] == "no-store"
    # the page has no inline script: the policy's script-src 'self' lets it run (the browser test runs it)
    page = client.get("/").text
    assert "<script>" not in page and "onclick" not in page and '<script src="/static/app.js">' in page


def test_remote_host_needs_the_flag(capsys):
    from heuri.cli import main
    from heuri.web.app import is_loopback

    assert main(["serve", "--host", "0.0.0.0"]) == 2
    err = capsys.readouterr().err
    assert "--allow-remote" in err and "0.0.0.0" in err
    assert main(["serve", "--host", "192.168.1.5", "--port", "8765"]) == 2
    assert main(["serve", "--records", "/nonexistent/folder"]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert [is_loopback(h) for h in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "0.0.0.0", "::",
                                     "example.com", "10.0.0.1")] == [True] * 5 + [False] * 4


# -- numbers, types, nesting ------------------------------------------------------------------------
@pytest.mark.parametrize("raw, field", [
    (b'{"cgp": "%s", "k": NaN}', "k: NaN"), (b'{"cgp": "%s", "k": Infinity}', "k: Infinity"),
    (b'{"cgp": "%s", "k": -Infinity}', "k: -Infinity"), (b'{"cgp": "%s", "k": 1e300}', "k: 1e+300"),
    (b'{"cgp": "%s", "k": 1e400}', "k: 1e400"), (b'{"cgp": "%s", "k": 0}', "k: 0"),
    (b'{"cgp": "%s", "k": "2.5"}', "k: '2.5'"), (b'{"cgp": "%s", "k": [2.5]}', "k: a list"),
    (b'{"cgp": "%s", "top": ' + b"1" + b"0" * 400 + b'}', "top: a number of 401 characters"),
    (b'{"cgp": "%s", "top": 10000000000000000000000}', "top: "),
    (b'{"cgp": "%s", "top": 2.5}', "top: 2.5"), (b'{"cgp": "%s", "top": true}', "top: true"),
    (b'{"cgp": "%s", "top_n": NaN}', "top_n: NaN"), (b'{"cgp": "%s", "exact": "yes"}', "exact: 'yes'"),
    (b'{"cgp": "%s", "engine": ["x"]}', "engine: a list"), (b'{"cgp": ["%s"]}', "cgp: a list"),
    (b'{"cgp": "%s", "lang": {"a": 1}}', "lang: an object"), (b'{"cgp": "%s", "tpo": 3}', "'tpo'")])
def test_bad_numbers_and_types_name_the_field(client, raw, field):
    r = client.post("/api/best", content=raw.replace(b"%s", OPENING.encode()), headers=JSON)
    assert r.status_code == 400, r.text
    msg = r.json()["error"]
    assert msg.startswith(field) or field in msg, msg
    assert "\n" not in msg and len(msg) < 300


@pytest.mark.parametrize("path, body, field", [
    ("/api/play", {"seed": float("nan")}, "seed: NaN"), ("/api/play", {"seed": -1}, "seed: -1"),
    ("/api/play", {"seed": 10**400}, "seed: a number of 401"), ("/api/play", {"first": ["you"]}, "first: a list"),
    ("/api/play", {"engine": "heuri9"}, "engine: 'heuri9'"),
    ("/api/game", {"gcg": GAME.read_text(encoding="utf-8"), "analyze": True, "engine": ["x"]}, "engine: a list"),
    ("/api/game", {"gcg": ["x"]}, "gcg: a list"), ("/api/game", {"gcg": "x", "analyze": "yes"}, "analyze: 'yes'"),
    ("/api/moves", {"cgp": OPENING, "top": float("inf")}, "top: Infinity"),
    ("/api/preview", {"cgp": OPENING, "move": 8}, "move: 8")])
def test_bad_fields_elsewhere(client, path, body, field):
    raw = json.dumps(body).encode()  # Python's json writes NaN, Infinity and 401 digits, as a careless client would
    r = client.post(path, content=raw, headers=JSON)
    assert r.status_code == 400 and field in r.json()["error"], r.text


def test_deep_nesting(client):
    for depth in (33, 1000, 100_000):
        r = client.post("/api/best", content=b"[" * depth + b"]" * depth, headers=JSON)
        assert r.status_code == 400 and r.json()["kind"] == "too-deep", r.text
        r = client.post("/api/best", content=b'{"cgp": ' + b'{"a": ' * depth + b"1" + b"}" * (depth + 1),
                        headers=JSON)
        assert r.status_code == 400 and r.json()["kind"] == "too-deep"
    # brackets inside strings are text, not nesting
    r = client.post("/api/position", json={"cgp": OPENING, "lang": "[" * 100})
    assert r.status_code == 400 and "not served here" in r.json()["error"]
    r = client.post("/api/best", content=b'{"cgp": "x", "k": [[[[1]]]]}', headers=JSON)
    assert r.status_code == 400 and r.json()["error"].startswith("k: a list")


def test_unknown_lexicon_is_said(client, pack_es):
    """``lex MYLIST;`` and no ``lang``: the answer says which word list answered."""
    for path, extra in (("/api/moves", {"top": 1}), ("/api/best", {"top": 1, "engine": "greedy"}),
                        ("/api/position", {}), ("/api/preview", {"move": "8D [CH]IScARE"})):
        d = client.post(path, json={"cgp": OPENING + " lex MYLIST;", **extra}).json()
        assert "MYLIST" in d["warning"] and pack_es.spec.lexicon in d["warning"] and "give lang" in d["warning"], d
        d = client.post(path, json={"cgp": OPENING, **extra}).json()
        assert d["warning"] is None


def test_an_unexpected_failure_is_a_json_500_logged_once(pack_es, caplog):
    from heuri.web import app as web_app
    from heuri.web.service import Service

    class Broken(Service):
        def moves(self, req):
            raise RuntimeError("a bug, with a secret: s3cr3t")

    with _client(Broken(packs={"es": pack_es})) as c, caplog.at_level(logging.ERROR, logger="heuri.serve"):
        r = c.post("/api/moves", json={"cgp": OPENING})
        assert r.status_code == 500 and r.headers["content-type"] == "application/json"
        d = r.json()
        assert d["kind"] == "internal" and len(d["id"]) == 8 and d["id"] in d["error"] and "s3cr3t" not in r.text
        assert r.headers["x-frame-options"] == "DENY"
        logged = [rec for rec in caplog.records if d["id"] in rec.getMessage()]
        assert len(logged) == 1 and len(caplog.records) == 1
    # a failure inside the guard itself: the same JSON 500
    caplog.clear()
    orig = web_app.Guard._refusal
    try:
        web_app.Guard._refusal = lambda self, scope: 1 / 0
        with _client(Service(packs={"es": pack_es})) as c:
            r = c.get("/api/info")
            assert r.status_code == 500 and r.json()["kind"] == "internal" and "ZeroDivisionError" in r.json()["error"]
    finally:
        web_app.Guard._refusal = orig


def test_a_client_that_goes_away_is_not_an_error(caplog):
    """The body cut short (the client disconnects): no 500, no traceback in the log."""
    from starlette.requests import ClientDisconnect

    from heuri.web.app import Guard

    async def inner(scope, receive, send):
        raise ClientDisconnect()

    sent = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.disconnect"}

    scope = {"type": "http", "method": "POST", "path": "/api/best",
             "headers": [(b"host", b"127.0.0.1:8765"), (b"content-type", b"application/json")]}
    with caplog.at_level(logging.DEBUG, logger="heuri.serve"):
        asyncio.run(Guard(inner, port=8765)(scope, receive, send))
    assert sent == [] and not [r for r in caplog.records if r.levelno >= logging.WARNING]


# -- games --------------------------------------------------------------------------------------------
def test_state_has_no_seed_and_no_hidden_rack(client, svc):
    d = client.post("/api/play", json={"engine": "greedy", "seed": 987654321, "first": "heuri"}).json()
    gid = d["id"]
    g = svc._games[gid].game
    heuri_rack = g.position.rack_text(0)
    assert "seed" not in d and "987654321" not in json.dumps(d) and "heuri_rack" not in d
    assert d["history"][0]["nick"] == "heuri" and d["history"][0]["rack"] == ""
    again = client.get(f"/api/play/{gid}").json()
    assert {**again, "expires_s": 0} == {**d, "expires_s": 0}
    assert d["cgp"].split()[1].split("/")[1] == ""  # heuri's rack is not in the CGP
    # the record so far: heuri's rack is not written, nor the seed
    from heuri.gcg import read_gcg

    text = client.get(f"/api/play/{gid}/gcg").text
    assert "987654321" not in text
    ev = [e for e in read_gcg(text + "\n").events if e.nick == "heuri"]
    assert len(ev) == 1 and ev[0].rack == "" and heuri_rack not in text.replace(d["rack"], "")


def test_heuri_exchange_shows_a_count_only(pack_es):
    """heuri's exchange (forced here with a rack that cannot play) shows how many tiles, not which."""
    from heuri.game import Game
    from heuri.move import format_rack
    from heuri.web.service import _PlayGame

    g = Game(pack_es.spec, seed=5, words=pack_es.words)
    spec = pack_es.spec
    g.play("-" + format_rack(list(spec.parse_tiles(g.position.rack_text(0)))[:2], spec))  # you exchange two
    g.play("-" + format_rack(list(spec.parse_tiles(g.position.rack_text(1)))[:3], spec))  # heuri three
    pg = _PlayGame(g, pack_es, "greedy", 5, 0, 0.0)
    s = pg.state("x", 0.0)
    assert s["history"][0]["move"].startswith("-") and len(s["history"][0]["move"]) >= 3
    assert s["history"][1] == {"nick": "heuri", "move": "-3", "word": "-3", "score": 0, "total": 0, "rack": "",
                               "kind": "exchange",
                               "review": None}


def test_stale_and_doubled_moves_get_409(client, svc):
    d = client.post("/api/play", json={"engine": "greedy", "seed": 3}).json()
    gid, rack = d["id"], d["rack"]
    r = client.post(f"/api/play/{gid}/move", json={"move": "-"})
    assert r.status_code == 400 and "turn: missing" in r.json()["error"]
    r1 = client.post(f"/api/play/{gid}/move", json={"move": "-" + rack[:2], "turn": 0})
    assert r1.status_code == 200 and r1.json()["turn"] == 2
    r2 = client.post(f"/api/play/{gid}/move", json={"move": "-" + rack[:2], "turn": 0})  # sent twice
    assert r2.status_code == 409 and r2.json()["kind"] == "stale-turn"
    r3 = client.post(f"/api/play/{gid}/move", json={"move": "-", "turn": 5})
    assert r3.status_code == 409
    assert client.get(f"/api/play/{gid}").json()["turn"] == 2  # nothing changed


def test_ten_concurrent_passes_apply_once(client):
    from concurrent.futures import ThreadPoolExecutor

    d = client.post("/api/play", json={"engine": "greedy", "seed": 8}).json()
    with ThreadPoolExecutor(5) as pool:
        codes = list(pool.map(lambda _: client.post(f"/api/play/{d['id']}/move",
                                                    json={"move": "-", "turn": 0}).status_code, range(10)))
    assert sorted(codes) == [200] + [409] * 9
    assert client.get(f"/api/play/{d['id']}").json()["turn"] == 2


def test_many_games_evict_none(client):
    first = client.post("/api/play", json={"engine": "greedy", "seed": 1}).json()
    for i in range(200):
        assert client.post("/api/play", json={"engine": "greedy"}).status_code == 200
    r = client.post(f"/api/play/{first['id']}/move", json={"move": "-", "turn": 0})
    assert r.status_code == 200 and r.json()["turn"] == 2


def test_games_cap_refuses_new_ones_and_expire_by_age(pack_es):
    from heuri.web.service import FINISHED_S, IDLE_S, Service

    now = [1000.0]
    s = Service(packs={"es": pack_es}, max_games=3, clock=lambda: now[0])
    ids = [s.play_new({"engine": "greedy"})["id"] for _ in range(3)]
    from heuri.web.service import ApiError

    with pytest.raises(ApiError) as e:
        s.play_new({"engine": "greedy"})
    assert e.value.status == 429 and "3 games are in progress" in str(e.value)
    assert [s.play_state(i)["id"] for i in ids] == ids  # none was dropped
    now[0] += IDLE_S - 1
    s.play_state(ids[0])  # touched: kept
    now[0] += 2
    s.play_new({"engine": "greedy"})  # ids[1], ids[2] idle past IDLE_S: gone, room again
    assert s.play_state(ids[0])["id"] == ids[0]
    for i in ids[1:]:
        with pytest.raises(ApiError) as e:
            s.play_state(i)
        assert e.value.status == 404
    # a finished game goes after FINISHED_S
    g = s._games[ids[0]]
    while not g.game.over:
        g.game.play("-")
    now[0] += FINISHED_S + 1
    with pytest.raises(ApiError):
        s.play_state(ids[0])


def test_memory_is_bounded(pack_es):
    """Evaluators per k and engine, and heuri's players, come from bounded pools; a stored
    game holds its Game only (a finished game, measured: well under 1 MB)."""
    import tracemalloc

    from heuri.web.service import Service

    s = Service(packs={"es": pack_es})
    for engine in ("greedy", "heuri2"):  # the players of the pool, made before the games are measured
        s.play_new({"engine": engine, "first": "heuri"})
    for i in range(24):
        s.best({"cgp": CHEAP, "k": 1 + i / 10, "engine": ("heuri1", "heuri2", "greedy")[i % 3], "top": 1})
    assert len(s._evaluators) <= s._evaluators.max_keys * s._evaluators.per_key
    assert len(s._evaluators._idle) <= 8
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(6):
            d = s.play_new({"engine": ("greedy", "heuri2")[i % 2], "seed": i, "first": "heuri"})
            g = s._games[d["id"]]
            while not g.game.over:
                g.game.play("-")
        per_game = (tracemalloc.get_traced_memory()[0] - before) / 6
    finally:
        tracemalloc.stop()
    assert len(s._players) <= s._players.max_keys * s._players.per_key
    assert not hasattr(next(iter(s._games.values())), "player")
    assert per_game < 1 << 20, per_game


# -- fuzz: no request gets a 500 ------------------------------------------------------------------------
EXAMPLES = int(os.environ.get("HEURI_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize="HEURI_FUZZ_EXAMPLES" not in os.environ,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
FIELDS = ["lang", "cgp", "top", "k", "top_n", "exact", "engine", "move", "gcg", "name", "path", "analyze",
          "analysis", "seed", "first", "turn"]
numbers = st.one_of(st.integers(), st.integers(min_value=-(10**500), max_value=10**500),
                    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0, 1, 2.5, -1, 10**19]))
scalars = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=40),
                    st.sampled_from(["es", "en", "xx", "greedy", "heuri5", "you", "heuri", "-", "8D ZA", "game.gcg",
                                     "../x.gcg", "/etc/passwd", "passwd.gcg", CHEAP, CHEAP + " lex MYLIST;",
                                     "#player1 a A\n#player2 b B\n>a: QZ -QZ +0 0\n"]))
values = st.recursive(scalars, lambda kids: st.one_of(st.lists(kids, max_size=3),
                                                       st.dictionaries(st.text(max_size=5), kids, max_size=3)),
                      max_leaves=8)
bodies = st.dictionaries(st.one_of(st.sampled_from(FIELDS), st.text(max_size=8)), values, max_size=5)
PATHS = ["/api/position", "/api/moves", "/api/best", "/api/preview", "/api/game", "/api/play", "MOVE"]


_GAME: list = []


def _raw(body) -> bytes:
    return json.dumps(body, allow_nan=True, ensure_ascii=False).encode("utf-8", "surrogatepass")


@FUZZ
@given(path=st.sampled_from(PATHS), body=bodies, cheap=st.booleans(), depth=st.integers(0, 40),
       junk=st.one_of(st.none(), st.binary(max_size=30)))
def test_fuzz_the_json_api_never_500(client, path, body, cheap, depth, junk):
    if cheap and "cgp" in body:  # a valid position, so that the fields after it are reached
        body["cgp"] = CHEAP
    if "engine" in body and body["engine"] in ("heuri5", "heuri4", "heuri3"):
        body["cgp"] = CHEAP  # a real ranking, kept cheap
    if path == "MOVE":  # one game for all the examples, a new one when it is over
        if not _GAME or client.get(f"/api/play/{_GAME[0]}").json().get("over", True):
            _GAME[:] = [client.post("/api/play", json={"engine": "greedy", "seed": 1}).json()["id"]]
        path = f"/api/play/{_GAME[0]}/move"
    raw = _raw(body)
    if depth:
        raw = b'{"cgp": ' + b"[" * depth + raw + b"]" * depth + b"}"
    if junk is not None:
        raw = raw + junk if len(junk) % 2 else junk
    r = client.post(path, content=raw, headers=JSON)
    assert r.status_code != 500, (path, raw[:300], r.text)
    assert r.status_code in (200, 400, 404, 409, 413, 422, 429), r.text
    assert r.headers["content-type"].startswith("application/json")
    if r.status_code != 200:
        assert "\n" not in r.json()["error"]


def test_remote_token(pack_es):
    """With --allow-remote, every request carries the token printed at start: in the
    address (the answer sets it as a cookie) or as that cookie; others get a 401."""
    from heuri.web.app import create_app
    from heuri.web.service import Service

    app = create_app(Service(packs={"es": pack_es}), host="0.0.0.0", port=8765, allow_remote=True, token="t0k")
    with TestClient(app, base_url="http://192.168.1.5:8765") as c:  # any host name, with the flag
        r = c.get("/api/info")
        assert r.status_code == 401 and r.json()["kind"] == "no-token"
        assert c.get("/api/info?token=wrong").status_code == 401
        r = c.get("/?token=t0k")
        assert r.status_code == 200 and "heuri_token=t0k" in r.headers["set-cookie"]
        assert "HttpOnly" in r.headers["set-cookie"] and "SameSite=Strict" in r.headers["set-cookie"]
        assert c.get("/api/info").status_code == 200  # the cookie, from now on
        assert c.post("/api/position", json={"cgp": OPENING}).status_code == 200
        c.cookies.clear()
        assert c.post("/api/position", json={"cgp": OPENING}).status_code == 401
        r = c.post("/api/position", json={"cgp": OPENING}, headers={"origin": "http://evil.example",
                                                                     "cookie": "heuri_token=t0k"})
        assert r.status_code == 403  # the token does not let another site's page in
