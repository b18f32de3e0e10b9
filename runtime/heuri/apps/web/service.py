"""What the web board computes, without the web: every answer of the JSON API as a plain
``dict``, from a request's fields as a ``dict``.

:class:`Service` loads each language pack once (memory-mapped, shared by every request)
and answers:

- :meth:`Service.position`: a CGP → the board as SVG (:func:`heuri.render.board_svg`),
  its squares as CGP tokens (for the page's editor), the rack, bag and unseen tiles, and
  the bingo lanes (:func:`heuri.bingo.bingo_lanes`);
- :meth:`Service.moves`: every legal move, as ``heuri moves --json`` prints it;
- :meth:`Service.best`: the evaluator's ranking, as ``heuri best --json`` prints it (the
  same evaluator calls, so the same rows);
- :meth:`Service.preview`: a move on the board (SVG with its tiles outlined), its score and
  words, or why it is illegal;
- :meth:`Service.game`: a GCG record stepped turn by turn (a board per turn, the move
  played outlined), with :mod:`heuri.analyze`'s equity lost and engine choice on request;
- :meth:`Service.play_new`, :meth:`Service.play_move`, :meth:`Service.play_state`,
  :meth:`Service.play_gcg`: a game against heuri (:class:`heuri.game.Game` with the word
  list, :func:`heuri.players.make_player`, its endgame search once the bag is empty).

Bad input raises :class:`heuri.errors.HeuriError` (the app answers 400 with its message)
or :class:`ApiError` (with its HTTP status: 404 unknown game, 413 too large, 422 too much
work). The methods are thread-safe: evaluators are kept per thread, a game against heuri
has its own lock; the app runs them in worker threads.
"""
from __future__ import annotations

import dataclasses
import secrets
import threading
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np

from ...eval.engines import DEFAULT_ENGINE, FRONT_END_ENGINES
from ...core.errors import HeuriError

#: the most events (lines with ">") a GCG record may have: a real game has 20-60 (an analysis
#: takes about 50 ms of CPU a turn, so 300 is about 15 s); more is
#: refused (422) before any work.
MAX_GCG_EVENTS = 300
#: the most candidates ``best`` and ``moves`` return (``top``); the count is always given.
MAX_ROWS = 5000
#: games against heuri kept in memory (the oldest is dropped past it)
MAX_GAMES = 200
# the default first: the page's choice
ENGINES = FRONT_END_ENGINES
#: the columns of heuri.analyze's rows a game view's turn carries
ANALYSIS_KEYS = ("equity_lost", "best", "best_j", "best_v", "v", "j", "e", "rank", "candidates", "endgame",
                 "missed_bingo", "best_bingo", "note")


class ApiError(HeuriError):
    """A request the API refuses with an HTTP ``status`` other than 400 (404, 413, 422)."""

    def __init__(self, message: str, status: int = 400, kind: str = "error"):
        super().__init__(message)
        self.status = status
        self.kind = kind


def _int(req: dict, name: str, default, lo: int, hi: int) -> int:
    v = req.get(name, default)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise HeuriError(f"{name}: {v!r}: give a whole number from {lo} to {hi}")
    return v


def _text(req: dict, name: str, required: bool = True) -> str:
    v = req.get(name)
    if v is None or (isinstance(v, str) and not v.strip()):
        if required:
            raise HeuriError(f"{name}: missing; give it as a string")
        return ""
    if not isinstance(v, str):
        raise HeuriError(f"{name}: {v!r} is not a string")
    return v


class Service:
    """The API's answers (see the module doc). ``langs``: the languages served (built
    packs, loaded at once: a missing pack is a PackError here, before the server starts);
    ``packs``: ``{lang: LanguagePack}`` already loaded (then ``langs`` defaults to them)."""

    def __init__(self, langs=("es", "en", "fr"), packs: dict | None = None):
        from ...core.pack import load_pack

        self.langs = list(dict.fromkeys(packs or langs))
        if not self.langs:
            raise HeuriError("serve: give at least one language")
        self.packs = dict(packs) if packs else {lang: load_pack(lang) for lang in self.langs}
        self._local = threading.local()
        self._games: OrderedDict[str, _PlayGame] = OrderedDict()
        self._games_lock = threading.Lock()

    # -- shared pieces ----------------------------------------------------------------------
    def warm_up(self) -> None:
        """Compile (or load from numba's cache) and page in what a request needs, once per
        language, so that the first request is not the slow one."""
        from ...eval.bingo import bingo_lanes

        for lang, pack in self.packs.items():
            pack.words  # the word set (phony checks in a game against heuri)
            cgp = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEIRST?/ 0/0 0"
            pos = self._position_of(pack, cgp)
            self._evaluator(lang, DEFAULT_ENGINE).rank(pos)
            bingo_lanes(pack, pos.board.letters)

    def pack(self, req: dict):
        """The pack of ``req['lang']`` (default: the CGP's ``lex``/``ld``, else the first
        served language). Raises HeuriError naming the languages served."""
        lang = req.get("lang")
        if not lang and isinstance(req.get("cgp"), str):
            from ...core.cgp import guess_language

            lang = guess_language(req["cgp"])
        lang = lang or self.langs[0]
        if not isinstance(lang, str) or lang not in self.packs:
            raise HeuriError(f"lang: {lang!r} is not served here; this server serves {', '.join(self.langs)} "
                             f"(heuri serve --lang ...)")
        return self.packs[lang]

    def _evaluator(self, lang: str, engine: str, **opts):
        """This thread's evaluator (evaluators keep per-decision state, so threads do not
        share one); built once per thread, language, engine and options."""
        from ...eval.evaluate import make_evaluator

        cache = getattr(self._local, "evaluators", None)
        if cache is None:
            cache = self._local.evaluators = {}
        key = (lang, engine, tuple(sorted(opts.items())))
        if key not in cache:
            if len(cache) >= 16:  # options vary per request (k): keep the memory bounded
                cache.clear()
            cache[key] = make_evaluator(self.packs[lang], engine, **opts)
        return cache[key]

    @staticmethod
    def _position_of(pack, cgp: str):
        from ...core.cgp import parse_cgp
        from ...core.game import Position

        if not cgp.strip():
            parse_cgp(cgp, pack.spec)  # the CgpError that says what a CGP holds
        return Position.from_cgp(cgp, pack.spec)

    def _position(self, req: dict):
        pack = self.pack(req)
        return pack, self._position_of(pack, _text(req, "cgp"))

    # -- position view ----------------------------------------------------------------------
    def position(self, req: dict) -> dict:
        """``{lang, cgp}`` → ``{lang, cgp, svg, grid, rack, scores, bag, unseen, lanes,
        lane_squares, warning}``: ``cgp`` written back canonically, ``svg`` the board, ``grid`` (N × N)
        each square's CGP token ('' empty, ``[CH]``, lower case a blank), ``unseen``
        ``[[tile, count]]`` of the tiles the player to move cannot see, ``lanes``
        ``[[row, col, across, length]]`` (0-based) where a bingo can land and
        ``lane_squares`` ``[[row, col]]`` their empty squares."""
        from ...core.cgp import lexicon_warning
        from ...formats.render import board_svg
        from ...core.tiletext import format_spelling

        pack, pos = self._position(req)
        spec = pack.spec
        b = pos.board
        grid = [["" if b.letters[r, c] < 0 else format_spelling(spec.tiles[b.letters[r, c]], bool(b.blanks[r, c]))
                 for c in range(b.size)] for r in range(b.size)]
        unseen = pos.unseen()
        return {"lang": spec.code, "cgp": pos.cgp(), "svg": board_svg(b, label="position"), "grid": grid,
                "rack": pos.rack_text(), "scores": list(pos.scores), "bag": pos.bag_size,
                "unseen": [[("?" if t == spec.blank else format_spelling(spec.tiles[t])), int(unseen[t])]
                           for t in range(spec.n_kinds) if unseen[t]],
                **_lanes(pack, b), "warning": lexicon_warning(req["cgp"], spec)}

    def moves(self, req: dict) -> dict:
        """``{lang, cgp, top}`` → ``{count, moves: [{move, score, tiles_played, leave}]}``:
        the rows of ``heuri moves --json`` (best score first, the generator's order on ties),
        the first ``top`` (default all, at most :data:`MAX_ROWS`)."""
        from ...core.move import Move, format_rack
        from ...core.movegen import leaves

        pack, pos = self._position(req)
        spec = pack.spec
        top = _int(req, "top", MAX_ROWS, 1, MAX_ROWS)
        moves = pos.moves(pack)
        order = np.argsort(-moves["score"].astype(np.int64), kind="stable")[:top]
        lv = leaves(pos.rack, moves[order]) if len(order) else np.zeros((0, spec.n_kinds), np.uint8)
        rows = []
        for k, i in enumerate(order):
            leave = format_rack([t for t in range(spec.n_kinds) for _ in range(int(lv[k, t]))], spec)
            rows.append({"move": Move.from_record(moves[i], spec).gcg(spec), "score": int(moves[i]["score"]),
                         "tiles_played": int(moves[i]["n_tiles"]), "leave": leave})
        return {"count": int(len(moves)), "moves": rows}

    def best(self, req: dict) -> dict:
        """``{lang, cgp, engine, top, k, top_n, exact}`` → ``{engine, count, rows: [{move, j,
        e, p, v, leave, fish}]}``: the ranking of ``heuri best --json`` (the same evaluator,
        options and rows; default :data:`heuri.evaluate.DEFAULT_ENGINE`, top 10)."""
        engine = req.get("engine") or DEFAULT_ENGINE
        if engine not in ENGINES:
            raise HeuriError(f"engine: {engine!r}; choose one of {', '.join(ENGINES)}")
        top = _int(req, "top", 10, 1, MAX_ROWS)
        from ...eval.evaluate import engine_options

        k = req.get("k")
        if k is not None and (isinstance(k, bool) or not isinstance(k, (int, float)) or k <= 0):
            raise HeuriError(f"k: {k!r}: the bingo constant must be a positive number (the paper's is 2.5)")
        top_n = _int(req, "top_n", 20, 1, 10_000) if req.get("top_n") is not None else None
        opts = engine_options(engine, k, top_n, bool(req.get("exact")))
        pack, pos = self._position(req)
        ranking = self._evaluator(pack.code, engine, **opts).rank(pos)
        return {"engine": engine, "count": len(ranking), "rows": ranking.rows(pack.spec, top)}

    def preview(self, req: dict) -> dict:
        """``{lang, cgp, move}`` → the move checked for the player to move (board, rack and
        word list) and drawn: ``{move, score, words, svg, lanes, lane_squares, cgp_after,
        leave}`` (``lanes``: where a bingo can land after it, the opponent's next turn; ``cgp_after``:
        the board after it, the same player to move with the leave: the page's "apply"); an illegal
        move raises MoveError saying why (a phony names the word)."""
        from ...core.move import Move, Placement
        from ...formats.render import board_svg

        pack, pos = self._position(req)
        spec = pack.spec
        m = Move.from_gcg(_text(req, "move"), pos.board, spec)
        score = pos.check(m, pack.words)
        words = []
        if isinstance(m, Placement):
            m = pos.board.canonical(m)
            words = [w for w, _ in pos.board.words(m)]
        after = pos.after(m, ())
        return {"move": m.gcg(spec), "score": score, "words": words, "leave": after.rack_text(pos.to_move),
                "svg": board_svg(after.board, played=m, label="preview"), **_lanes(pack, after.board),
                "cgp_after": dataclasses.replace(after, to_move=pos.to_move).cgp()}

    # -- game view --------------------------------------------------------------------------
    def game(self, req: dict) -> dict:
        """``{gcg (text) | path, lang, analyze, engine, analysis}`` → the record turn by turn:
        ``{lang, players, final, warnings, analysed, turns: [...]}``; each turn ``{n, line,
        nick, seat, kind, rack, move, score, total, svg, cgp}`` (the board after the event,
        the move played outlined; ``cgp`` the position before it) and, with ``analyze``,
        :mod:`heuri.analyze`'s ``equity_lost``, ``best``, ``best_v``, ``v``, ``rank`` (the
        engine's best dashed on the board); ``analysis`` (a ``heuri analyze --out`` folder
        or its ``turns.parquet``): the same figures read from there, for the game of that
        analysis with this record's moves. Refuses (422) a record of more than
        :data:`MAX_GCG_EVENTS` events; a path must name an existing ``.gcg`` file."""
        from ...formats.gcg import read_gcg, replay
        from ...formats.render import board_svg

        text, name = self._gcg_source(req)
        if text.count("\n>") + text.startswith(">") > MAX_GCG_EVENTS:
            raise ApiError(f"{name}: more than {MAX_GCG_EVENTS} moves; a game record this long is refused "
                           f"(a real game has 20 to 60)", 422, "too-many-moves")
        game = read_gcg(text, path=name)
        if len(game.events) > MAX_GCG_EVENTS:
            raise ApiError(f"{name}: {len(game.events)} moves; at most {MAX_GCG_EVENTS} are read", 422,
                           "too-many-moves")
        lang = req.get("lang") or game.guess_language()
        if not lang:
            raise HeuriError(f"{name}: cannot tell the language (no #lexicon or #tile-distribution that names "
                             f"it); choose one")
        pack = self.pack({"lang": lang})
        spec = pack.spec
        analysed = bool(req.get("analyze"))
        out = {"lang": spec.code, "name": name, "players": [list(p) for p in game.players], "analysed": analysed}
        if analysed:
            engine = req.get("engine") or DEFAULT_ENGINE  # heuri analyze's default
            g = self._analyzer(engine).analyze(game, lang=spec.code, game_id=Path(name).stem)
            out["engine"] = engine
            out["warnings"] = [f"line {ln}: {msg}" for ln, msg in g.warnings]
            out["final"] = list(g.final)
            keep = ANALYSIS_KEYS
            out["turns"] = [{"n": i + 1, "line": r["line"], "nick": r["player"], "seat": r["seat"],
                             "kind": r["kind"], "rack": r["rack"], "move": r["move"], "score": r["points"],
                             "total": r["score"], "cgp": r["cgp"],
                             "svg": board_svg(v.board, played=v.played, second=v.best, label=f"turn {i + 1}"),
                             **{k: r[k] for k in keep}}
                            for i, (r, v) in enumerate(zip(g.rows, g.views))]
            return out
        r = replay(game, spec, end_rule="auto", words=pack.words)
        turns, prevs, played = [], [], []
        before = None
        scoreless = 0
        for st in r.steps:
            e = st.event
            if e.kind not in ("play", "exchange", "pass"):
                if turns and e.kind in ("withdrawn", "challenge", "end_points", "end_penalty", "time"):
                    turns[-1]["after"].append(e.text())
                    turns[-1]["total"] = st.recorded_totals[turns[-1]["seat"]]
                    turns[-1]["totals"] = list(st.recorded_totals)
                    scoreless = scoreless + 1 if e.kind == "withdrawn" else 0 if e.kind == "challenge" else scoreless
                    turns[-1]["svg"] = board_svg(st.board, label=f"turn {len(turns)}")
                before = st.board
                continue
            from ...core.move import Move, Placement

            prev = before if before is not None else r.board_at(0)
            m = Move.from_gcg(e.move, prev, spec) if e.kind != "pass" else None
            if isinstance(m, Placement):
                m = prev.canonical(m)
            tot = turns[-1]["totals"] if turns else [0] * len(game.players)
            turns.append({"n": len(turns) + 1, "line": e.line, "nick": e.nick, "seat": e.player, "kind": e.kind,
                          "rack": e.rack, "move": e.move, "score": e.score, "total": st.recorded_totals[e.player],
                          "cgp": _cgp_before(prev, e.rack, spec, tot, e.player, scoreless),
                          "totals": list(st.recorded_totals),
                          "svg": board_svg(st.board, played=m, label=f"turn {len(turns) + 1}"), "after": []})
            prevs.append(prev)
            played.append((st.board, m))
            before = st.board
            scoreless = 0 if e.score != 0 else scoreless + 1
        out["warnings"] = [f"line {ln}: {msg}" for ln, msg in r.warnings] + [
            f"line {m.line}: {m.nick} {m.event}: recorded {m.recorded_score}, the engine scores {m.engine_score}"
            for m in r.mismatches]
        out["final"] = list(r.steps[-1].recorded_totals) if r.steps else [0] * len(game.players)
        out["turns"] = turns
        if _text(req, "analysis", required=False):
            rows = _analysis_rows(req["analysis"], [t["move"] for t in turns], Path(name).name)
            out["analysed"] = True
            out["engine"] = rows[0]["engine"] if rows else ""
            out["analysis"] = req["analysis"]
            for t, row, prev, (after, m) in zip(turns, rows, prevs, played):
                t.update({k: row[k] for k in ANALYSIS_KEYS})
                if t.get("best") and t["best"] != t["move"] and not t["after"]:
                    from ...core.move import Move

                    best = Move.from_gcg(t["best"], prev, spec)
                    t["svg"] = board_svg(after, played=m, second=best, label=f"turn {t['n']}")
        return out

    def _gcg_source(self, req: dict) -> tuple[str, str]:
        """(text, name) of the record: ``gcg`` (the file's text, uploaded) or ``path``."""
        if req.get("gcg") is not None:
            return _text(req, "gcg"), str(req.get("name") or "upload.gcg")
        path = _text(req, "path", required=False)
        if not path:
            raise HeuriError("give the record: gcg (its text) or path (a .gcg file on this machine)")
        p = Path(path).expanduser()
        if p.suffix.lower() != ".gcg" or not p.is_file():
            raise ApiError(f"path {path!r}: no such .gcg file", 404, "no-file")
        if p.stat().st_size > 1 << 20:
            raise ApiError(f"path {path!r}: {p.stat().st_size:,} bytes; a game record is a few KB "
                           f"(at most 1 MiB is read)", 413, "too-large")
        from ...formats.gcg import decode_record

        return decode_record(p.read_bytes(), str(p)), str(p)

    def _analyzer(self, engine: str):
        from ..analyze import Analyzer

        cache = getattr(self._local, "analyzers", None)
        if cache is None:
            cache = self._local.analyzers = {}
        if engine not in cache:
            cache[engine] = Analyzer(engine, packs=self.packs)
        return cache[engine]

    # -- play view --------------------------------------------------------------------------
    def play_new(self, req: dict) -> dict:
        """``{lang, engine, seed, first}`` → a new game against heuri (``first``: ``"you"``
        (default) or ``"heuri"``, who plays first; ``seed``: the bag, default random) and its
        state (:meth:`play_state`). heuri's first move is made at once when it starts."""
        from ...core.game import Game
        from ...play.players import check_engine, make_player

        pack = self.pack(req)
        engine = req.get("engine") or DEFAULT_ENGINE
        if engine not in ENGINES:
            raise HeuriError(f"engine: {engine!r}; choose one of {', '.join(ENGINES)}")
        check_engine(engine)
        seed = req.get("seed")
        if seed is None:
            seed = secrets.randbelow(2**31)
        seed = _int({"seed": seed}, "seed", 0, 0, 2**63 - 1)
        first = req.get("first") or "you"
        if first not in ("you", "heuri"):
            raise HeuriError(f"first: {first!r}; give 'you' or 'heuri'")
        you = 0 if first == "you" else 1
        g = _PlayGame(Game(pack.spec, seed=seed, words=pack.words), make_player(engine, pack), pack, engine,
                      seed, you)
        gid = secrets.token_hex(8)
        with self._games_lock:
            self._games[gid] = g
            while len(self._games) > MAX_GAMES:
                self._games.popitem(last=False)
        with g.lock:
            g.heuri_turns()
            return g.state(gid)

    def _game(self, gid: str) -> "_PlayGame":
        with self._games_lock:
            g = self._games.get(gid)
        if g is None:
            raise ApiError(f"game {gid!r}: no such game (games are kept in memory until the server stops; "
                           f"start a new one)", 404, "no-game")
        return g

    def play_state(self, gid: str) -> dict:
        """The state of a game against heuri: ``{id, lang, engine, seed, you, to_move,
        over, scores, rack, bag, unseen, svg, history: [{nick, move, score, total}], last,
        can_exchange, result}`` (``you``: your seat; ``unseen``: the bag and heuri's rack as
        you see them, ``[[tile, count]]``)."""
        g = self._game(gid)
        with g.lock:
            return g.state(gid)

    def play_move(self, gid: str, req: dict) -> dict:
        """``{move}`` (GCG: ``8D WORD``, ``-ABC`` to exchange, ``-`` to pass) played for you,
        checked against the board, your rack and the word list (MoveError saying why it is
        refused: the game is then unchanged), then heuri's reply; the new state."""
        g = self._game(gid)
        with g.lock:
            if g.game.over:
                raise HeuriError("the game is over; start a new one")
            if g.game.position.to_move != g.you:
                raise HeuriError("it is heuri's turn")
            g.game.play(_text(req, "move"))
            g.heuri_turns()
            return g.state(gid)

    def play_gcg(self, gid: str) -> str:
        """The game so far as a GCG record (text)."""
        from ...formats.gcg import game_to_gcg, write_gcg

        g = self._game(gid)
        with g.lock:
            nicks = ("you", "heuri") if g.you == 0 else ("heuri", "you")
            names = tuple("You" if n == "you" else f"heuri ({g.engine})" for n in nicks)
            rec = game_to_gcg(g.game, nicks=nicks, names=names, lexicon=g.pack.spec.lexicon,
                              title=f"heuri serve, seed {g.seed}")
            return write_gcg(rec)


def _analysis_rows(where: str, moves: list[str], file_name: str) -> list[dict]:
    """The rows of ``heuri analyze``'s ``turns.parquet`` (``where``: the file, or the
    ``--out`` folder that holds it) of the game whose moves are ``moves`` (the record's
    play, exchange and pass lines, in order; of several such games, the one whose record
    has the same file name). Raises ApiError (404) when there is no such file or game."""
    import polars as pl

    p = Path(where).expanduser()
    p = p / "turns.parquet" if p.is_dir() else p
    if p.name != "turns.parquet" or not p.is_file():
        raise ApiError(f"analysis {where!r}: no turns.parquet there (the --out folder of heuri analyze)", 404,
                       "no-file")
    try:
        df = pl.read_parquet(p)
    except Exception as e:  # a damaged or foreign file: say so, in one line
        raise ApiError(f"analysis {where!r}: cannot read turns.parquet ({e})", 422, "bad-analysis") from None
    need = {"game", "path", "turn", "move", "engine", *ANALYSIS_KEYS}
    if not need <= set(df.columns):
        raise ApiError(f"analysis {where!r}: turns.parquet lacks columns {sorted(need - set(df.columns))}", 422,
                       "bad-analysis")
    found = []
    for (gid,), g in df.sort("turn").group_by(["game"], maintain_order=True):
        if g["move"].to_list() == moves:
            found.append(g)
    if not found:
        raise ApiError(f"analysis {where!r}: none of its {df['game'].n_unique()} games has this record's moves", 404,
                       "no-game")
    same = [g for g in found if Path(g["path"][0]).name == file_name]
    return (same or found)[0].to_dicts()


def _lanes(pack, board) -> dict:
    """``{lanes, lane_squares}`` of a board (see :meth:`Service.position`)."""
    from ...eval.bingo import bingo_lanes

    lanes = bingo_lanes(pack, board.letters)
    sq = set()
    for r, c, across, n in lanes:
        for i in range(n):
            rr, cc = (r, c + i) if across else (r + i, c)
            if board.letters[rr, cc] < 0:
                sq.add((rr, cc))
    return {"lanes": [list(x) for x in lanes], "lane_squares": sorted([list(x) for x in sq])}


def _cgp_before(board, rack: str, spec, totals, seat: int, scoreless: int) -> str:
    """CGP of the position a record's turn is played from: the mover first with the
    rack the record gives ('' unknown), the scores before the move."""
    from ...core.cgp import CgpRecord, format_cgp

    ids = tuple(spec.parse_tiles(rack)) if rack else None
    opp = max((t for i, t in enumerate(totals) if i != seat), default=0)
    return format_cgp(CgpRecord(board, (ids, None), (totals[seat], opp), scoreless))


class _PlayGame:
    """One game against heuri: the :class:`heuri.game.Game`, heuri's player, your seat."""

    def __init__(self, game, player, pack, engine: str, seed: int, you: int):
        self.game = game
        self.player = player
        self.pack = pack
        self.engine = engine
        self.seed = seed
        self.you = you
        self.lock = threading.Lock()
        self.started = time.time()
        self.last_info: dict = {}

    def heuri_turns(self) -> None:
        """heuri plays while it is its turn (once, unless you have no move)."""
        g = self.game
        while not g.over and g.position.to_move != self.you:
            move = self.player.choose(g.position)
            g.play(move)
            self.last_info = dict(getattr(self.player, "info", {}) or {})

    def state(self, gid: str) -> dict:
        from ...formats.render import board_svg, rack_svg
        from ...core.tiletext import format_spelling

        g = self.game
        spec = g.spec
        p = g.position
        nick = lambda seat: "you" if seat == self.you else "heuri"  # noqa: E731
        hist = []
        for pos, move, pts in g.history:
            hist.append({"nick": nick(pos.to_move), "move": move.gcg(spec), "score": pts,
                         "total": pos.scores[pos.to_move] + pts, "rack": pos.rack_text(pos.to_move)
                         if pos.to_move == self.you else ""})
        last = g.history[-1][1] if g.history else None
        unseen = p.unseen(self.you)
        out = {"id": gid, "lang": spec.code, "engine": self.engine, "seed": self.seed, "you": self.you,
               "to_move": nick(p.to_move), "over": p.over, "scores": {"you": p.scores[self.you],
                                                                      "heuri": p.scores[1 - self.you]},
               "rack": p.rack_text(self.you), "bag": p.bag_size,
               "rack_svg": rack_svg(spec, np.repeat(np.arange(spec.n_kinds), p.racks[self.you]), label="your rack"),
               "cgp": dataclasses.replace(p, to_move=self.you).cgp(hide_others=True),
               "unseen": [[("?" if t == spec.blank else format_spelling(spec.tiles[t])), int(unseen[t])]
                          for t in range(spec.n_kinds) if unseen[t]],
               "svg": board_svg(p.board, played=last, label="game board"), "history": hist,
               "can_exchange": p.bag_size >= spec.exchange_min_bag, "endgame": bool(self.last_info.get("endgame")),
               "result": None}
        if p.over:
            a, b = p.scores[self.you], p.scores[1 - self.you]
            out["result"] = "you win" if a > b else "heuri wins" if b > a else "a draw"
            out["heuri_rack"] = p.rack_text(1 - self.you)
        return out
