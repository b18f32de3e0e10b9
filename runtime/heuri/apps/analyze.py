"""Game analysis: where a player lost equity, turn by turn, against an engine's ranking.

:func:`analyze_game` replays a GCG record with the checks of ``heuri replay``
(:func:`heuri.gcg.replay`: order, totals, racks against the tile set, the engine's own
scoring) and, at every turn, ranks every candidate move of the position with an evaluator
of :mod:`heuri.evaluate` (``make_evaluator(pack, engine).rank_arrays``). It returns a
:class:`GameAnalysis`: one row a turn (a ``dict``; :meth:`GameAnalysis.frame` makes the
Polars table written as Parquet), a summary, and what a front end needs to draw each turn
(:class:`TurnView`). Nothing here prints or writes files: :mod:`heuri.report` renders and
``heuri analyze`` (:mod:`heuri.cli`) writes.

What a turn is valued by (docs/method.md): ``v = j + e``, with ``j`` the move's score (points)
and ``e`` the expected value of a bingo next turn from the leave (points; ``p`` its
probability); heuri4 and heuri5 (the default) also subtract their leave and opponent
terms, heuri5 adds the tiles' scoring power (:class:`heuri.evaluate.Heuri4`,
:class:`heuri.evaluate.Heuri5`), and the pages say so (:func:`heuri.report.equity_formula`). The *equity lost* of a turn is ``v(best) − v(played)`` (points, ≥ 0), where
the best is the top of the engine's own ranking, so the engine's own choice loses 0.
The played move's ``v`` is always computed with δ of the board after it (Heuri_3's exact
value), whether or not the ranking re-valued it; when that exact value is above the
ranking's top (a move outside the N re-valued ones), the loss is 0. A played move the
move generator does not list (a word outside the pack's word list, a phony) is valued all
the same from its recorded squares.

Words outside the list: a play forming a word the pack does not hold (a record of another
lexicon, a phony that stood) has ``off_list`` True and the words in ``off_words``; it gets
no rank and no equity lost (both null: it is not a move of this word list, so no engine
choice can be measured against it), and the figures of :func:`player_stats` leave it out
and count it (``off_list``). The pages mark it "not in <lexicon>". ``lexicon`` says which
word list answered (the pack's, :func:`heuri.core.pack.pack_for_record`: the record's
``#lexicon`` when a pack of it is built, else the language's default, with a warning).

Endgame (the bag empty, both racks known, an engine with a search such as ``heuri3``): the
turn is valued by the endgame search (:func:`heuri.players.match_endgame`, the search the
``heuri3`` player makes): ``v`` is the spread the move adds from now to the end of the
game (points, the search's value, exact when ``endgame_exact``), the best move is the
search's, and the played move's value is its score minus the search's value of the
position after it for the opponent (plus the end-of-game swing when it goes out). When the
search does not fit its limits the turn falls back to the evaluator's ranking, as the
player does.

Unknown racks: a record may give only the tiles played (``>p1: 8D WORD +20 20``). Such a
turn is analysed as if the rack held only those tiles (``rack_known`` False, ``note``
"rack unknown: analysed on the tiles played"): the candidates are the moves those tiles
make, and no guessed rack is ever shown as the player's. A pass or a counted exchange
(``-4``) with no rack has nothing to analyse (``analysed`` False).

Columns of a row (``ROW_SCHEMA``, one a turn: every play, exchange and pass line, in order):

- ``game`` str: the game's id (file stem, made unique in a batch); ``path`` str; ``lang``
  str; ``lexicon`` str: the word list that answered (the pack's lexicon); ``engine`` str;
- ``turn`` int: the turn's number, as players number the moves of a game: turn N is the
  Nth move (play, exchange or pass line) of the record, both players counted, from 1; a
  withdrawal or a challenge line is not a move (``heuri best --gcg --turn N`` and ``heuri
  show --turn N`` read the same numbers); ``line`` int: the GCG line; ``player`` str (nick);
  ``seat`` int (0 = first player);
- ``rack`` str: the rack as recorded ('' when unknown); ``rack_known`` bool;
  ``rack_partial`` bool: the record gives fewer tiles than a full rack while the bag held
  more (only the tiles played, or some of the rack): analysed on those tiles, and left out
  of the figures as an unknown rack is;
- ``move`` str: the played move (GCG); ``kind`` str: play / exchange / pass;
  ``points`` int: the recorded score of the move; ``withdrawn`` bool: challenged off
  (``--`` line): the turn then scores 0 and keeps the rack;
- ``bag`` int: tiles in the bag before the move;
- ``score`` / ``opp_score`` / ``spread`` int: the mover's total, the opponent's and their
  difference after the turn (recorded totals, challenge bonus and withdrawal included);
- ``analysed`` bool: the turn was ranked (False: nothing known, or another player with
  ``player=``);
- ``rank`` int: 1-based place of the move played in the evaluator's ranking (by v; in an
  endgame turn too, where it is by score), null when the move generator does not list it
  (e.g. a word outside the word list); ``candidates`` int: moves ranked;
- ``j`` int, ``e`` float, ``p`` float, ``v`` float, ``leave`` str, ``fish`` bool (e > j):
  the played move; ``best`` str, ``best_j``, ``best_e``, ``best_p``, ``best_v``,
  ``best_leave``, ``best_fish``: the engine's best move;
- ``equity_lost`` float: v(best) − v(played), ≥ 0 (points; a withdrawn phony is valued
  as the pass it amounts to); null for a move not in the lexicon;
- ``off_list`` bool: the play forms a word the pack does not hold ("not in <lexicon>");
  ``off_words`` str: those words, comma-separated ('' when none);
- ``bingos`` int: candidate placements that play all ``rack_size`` tiles (the move
  generator's bingos); ``best_bingo`` str ('' when none): the bingo ranked highest by the
  engine, ``best_bingo_j`` int (null when none); ``bingo_played`` bool; ``missed_bingo``
  bool: a bingo was available (rack known) and the played move is not one;
- ``endgame`` bool: valued by the endgame search (see above); ``endgame_exact`` bool;
- ``cgp`` str: the position before the move as CGP (mover first; the mover's rack when
  known), for ``heuri best --cgp``; ``note`` str: what else to know about the turn;
- ``word``, ``best_word``, ``best_bingo_word`` str: ``move``, ``best`` and ``best_bingo``
  as people read them (:func:`heuri.formats.render.move_text`, standard coordinates:
  ``8G CA(RR)OÑE``; '' where the GCG column is empty or null).
- with a simulation (:class:`Think`, ``heuri analyze --think``; null otherwise, and on a
  turn not simulated: the bag empty, the rack unknown or partial, a move not in the
  lexicon): ``sim_best`` str, ``sim_best_word`` str: the move the simulation ranks first
  among the engine's best candidates and the move played (which races to the end, never
  halved out); ``sim_best_mean`` float: its mean over the rollouts (points: its score, the
  opponent's reply subtracted, our next move's score and leave value added:
  :mod:`heuri.search.simulation`); ``sim_mean`` / ``sim_stderr`` float and
  ``sim_rollouts`` int: the played move's mean, its standard error and its rollouts;
  ``sim_lost`` float: ``sim_best_mean − sim_mean`` (≥ 0; 0 when the played move is the
  simulation's choice).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..eval.engines import DEFAULT_ENGINE
from ..core.errors import HeuriError, PackError

if TYPE_CHECKING:  # pragma: no cover
    from ..core.board import Board
    from ..core.move import Move

#: name → Polars dtype name of every column of a row (see the module docstring).
ROW_SCHEMA: dict[str, str] = {
    "game": "str", "path": "str", "lang": "str", "lexicon": "str", "engine": "str",
    "turn": "int", "line": "int", "player": "str", "seat": "int",
    "rack": "str", "rack_known": "bool", "rack_partial": "bool", "move": "str", "kind": "str", "points": "int",
    "withdrawn": "bool", "bag": "int", "score": "int", "opp_score": "int", "spread": "int",
    "analysed": "bool", "rank": "int", "candidates": "int",
    "j": "int", "e": "float", "p": "float", "v": "float", "leave": "str", "fish": "bool",
    "best": "str", "best_j": "int", "best_e": "float", "best_p": "float", "best_v": "float",
    "best_leave": "str", "best_fish": "bool", "equity_lost": "float", "off_list": "bool", "off_words": "str",
    "bingos": "int", "best_bingo": "str", "best_bingo_j": "int", "bingo_played": "bool",
    "missed_bingo": "bool", "endgame": "bool", "endgame_exact": "bool", "cgp": "str", "note": "str",
    "word": "str", "best_word": "str", "best_bingo_word": "str",
    "sim_best": "str", "sim_best_word": "str", "sim_best_mean": "float", "sim_mean": "float", "sim_stderr": "float",
    "sim_rollouts": "int", "sim_lost": "float",
}

UNKNOWN_RACK = "rack unknown: analysed on the tiles played"
PARTIAL_RACK = "partial rack: the record gives {n} of {r} tiles (the bag held more); analysed on those"

#: the engine's moves a turn shows with their terms (the report's alternatives)
ALTERNATIVES = 5

#: a move that gives up more equity than this against the engine's choice is counted as
#: costly in the summaries (points)
COSTLY = 10.0


class AnalysisError(HeuriError):
    """A record that cannot be analysed: no language, an unknown engine, no built pack."""


#: the rollouts an analysis with :class:`Think` gives each turn when neither a time nor a
#: count is named
THINK_ITERATIONS = 64


@dataclass(frozen=True)
class Think:
    """"Think longer" in an analysis: each turn the static engine ranks is also simulated
    (:class:`heuri.search.simulation.Simulator`), the move played racing beside the engine's
    best ``candidates`` (2 to 20) and never halved out. Budget: ``seconds`` a turn (more than
    0), or ``iterations`` rollouts for the candidates that reach the end (the same race on
    any machine and with any ``--jobs``: each turn's draws are seeded by its position);
    neither: :data:`THINK_ITERATIONS`. ``rollout``: ``full`` (default) or ``fast``
    (:class:`heuri.search.simulation.Simulator`'s ``table``). ``threads``: the rollouts'
    threads a game (1 to 16; an iteration budget races the same on any count). Raises
    AnalysisError for a bad value."""

    seconds: float | None = None
    iterations: int | None = None
    candidates: int = 8
    rollout: str = "full"
    threads: int = 1

    def __post_init__(self):
        if self.seconds is not None and self.iterations is not None:
            raise AnalysisError("think: give a time or an iteration count, not both")
        if self.seconds is not None and not 0 < self.seconds <= 3600:
            raise AnalysisError(f"think: {self.seconds!r} seconds; give more than 0 and at most 3600")
        if self.iterations is not None and not 1 <= self.iterations <= 100_000:
            raise AnalysisError(f"think: {self.iterations!r} iterations; give 1 to 100000")
        if not 2 <= self.candidates <= 20:
            raise AnalysisError(f"think: {self.candidates!r} candidates; give 2 to 20")
        if self.rollout not in ("full", "fast"):
            raise AnalysisError(f"think: rollout {self.rollout!r}; give full or fast")
        if not 1 <= self.threads <= 16:
            raise AnalysisError(f"think: {self.threads!r} threads; give 1 to 16")

    def budget(self) -> tuple[float | None, int | None]:
        """``(seconds, iterations)`` for :meth:`heuri.search.simulation.Simulator.simulate`."""
        if self.seconds is None and self.iterations is None:
            return None, THINK_ITERATIONS
        return self.seconds, self.iterations

    def params(self) -> dict:
        """What an output folder records of it (another budget is another analysis; the
        threads are not: they change the time, not the race)."""
        sec, it = self.budget()
        return {"seconds": sec, "iterations": it, "candidates": self.candidates, "rollout": self.rollout}


@dataclass
class TurnView:
    """What a front end draws for one turn: ``board`` (the :class:`heuri.board.Board`
    after the turn; a withdrawn play is off it again), ``before`` (the board before),
    ``played`` and ``best`` (:class:`heuri.move.Move` or None), ``row`` (the turn's row);
    ``alternatives``: the engine's first :data:`ALTERNATIVES` moves as
    :class:`heuri.eval.explain.MoveTerms` (their equity as named terms), ``played_terms``
    the played move's (``rank`` 0 when the ranking does not hold it); both empty / None for
    a turn not analysed."""

    before: "Board"
    board: "Board"
    played: "Move | None"
    best: "Move | None"
    row: dict
    alternatives: list = field(default_factory=list)
    played_terms: object = None


@dataclass
class GameAnalysis:
    """Result of :func:`analyze_game`: ``id``, ``path``, ``lang``, ``engine``, ``players``
    (``[(nick, name)]``), ``rows`` (one dict a turn, :data:`ROW_SCHEMA`), ``views``
    (:class:`TurnView` a turn), ``final`` (recorded final totals by seat, end lines
    included), ``complete`` (the record reaches the end of the game), ``warnings``
    (``(line, message)`` from the replay: words outside the word list, a record naming
    another lexicon), ``lexicon`` (the word list that answered) and ``record_lexicon``
    (the record's ``#lexicon``, '' when none), ``think`` (the :class:`Think` that simulated
    its turns, None when none did)."""

    id: str
    path: str
    lang: str
    engine: str
    players: list
    lexicon: str = ""
    record_lexicon: str = ""
    rows: list = field(default_factory=list)
    views: list = field(default_factory=list)
    final: list = field(default_factory=list)
    complete: bool = False
    warnings: list = field(default_factory=list)
    think: "Think | None" = None

    def frame(self):
        """The rows as a ``polars.DataFrame`` with the dtypes of :data:`ROW_SCHEMA`."""
        return rows_frame(self.rows)

    @property
    def off_list(self) -> int:
        """The turns whose play is not in the lexicon (``off_list`` rows)."""
        return sum(bool(r.get("off_list")) for r in self.rows)

    def summary(self) -> dict:
        """Per game: id, path, lang, lexicon (the word list that answered), record_lexicon,
        off_list (turns not in the lexicon), engine, players, final scores, turns, and per player
        (by nick): turns, turns analysed (rack known), equity lost (sum and mean a turn,
        points), missed bingos and the mean score of the best missed one, agreement with
        the engine (share of analysed turns where the played move is the engine's best)."""
        per = {}
        for seat, (nick, name) in enumerate(self.players):
            rs = [r for r in self.rows if r["seat"] == seat]
            per[nick] = player_stats(rs) | {"name": name, "seat": seat, "final": self.final[seat]}
        return {"id": self.id, "path": self.path, "lang": self.lang, "lexicon": self.lexicon,
                "record_lexicon": self.record_lexicon, "off_list": self.off_list, "engine": self.engine,
                "players": [list(p) for p in self.players], "final": list(self.final),
                "complete": self.complete, "turns": len(self.rows), "per_player": per}


def player_stats(rows: list[dict]) -> dict:
    """Statistics of one player's rows (dicts of :data:`ROW_SCHEMA`): ``turns``,
    ``analysed`` (turns ranked with the rack known), ``equity_lost`` (sum over them,
    points), ``equity_lost_per_turn``, ``agreement`` (share where the played move loses no
    equity: the engine's best or a move of the same v, 0..1), ``missed_bingos``, ``missed_bingo_mean`` (mean score of the best
    bingo missed, points; None when none), ``bingos_played``. Turns with an unknown rack
    are left out of every figure but ``turns``, and so are plays not in the lexicon, counted
    in ``off_list``; and so are partial racks (``rack_partial``, counted in ``partial_racks``).
    In points: ``costly_moves`` (the turns, ``costly_turns``) that gave up more than
    :data:`COSTLY` points of equity against the engine's choice; ``points_played`` and
    ``points_best``: the points the moves played scored on those turns and the points the
    engine's choices would have scored on the same positions (endgame turns left out).
    With a simulation (:class:`Think`): ``simulated`` (the turns it raced) and ``sim_lost``
    (the sum of their ``sim_lost``, points; None when none was simulated)."""
    known = [r for r in rows if r["analysed"] and r["rack_known"] and not r.get("rack_partial")
             and r["equity_lost"] is not None]
    lost = float(sum(r["equity_lost"] for r in known))
    missed = [r for r in known if r["missed_bingo"]]
    costly = [r for r in known if r["equity_lost"] > COSTLY]
    scored = [r for r in known if not r.get("endgame")]
    simmed = [r for r in rows if r.get("sim_lost") is not None]
    return {"turns": len(rows), "analysed": len(known), "equity_lost": round(lost, 4),
            "costly_moves": len(costly), "costly_turns": [r["turn"] for r in costly],
            "points_played": int(sum(r["j"] for r in scored)),
            "points_best": int(sum(r["best_j"] for r in scored)),
            "partial_racks": sum(bool(r.get("rack_partial")) for r in rows),
            "equity_lost_per_turn": round(lost / len(known), 4) if known else None,
            "agreement": round(sum(r["equity_lost"] == 0 for r in known) / len(known), 4) if known else None,
            "missed_bingos": len(missed),
            "missed_bingo_mean": round(float(np.mean([r["best_bingo_j"] for r in missed])), 2) if missed else None,
            "bingos_played": sum(bool(r["bingo_played"]) for r in rows),
            "off_list": sum(bool(r.get("off_list")) for r in rows),
            "simulated": len(simmed),
            "sim_lost": round(float(sum(r["sim_lost"] for r in simmed)), 4) if simmed else None}


def rows_frame(rows: list[dict]):
    """Rows (dicts of :data:`ROW_SCHEMA`) → ``polars.DataFrame`` with those columns and dtypes."""
    import polars as pl

    types = {"str": pl.Utf8, "int": pl.Int64, "float": pl.Float64, "bool": pl.Boolean}
    schema = {k: types[t] for k, t in ROW_SCHEMA.items()}
    return pl.DataFrame([{k: r.get(k) for k in ROW_SCHEMA} for r in rows], schema=schema, orient="row")


# -- move records ---------------------------------------------------------------------------
def move_record(move, spec, score: int = 0) -> np.ndarray:
    """A :class:`heuri.move.Move` as a one-element ``heuri.movegen.MOVE_DTYPE`` array (the
    generator's fields; ``score`` points). An exchange's tiles are sorted ascending."""
    from ..core.move import Exchange, Placement
    from ..core.movegen import MOVE_DTYPE

    rec = np.zeros(1, MOVE_DTYPE)
    rec["tiles"] = -1
    rec["score"] = score
    if isinstance(move, Placement):
        n = move.length
        rec["kind"] = 0
        rec["row"], rec["col"], rec["across"], rec["length"] = move.row, move.col, move.across, n
        rec["tiles"][0, :n] = move.tiles
        rec["new"][0, :n] = move.new
        rec["blank"][0, :n] = move.blank
        rec["n_tiles"] = move.n_tiles
    elif isinstance(move, Exchange):
        t = sorted(move.tiles)
        rec["kind"] = 1
        rec["length"] = rec["n_tiles"] = len(t)
        rec["tiles"][0, :len(t)] = t
        rec["new"][0, :len(t)] = True
        rec["blank"][0, :len(t)] = [x == spec.blank for x in t]
    else:
        rec["kind"] = 2
    return rec


def _leave_text(spec, lv) -> str:
    return spec.format_tiles(np.repeat(np.arange(len(lv)), np.asarray(lv, np.int64)), blank="?")


# -- the analyser ------------------------------------------------------------------------------
def load_pack_or_hint(lang: str, lexicon: str | None = None):
    """The pack a record of ``lang`` naming ``lexicon`` (its ``#lexicon``; None: none) is
    answered with (:func:`heuri.core.pack.pack_for_record`: ``--lexicon``'s, else the
    record's when built, else the language's default); for a language with no folder in
    lexicons/ the PackError also says how to add and build one."""
    from ..core.pack import pack_for_record

    try:
        return pack_for_record(lang, lexicon)
    except PackError as e:
        msg = str(e)
        if msg.startswith("no language"):  # an unknown language: say how to add and build one
            msg += (f"; to add it, write lexicons/{lang}/spec.toml and a word list (README: Add a "
                    f"language), then build it with: snakemake --cores 2 {lang}")
        raise PackError(msg) from None


class Analyzer:
    """Analyses records with one engine; keeps each language's pack, evaluator and endgame
    search between games (build one per process).

    ``engine``: an engine name of :mod:`heuri.players` (``heuri5``, the default
    :data:`heuri.DEFAULT_ENGINE`, ``heuri4``, ``heuri3``, ``heuri2``, ``heuri1``, ``greedy``, or a ``-noend``
    variant: no endgame search); ``packs``: ``{lang:
    LanguagePack}`` already loaded, used instead of loading them again for records that
    name no lexicon of their own (a server shares its packs); ``think``: a :class:`Think`
    (each ranked turn also simulated; the rows' ``sim_*`` columns), None: none. Raises
    AnalysisError for an unknown engine or an SIU engine (it cannot rank)."""

    def __init__(self, engine: str = DEFAULT_ENGINE, packs: dict | None = None, think: Think | None = None):
        from ..play.players import ENGINES

        if engine not in ENGINES:
            raise AnalysisError(f"unknown engine {engine!r} for analysis; choose one of {', '.join(sorted(ENGINES))}")
        self.engine = engine
        self.evaluator_name, self.endgame = ENGINES[engine]
        self._by_pack: dict = {}
        self._chosen: dict = {}
        self._packs = dict(packs or {})
        self.think = think
        self._sims: dict = {}

    def tools(self, lang: str, lexicon: str | None = None, pack=None):
        """(pack, evaluator, endgame search or None) for a record of language ``lang``
        naming ``lexicon`` (see :func:`load_pack_or_hint`), or for ``pack`` when given.
        Raises PackError naming the command that builds the pack (or adds the language)."""
        if pack is None:
            key = (lang, (lexicon or "").strip().upper())
            if key not in self._chosen:
                from ..core.pack import lexicon_packs

                given = self._packs.get(lang)
                built = lexicon_packs().get(key[1]) if key[1] else None
                if given is not None and (built is None or built[1].get("language") != lang
                                          or str(built[0]) == str(given.root)):
                    self._chosen[key] = given
                else:
                    self._chosen[key] = load_pack_or_hint(lang, lexicon)
            pack = self._chosen[key]
        root = str(pack.root)
        if root not in self._by_pack:
            from ..eval.evaluate import make_evaluator

            search = None
            if self.endgame:
                from ..play.players import match_endgame

                search = match_endgame(pack)
            self._by_pack[root] = (pack, make_evaluator(pack, self.evaluator_name), search)
        return self._by_pack[root]

    def analyze(self, source, lang: str | None = None, player: str | None = None,
                game_id: str | None = None, pack=None, on_turn=None) -> GameAnalysis:
        """Analyse one record (a path, or a :class:`heuri.gcg.GcgGame`); see
        :func:`analyze_game`. ``pack``: the pack to answer with (default: the one of the
        record's language and ``#lexicon``, :meth:`tools`); ``on_turn``: called with no
        argument after each turn (a progress bar's tick)."""
        from ..formats.gcg import GcgGame, read_gcg

        game = source if isinstance(source, GcgGame) else read_gcg(Path(source))
        code = lang or game.guess_language()
        if not code:
            from ..core.pack import build_root

            built = sorted(p.parent.name for p in build_root().glob("*/manifest.json"))
            raise AnalysisError(f"{game.path or '<gcg>'}: cannot tell the language (no #lexicon or "
                                f"#tile-distribution that names it); give --lang {'|'.join(built) or 'LANG'}")
        pack, ev, search = self.tools(code, game.lexicon, pack)
        return _analyze(game, pack, ev, search, self.engine, player,
                        game_id or (Path(game.path).stem if game.path else "game"), think=self._thinker(pack),
                        on_turn=on_turn)

    def _thinker(self, pack):
        """``(Think, Simulator)`` for ``pack`` (one simulator a pack), or None without think."""
        if self.think is None:
            return None
        root = str(pack.root)
        if root not in self._sims:
            from ..search.simulation import Simulator

            self._sims[root] = Simulator(pack, engine=self.evaluator_name, candidates=self.think.candidates,
                                         table=self.think.rollout == "fast", threads=self.think.threads)
        return self.think, self._sims[root]

    def close(self) -> None:
        """End the rollout threads of the simulators ``think`` started (one a pack); the
        analyser can be used again after it (a simulation starts them again)."""
        for sim in self._sims.values():
            sim.close()

    def __enter__(self) -> "Analyzer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def analyze_game(source, lang: str | None = None, engine: str = DEFAULT_ENGINE, player: str | None = None,
                 think: Think | None = None) -> GameAnalysis:
    """Analyse one GCG record (path or parsed :class:`heuri.gcg.GcgGame`) with ``engine``.

    ``lang``: the language pack (default: from the record's ``#lexicon`` /
    ``#tile-distribution``); ``player``: a nick or full name: rank only that player's turns
    (the others keep their scores, ``analysed`` False). Returns a :class:`GameAnalysis`
    (rows: see the module docstring). Raises GcgError (file and line) for a malformed or
    impossible record, PackError for a missing pack (with the command that builds it),
    AnalysisError when the language cannot be told or the player is not in the record.
    ``think``: a :class:`Think`: each ranked turn also simulated (the ``sim_*`` columns)."""
    with Analyzer(engine, think=think) as analyzer:
        return analyzer.analyze(source, lang, player)


def _analyze(game, pack, ev, search, engine: str, player: str | None, game_id: str, think=None,
             on_turn=None) -> GameAnalysis:
    from ..core.board import Board
    from ..formats.gcg import replay

    spec = pack.spec
    r = replay(game, spec, end_rule="auto", words=pack.words)
    nicks = [p[0] for p in game.players]
    only = None
    if player is not None:
        only = next((i for i, (n, full) in enumerate(game.players) if player in (n, full)), None)
        if only is None:
            raise AnalysisError(f"{game.path}: no player {player!r}; the players are "
                                f"{', '.join(f'{n} ({full})' for n, full in game.players)}")
    from ..core.cgp import named_lexicon_warning

    other = named_lexicon_warning(game.lexicon, spec)
    out = GameAnalysis(game_id, str(game.path or ""), spec.code, engine, [tuple(p) for p in game.players],
                       complete=r.complete, warnings=([(0, other)] if other else []) + list(r.warnings),
                       lexicon=spec.lexicon, record_lexicon=game.lexicon or "",
                       think=think[0] if think is not None else None)
    off = {line: words for line, _, words in r.off_list}
    board = Board.empty(spec)
    scoreless = 0
    totals = [0] * len(nicks)
    last = None  # the last turn's row, which a withdrawal or a challenge bonus changes
    for i, st in enumerate(r.steps):
        e = st.event
        if e.kind in ("play", "exchange", "pass"):
            withdrawn = i + 1 < len(r.steps) and r.steps[i + 1].event.kind == "withdrawn"
            row, view = _turn(e, board, totals, scoreless, pack, ev, search, engine,
                              analyse=only is None or e.player == only, withdrawn=withdrawn,
                              off_words=off.get(e.line, []), think=think)
            row.update(game=game_id, path=out.path, lang=spec.code, lexicon=spec.lexicon, engine=engine,
                       turn=len(out.rows) + 1)
            view.board = st.board
            out.rows.append(row)
            out.views.append(view)
            if on_turn is not None:
                on_turn()
            last = row
            scoreless = 0 if e.score != 0 else scoreless + 1
        elif e.kind == "withdrawn" and last is not None:
            out.views[-1].board = st.board
            scoreless += 1
        elif e.kind == "challenge" and e.score > 0:
            scoreless = 0
        totals = list(st.recorded_totals)
        if last is not None and e.kind in ("play", "exchange", "pass", "withdrawn", "challenge"):
            s = last["seat"]
            last["score"] = totals[s]
            last["opp_score"] = max(t for i, t in enumerate(totals) if i != s)
            last["spread"] = last["score"] - last["opp_score"]
        board = st.board
    out.final = totals
    return out


def _note(row: dict, text: str) -> None:
    row["note"] = f"{row['note']}; {text}" if row["note"] else text


def _turn(e, board, totals, scoreless, pack, ev, search, engine, analyse: bool, withdrawn: bool = False,
          off_words=(), think=None):
    """The row and view of one play / exchange / pass event on ``board`` (before it).
    ``withdrawn``: the next line takes the play back (``--``): the turn is valued as the
    pass it amounts to. ``off_words``: the words of the play the pack does not hold (the
    turn is then "not in <lexicon>": no rank, no equity lost)."""
    from ..core.move import Exchange, Move, Pass, Placement
    from ..core.movegen import record_index
    from ..eval.explain import explain_ranking, move_terms
    from ..formats.render import move_text
    from ..eval.probability import augmented_bag

    spec = pack.spec
    seat = e.player
    opp = max(t for i, t in enumerate(totals) if i != seat)
    row = {k: None for k in ROW_SCHEMA}
    row.update(line=e.line, player=e.nick, seat=seat, rack=e.rack, rack_known=bool(e.rack), rack_partial=False,
               move=e.move,
               kind=e.kind, points=e.score, withdrawn=withdrawn, score=totals[seat] + e.score, opp_score=opp,
               analysed=False, endgame=False, endgame_exact=False, note="",
               off_list=bool(off_words) and not withdrawn, off_words=", ".join(off_words))
    row["spread"] = row["score"] - opp
    played = Pass() if e.kind == "pass" else Move.from_gcg(e.move, board, spec)  # replay checked it
    if isinstance(played, Placement):
        played = board.canonical(played)
    row["word"] = move_text(played, spec, board)
    view = TurnView(board, board, None if withdrawn else played, None, row)
    on_board = board.tile_counts()
    if e.rack:
        rack = np.bincount(spec.parse_tiles(e.rack), minlength=spec.n_kinds).astype(np.int64)
        U = augmented_bag(spec, board.letters, board.blanks, rack)
        bag = max(0, int(U.sum()) - spec.rack_size)
    else:
        rack = played.rack_counts(spec)
        U = spec.distribution() - on_board - rack
        bag = max(0, int(spec.distribution().sum() - on_board.sum()) - 2 * spec.rack_size)
    row["bag"] = bag
    if withdrawn:
        _note(row, "phony withdrawn: valued as the pass it amounts to")
        played = Pass()
    elif off_words:
        _note(row, f"not in {spec.lexicon}: {', '.join(off_words)}")
    row["cgp"] = _cgp(board, rack if e.rack else None, totals[seat], opp, scoreless)
    if not analyse:
        return row, view
    if not rack.any() or (isinstance(played, Exchange) and played.tiles is None):
        _note(row, "rack unknown: nothing to analyse")
        return row, view
    if not e.rack:
        _note(row, UNKNOWN_RACK)
    elif int(rack.sum()) < spec.rack_size and bag > 0:
        row["rack_partial"] = True
        _note(row, PARTIAL_RACK.format(n=int(rack.sum()), r=spec.rack_size))
    row["analysed"] = True
    letters, blanks = board.letters, board.blanks
    rk = ev.rank_arrays(letters, blanks, rack, U, bag)
    rec = move_record(played, spec, score=board.score(played))
    k = record_index(rk.moves, rec)
    row["candidates"] = len(rk)
    row["rank"] = None if k is None or row["off_list"] else k + 1
    if k is None and not row["off_list"]:
        _note(row, "not a move of the generator")
    view.alternatives = explain_ranking(rk, spec, ALTERNATIVES)
    if k == 0:
        pj, pe, pp, pv, plv, pf = rk.j[0], rk.e[0], rk.p[0], rk.v[0], rk.leaves[0], rk.fish[0]
        view.played_terms = view.alternatives[0]
    elif k is not None and rk.revalued[k]:
        pj, pe, pp, pv, plv, pf = rk.j[k], rk.e[k], rk.p[k], rk.v[k], rk.leaves[k], rk.fish[k]
        view.played_terms = move_terms(rk, spec, k)
    else:  # value the played move alone: δ of the board after it, as the engine would
        one = ev.rank_arrays(letters, blanks, rack, U, bag, moves=rec)
        pj, pe, pp, pv, plv, pf = one.j[0], one.e[0], one.p[0], one.v[0], one.leaves[0], one.fish[0]
        view.played_terms = replace(move_terms(one, spec, 0), rank=0 if k is None else k + 1)
    best = Move.from_record(rk.moves[0], spec) if len(rk) else Pass()
    row.update(j=int(pj), e=float(pe), p=float(pp), v=float(pv), leave=_leave_text(spec, plv), fish=bool(pf))
    if len(rk):
        row.update(best=best.gcg(spec), best_word=move_text(best, spec, board), best_j=int(rk.j[0]),
                   best_e=float(rk.e[0]), best_p=float(rk.p[0]),
                   best_v=float(rk.v[0]), best_leave=_leave_text(spec, rk.leaves[0]), best_fish=bool(rk.fish[0]))
    bing = np.flatnonzero((rk.moves["kind"] == 0) & (rk.moves["n_tiles"] >= spec.rack_size))
    row["bingos"] = int(len(bing))
    bingo = Move.from_record(rk.moves[bing[0]], spec) if len(bing) else None
    row["best_bingo"] = bingo.gcg(spec) if bingo is not None else ""
    row["best_bingo_word"] = move_text(bingo, spec, board) if bingo is not None else ""
    row["best_bingo_j"] = int(rk.j[bing[0]]) if len(bing) else None
    row["bingo_played"] = isinstance(played, Placement) and played.n_tiles >= spec.rack_size
    row["missed_bingo"] = bool(e.rack) and len(bing) > 0 and not row["bingo_played"]
    view.best = best
    if search is not None and bag == 0 and e.rack and len(rk):
        _endgame(row, view, played, k, board, rack, U, totals, seat, scoreless, spec, search)
    if think is not None and bag > 0 and e.rack and not row["rack_partial"] and not row["off_list"] and len(rk):
        _simulate(row, played, board, spec, think)
    if row["v"] is not None and row["best_v"] is not None and not row["off_list"]:
        row["equity_lost"] = 0.0 if k == 0 and not row["endgame"] else max(0.0, row["best_v"] - row["v"])
        row["equity_lost"] = round(row["equity_lost"], 6)
    return row, view


def _simulate(row, played, board, spec, think) -> None:
    """Fill the row's ``sim_*`` columns (module docstring): the position before the turn
    (its CGP) simulated with the move played pinned in the race, the draws seeded by the
    position (:func:`heuri.play.players.position_seed`)."""
    from ..core.game import Position
    from ..core.move import Move
    from ..formats.render import move_text
    from ..play.players import position_seed

    budget, sim = think
    pos = Position.from_cgp(row["cgp"], spec)
    sim.rng = np.random.default_rng(position_seed(pos))
    seconds, iterations = budget.budget()
    # the race finds the move among its own generated moves (record_index ignores the score)
    res = sim.simulate(pos, seconds=seconds, iterations=iterations, include=move_record(played, spec))
    mine = next(c for c in res.candidates if c.pinned)
    top = res.candidates[0]
    if not (mine.values and top.values):  # one candidate: nothing raced
        return
    best = Move.from_record(top.record, spec)
    row.update(sim_best=best.gcg(spec), sim_best_word=move_text(best, spec, board),
               sim_best_mean=round(top.mean, 4), sim_mean=round(mine.mean, 4),
               sim_stderr=round(mine.stderr, 4) if mine.n > 1 else None, sim_rollouts=mine.n,
               sim_lost=0.0 if top is mine else round(max(0.0, top.mean - mine.mean), 4))


def _endgame(row, view, played, k, board, rack, U, totals, seat, scoreless, spec, search) -> None:
    """Value the turn by the endgame search (see the module docstring), in place."""
    from ..core.game import Position
    from ..core.move import Placement
    from ..core.movegen import record_index
    from ..formats.render import move_text

    opp = max(t for i, t in enumerate(totals) if i != seat)
    pos = Position(spec, board, (rack.copy(), U.copy()), (totals[seat], opp), np.zeros(spec.n_kinds, np.int64),
                   0, scoreless)
    res = search.search(pos)
    if res is None:
        _note(row, "endgame search out of its limits: valued by the evaluator, as the player does")
        return
    row["endgame"] = True
    row["endgame_exact"] = bool(res.exact)
    best = res.move
    brec = move_record(best, spec, score=board.score(best))
    prec = move_record(played, spec, score=board.score(played))
    row.update(best=best.gcg(spec), best_word=move_text(best, spec, board), best_j=int(brec["score"][0]),
               best_e=0.0, best_p=0.0,
               best_v=float(res.value), best_leave=_leave_text(spec, rack - best.rack_counts(spec)),
               best_fish=False)
    view.best = best
    if record_index(brec, prec) == 0:
        row["v"] = float(res.value)
    else:
        j = int(prec["score"][0])
        left = rack - played.rack_counts(spec)
        vals = spec.value_vector()
        if isinstance(played, Placement) and not left.any():
            row["v"] = float(j + 2 * int(vals @ U))  # goes out: +2 × the opponent's rack on the spread
        else:
            after = pos.after(played, (), score=j)
            if after.over:  # the scoreless-turn limit: each loses its own rack
                row["v"] = float(j + after.end_adjust[0] - after.end_adjust[1])
            else:
                r2 = search.search(after)
                if r2 is None:
                    row["v"] = None
                    _note(row, "endgame search out of its limits after the played move")
                else:
                    row["v"] = float(j - r2.value)
                    row["endgame_exact"] = row["endgame_exact"] and bool(r2.exact)
    row["e"], row["p"] = 0.0, 0.0
    _note(row, "endgame: v = spread to the end of the game (endgame search)")


def _cgp(board, rack, me: int, opp: int, scoreless: int) -> str:
    from ..core.cgp import CgpRecord, format_cgp

    ids = None if rack is None else tuple(int(i) for i in np.repeat(np.arange(len(rack)), rack))
    return format_cgp(CgpRecord(board, (ids, None), (me, opp), scoreless))
