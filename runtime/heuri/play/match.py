"""Paired self-play matches: ``heuri match --lang es --p1 heuri3 --p2 greedy --games 100``.

Pairing. Game ``g`` of a match with seed ``S`` is pair ``g // 2``, seat ``g % 2``. Both games
of a pair use the same bag (:class:`heuri.game.Game` with ``bag_seed(S, pair)``: a fixed tile
order; the player in seat 0 moves first and draws the first rack). In seat 0, p1 moves
first; in seat 1 the seats are swapped, so p2 moves first with the very tiles p1 had, and
the luck of the draw cancels over a pair. (Exchanges put tiles back at positions drawn from
the game's own generator, so after the first exchange the two games' draws may differ.)

Output folder (``--out``, default ``matches/<lang>/<p1>-vs-<p2>/``):

- ``.heuri-output.json``: the folder's marker (:mod:`heuri.outdir`): every file the match
  wrote. A folder holding anything else (the user's own ``games.parquet``, a stray file in
  ``rows/``) is refused before anything is written; a match folder written before markers
  existed (a ``match.json`` beside only a match's files) is taken as it is;
- ``match.json``: what the match is (language, players, seed, pack id, endgame limits); a
  second run into the same folder must ask for the same match, else it is refused;
- ``rows/<pair>-<seat>.json``: one finished game's row, written atomically (a temporary file
  renamed over); ``games/<pair>-<seat>.gcg``: its game record, written the same way;
- ``games.parquet``: every row in the folder, one per game (columns in :data:`COLUMNS`),
  rewritten atomically after the run (``--table PATH`` writes this run's games there
  instead, which is what the Snakemake shard rules use);
- ``engines/p1.stderr``, ``engines/p2.stderr``: the standard error of an external engine
  (``--p2 "siu:<command line>"``), appended across games and runs; with ``--jobs`` > 1 one
  file per worker process (``p2.<pid>.stderr``).

External engines. A player named ``siu:<command line>`` is an SIU engine
(:mod:`heuri.siu_client`): the runner starts it, sets its options (``--p2-option
Name=Value``), and for each of its turns sends the position with that player's rack only and
``go auto movetime <--movetime>``. Both seats may be external (heuri only referees). When the
engine fails (its ``bestmove`` does not parse or is not legal, it exits, or it stays silent past
the movetime plus a grace period), that player **forfeits the game**: the game stops there;
the row has ``end`` = ``"forfeit"``, ``forfeit`` = the forfeiting player (``"p1"``/``"p2"``,
``""`` when nobody forfeited), ``forfeit_kind`` (:class:`heuri.siu_client.EngineFailure`'s
kind: unparseable, illegal, timeout, dead, refused, start) and ``forfeit_detail`` (the
offending ``bestmove`` and the failure message); the other player wins (``winner``,
``result_p1``); ``score_p1``/``score_p2`` are the totals on the board when the game stopped
(those of the game record), and ``spread`` is the winner's lead at that moment but at least
:data:`FORFEIT_SPREAD` (50) points, with the sign of the winner (so a forfeit never shows as
a loss on spread). The game record ends with a ``#note forfeit ...`` line. The engine is
restarted for the next game, and the match goes on.

Resuming: games whose row exists are skipped, so an interrupted match (Ctrl-C, a killed
job) continues where it stopped and never replays or overwrites a finished game. Ctrl-C or
SIGTERM kills the worker processes at once (a game in the middle is played again on resume),
writes the games table of what finished and raises :class:`heuri.outdir.Interrupted`; pool
workers die with the parent (:func:`heuri.outdir.worker_setup`). The same
seed always gives the same games (players are deterministic; the endgame search has node
limits, not time limits); only the ``ms_per_move`` columns vary.

Summary: wins/draws/losses of p1, the win rate ``(wins + draws/2) / games`` with a 95 %
Wilson score interval (:func:`wilson_interval`), mean spread and scores, bingos per game and
the share of bingos of 7, 8 and 9+ tiles (the main word's length), exchanges and passes,
milliseconds per move. The interval treats games as independent; pairs share their tiles,
which makes the two games of a pair positively correlated in luck and the interval, if
anything, conservative for the difference between the engines.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from math import sqrt
from pathlib import Path
from statistics import NormalDist

import numpy as np

from ..eval.engines import DEFAULT_ENGINE
from ..core.errors import HeuriError


class MatchError(HeuriError):
    """Bad match arguments (games, output folder) or an output folder holding another match."""


#: columns of the games table, in order
COLUMNS = [
    "lang", "p1", "p2", "seed", "pair", "seat", "game", "bag_seed", "first",
    "score_p1", "score_p2", "spread", "winner", "result_p1", "turns", "end",
    "bingos_p1", "bingos_p2", "bingo_lengths_p1", "bingo_lengths_p2",
    "exchanges_p1", "exchanges_p2", "passes_p1", "passes_p2", "moves_p1", "moves_p2",
    "endgame_moves_p1", "endgame_moves_p2", "ms_per_move_p1", "ms_per_move_p2", "gcg",
    "forfeit", "forfeit_kind", "forfeit_detail",
]
#: values of the forfeit columns in rows written before they existed (and in games without one)
FORFEIT_DEFAULTS = {"forfeit": "", "forfeit_kind": "", "forfeit_detail": ""}
#: the least spread recorded for the winner of a forfeited game (points)
FORFEIT_SPREAD = 50
#: columns that depend on timing, not on the seed (excluded when checking reproducibility)
TIMING_COLUMNS = ("ms_per_move_p1", "ms_per_move_p2")


def _schema():
    import pyarrow as pa

    i32, i64, s = pa.int32(), pa.int64(), pa.string()
    types = {"lang": s, "p1": s, "p2": s, "seed": i64, "pair": i32, "seat": pa.int8(), "game": i32,
             "bag_seed": pa.uint64(), "first": s, "score_p1": i32, "score_p2": i32, "spread": i32,
             "winner": s, "result_p1": pa.float32(), "turns": i32, "end": s,
             "bingo_lengths_p1": pa.list_(pa.int8()), "bingo_lengths_p2": pa.list_(pa.int8()),
             "ms_per_move_p1": pa.float64(), "ms_per_move_p2": pa.float64(), "gcg": s,
             "forfeit": s, "forfeit_kind": s, "forfeit_detail": s}
    return pa.schema([(c, types.get(c, i32)) for c in COLUMNS])


# -- statistics ----------------------------------------------------------------------------
def wilson_interval(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (Wilson, E. B. (1927), "Probable
    inference, the law of succession, and statistical inference", JASA 22:209-212; the
    form of Agresti & Coull (1998), The American Statistician 52:119-126, eq. 2):

        centre = (p + z²/2n) / (1 + z²/n),
        half   = z / (1 + z²/n) · sqrt(p(1−p)/n + z²/4n²),

    with p = successes/n and z the (1+confidence)/2 normal quantile (1.959964 for 95 %).
    ``successes`` may be fractional (a draw counts ½). Returns (low, high) in [0, 1];
    raises MatchError for n < 1. Same values as statsmodels'
    ``proportion_confint(k, n, method="wilson")``.

    >>> [round(x, 4) for x in wilson_interval(60, 100)]
    [0.502, 0.6906]
    """
    if n < 1:
        raise MatchError("a win rate needs at least one game")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z / d * sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0))
    return max(0.0, centre - half), min(1.0, centre + half)


def bag_seed(seed: int, pair: int) -> int:
    """The seed of pair ``pair``'s bag in a match with seed ``seed``: a 63-bit integer from
    ``numpy.random.SeedSequence([seed, pair])``, so matches with nearby seeds share no bags."""
    return int(np.random.SeedSequence([int(seed), int(pair)]).generate_state(1, np.uint64)[0] >> np.uint64(1))


# -- one game ------------------------------------------------------------------------------
def _nick(names: list[str]) -> list[str]:
    """GCG nicknames (letters, digits and ``_.+-`` only, distinct): the engine names with
    other characters as ``_`` (``siu:heuri siu`` → ``siu_heuri_siu``), suffixed when equal."""
    import re

    out = [re.sub(r"[^\w.+-]", "_", n) for n in names]
    if out[0] == out[1]:
        out = [f"{out[0]}_1", f"{out[1]}_2"]
    return out


def game_gcg(game, names: list[str], title: str = "", lexicon: str = "", notes=()) -> str:
    """GCG text of a finished :class:`heuri.game.Game`, written by heuri's one GCG writer
    (:func:`heuri.formats.gcg.game_to_gcg`): the engines' nicknames (:func:`_nick`), the
    language's name as its tile distribution (so that ``heuri replay`` finds the pack
    without ``--lang``), and ``notes`` as ``#note`` pragmas after the moves (a forfeit).
    ``names``: engine names by seat (seat 0 moved first)."""
    from ..formats.gcg import game_to_gcg, write_gcg

    rec = game_to_gcg(game, nicks=tuple(_nick(names)), names=tuple(names), lexicon=lexicon or None,
                      title=title or None, tile_distribution=game.spec.name.lower().replace(" ", "_"), notes=notes)
    return write_gcg(rec)


def play_game(pack, players: dict, p1: str, p2: str, seed: int, pair: int, seat: int, words=None,
              max_turns: int = 400, by_seat: dict | None = None):
    """Play game ``(pair, seat)`` of a match and return ``(row, gcg_text, game)``.

    ``players``: engine name → Player (:mod:`heuri.players`); ``by_seat`` (optional):
    ``{"p1": Player, "p2": Player}``, which wins over ``players`` (two external engines with
    the same command but other options, or their own stderr files); ``seat`` 0: p1 moves
    first, 1: p2 moves first; the bag comes from ``bag_seed(seed, pair)``. ``words`` (e.g.
    ``pack.words``) makes :class:`heuri.game.Game` reject any phony a player returns.
    ``row`` holds the columns of :data:`COLUMNS`.

    A player whose ``choose`` raises :class:`heuri.siu_client.EngineFailure` (an external
    engine) forfeits: the game stops, the other player wins, and the row and the record say
    so (see the module docstring for the scores and spread recorded). Raises RuntimeError (a
    bug, with the position's CGP) when an in-process player returns an illegal move or the
    game does not end.
    """
    from ..core.errors import MoveError
    from ..core.game import Game
    from ..core.move import Exchange, Pass, Placement
    from .siu_client import EngineFailure

    spec = pack.spec
    seats = [p1, p2] if seat == 0 else [p2, p1]
    # which of p1/p2 sits in each game seat
    who = ["p1", "p2"] if seat == 0 else ["p2", "p1"]
    by_who = dict(by_seat or {})
    for k, n in (("p1", p1), ("p2", p2)):
        if k not in by_who:
            by_who[k] = players[n]
    for pl in {id(x): x for x in by_who.values()}.values():
        if hasattr(pl, "new_game"):  # an external engine: siunewgame (when it runs)
            pl.new_game()
    bs = bag_seed(seed, pair)
    game = Game(spec, seed=bs, words=words)
    stats = {k: {"bingos": [], "exchanges": 0, "passes": 0, "moves": 0, "endgame": 0, "time": 0.0}
             for k in ("p1", "p2")}
    forfeit = None  # (who, EngineFailure)
    while not game.over:
        if len(game.history) >= max_turns:
            raise RuntimeError(f"game seed={seed} pair={pair} seat={seat} did not end in {max_turns} turns")
        pos = game.position
        st = stats[who[pos.to_move]]
        player = by_who[who[pos.to_move]]
        t0 = time.perf_counter()
        try:
            move = player.choose(pos)
        except EngineFailure as e:  # an external engine failed: it forfeits this game
            forfeit = (who[pos.to_move], e)
            break
        st["time"] += time.perf_counter() - t0
        try:
            game.play(move)
        except MoveError as e:
            raise RuntimeError(f"{player.name} chose an illegal move in game seed={seed} pair={pair} "
                               f"seat={seat}: {e}; position {pos.cgp()}") from e
        st["moves"] += 1
        # the player to move next is told of the move (heuri-sim@infer=1 infers from it)
        nxt = by_who[who[game.position.to_move]] if not game.over else None
        if nxt is not None and hasattr(nxt, "observe"):
            nxt.observe(pos, move)
        info = getattr(player, "info", None) or {}
        # in process: info["endgame"]; an external engine: it reported an endgame search
        if info.get("endgame") or any(str(x).startswith("info endgame") for x in info.get("infos", ())):
            st["endgame"] += 1
        if isinstance(move, Placement) and move.n_tiles == spec.rack_size:
            st["bingos"].append(move.length)
        elif isinstance(move, Exchange):
            st["exchanges"] += 1
        elif isinstance(move, Pass):
            st["passes"] += 1
    final = game.position
    score = {who[i]: int(final.scores[i]) for i in range(2)}
    spread = score["p1"] - score["p2"]
    went_out = any(not r.any() for r in final.racks) and final.scoreless < spec.max_scoreless_turns
    notes = []
    extra = dict(FORFEIT_DEFAULTS)
    if forfeit is None:
        winner = "p1" if spread > 0 else "p2" if spread < 0 else "draw"
        end = "out" if went_out else "scoreless"
    else:
        loser, e = forfeit
        winner = "p2" if loser == "p1" else "p1"
        lead = score[winner] - score[loser]
        spread = max(FORFEIT_SPREAD, lead) * (1 if winner == "p1" else -1)
        end = "forfeit"
        reply = "(none)" if e.reply is None else repr(e.reply)
        detail = " ".join(f"bestmove {reply}; {e}".split())
        extra = {"forfeit": loser, "forfeit_kind": e.kind, "forfeit_detail": detail}
        nick = _nick(seats)[who.index(loser)]  # the GCG nickname of the forfeiting seat
        notes.append(f"forfeit {nick} ({loser}) {e.kind}: {detail}")
    row = {
        "lang": spec.code, "p1": p1, "p2": p2, "seed": int(seed), "pair": int(pair), "seat": int(seat),
        "game": 2 * int(pair) + int(seat), "bag_seed": bs, "first": seats[0],
        "score_p1": score["p1"], "score_p2": score["p2"], "spread": spread,
        "winner": winner, "result_p1": 1.0 if winner == "p1" else 0.0 if winner == "p2" else 0.5,
        "turns": len(game.history), "end": end,
    }
    for k in ("p1", "p2"):
        st = stats[k]
        row[f"bingos_{k}"] = len(st["bingos"])
        row[f"bingo_lengths_{k}"] = st["bingos"]
        row[f"exchanges_{k}"] = st["exchanges"]
        row[f"passes_{k}"] = st["passes"]
        row[f"moves_{k}"] = st["moves"]
        row[f"endgame_moves_{k}"] = st["endgame"]
        row[f"ms_per_move_{k}"] = 1000.0 * st["time"] / max(st["moves"], 1)
    row["gcg"] = f"games/{game_name(pair, seat)}.gcg"
    row.update(extra)
    title = f"{spec.code} match seed {seed} pair {pair} seat {seat}: {seats[0]} (first) vs {seats[1]}"
    gcg = game_gcg(game, seats, title=title, lexicon=spec.lexicon.replace(" ", "_"), notes=notes)
    return row, gcg, game


def game_name(pair: int, seat: int) -> str:
    """File stem of game (pair, seat): ``00012-1``."""
    return f"{pair:05d}-{seat}"


# -- worker processes -----------------------------------------------------------------------
_W: dict = {}


def _init_worker(lang: str, names: tuple[str, ...], endgame_options: dict | None, check_words: bool,
                 engines: dict | None = None, engines_dir: str | None = None, per_process: bool = False):
    """Load the pack and the players once per worker process.

    ``names``: (p1, p2). In-process engines are shared by name; an external one
    (``siu:...``) gets a player per seat, with the keywords ``engines[seat]`` (``options``,
    ``movetime_ms``, ``grace_s``, ...) and its stderr in ``engines_dir/<seat>.stderr``
    (``<seat>.<pid>.stderr`` when ``per_process``: one file per worker)."""
    from ..core.pack import load_pack
    from .players import make_player
    from .siu_client import EngineFailure

    if per_process:  # a pool worker: the parent handles Ctrl-C; die with the parent
        from ..core.outdir import worker_setup

        worker_setup()
    _close_worker()
    pack = load_pack(lang)
    _W["pack"] = pack
    _W["words"] = words = pack.words if check_words else None
    shared, by_seat = {}, {}
    for k, n in zip(("p1", "p2"), names):
        if n.startswith("siu:"):
            kw = {"words": words, **dict((engines or {}).get(k) or {})}
            if engines_dir is not None:
                tag = f".{os.getpid()}" if per_process else ""
                if "stderr_path" not in kw:
                    from ..core.outdir import MARKER, claim

                    if (Path(engines_dir).parent / MARKER).is_file():  # a file of the match folder
                        claim(Path(engines_dir).parent, f"engines/{k}{tag}.stderr")
                    kw["stderr_path"] = Path(engines_dir) / f"{k}{tag}.stderr"
            by_seat[k] = make_player(n, pack, siu_options=kw)
        else:
            if n not in shared:
                shared[n] = make_player(n, pack, endgame_options)
            by_seat[k] = shared[n]
    _W["by_seat"] = by_seat
    _W["players"] = {n: by_seat[k] for k, n in zip(("p1", "p2"), names)}
    if per_process:  # pool workers end without atexit: quit the engines when the worker exits
        from multiprocessing.util import Finalize

        Finalize(None, _close_worker, exitpriority=10)
    # warm-up: the first move of an engine loads compiled code and tables (an external
    # engine: starts the process); keep it out of the time per move. An engine that fails
    # here fails again in its first game, where it is recorded as a forfeit.
    from ..core.game import Game

    pos = Game(pack.spec, seed=0).position
    for p in {id(x): x for x in by_seat.values()}.values():
        try:
            p.choose(pos)
        except EngineFailure:
            pass
        if not hasattr(p, "new_game"):
            # An in-process engine compiles more on first use than its opening move needs
            # (δ after a move on a busy board, the endgame and pre-endgame searches): one
            # whole game against itself, off the record, so that ms per move is the time
            # of a decision, not of numba compiling.
            play_game(pack, {"warm-up": p}, "warm-up", "warm-up", seed=0, pair=0, seat=0)


def _close_worker() -> None:
    """Quit the external engines of this process's players (if any)."""
    for p in list((_W.get("by_seat") or {}).values()):
        close = getattr(p, "close", None)
        if close is not None:
            try:
                close()
            except Exception:  # noqa: BLE001 - closing must not mask the match's own outcome
                pass
    _W.pop("by_seat", None)


def _worker_game(p1: str, p2: str, seed: int, pair: int, seat: int):
    row, gcg, _ = play_game(_W["pack"], _W["players"], p1, p2, seed, pair, seat, words=_W["words"],
                            by_seat=_W.get("by_seat"))
    return row, gcg


# -- files ---------------------------------------------------------------------------------
def write_atomic(path: Path, data: bytes | str) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder renamed over
    it (``os.replace``), so a reader or a killed writer never sees half a file."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def rows_table(rows: list[dict]):
    """Rows (dicts with :data:`COLUMNS`) → a pyarrow Table, sorted by (pair, seat). Rows
    written before the forfeit columns existed get :data:`FORFEIT_DEFAULTS`."""
    import pyarrow as pa

    rows = sorted(rows, key=lambda r: (r["pair"], r["seat"]))
    return pa.Table.from_pylist([{c: r[c] if c in r else FORFEIT_DEFAULTS[c] for c in COLUMNS} for r in rows],
                                schema=_schema())


def write_table(rows: list[dict], path: Path) -> None:
    """Write rows as Parquet to ``path`` atomically."""
    import pyarrow.parquet as pq

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(rows_table(rows), tmp)
    os.replace(tmp, path)


def read_rows(out: Path) -> dict[tuple[int, int], dict]:
    """Finished games in an output folder: (pair, seat) → row, from ``rows/NNNNN-S.json``.
    Any other file in ``rows/`` is skipped with a warning naming it (a folder opened by
    :func:`run_match` holds none: it refuses foreign files). A row file that does not parse
    or lacks its game's ``pair``/``seat`` (none should exist: rows are written atomically)
    raises MatchError naming the file."""
    import re
    import warnings

    done = {}
    d = Path(out) / "rows"
    if not d.is_dir():
        return done
    for f in sorted(d.iterdir()):
        if f.name.startswith(".") and f.name.endswith((".tmp", ".heuri-tmp")):
            continue  # a temporary file of a writer (renamed when whole)
        if not re.fullmatch(_ROW_NAME, f.name) or f.is_symlink() or not f.is_file():
            warnings.warn(f"{f}: not a game row of heuri match (rows/NNNNN-S.json); skipped", stacklevel=2)
            continue
        try:
            r = json.loads(f.read_text(encoding="utf-8"))
            gid = (int(r["pair"]), int(r["seat"]))
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise MatchError(f"{f}: unreadable game row ({type(e).__name__}: {e}); delete it to replay that "
                             f"game") from None
        if f.name != f"{game_name(*gid)}.json":
            raise MatchError(f"{f}: holds the row of game pair {gid[0]} seat {gid[1]}, not of its name; "
                             f"delete it to replay that game")
        done[gid] = r
    return done


# -- the runner --------------------------------------------------------------------------------
@dataclass
class MatchResult:
    """``rows``: the requested games' rows (sorted by game); ``summary``: :func:`summarise`;
    ``out``: the output folder; ``played``: games played by this run (the rest were already
    in the folder)."""

    rows: list
    summary: dict
    out: Path
    played: int


def folder_name(name: str) -> str:
    """An engine name as a folder-name part: heuri's engines as they are; an external
    ``siu:<command line>`` as ``siu-`` + the command's program name and arguments with
    other characters than letters, digits and ``.+-`` as ``_`` (at most 60 characters).

    >>> folder_name("heuri3"), folder_name("siu:/opt/magpie/bin/magpie -mode siu")
    ('heuri3', 'siu-magpie_-mode_siu')
    """
    import re
    import shlex

    if not name.startswith("siu:"):
        return name
    try:
        argv = shlex.split(name[4:])
    except ValueError:
        argv = name[4:].split()
    if argv:
        argv[0] = os.path.basename(argv[0]) or argv[0]
    return "siu-" + re.sub(r"[^A-Za-z0-9.+-]+", "_", " ".join(argv)).strip("_")[:60]


def default_out(lang: str, p1: str, p2: str) -> Path:
    """``matches/<lang>/<p1>-vs-<p2>`` (relative to the working folder; names through
    :func:`folder_name`)."""
    return Path("matches") / lang / f"{folder_name(p1)}-vs-{folder_name(p2)}"


#: the command named in the output folder's marker (:mod:`heuri.outdir`)
COMMAND = "heuri match"
#: the files of a match folder (relative names), for folders written before output markers
_LAYOUT = (r"match\.json|games\.parquet|shard-\d+\.parquet|rows/\d{5,}-[01]\.json|games/\d{5,}-[01]\.gcg"
           r"|engines/[\w.+-]+\.stderr|(rows|games)/\..+\.tmp")
#: the name of a row file
_ROW_NAME = r"\d{5,}-[01]\.json"


def _adopt(root: Path, names: list[str]):
    """The files of a match folder written before output markers existed: a ``match.json``
    naming a match, beside only the files a match writes (None when the folder is not one)."""
    import re

    try:
        old = json.loads((root / "match.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not (isinstance(old, dict) and all(k in old for k in ("lang", "p1", "p2", "seed"))):
        return None
    return names if all(re.fullmatch(_LAYOUT, n) for n in names) else None


def _check_out(out: Path, meta: dict):
    """Open ``out`` as the match's :class:`heuri.outdir.OutputFolder` (created, writable,
    holding only files of ``heuri match``) and check it holds no other match; returns it.
    Raises MatchError."""
    from ..core.outdir import OutputFolder

    try:
        folder = OutputFolder.open(out, COMMAND, adopt=_adopt, what="match output")
    except HeuriError as e:
        raise MatchError(str(e)) from None
    mf = out / "match.json"
    if mf.is_file():
        try:
            old = json.loads(mf.read_text(encoding="utf-8"))
        except ValueError:
            old = {}
        keys = ("lang", "p1", "p2", "seed", "endgame") + (("engines",) if "engines" in meta or "engines" in old else ())
        if any(old.get(k) != meta.get(k) for k in keys):
            what = ", ".join(f"{k}={old.get(k)!r}" for k in keys)
            raise MatchError(f"--out {str(out)!r} already holds another match ({what}); "
                             f"resume it with the same options or choose another --out")
    else:
        folder.write("match.json", json.dumps(meta, indent=1, sort_keys=True) + "\n")
    return folder


def run_match(lang: str, p1: str, p2: str, games: int, seed: int = 1, jobs: int = 1, out=None,
              first_game: int = 0, table=None, progress: bool = True, endgame_options: dict | None = None,
              check_words: bool = True, engines: dict | None = None) -> MatchResult:
    """Play games ``first_game .. first_game + games - 1`` of the match ``p1`` vs ``p2``
    (language ``lang``, seed ``seed``) into the folder ``out``, skipping those already
    there; ``jobs`` worker processes (1 = in this process). Writes each finished game's row
    and GCG atomically, then the games table (``out/games.parquet`` with every game of the
    folder, or ``table`` with this range's games). Returns a :class:`MatchResult`.

    ``engines``: for a seat played by an external engine (``"siu:<command line>"``),
    ``{"p1"|"p2": keywords of heuri.siu_client.SiuPlayer}``: ``options`` ({Name: value},
    sent with setoption), ``movetime_ms`` (default 1000), ``grace_s``, ``start_timeout_s``.
    ``options`` and ``movetime_ms`` are part of the match (``match.json``: a resume must
    give the same). The engine's stderr goes to ``out/engines/``. A failing engine forfeits
    its game (see the module docstring).

    Raises MatchError (games < 1, jobs < 1, an odd ``first_game``, an unwritable or foreign
    ``out``, options for a seat that is not an external engine, a movetime below 1 ms),
    EngineError (unknown engine, or one that reads a table the pack was built without),
    PackError (no built pack for ``lang``).
    """
    from ..core.outdir import interrupts_raise, is_interrupt
    from ..core.pack import load_pack
    from .players import check_endgame_budget, check_engine, check_pack_tables

    if games < 1:
        raise MatchError(f"--games {games}: a match needs at least 1 game (2 make a pair with the seats swapped)")
    if jobs < 1:
        raise MatchError(f"--jobs {jobs}: use at least 1 worker process")
    if first_game < 0 or first_game % 2:
        raise MatchError(f"--first-game {first_game}: must be an even number >= 0 (games come in pairs)")
    for p in (p1, p2):
        check_engine(p)
        check_endgame_budget(p, endgame_options)
    engines = {k: dict(v) for k, v in (engines or {}).items() if v}
    ident = {}
    for k, n in (("p1", p1), ("p2", p2)):
        kw = engines.get(k)
        if not n.startswith("siu:"):
            if kw and (kw.get("options") or kw.get("movetime_ms") is not None):
                raise MatchError(f"--{k}-option/--movetime: {k} {n!r} is not an external engine "
                                 f"(only --{k} \"siu:<command line>\" takes engine options)")
            engines.pop(k, None)
            continue
        kw = engines.setdefault(k, {})
        kw["options"] = {str(a): str(b) for a, b in (kw.get("options") or {}).items()}
        kw["movetime_ms"] = 1000 if kw.get("movetime_ms") is None else int(kw["movetime_ms"])
        if kw["movetime_ms"] < 1:
            raise MatchError(f"--movetime {kw['movetime_ms']}: must be at least 1 millisecond")
        ident[k] = {"options": kw["options"], "movetime_ms": kw["movetime_ms"]}
    pack = load_pack(lang)
    for p in (p1, p2):
        check_pack_tables(p, pack)
    out = Path(out) if out is not None else default_out(lang, p1, p2)
    meta = {"lang": lang, "p1": p1, "p2": p2, "seed": int(seed), "pack": pack.id,
            "endgame": endgame_options or {}, "format": 1}
    if ident:  # external engines: their options and movetime are part of the match
        meta["engines"] = ident
    folder = _check_out(out, meta)
    engines_dir = str(out / "engines")

    ids = [(g // 2, g % 2) for g in range(first_game, first_game + games)]
    done = read_rows(out)
    todo = [gid for gid in ids if gid not in done]
    rows = {gid: done[gid] for gid in ids if gid in done}

    def save(row, gcg):
        gid = (row["pair"], row["seat"])
        name = game_name(*gid)
        folder.write(f"games/{name}.gcg", gcg)
        folder.write(f"rows/{name}.json", json.dumps(row) + "\n")  # the row last: the game is done
        rows[gid] = row

    bar = None
    played = 0
    interrupted = False
    try:
        with interrupts_raise():
            if todo:
                names = (p1, p2)
                if progress:
                    from tqdm import tqdm

                    bar = tqdm(total=len(ids), initial=len(ids) - len(todo), unit="game",
                               desc=f"{lang} {p1} vs {p2}", dynamic_ncols=True)

                def tick():
                    if bar is not None:
                        res = [r["result_p1"] for r in rows.values()]
                        bar.set_postfix_str(f"{p1} win {100 * sum(res) / len(res):.1f}%")
                        bar.update(1)

                try:
                    if jobs == 1:
                        try:
                            _init_worker(lang, names, endgame_options, check_words, engines, engines_dir)
                            for pair, seat in todo:
                                row, gcg = _worker_game(p1, p2, seed, pair, seat)
                                save(row, gcg)
                                played += 1
                                tick()
                        finally:
                            _close_worker()
                    else:
                        played = _play_pool(todo, jobs, (lang, names, endgame_options, check_words, engines,
                                                         engines_dir, True), (p1, p2, seed), save, tick, out)
                except BaseException as e:
                    if not is_interrupt(e):
                        raise
                    interrupted = True
                    played = sum(1 for gid in todo if gid in rows)
    finally:
        if bar is not None:
            bar.close()
        # whatever happened, the table reflects every finished game
        if table is not None:
            if rows:
                _write_table_to(folder, list(rows.values()), Path(table))
        else:
            alld = read_rows(out)
            if alld:
                folder.write_with("games.parquet", lambda tmp: _write_parquet(list(alld.values()), tmp))
    if interrupted:
        from ..core.outdir import Interrupted

        where = table or out / "games.parquet"
        e = Interrupted(f"interrupted: {len(rows)} of {len(ids)} games finished ({played} in this run); "
                        f"table: {where}; run the same command again to resume")
        e.result = MatchResult([rows[g] for g in ids if g in rows],
                               summarise([rows[g] for g in ids if g in rows]) if rows else None, out, played)
        raise e
    ordered = [rows[gid] for gid in ids]
    return MatchResult(ordered, summarise(ordered), out, played)


def _write_parquet(rows: list[dict], path) -> None:
    import pyarrow.parquet as pq

    pq.write_table(rows_table(rows), path)


def _write_table_to(folder, rows: list[dict], table: Path) -> None:
    """``--table PATH``: inside the match folder, a file of the folder (listed in its marker);
    elsewhere, the file the user named, written atomically (a link there is replaced, never
    written through)."""
    try:  # the folder part resolved, the name not: a link named --table is not followed
        rel = (table.parent.resolve() / table.name).relative_to(folder.root.resolve())
    except ValueError:
        rel = None
    if rel is not None:
        folder.write_with(rel.as_posix(), lambda tmp: _write_parquet(rows, tmp))
    else:
        write_table(rows, table)


def _play_pool(todo, jobs: int, initargs: tuple, match: tuple, save, tick, out: Path) -> int:
    """Play the games ``todo`` in ``jobs`` worker processes; ``save(row, gcg)`` each finished
    one in this process. Returns the games played. On any exception (Ctrl-C, SIGTERM through
    :func:`heuri.outdir.interrupts_raise`) the workers are killed at once (a game in the middle
    has nothing to save) before it propagates; a dead worker is a MatchError."""
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    from ..core.outdir import kill_workers, pool_children

    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else None
    before = pool_children()
    ex = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init_worker, initargs=initargs)
    played = 0
    try:
        # keep a few games queued per worker; submit in game order
        it = iter(todo)
        pending = set()
        for _ in range(2 * jobs):
            gid = next(it, None)
            if gid is not None:
                pending.add(ex.submit(_worker_game, *match, *gid))
        while pending:
            fin, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in fin:
                save(*f.result())
                played += 1
                tick()
                gid = next(it, None)
                if gid is not None:
                    pending.add(ex.submit(_worker_game, *match, *gid))
    except BrokenProcessPool:
        kill_workers(before, ex)
        raise MatchError(
            f"a worker process died in the middle of a game (killed, out of memory or a crash); "
            f"the {played} games finished in this run are saved in {str(out)!r}: run the same "
            f"command again to resume") from None
    except BaseException:
        kill_workers(before, ex)
        raise
    finally:
        ex.shutdown(wait=True, cancel_futures=True)
    return played


# -- summary -----------------------------------------------------------------------------------
def summarise(rows: list[dict]) -> dict:
    """Summary of finished games (rows of one match): a dict with ``games``, ``pairs``
    (complete pairs), ``p1``/``p2`` names, ``wins``/``draws``/``losses`` (of p1),
    ``win_rate`` ((wins + draws/2)/games) and ``ci`` (its 95 % Wilson interval), and per
    player ``mean_score``, ``mean_spread`` (p1 − p2 for p1), ``bingos_per_game``,
    ``bingo_share`` (fractions of bingos with a main word of 7, 8, 9+ tiles),
    ``exchanges_per_game``, ``passes_per_game``, ``endgame_moves_per_game``,
    ``ms_per_move`` (mean over moves), ``forfeits`` (games that player forfeited) and
    ``forfeit_kinds`` ({kind: games}). Raises MatchError for no rows."""
    if not rows:
        raise MatchError("no finished games to summarise")
    n = len(rows)
    wins = sum(r["winner"] == "p1" for r in rows)
    draws = sum(r["winner"] == "draw" for r in rows)
    pairs = {r["pair"] for r in rows}
    full_pairs = sum(1 for p in pairs if sum(r["pair"] == p for r in rows) == 2)
    s = {"lang": rows[0]["lang"], "p1": rows[0]["p1"], "p2": rows[0]["p2"], "seed": rows[0]["seed"],
         "games": n, "pairs": full_pairs, "wins": wins, "draws": draws, "losses": n - wins - draws,
         "win_rate": (wins + 0.5 * draws) / n, "ci": wilson_interval(wins + 0.5 * draws, n),
         "mean_spread": float(np.mean([r["spread"] for r in rows])),
         "first_mover_win_rate": float(np.mean([1.0 if (r["winner"] == "p1") == (r["seat"] == 0)
                                                 and r["winner"] != "draw" else 0.5 if r["winner"] == "draw"
                                                 else 0.0 for r in rows])),
         "mean_turns": float(np.mean([r["turns"] for r in rows]))}
    for k in ("p1", "p2"):
        lengths = [x for r in rows for x in r[f"bingo_lengths_{k}"]]
        nb = len(lengths)
        moves = sum(r[f"moves_{k}"] for r in rows)
        s[f"stats_{k}"] = {
            "mean_score": float(np.mean([r[f"score_{k}"] for r in rows])),
            "bingos_per_game": nb / n,
            "bingos": nb,
            "bingo_share": tuple((sum(1 for x in lengths if x == L) / nb) if nb else 0.0 for L in (7, 8))
            + ((sum(1 for x in lengths if x >= 9) / nb) if nb else 0.0,),
            "exchanges_per_game": sum(r[f"exchanges_{k}"] for r in rows) / n,
            "passes_per_game": sum(r[f"passes_{k}"] for r in rows) / n,
            "endgame_moves_per_game": sum(r[f"endgame_moves_{k}"] for r in rows) / n,
            "ms_per_move": sum(r[f"ms_per_move_{k}"] * r[f"moves_{k}"] for r in rows) / max(moves, 1),
        }
        kinds: dict[str, int] = {}
        for r in rows:
            if r.get("forfeit") == k:
                kinds[r.get("forfeit_kind") or "?"] = kinds.get(r.get("forfeit_kind") or "?", 0) + 1
        s[f"stats_{k}"]["forfeits"] = sum(kinds.values())
        s[f"stats_{k}"]["forfeit_kinds"] = dict(sorted(kinds.items()))
    return s


def summary_table(s: dict):
    """A rich Table of a summary (:func:`summarise`)."""
    from rich.table import Table

    lo, hi = s["ci"]
    t = Table(title=f"{s['lang']}: {s['p1']} vs {s['p2']}, {s['games']} games "
                    f"({s['pairs']} pairs, seats swapped), seed {s['seed']}")
    t.add_column("", justify="left")
    t.add_column(f"p1 {s['p1']}", justify="right")
    t.add_column(f"p2 {s['p2']}", justify="right")
    t.add_row("wins / draws / losses", f"{s['wins']} / {s['draws']} / {s['losses']}",
              f"{s['losses']} / {s['draws']} / {s['wins']}")
    t.add_row("win rate (95% Wilson)", f"{100 * s['win_rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]",
              f"{100 * (1 - s['win_rate']):.1f}% [{100 * (1 - hi):.1f}, {100 * (1 - lo):.1f}]")
    t.add_row("mean spread", f"{s['mean_spread']:+.1f}", f"{-s['mean_spread']:+.1f}")
    X, Y = s["stats_p1"], s["stats_p2"]
    t.add_row("mean score", f"{X['mean_score']:.1f}", f"{Y['mean_score']:.1f}")
    t.add_row("bingos per game", f"{X['bingos_per_game']:.2f}", f"{Y['bingos_per_game']:.2f}")
    t.add_row("bingos of 7 / 8 / 9+ tiles",
              " / ".join(f"{100 * v:.0f}%" for v in X["bingo_share"]),
              " / ".join(f"{100 * v:.0f}%" for v in Y["bingo_share"]))
    t.add_row("exchanges / passes per game", f"{X['exchanges_per_game']:.2f} / {X['passes_per_game']:.2f}",
              f"{Y['exchanges_per_game']:.2f} / {Y['passes_per_game']:.2f}")
    t.add_row("endgame-search moves per game", f"{X['endgame_moves_per_game']:.2f}",
              f"{Y['endgame_moves_per_game']:.2f}")
    t.add_row("ms per move", f"{X['ms_per_move']:.1f}", f"{Y['ms_per_move']:.1f}")
    if X.get("forfeits") or Y.get("forfeits") or any(str(s[k]).startswith("siu:") for k in ("p1", "p2")):
        def ff(st):
            kinds = ", ".join(f"{k} {v}" for k, v in st.get("forfeit_kinds", {}).items())
            return f"{st.get('forfeits', 0)}" + (f" ({kinds})" if kinds else "")

        t.add_row("forfeits (engine failures)", ff(X), ff(Y))
    t.add_row("first mover wins", f"{100 * s['first_mover_win_rate']:.1f}%", "")
    return t


# -- command line --------------------------------------------------------------------------------
def add_match_arguments(p) -> None:
    """The arguments of ``heuri match`` (an argparse parser)."""
    p.add_argument("--lang", required=True, help="language pack (es, en, fr, ca, ...): build it with snakemake first")
    p.add_argument("--p1", default=DEFAULT_ENGINE, help=f"first engine (default {DEFAULT_ENGINE}): greedy, heuri1, heuri2, heuri3, "
                   "heuri4 (and its variants), heuri5, heuri6 (heuri5 reading what the opponent kept), "
                   "heuriN-noend, heuriN-peg, heuri-sim@seconds=1,candidates=8,... (the simulation), "
                   "an evaluator with options as "
                   "NAME@key=value,... (e.g. heuri4@offset=35; heuri4@exact_nodes=300000,wide=0 gives "
                   "the exact endgame step 300,000 nodes and no width-limited step), or an external SIU engine as "
                   "\"siu:<command line>\"")
    p.add_argument("--p2", default="greedy", help="second engine (default greedy); same choices as --p1")
    p.add_argument("--p1-option", action="append", default=[], metavar="NAME=VALUE",
                   help="setoption for an external --p1 engine (repeatable), e.g. --p1-option Engine=greedy")
    p.add_argument("--p2-option", action="append", default=[], metavar="NAME=VALUE",
                   help="setoption for an external --p2 engine (repeatable)")
    p.add_argument("--movetime", type=int, default=None, metavar="MS",
                   help="external engines: 'go auto movetime MS' on each turn (default 1000); an engine "
                   "silent for MS plus 10 s forfeits the game")
    p.add_argument("--games", type=int, required=True,
                   help="games to play; game g is pair g//2 with the seats swapped in its second game")
    p.add_argument("--seed", type=int, default=1, help="match seed: the same seed gives the same games (default 1)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--out", default=None, help="output folder (default matches/<lang>/<p1>-vs-<p2>); "
                   "games already there are skipped (resume)")
    p.add_argument("--first-game", type=int, default=0,
                   help="play games first-game .. first-game+games-1 (an even number; for shards)")
    p.add_argument("--table", default=None,
                   help="write this run's games table here instead of <out>/games.parquet (shards)")
    p.add_argument("--endgame-generations", type=int, default=None,
                   help="endgame search: move-generator calls per move (default 1500)")
    p.add_argument("--endgame-width", type=int, default=None,
                   help="endgame search: placements searched per position (default 12; 0 = all)")
    p.add_argument("--no-check", action="store_true", help="do not check every played word against the lexicon")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def endgame_options_from(args) -> dict | None:
    """EndgameSearch keyword arguments from ``--endgame-*`` options (None: defaults)."""
    opts = {}
    if getattr(args, "endgame_generations", None) is not None:
        if args.endgame_generations < 1:
            raise MatchError(f"--endgame-generations {args.endgame_generations}: must be at least 1")
        opts["max_generations"] = args.endgame_generations
        opts["max_nodes"] = max(20000, 20 * args.endgame_generations)
    if getattr(args, "endgame_width", None) is not None:
        if args.endgame_width < 0:
            raise MatchError(f"--endgame-width {args.endgame_width}: must be 0 (all) or more")
        opts["width"] = args.endgame_width or None
    return opts or None


def engines_from(args) -> dict | None:
    """Keywords for external engines (:func:`run_match`'s ``engines``) from ``--p1-option``,
    ``--p2-option`` (Name=Value, parsed by :func:`heuri.siu_client.parse_option_args`) and
    ``--movetime`` (applies to every external seat). Raises MatchError for options given to
    a seat that is not ``siu:...`` (from run_match), HeuriError for a pair without ``=``."""
    from .siu_client import parse_option_args

    out = {}
    for k in ("p1", "p2"):
        kw = {}
        opts = parse_option_args(getattr(args, f"{k}_option", None) or [])
        if opts:
            kw["options"] = opts
        if getattr(args, "movetime", None) is not None and str(getattr(args, k, "")).startswith("siu:"):
            kw["movetime_ms"] = args.movetime
        if kw:
            out[k] = kw
    if getattr(args, "movetime", None) is not None and not any(
            str(getattr(args, k, "")).startswith("siu:") for k in ("p1", "p2")):
        raise MatchError(f"--movetime {args.movetime}: neither player is an external engine (siu:...)")
    return out or None


def cli_match(args) -> int:
    """``heuri match``: play, then print the summary table (rich) of the requested games."""
    from rich.console import Console

    from ..core.outdir import Interrupted

    con = Console()
    try:
        res = run_match(args.lang, args.p1, args.p2, args.games, seed=args.seed, jobs=args.jobs, out=args.out,
                        first_game=args.first_game, table=args.table, progress=not args.quiet,
                        endgame_options=endgame_options_from(args), check_words=not args.no_check,
                        engines=engines_from(args))
    except Interrupted as e:  # the summary of the games finished, then the interrupt
        part = getattr(e, "result", None)
        if part is not None and part.summary is not None:
            con.print(summary_table(part.summary))
        raise
    con.print(summary_table(res.summary))
    where = args.table or res.out / "games.parquet"
    con.print(f"{res.played} games played now, {len(res.rows) - res.played} already in {res.out}; "
              f"table: {where}; game records: {res.out / 'games'}", highlight=False)
    return 0


def read_table(paths) -> list[dict]:
    """Rows of one or more games tables (Parquet files, or match folders: their finished
    rows), in order. Raises MatchError for a missing file or tables of different matches."""
    import pyarrow.parquet as pq

    rows = []
    for p in paths:
        if Path(p).is_dir():  # a match folder, possibly still being played: its rows
            rows.extend(sorted(read_rows(Path(p)).values(), key=lambda r: (r["pair"], r["seat"])))
            continue
        if not Path(p).is_file():
            raise MatchError(f"{p}: no such games table")
        rows.extend(pq.read_table(p).to_pylist())
    keys = {(r["lang"], r["p1"], r["p2"], r["seed"]) for r in rows}
    if len(keys) > 1:
        raise MatchError(f"tables of different matches: {sorted(keys)}")
    return rows


def compare(rows_a: list[dict], rows_b: list[dict]) -> dict:
    """Paired comparison of two matches played on the same seeds (e.g. heuri3 vs greedy and
    heuri3-noend vs greedy): games are matched on (pair, seat), so both saw the same bag.
    Returns ``games`` (matched), ``win_rate_a``/``win_rate_b``, ``diff`` (mean of the
    per-game result differences, a win 1, a draw ½) with ``diff_ci`` (95 %, normal
    approximation over the paired differences), ``spread_diff`` (mean spread difference)
    and ``changed`` (games whose result differs). Raises MatchError when no game matches."""
    b = {(r["pair"], r["seat"]): r for r in rows_b}
    pairs = [(r, b[(r["pair"], r["seat"])]) for r in rows_a if (r["pair"], r["seat"]) in b]
    if not pairs:
        raise MatchError("the two tables share no game (same seed, pair and seat)")
    d = np.array([x["result_p1"] - y["result_p1"] for x, y in pairs], dtype=float)
    n = len(d)
    z = NormalDist().inv_cdf(0.975)
    half = z * (d.std(ddof=1) / sqrt(n) if n > 1 else 0.0)
    return {"games": n, "win_rate_a": float(np.mean([x["result_p1"] for x, _ in pairs])),
            "win_rate_b": float(np.mean([y["result_p1"] for _, y in pairs])),
            "diff": float(d.mean()), "diff_ci": (float(d.mean() - half), float(d.mean() + half)),
            "spread_diff": float(np.mean([x["spread"] - y["spread"] for x, y in pairs])),
            "changed": int((d != 0).sum())}


def main(argv=None) -> int:
    """``python -m heuri.match merge OUT.parquet SHARD.parquet ...`` (merge shard tables,
    print the summary; the Snakemake rule), ``python -m heuri.match summary T.parquet ...``
    or ``python -m heuri.match compare A.parquet B.parquet`` (:func:`compare`)."""
    import argparse
    import sys

    from rich.console import Console

    ap = argparse.ArgumentParser(prog="python -m heuri.match")
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("merge", help="merge shard tables into one and print the summary")
    m.add_argument("out")
    m.add_argument("tables", nargs="+")
    s = sub.add_parser("summary", help="print the summary of games tables")
    s.add_argument("tables", nargs="+")
    c = sub.add_parser("compare", help="paired comparison of two matches on the same seeds")
    c.add_argument("a")
    c.add_argument("b")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "compare":
            ra, rb = read_table([a.a]), read_table([a.b])
            r = compare(ra, rb)
            na, nb = f"{ra[0]['p1']} vs {ra[0]['p2']}", f"{rb[0]['p1']} vs {rb[0]['p2']}"
            lo, hi = r["diff_ci"]
            print(f"{r['games']} games on the same bags: {na} scores {100 * r['win_rate_a']:.1f}%, "
                  f"{nb} {100 * r['win_rate_b']:.1f}%; difference {100 * r['diff']:+.1f} points "
                  f"[95% {100 * lo:+.1f}, {100 * hi:+.1f}], mean spread {r['spread_diff']:+.1f}, "
                  f"{r['changed']} results changed")
            return 0
        rows = read_table(a.tables)
        seen = set()
        for r in rows:
            gid = (r["pair"], r["seat"])
            if gid in seen:
                raise MatchError(f"game pair {gid[0]} seat {gid[1]} appears twice in {a.tables}")
            seen.add(gid)
        if a.cmd == "merge":
            write_table(rows, Path(a.out))
        Console().print(summary_table(summarise(sorted(rows, key=lambda r: (r["pair"], r["seat"])))))
    except HeuriError as e:
        print(f"heuri: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
