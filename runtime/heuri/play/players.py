"""Players: an engine name → an object with ``name`` and ``choose(position) -> Move``.

Names (``heuri match --p1 NAME``):

- ``greedy``: the top-scoring move (ties: the move generator's first);
- ``heuri1``, ``heuri2``, ``heuri3``: the Heuri evaluators of :mod:`heuri.evaluate`, with the
  endgame search of :mod:`heuri.endgame` once the bag is empty (:class:`TwoStepEndgame`: the
  exact solver under :data:`MATCH_EXACT_LIMITS`, then, when it cannot prove the value, the
  width-limited search under :data:`MATCH_WIDE_LIMITS`; deterministic counts, so a match
  replays from its seed; greedy when neither fits);
- ``heuri3-peg``, ``heuri4-peg``: heuri3 or heuri4 with the endgame solver and, with 1 to
  :data:`PEG_MAX_BAG` tiles in the bag, the pre-endgame search of :mod:`heuri.peg` (its
  choice by win probability);
- ``heuri4``: heuri3 plus the next rack's expected handicap cost (vowel balance,
  duplicates, Q without U: :mod:`heuri.leave_quality`) and minus the change of the
  opponent's bingo expectation from the lanes the move opens or closes
  (:class:`heuri.evaluate.Heuri4`), every bingo valued less the mean non-bingo score;
  ``heuri4-leave``, ``heuri4-opp`` and ``heuri4-offset`` have one of the three each;
  ``heuri4-lanes``: heuri3 with e half by δ after the move, half by every key landing;
- ``heuri5``: heuri4 plus the scoring power of the next rack (the points its tiles add to a
  non-bingo move, :attr:`heuri.pack.LanguagePack.tile_power`), the opponent's lanes
  weighted 3 (:class:`heuri.evaluate.Heuri5`); ``heuri5-peg`` and ``heuri5-noend`` as
  heuri4's;
- ``heuri6``: heuri5 whose opponent's lanes term draws their rack from what they likely kept,
  inferred from the move the player was told of (:meth:`EvaluatorPlayer.observe`,
  :class:`heuri.eval.evaluate.Heuri6`); ``heuri6-noend`` without the endgame search;
  ``heuri6-peg`` with the pre-endgame search, whose draws are weighted by the same inference;
- ``NAME@key=value,...``: an evaluator engine with keyword options of its evaluator class
  (:func:`parse_engine`; e.g. ``heuri4@offset=35`` values a bingo 35 points above an
  ordinary move instead of 27), and for the engines that search the endgame the search's
  own options (:data:`ENDGAME_OPTIONS`; ``heuri4@exact_nodes=100000`` gives the exact step
  100,000 nodes);
- ``NAME@win_bag=N`` (any evaluator engine): with 1 to N tiles in the bag, the likeliest win
  among the evaluator's first ten by the pack's win-probability table instead of the best
  equity (:data:`WIN_OPTIONS`; ``heuri6@win_bag=12``);
- ``heuri1-noend``, ``heuri2-noend``, ``heuri3-noend``, ``heuri4-noend``: the same evaluators without the
  endgame search (they play greedily with an empty bag, since e(L) = 0 there): the baseline
  that shows what the search is worth.

:func:`make_player` builds one for a loaded pack; :func:`check_engine` validates a name
without loading anything (for argument checks). A player is deterministic: the same
position gives the same move.

>>> check_engine("heuri3-noend")
'heuri3-noend'
>>> sorted(ENGINES)
['greedy', 'heuri1', 'heuri1-noend', 'heuri2', 'heuri2-noend', 'heuri3', 'heuri3-noend', 'heuri3-peg', 'heuri4', 'heuri4-lanes', 'heuri4-leave', 'heuri4-noend', 'heuri4-offset', 'heuri4-opp', 'heuri4-peg', 'heuri5', 'heuri5-noend', 'heuri5-peg', 'heuri6', 'heuri6-noend', 'heuri6-peg']
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from ..core.bounds import BoundsError, check_float, excerpt
from ..core.errors import HeuriError
from ..eval.engines import ENGINES as REGISTRY


class EngineError(HeuriError):
    """An engine name that heuri does not know."""


#: engine name → (evaluator name for :func:`heuri.eval.evaluate.make_evaluator`, endgame
#: search on?), read from the registry (:data:`heuri.eval.engines.ENGINES`)
ENGINES: dict[str, tuple[str, bool]] = {n: (n if e.options else e.evaluator, e.endgame)
                                        for n, e in REGISTRY.items()}
#: engines that also search the pre-endgame → their evaluator
PEG_ENGINES = {n: e.evaluator for n, e in REGISTRY.items() if e.peg}
#: the largest bag the match players' pre-endgame search takes (tiles); above it they play
#: the evaluator's move. One tile keeps a decision about 1-2 s on the 2-core machine.
PEG_MAX_BAG = 1
#: the inference's budget before a pre-endgame search (heuri6-peg): every leave when there
#: are at most this many, else this many racks drawn
PEG_INFER_EXACT = 400
PEG_INFER_SAMPLES = 200


#: the endgame limits of the match players: move-generator calls and positions per decision
#: (counts, not time, so the same seed gives the same games).
#: the match players' two-step endgame: the exact solver under a small budget (proves the
#: small endgames), and when it cannot prove the value, the width-limited search the players
#: used before (12 placements a position, 1500 move lists): deeper on a big endgame than an
#: unproved full-width search (600 paired es games: the full-width one alone scored −0.4
#: points of win rate [−1.2, +0.4] against it)
MATCH_EXACT_LIMITS: dict = {"max_generations": 150, "max_nodes": 10_000}
MATCH_WIDE_LIMITS: dict = {"width": 12, "max_generations": 1500, "max_nodes": 20_000}
#: engine-name options of the endgame search (``heuri4@exact_nodes=100000,wide=0``), for the
#: engines that search the endgame: ``exact_nodes``, the exact step's node budget (its
#: move-list budget becomes the same number, so the nodes bind); ``wide=0``, no width-limited
#: second step (the exact step's move of its last completed depth is played)
ENDGAME_OPTIONS = ("exact_nodes", "wide")
#: the pre-endgame engines' own option: the largest bag the pre-endgame search plays
#: (``heuri5-peg@peg_bag=2``: with 1 or 2 tiles in the bag; default :data:`PEG_MAX_BAG`)
PEG_OPTIONS = ("peg_bag",)
#: the evaluator engines' option of the end of the bag: with 1 to ``win_bag`` tiles in the bag
#: (and no pre-endgame search playing), the move is the likeliest win among the evaluator's
#: first :data:`WIN_CANDIDATES` by the pack's win-probability table
#: (:func:`heuri.eval.win_probability.move_win_chances`); 0, the default, plays by equity
WIN_OPTIONS = ("win_bag",)
WIN_CANDIDATES = 10
#: chances to win within this much of the best are a tie, broken by equity: a game already
#: won or lost would otherwise give up points for less than half a percentage point
WIN_TIE = 0.005
#: the range of an engine-name option (:func:`parse_engine`): finite numbers, these bounds
#: for the options that have their own, ±OPTION_MAX for the evaluators' weights (far beyond
#: any useful weight; the evaluators check their own signs)
OPTION_MAX = 1e6
OPTION_BOUNDS = {"exact_nodes": (1, 1e9), "wide": (0, 1), "peg_bag": (1, 7), "win_bag": (0, 100), "k": (0, 1000), "top": (0, 100_000),
                 "exact": (0, 1), "prune": (0, 1), "penalty": (0, 1), "leave": (0, 1),
                 "draw": (0, 1)}


@runtime_checkable
class Player(Protocol):
    """What the match runner needs from an engine: a ``name`` and ``choose``, which returns
    the move (:class:`heuri.move.Move`) to play in a :class:`heuri.game.Position` for the
    player to move. ``info`` (a dict, may be empty) describes the last choice."""

    name: str

    def choose(self, position) -> object: ...


def parse_engine(name: str) -> tuple[str, dict]:
    """Split an engine name with options, ``BASE@key=value,key=value`` (e.g.
    ``heuri4@offset=35,opponent=0.5``: :class:`heuri.evaluate.Heuri4` with those keyword
    arguments), into ``(BASE, {key: float})``; a name without ``@`` has no options. The
    options are the evaluator's own keywords (numbers only), so a variant needs no new
    class to stay reproducible: its name says what it is; a pre-endgame engine
    (``heuri4-peg@exact_nodes=300000,wide=0``) takes its evaluator's options, which its
    pre-endgame search uses too. Raises EngineError for an unknown base, an engine without
    options (greedy, SIU), an option the evaluator does not take, a value that is not a
    finite number or one outside :data:`OPTION_BOUNDS` (±:data:`OPTION_MAX` by default).

    >>> parse_engine("heuri4@offset=35,opponent=0.5")
    ('heuri4', {'offset': 35.0, 'opponent': 0.5})
    >>> parse_engine("heuri3")
    ('heuri3', {})
    """
    import inspect

    base, sep, rest = name.partition("@")
    if base not in ENGINES:
        raise EngineError(f"unknown engine {excerpt(base)!r}; choose one of {', '.join(sorted(ENGINES))}")
    if not sep:
        return base, {}
    evaluator, endgame = ENGINES[base]
    if evaluator == "greedy":
        raise EngineError(f"engine {name!r}: {base} takes no options")
    from ..eval.evaluate import evaluator_class

    # the options a variant may set: the numeric keywords of the evaluator class and of the
    # classes it passes **options on to (not the pack, not the weights object), and the
    # endgame search's (ENDGAME_OPTIONS) when the engine searches the endgame
    allowed = sorted({k for cls in evaluator_class(evaluator).__mro__ if "__init__" in vars(cls)
                      for k, v in inspect.signature(cls.__init__).parameters.items()
                      if k not in ("self", "pack", "weights") and v.kind is v.POSITIONAL_OR_KEYWORD}
                     | (set(ENDGAME_OPTIONS) if endgame else set())
                     | (set(PEG_OPTIONS) if base in PEG_ENGINES else set())
                     | set(WIN_OPTIONS))
    opts: dict = {}
    for item in rest.split(","):
        key, eq, value = item.partition("=")
        if key not in allowed or not eq:
            what = f"unknown option {excerpt(key)!r}" if key not in allowed else f"option {key!r} needs a value"
            raise EngineError(f"engine {excerpt(name)!r}: {what}; {base} takes "
                              f"{', '.join(k + '=NUMBER' for k in allowed)}")
        try:
            float(value)
        except ValueError:
            raise EngineError(f"engine {excerpt(name)!r}: option {key} needs a number, "
                              f"got {excerpt(value, 40)!r}") from None
        lo, hi = OPTION_BOUNDS.get(key, (-OPTION_MAX, OPTION_MAX))
        try:  # NaN and the infinities parse as floats: refused here (the message gives the range)
            opts[key] = check_float(value, f"option {key}", -float("inf"), float("inf"))
        except BoundsError:
            try:
                check_float(value, f"option {key}", lo, hi)
            except BoundsError as e:
                raise EngineError(f"engine {excerpt(name)!r}: {e}") from None
    if opts.get("peg_bag", 1) != int(opts.get("peg_bag", 1)):
        raise EngineError(f"engine {excerpt(name)!r}: peg_bag must be a whole number of tiles, 1 to 7")
    if opts.get("win_bag", 0) != int(opts.get("win_bag", 0)):
        raise EngineError(f"engine {excerpt(name)!r}: win_bag must be a whole number of tiles, 0 to 100")
    if opts.get("draw", 0) not in (0, 1):
        raise EngineError(f"engine {excerpt(name)!r}: draw must be 0 or 1")
    if opts.get("exact_nodes", 1) < 1 or opts.get("wide", 0) not in (0, 1):
        raise EngineError(f"engine {excerpt(name)!r}: exact_nodes must be at least 1 and wide 0 or 1")
    for key, x in opts.items():
        lo, hi = OPTION_BOUNDS.get(key, (-OPTION_MAX, OPTION_MAX))
        try:
            check_float(x, f"option {key}", lo, hi)
        except BoundsError as e:
            raise EngineError(f"engine {excerpt(name)!r}: {e}") from None
    return base, opts


def match_endgame_limits(options: dict) -> tuple[dict, dict | None]:
    """The two steps' :class:`heuri.endgame.EndgameSearch` keywords for an engine's options
    (:data:`ENDGAME_OPTIONS`): ``(exact, wide or None)``, :data:`MATCH_EXACT_LIMITS` and
    :data:`MATCH_WIDE_LIMITS` when none is set.

    >>> match_endgame_limits({"exact_nodes": 200000.0, "wide": 0.0})
    ({'max_generations': 200000, 'max_nodes': 200000}, None)
    >>> match_endgame_limits({})[0] == MATCH_EXACT_LIMITS
    True
    """
    exact = dict(MATCH_EXACT_LIMITS)
    if "exact_nodes" in options:
        n = int(options["exact_nodes"])
        exact = {"max_generations": n, "max_nodes": n}
    wide = dict(MATCH_WIDE_LIMITS) if options.get("wide", 1) else None
    return exact, wide


def check_endgame_budget(name: str, endgame_options: dict | None) -> None:
    """Raise EngineError when engine ``name`` sets its endgame search in its name
    (:data:`ENDGAME_OPTIONS`) and ``endgame_options`` (a match's ``--endgame-*``) would
    override it: two budgets asked, and neither may be dropped silently."""
    if not endgame_options or name.startswith("siu:"):
        return
    if set(parse_engine(name)[1]) & set(ENDGAME_OPTIONS):
        raise EngineError(f"engine {name!r} sets its endgame search in its name; the match's "
                          f"--endgame-generations / --endgame-width would override it: give one or the other")


def check_engine(name: str) -> str:
    """Return ``name`` if it is a known engine (with valid options, see
    :func:`parse_engine`), else raise EngineError naming the known ones."""
    if name.startswith("siu:") and name[4:].strip():  # SIU hook: an external engine
        return name
    if name == "heuri-sim" or name.startswith("heuri-sim@"):
        _sim_options(name)
        return name
    parse_engine(name)
    return name


def check_pack_tables(name: str, pack) -> None:
    """Raise EngineError when engine ``name`` (as :func:`check_engine` takes it) reads the
    win-probability table (``win_bag`` of an evaluator engine, ``win=1`` of heuri-sim) and
    ``pack`` was built without it, so that a match says so before its first game."""
    if name.startswith("siu:"):
        return
    if name == "heuri-sim" or name.startswith("heuri-sim@"):
        needs = _sim_options(name)["win"] == 1.0
        what = "win=1"
    else:
        needs = parse_engine(name)[1].get("win_bag", 0) > 0
        what = "win_bag"
    if needs and pack.win_probability_table is None:
        raise _no_win_table(name, what, pack)


def _no_win_table(name: str, what: str, pack) -> EngineError:
    """The refusal of engine ``name``, whose option ``what`` reads the win-probability table
    that ``pack`` was built without, with the command that builds it."""
    return EngineError(f"engine {name!r}: {what} needs the pack's win-probability table: build it with "
                       f"snakemake --cores 2 build/{pack.spec.code}/win_probability.parquet")


def _sim_options(name: str) -> dict:
    """``heuri-sim@seconds=1,candidates=8,infer=1`` → ``{"seconds": 1.0, "candidates": 8.0,
    "infer": 1.0, ...}`` (the defaults for a name without options: 1 s, 8 candidates, no
    inference; ``iterations`` 0: the clock rules). Raises EngineError."""
    opts = {"seconds": 1.0, "candidates": 8.0, "infer": 0.0, "win": 0.0, "threads": 1.0, "prior": 0.0,
            "iterations": 0.0, "table": 0.0}
    bounds = {"seconds": (0.01, 3600.0), "candidates": (2, 100), "infer": (0, 2), "win": (0, 1), "threads": (1, 64),
              "prior": (0, 100000), "iterations": (1, 100000), "table": (0, 2)}
    _, sep, rest = name.partition("@")
    for item in rest.split(",") if sep else ():
        key, eq, value = item.partition("=")
        if key not in opts or not eq:
            raise EngineError(f"engine {excerpt(name)!r}: heuri-sim takes seconds=NUMBER, candidates=NUMBER, "
                              f"infer=0, 1 or 2, win=0 or 1, threads=NUMBER, prior=NUMBER, iterations=NUMBER and "
                              f"table=0, 1 or 2")
        try:
            opts[key] = check_float(value, f"option {key}", *bounds[key])
        except BoundsError as e:
            raise EngineError(f"engine {excerpt(name)!r}: {e}") from None
        if key == "win" and opts[key] not in (0.0, 1.0):
            raise EngineError(f"engine {excerpt(name)!r}: {key}={value}: give 0 or 1")
        if key in ("infer", "table") and opts[key] not in (0.0, 1.0, 2.0):
            raise EngineError(f"engine {excerpt(name)!r}: {key}={value}: give 0, 1 or 2")
        if key in ("candidates", "threads", "iterations") and opts[key] != int(opts[key]):
            raise EngineError(f"engine {excerpt(name)!r}: {key}={value}: give a whole number")
    return opts


def greedy_index(recs: np.ndarray) -> int:
    """Index of the top-scoring record of a MOVE_DTYPE array (the first one on ties;
    exchanges and passes score 0, so a placement scoring more wins)."""
    return int(np.argmax(recs["score"]))


class GreedyPlayer:
    """Plays the top-scoring legal move (exchanges and passes score 0; with no placement
    it passes). Deterministic: ties go to the generator's first move."""

    def __init__(self, pack, name: str = "greedy"):
        self.pack = pack
        self.name = name
        self.info: dict = {}

    def choose(self, position):
        from ..core.move import Move, Pass
        from ..core.movegen import generate_best

        self.info = {"endgame": False}
        if position.over:
            return Pass()
        # the first of the top-scoring placements, as greedy_index picks it from the full
        # list, without listing them all (movegen.generate_best)
        recs = generate_best(self.pack, position.board.letters, position.board.blanks, position.rack,
                             n=1, rules=position.spec)
        if len(recs) == 0:
            return Pass()
        return Move.from_record(recs[0], self.pack.spec)


class EvaluatorPlayer:
    """A heuri evaluator, with the endgame search once the bag is empty.

    ``choose`` asks the endgame search first when ``endgame`` is set and the bag is empty;
    when the search does not fit its limits it falls back to greedy. Otherwise the
    evaluator's choice. ``info`` after a choice: ``endgame`` (the search chose the move),
    ``exact`` (it was exact), ``nodes``.
    """

    def __init__(self, pack, name: str, evaluator: str, endgame: bool, endgame_options: dict | None = None,
                 peg: bool = False, options: dict | None = None):
        self.pack = pack
        self.name = name
        self.evaluator = evaluator
        options = dict(options or {})
        search_options = {k: options.pop(k) for k in ENDGAME_OPTIONS if k in options}
        self.peg_bag = int(options.pop("peg_bag", PEG_MAX_BAG))
        self.win_bag = int(options.pop("win_bag", 0))
        #: the win-probability table read with 1 to ``win_bag`` tiles in the bag (the pack's)
        self.win_table = None
        if self.win_bag:
            from ..eval.win_probability import WinProbability

            self.win_table = WinProbability.of_pack(pack)
            if self.win_table is None:
                raise _no_win_table(name, "win_bag", pack)
        check_endgame_budget(name, endgame_options)
        self._choose = _evaluator_choose(pack, evaluator, options)
        # an evaluator that reads what the opponent kept (heuri6): the player infers it from
        # the move it is told of (observe) and hands the posterior over before each choice
        #: the evaluator behind ``_choose`` (None for greedy)
        self._evaluator = getattr(self._choose, "__self__", None)
        self._infers = self._evaluator if hasattr(self._evaluator, "set_opponent_leaves") else None
        self._model = None
        self._seen = None
        self._greedy = GreedyPlayer(pack)
        self.search = None
        if endgame:
            from ..search.endgame import EndgameSearch

            self.search = (EndgameSearch(pack, **endgame_options) if endgame_options
                           else match_endgame(pack, search_options))
        self.peg = None
        if peg:
            from ..search.peg import PegSearch

            self.peg = PegSearch(pack, evaluator=evaluator, max_bag=self.peg_bag, evaluator_options=options)
        self.info: dict = {}

    def choose(self, position):
        if self.search is not None and position.bag_size == 0:
            res = self.search.search(position)
            if res is not None:
                self.info = {"endgame": True, "exact": res.exact, "nodes": res.nodes, "depth": res.depth,
                             "value": res.value}
                return res.move
            move = self._greedy.choose(position)
            self.info = {"endgame": False, "fallback": True}
            return move
        if self.peg is not None and 1 <= position.bag_size <= self.peg_bag:
            # a player that infers weighs the bag's possible contents by what the opponent kept
            inference = self._inference(position, peg=True) if self._infers is not None else None
            res = self.peg.search(position, inference=inference)
            self.info = {"endgame": False, "peg": True, "win": res.rows[0].win_prob, "inferred": inference is not None}
            return res.move
        self.info = {"endgame": False}
        if self._infers is not None:
            inference = self._inference(position)
            self.info["inferred"] = inference is not None
            if inference is None:
                self._infers.set_opponent_leaves(None, None)
            else:
                self._infers.set_opponent_leaves(inference.leaves, inference.posterior, inference.prior)
        if self.win_table is not None and 1 <= position.bag_size <= self.win_bag:
            return self._choose_to_win(position)
        return self._choose(position)

    def _choose_to_win(self, position):
        """Near the end of the bag: the likeliest win among the evaluator's first
        :data:`WIN_CANDIDATES` (:func:`heuri.eval.win_probability.move_win_chances`; of
        chances within :data:`WIN_TIE` of the best, the better equity). ``info["win"]``: its
        chance."""
        from ..core.move import Move, Pass
        from ..eval.win_probability import move_win_chances

        ranking = self._evaluator.rank(position)
        if len(ranking) == 0:
            return Pass()
        me = position.to_move
        spread = float(position.scores[me] - position.scores[1 - me])
        w = move_win_chances(self.win_table, spread, int(position.bag_size), ranking,
                             int(np.asarray(position.rack).sum()), WIN_CANDIDATES)
        i = int(np.flatnonzero(w >= w.max() - WIN_TIE)[0])  # the better equity among near-equal chances
        self.info["win"] = float(w[i])
        return Move.from_record(ranking.moves[i], self.pack.spec)

    def observe(self, position, move) -> None:
        """Be told of a move just made (:meth:`SimPlayer.observe`); kept only by a player
        whose evaluator reads what the opponent kept."""
        if self._infers is not None:
            self._seen = (position, move, position.board.play(move).letters)

    def _inference(self, position, peg: bool = False):
        """The posterior over the opponent's leave from the observed move, or None (no move
        seen, or it does not lead here): heuri6's budget (for the pre-endgame search, every
        leave up to :data:`PEG_INFER_EXACT`, else :data:`PEG_INFER_SAMPLES` racks: a decision
        there takes a second), and :class:`heuri.eval.evaluate.LeaveModel` as the opponent's
        model (heuri2 models them about as well at eight times the cost; docs/inference.md)."""
        from ..eval.evaluate import LeaveModel

        seen, self._seen = self._seen, None
        if seen is None:
            return None
        if self._model is None:  # the opponent's model: every leave's e from one table
            self._model = LeaveModel(self.pack)
        ev = self._infers
        if peg:
            return infer_seen(self._model, seen, position, samples=PEG_INFER_SAMPLES, max_exact=PEG_INFER_EXACT,
                              temperature=ev.temperature)
        return infer_seen(self._model, seen, position, samples=ev.samples, max_exact=ev.samples,
                          temperature=ev.temperature)


def infer_seen(model, seen, position, **options):
    """:func:`heuri.search.inference.infer_from_position` for a move a player was told of:
    ``seen`` = (position before it, the move, the board's letters after it); None when it
    does not lead to ``position`` (the other seat's move onto this board) or cannot be
    inferred. An exchange is read as its count (we do not see which tiles went back). The
    draws are seeded by the position before the move (:func:`position_seed`)."""
    from ..core.move import Exchange
    from ..search.inference import InferenceError, infer_from_position

    before, move, letters = seen
    if before.to_move == position.to_move or not np.array_equal(letters, position.board.letters):
        return None
    if isinstance(move, Exchange):
        move = Exchange(None, move.count)
    try:
        return infer_from_position(model, before, move, seed=position_seed(before), **options)
    except InferenceError:
        return None


class TwoStepEndgame:
    """The match players' endgame: ``exact.search``; when its value is not exact,
    ``wide.search`` (a width-limited search: deeper, never exact) and its move, unless it
    does not fit its limits either. Same interface as :class:`heuri.endgame.EndgameSearch`."""

    def __init__(self, exact, wide):
        self.exact = exact
        self.wide = wide

    def search(self, position):
        res = self.exact.search(position)
        if res is not None and res.exact:
            return res
        res2 = self.wide.search(position)
        return res2 if res2 is not None else res


def match_endgame(pack, options: dict | None = None):
    """The endgame search of the match players (and of ``heuri analyze``, which values a turn
    as the player would): :class:`TwoStepEndgame` under :data:`MATCH_EXACT_LIMITS` and
    :data:`MATCH_WIDE_LIMITS`, or under an engine's endgame ``options``
    (:func:`match_endgame_limits`; without a wide step, the exact step's
    :class:`heuri.endgame.EndgameSearch` alone)."""
    from ..search.endgame import EndgameSearch

    exact, wide = match_endgame_limits(options or {})
    if wide is None:
        return EndgameSearch(pack, **exact)
    return TwoStepEndgame(EndgameSearch(pack, **exact), EndgameSearch(pack, **wide))


def _evaluator_choose(pack, evaluator: str, options: dict | None = None):
    """A function ``position -> Move`` for an evaluator of :mod:`heuri.evaluate` (with the
    keyword ``options`` of an engine name, :func:`parse_engine`)."""
    if evaluator == "greedy":
        return GreedyPlayer(pack).choose
    from ..eval.evaluate import make_evaluator

    return make_evaluator(pack, evaluator, **(options or {})).choose


def make_player(name: str, pack, endgame_options: dict | None = None, siu_options: dict | None = None) -> Player:
    """The player called ``name`` (see :data:`ENGINES`) for a loaded ``pack``.
    ``endgame_options``: keyword arguments of :class:`heuri.endgame.EndgameSearch`
    (``max_nodes``, ``max_generations``, ``width``, ``max_depth``). Raises EngineError.
    ``"siu:<command line>"`` is an external SIU engine (:func:`heuri.siu_client.make_siu_player`;
    ``siu_options``: its keywords ``options`` {Name: value}, ``movetime_ms``, ``stderr_path``,
    ``grace_s``, ``words`` (default ``pack.words``; None checks board and rack only));
    its ``choose`` raises :class:`heuri.siu_client.EngineFailure` (a forfeit), and it has
    ``close()``."""
    if name.startswith("siu:"):  # SIU hook
        from .siu_client import make_siu_player

        kw = {"words": pack.words, **(siu_options or {})}  # words=None: board and rack checks only
        return make_siu_player(check_engine(name), **kw)
    if name == "heuri-sim" or name.startswith("heuri-sim@"):
        return SimPlayer(pack, name, endgame_options)
    base, options = parse_engine(name)
    if base in PEG_ENGINES:
        return EvaluatorPlayer(pack, name, PEG_ENGINES[base], True, endgame_options, peg=True, options=options)
    evaluator, endgame = ENGINES[base]
    if evaluator == "greedy" and not endgame:
        return GreedyPlayer(pack, name)
    return EvaluatorPlayer(pack, name, evaluator, endgame, endgame_options, options=options)


def position_seed(position) -> int:
    """A 64-bit seed that is a function of a :class:`heuri.core.game.Position` alone (its
    board, racks, scores, bag and player to move): the simulation's draws for a move, so that
    a move does not depend on the moves a player made before it (another game, another
    ``--jobs``)."""
    import hashlib

    h = hashlib.blake2b(digest_size=8)
    b = position.board
    h.update(np.ascontiguousarray(b.letters).tobytes())
    h.update(np.ascontiguousarray(b.blanks).tobytes())
    h.update(np.asarray(position.rack, np.int64).tobytes())
    h.update(np.asarray(position.scores, np.int64).tobytes())
    h.update(np.asarray([position.bag_size, position.to_move], np.int64).tobytes())
    return int.from_bytes(h.digest(), "little")


#: the share of heuri-sim's time a move that inference of the opponent's leave takes
INFER_SHARE = 0.25
#: the evaluator that models the opponent in heuri-sim's inference (the likelihood of
#: their move): heuri2 values about 60 racks in a quarter of a second, heuri5 about 15
INFER_ENGINE = "heuri2"


class SimPlayer:
    """``heuri-sim``: heuri.search.simulation's race over heuri5's best candidates while the
    bag holds tiles, heuri5's player (its endgame search) once it is empty. Options in the
    name: ``heuri-sim@seconds=1,candidates=8,infer=1,win=1,threads=2`` (defaults 1 s a move,
    8 candidates, no inference, points, one thread).

    - ``win=1``: the race ranks by the chance to win (the pack's win-probability table;
      :class:`heuri.search.simulation.Simulator`);
    - ``infer=1``: the player infers what the opponent kept with the move it was told of
      (:meth:`observe`; :func:`heuri.search.inference.infer_from_position`,
      :data:`INFER_ENGINE` as the opponent's model, :data:`INFER_SHARE` of the time) and the
      simulation draws the opponent's racks from that posterior; ``infer=2``: the same with
      :class:`heuri.eval.evaluate.LeaveModel` as the model (it predicts the opponent's rack
      about as well, docs/inference.md, and values a rack eight times faster, so the same
      time samples more racks);
    - ``prior=N``: each candidate's mean drawn towards its static value by N rollouts'
      worth (:meth:`heuri.search.simulation.Simulator._ranker`);
    - ``threads=N``: the rollouts on N cores at once (in a match, ``--jobs`` times N should
      not exceed the machine's cores);
    - ``table=1``: the fast rollout (greedy replies by the best-first generator, our move two
      plies on valued from the table of every leave's e;
      :class:`heuri.search.simulation.Simulator`'s ``table``); ``table=2``: the same with the
      opponent's reply their best score plus the e of what they keep, from the same table
      (``reply_leave``);
    - ``iterations=N``: a budget of rollouts instead of the clock (the race's survivors reach
      N rollouts each; ``seconds`` is then not read, and the inference samples its full count).

    Each move's draws are seeded by the position (:func:`position_seed`), so with
    ``iterations`` a move is a function of the position alone: the same on any machine,
    under any load, with any ``--jobs``."""

    def __init__(self, pack, name: str = "heuri-sim", endgame_options: dict | None = None):
        from ..eval.evaluate import make_evaluator
        from ..search.simulation import Simulator

        opts = _sim_options(name)
        self.name = name
        self.seconds = float(opts["seconds"])
        self.iterations = int(opts["iterations"]) or None
        self.infer = bool(opts["infer"])
        try:
            self.sim = Simulator(pack, candidates=int(opts["candidates"]), win=bool(opts["win"]),
                                 threads=int(opts["threads"]), prior=float(opts["prior"]),
                                 table=bool(opts["table"]), reply_leave=opts["table"] == 2)
        except HeuriError as e:
            raise EngineError(f"engine {excerpt(name)!r}: {e}") from None
        self.static = EvaluatorPlayer(pack, "heuri5", "heuri5", True, endgame_options)
        if int(opts["infer"]) == 2:
            from ..eval.evaluate import LeaveModel

            self.model = LeaveModel(pack)
        else:
            self.model = make_evaluator(pack, INFER_ENGINE) if self.infer else None
        self.info: dict = {}
        #: the last race (:class:`heuri.search.simulation.SimResult`), None before any
        self.result = None
        self._seen = None  # (position before the opponent's move, the move, the board after it)

    def close(self) -> None:
        """End the simulation's rollout threads (a match closes its players when done)."""
        self.sim.close()

    def observe(self, position, move) -> None:
        """Be told of a move just made: ``position`` (a :class:`heuri.core.game.Position`)
        before it, by its player to move; ``move`` (a :class:`heuri.core.move.Move`). The
        next :meth:`choose` infers from it when it answers the position that move led to
        (the opponent's seat is the other one, the board is the one after the move)."""
        if self.infer:
            self._seen = (position, move, position.board.play(move).letters)

    def _inference(self, position):
        """The posterior over the opponent's leave from the move :meth:`observe` was told of,
        or None (no inference asked, no move seen, or the move does not lead here)."""
        seen, self._seen = self._seen, None
        if seen is None:
            return None
        limit = None if self.iterations else INFER_SHARE * self.seconds
        return infer_seen(self.model, seen, position, time_limit=limit)

    def choose(self, position):
        import time

        from ..core.move import Move

        if position.bag_size == 0:
            self._seen = None
            move = self.static.choose(position)
            self.info = dict(self.static.info)
            return move
        t0 = time.perf_counter()
        inference = self._inference(position) if self.infer else None
        self.sim.rng = np.random.default_rng(position_seed(position))
        if self.iterations:
            res = self.sim.simulate(position, seconds=None, iterations=self.iterations, opponent_leave=inference)
        else:
            left = max(0.01, self.seconds - (time.perf_counter() - t0))
            res = self.sim.simulate(position, seconds=left, opponent_leave=inference)
        self.result = res
        self.info = {"endgame": False, "sim": True, "rollouts": res.rollouts, "inferred": inference is not None}
        return Move.from_record(res.best, position.spec)
