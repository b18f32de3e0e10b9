"""heuri's SIU backend: the engine behind :class:`heuri.play.siu.protocol.SiuServer`.

:class:`HeuriBackend` answers what the protocol server asks of a
:class:`~heuri.play.siu.protocol.Backend`: its options (``Lexicon``, ``Engine`` from the
engine registry, ``BestN``, ``K``, ``Candidates``, ``Endgame``, ``EndgameClock``), language
packs, CGP positions and the moves applied to them in SIU notation, and the searches of
each ``go`` mode: move generation with the heuri evaluators (``gen``), the endgame search
(``endgame``), the pre-endgame search (``peg``) and the players' own choice (``auto``).

Decisions of the backend where the draft leaves room:

- A CGP ``lex``/``ld`` operation naming another language than the ``Lexicon`` option (FISE…
  → es, CSW/NWL/TWL/OSPD… → en, ODS/FRA… → fr) reads that position with that language's
  pack (the draft: the opcode wins); a ``lex`` naming a lexicon whose pack is built
  (``heuri lexicon import``) reads it with that pack, of the same language or another
  (:func:`position_pack_source`); a name heuri does not know keeps the ``Lexicon`` pack.
- ``go endgame`` needs an empty bag and both racks, ``go peg`` 1 to 7 tiles in the bag;
  with the bag empty and one rack unknown, that rack is every unseen tile
  (:func:`resolve_hidden`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ...core.bounds import excerpt
from ...core.errors import HeuriError
from ...core.game import tile_ids
from ...eval.engines import DEFAULT_ENGINE, FRONT_END_ENGINES
from .protocol import EXCERPT, ERROR_TEXT, Backend, GoParams, OptionDecl, SearchStop, SiuError

ENGINE_CHOICES = FRONT_END_ENGINES  # the registry's front-end list, the default (heuri.DEFAULT_ENGINE) first
DEFAULT_K = 2.5  # docs/method.md: e = Σ p(s|L)·(50 + k·σ(s)), k = 2.5 (heuri.evaluate's default)
DEFAULT_BEST_N = 20  # heuri.evaluate.Heuri3's ``top``: placements re-valued with δ after the move


@dataclass
class SiuPosition:
    """A position as the backend keeps it: the pack it was read with and the
    :class:`heuri.game.Position` (player to move = the engine's side)."""

    pack: object
    position: object
    rack_known: bool = True
    notes: tuple = ()  # ``info string`` texts every search of this position starts with
    before: object = None  # the Position before the last of ``moves`` (go infer), or None
    last_move: object = None  # that move (a heuri.core.move.Move), or None


def leave_text(counts, spec) -> str:
    """A leave (count vector) as rack text (``?`` blank, ``[CH]``), ``-`` when empty, so
    that ``leave`` is always followed by one token."""
    return spec.format_tiles(tile_ids(counts), blank="?") or "-"


def resolve_hidden(pos):
    """With the bag empty and exactly one rack unknown, that rack is every unseen tile:
    make it known (``hidden`` 0) so the endgame search can use it. Returns a Position."""
    import dataclasses

    import numpy as np

    if pos.bag_size != 0:
        return pos
    seats = [i for i, h in enumerate(pos.hidden) if h]
    if len(seats) != 1:
        return pos
    s = seats[0]
    racks = tuple(r + pos.bag if i == s else r for i, r in enumerate(pos.racks))
    return dataclasses.replace(pos, racks=racks, bag=np.zeros_like(pos.bag),
                               hidden=(0,) * len(pos.hidden))


def cgp_language(cgp: str) -> str | None:
    """Language code named by a CGP's ``ld`` or ``lex`` operation (``lex FISE2;`` → es,
    ``ld english;`` → en) as the language specs' ``[recognise]`` tables say, or None when
    there is none or no spec answers to the name (:func:`heuri.cgp.guess_language`).
    The tiles are not read: in a session the ``Lexicon`` option chooses the language, and
    a tile several languages share (Catalan's and a user's language's ``[L·L]``) must not
    move the position to another pack.

    >>> cgp_language("15/15 A/ 0/0 0 lex CSW21; ld english;"), cgp_language("x / 0/0 0")
    ('en', None)
    >>> cgp_language("15/15 AÑ/ 0/0 0") is None
    True
    """
    from ...core.cgp import guess_language

    return guess_language(cgp, tiles=False)


def position_pack_source(cgp: str, pack) -> str | None:
    """What a CGP's ``lex``/``ld`` operations say to read the position with instead of
    ``pack`` (the ``Lexicon`` option's): the folder of the built pack of the lexicon ``lex``
    names when it is of the position's language (``lex FRA20;`` while the French default
    answers: ``<build>/fr-FRA20``), else the language code they name when it is not
    ``pack``'s (``lex CSW21;`` while Spanish answers: ``en``, its default pack), else None
    (``pack`` answers; a lexicon with no pack here gets the lexicon warning)."""
    import os

    from ...core.cgp import cgp_lexicon
    from ...core.pack import lexicon_packs

    code = cgp_language(cgp)
    name = cgp_lexicon(cgp)
    hit = None
    if name and name.strip().upper() != pack.spec.lexicon.upper():  # the manifests are read only then
        hit = lexicon_packs().get(name.strip().upper())
    if hit is not None and hit[1].get("language") == (code or pack.spec.code):
        folder = hit[0]
        return None if os.path.realpath(folder) == os.path.realpath(pack.root) else str(folder)
    if code is not None and code != pack.spec.code:
        return code
    return None


class HeuriBackend(Backend):
    """heuri behind :class:`SiuServer`: packs, positions, move generation, the evaluators
    of :mod:`heuri.evaluate` and the endgame search of :mod:`heuri.endgame`.

    ``lang``: the initial ``Lexicon`` (a language code of a built pack, or a pack folder);
    nothing is loaded until ``isready``, a ``position`` or a ``go`` needs it."""

    capabilities = ("gen", "sim", "infer", "endgame", "peg", "auto", "stream", "stop")

    def __init__(self, lang: str = "es"):
        self.lexicon = lang
        self.engine = DEFAULT_ENGINE
        self.best_n = DEFAULT_BEST_N
        self.k = DEFAULT_K
        self.candidates = 10
        self.threads = 1  # go sim's rollout threads (the static search runs on one)
        self.sim_value = "points"  # go sim races on points, or on the chance to win ("win")
        self.sim_rollout = "full"  # go sim's rollout: full (a Heuri_2 ranking a rack) or fast (the leave table)
        self.endgame = True
        self.endgame_clock = True
        self._pack = None
        self._players: dict = {}

    def _drop_players(self) -> None:
        """Forget the players, evaluators and simulators made for the old options (an option
        is set only between searches), ending the simulators' rollout threads."""
        for p in self._players.values():
            if hasattr(p, "close"):
                p.close()
        self._players = {}

    # -- options -------------------------------------------------------------------------
    def options(self) -> list[OptionDecl]:
        return [
            OptionDecl("Lexicon", "string", self.lexicon),
            OptionDecl("Engine", "combo", self.engine, var=ENGINE_CHOICES),
            OptionDecl("BestN", "spin", str(self.best_n), 1, 1000),
            OptionDecl("K", "string", str(self.k)),
            OptionDecl("Threads", "spin", str(self.threads), 1, 64),
            OptionDecl("Candidates", "spin", str(self.candidates), 1, 1000),
            OptionDecl("SimValue", "combo", self.sim_value, var=("points", "win")),
            OptionDecl("SimRollout", "combo", self.sim_rollout, var=("full", "fast")),
            OptionDecl("Endgame", "check", "true"),
            OptionDecl("EndgameClock", "check", "true"),
        ]

    def set_option(self, name: str, value: str | None) -> list[str]:
        if name == "Lexicon":
            import os

            from ...core.pack import lexicon_packs, load_pack

            want = value.strip()
            imported = want.upper() in lexicon_packs()  # a short lexicon name (T1) is not a language code
            code = want.lower() if len(want) <= 3 and not imported else want
            try:
                if (len(want) > 3 or imported) and not os.path.isdir(want):  # a lexicon's name (FRA20): its pack
                    from ...core.cgp import guess_language_from_names
                    from ...core.pack import lexicon_language, lexicon_root

                    lang = lexicon_language(want)
                    pack = load_pack(lexicon_root(want, lang or guess_language_from_names(want)))
                else:
                    pack = load_pack(code)
            except HeuriError as e:
                keep = self._pack.id if self._pack is not None else self.lexicon
                raise SiuError("bad-option", f"Lexicon {excerpt(want, EXCERPT)!r}: {e}; keeping {keep}") from None
            self._pack, self.lexicon = pack, code
            self._drop_players()
            return []
        if name == "Engine":
            self.engine = value.lower()
        elif name == "BestN":
            self.best_n = int(value)
        elif name == "K":
            from ...core.bounds import BoundsError, check_float

            try:
                self.k = check_float(value, "K", 0, 1000)
            except BoundsError as e:
                raise SiuError("bad-option", f"{e} (the paper's k = 2.5)") from None
        elif name == "Candidates":
            self.candidates = int(value)
        elif name == "Endgame":
            self.endgame = value.lower() == "true"
        elif name == "EndgameClock":
            self.endgame_clock = value.lower() == "true"
        elif name == "SimValue":
            self.sim_value = value
        elif name == "SimRollout":
            self.sim_rollout = value
        elif name == "Threads":
            self.threads = int(value)  # go sim's rollouts; the static ranking stays on one thread
        self._drop_players()
        return []

    @property
    def pack(self):
        if self._pack is None:
            from ...core.pack import load_pack

            self._pack = load_pack(self.lexicon)
        return self._pack

    def prepare(self) -> None:
        """Load the pack and warm the compiled code (numba's cache: move generator,
        evaluator) once per pack and engine, so the first ``go`` is not slowed down."""
        import numpy as np

        from ...core.game import Position

        pack = self.pack
        key = ("warm", id(pack), self.engine, self.k, self.best_n)
        if key in self._players:
            return
        rack = np.zeros(pack.spec.n_kinds, dtype=np.int64)
        rack[:min(pack.spec.rack_size, pack.spec.n_letters)] = 1
        pos = Position.initial(pack.spec, [rack, np.zeros_like(rack)])
        self.evaluator(pack).rank(pos)
        self._players[key] = True

    def provenance(self, position: "SiuPosition | None" = None) -> str:
        """``winpct`` names the win-probability table (``LanguagePack.win_probability_id``)
        when ``SimValue`` is ``win``, the only setting whose results read one; ``none``
        otherwise. heuri reads no leave table (``leaves=none``)."""
        pack = position.pack if position is not None else self.pack
        winpct = (pack.win_probability_id or "none") if self.sim_value == "win" else "none"
        return f"engine={self.name}/{self.version} leaves=none winpct={winpct} lexicon={pack.id}"

    # -- positions -----------------------------------------------------------------------
    def set_position(self, cgp: str, moves: list[str], rack: str | None) -> SiuPosition:
        import dataclasses

        from ...core.game import Position

        pack = self.pack
        other = position_pack_source(cgp, pack)
        if other is not None:
            # the draft: an opcode (lex/ld) wins over the Lexicon option for this position
            from ...core.pack import lexicon_of_language, load_pack

            try:  # a language code: its pack of the session's --lexicon when that is of it, else its default
                pack = load_pack(other, lexicon=lexicon_of_language(other) or "")
            except HeuriError as e:
                raise SiuError("bad-position", f"the CGP names a {cgp_language(cgp) or pack.spec.code} "
                                               f"lexicon: {e}") from None
        spec = pack.spec
        try:
            pos = Position.from_cgp(cgp, spec)
        except HeuriError as e:
            raise SiuError("bad-position", f"{e}") from None
        fields = cgp.split()
        rack_known = bool(fields[1].split("/")[0])
        if not rack_known:  # the mover's rack is unknown too: it holds up to rack_size unseen tiles
            left = int(pos.bag.sum()) - sum(pos.hidden)
            hidden = (min(spec.rack_size, left),) + tuple(pos.hidden[1:])
            pos = dataclasses.replace(pos, hidden=hidden)
        pos = resolve_hidden(pos)
        before = last_move = None
        for i, text in enumerate(moves):
            before = pos
            pos, rack_known = self._apply(pack, pos, text, i, rack_known)
        if before is not None and not moves[-1].lower().startswith("phony."):
            from ...core.move import Move

            last_move = Move.from_siu(moves[-1], before.board, spec)
        else:
            before = None
        if rack is not None:
            pos = self._set_rack(pos, rack)
            rack_known = True
        from ...core.cgp import lexicon_warning

        note = lexicon_warning(cgp, spec)
        return SiuPosition(pack, resolve_hidden(pos), rack_known, (note,) if note else (), before, last_move)

    def _apply(self, pack, pos, text: str, i: int, rack_known: bool):
        """Position after the player to move plays ``text`` (the ``i``-th of ``moves``);
        the mover's drawn tiles are unknown. Returns ``(position, rack of the new player
        to move known?)``."""
        import dataclasses

        import numpy as np

        from ...core.errors import MoveError
        from ...core.move import Exchange

        spec = pos.spec
        where = f"moves[{i + 1}] {excerpt(text, EXCERPT)!r}"
        if pos.over:
            raise SiuError("bad-move", f"{where}: the game is already over")
        s = pos.to_move
        n = pos.n_players
        nxt_known = not pos.hidden[(s + 1) % n]
        if text.lower().startswith("phony."):
            # a play challenged off: a scoreless turn, nothing changes on the board
            try:
                from ...core.move import Move

                Move.from_siu(text[6:], pos.board, spec)
            except (MoveError, HeuriError) as e:
                raise SiuError("bad-move", f"{where}: {e}") from None
            return dataclasses.replace(pos, to_move=(s + 1) % n, scoreless=pos.scoreless + 1), nxt_known
        try:
            from ...core.move import Move

            move = Move.from_siu(text, pos.board, spec)
        except (MoveError, HeuriError) as e:
            raise SiuError("bad-move", f"{where}: {e}") from None
        racks, hidden, bag = list(pos.racks), list(pos.hidden), pos.bag.copy()
        R, h = racks[s].copy(), hidden[s]
        if isinstance(move, Exchange) and move.tiles is None:
            # an exchange of unknown tiles: the rack becomes unknown
            if pos.bag_size < spec.exchange_min_bag or move.count > pos.bag_size:
                raise SiuError("bad-move", f"{where}: an exchange needs at least {spec.exchange_min_bag} "
                                           f"tiles in the bag and no more tiles than it holds "
                                           f"({pos.bag_size})")
            if move.count > int(R.sum()) + h:
                raise SiuError("bad-move", f"{where}: the rack holds only {int(R.sum()) + h} tiles")
            bag += R
            hidden[s] = h + int(R.sum())
            racks[s] = np.zeros_like(R)
            return dataclasses.replace(pos, racks=tuple(racks), hidden=tuple(hidden), bag=bag,
                                       to_move=(s + 1) % n, scoreless=pos.scoreless + 1), nxt_known
        need = move.rack_counts(spec)
        missing = np.maximum(need - R, 0)
        if missing.any():  # tiles the mover drew unseen
            if int(missing.sum()) > h or (missing > bag).any():
                raise SiuError("bad-move", f"{where}: the rack {pos.rack_text(s) or '(unknown)'} and "
                                           f"the unseen tiles lack {spec.format_tiles(tile_ids(missing), blank='?')}"
                                           f" [tiles-not-in-rack]")
            R += missing
            bag -= missing
            h -= int(missing.sum())
        racks[s], hidden[s] = R, h
        pre = dataclasses.replace(pos, racks=tuple(racks), hidden=tuple(hidden), bag=bag)
        try:
            post = pre.after(move, (), words=pack.words)
        except MoveError as e:
            raise SiuError("bad-move", f"{where}: {e} [{e.kind}]") from None
        if not post.over:  # the mover draws unseen tiles
            k = min(spec.rack_size - int(post.racks[s].sum()) - h, post.bag_size)
            hidden = list(post.hidden)
            hidden[s] = h + max(k, 0)
            post = dataclasses.replace(post, hidden=tuple(hidden))
        return resolve_hidden(post), nxt_known

    def _set_rack(self, pos, text: str):
        """The player to move's rack from ``rack.<tiles>``."""
        import dataclasses

        import numpy as np

        from ...core.errors import MoveError
        from ...core.move import parse_rack

        spec = pos.spec
        try:
            ids = parse_rack(text, spec, what="rack.")
        except MoveError as e:
            raise SiuError("bad-move", f"rack.{excerpt(text, EXCERPT)}: {e}") from None
        s = pos.to_move
        want = np.bincount(np.asarray(ids, dtype=np.int64), minlength=spec.n_kinds).astype(np.int64)
        bag = pos.bag + pos.racks[s]
        hidden = list(pos.hidden)
        hidden[s] = 0
        if (want > bag).any() or len(ids) > spec.rack_size or int((bag - want).sum()) < sum(hidden):
            raise SiuError("bad-move", f"rack.{excerpt(text, EXCERPT)}: these tiles are not all unseen by the player "
                                       f"to move")
        racks = tuple(want if i == s else r for i, r in enumerate(pos.racks))
        return dataclasses.replace(pos, racks=racks, bag=bag - want, hidden=tuple(hidden))

    def check_go(self, sp: SiuPosition, params: GoParams) -> None:
        pos = sp.position
        if pos.over:
            raise SiuError("bad-position", "the game is over in this position; nothing to search")
        if params.mode == "infer":
            if sp.last_move is None:
                raise SiuError("bad-position", "go infer needs the opponent's move: 'position cgp <the position "
                                               "before it> moves <their move>'")
            return
        if not sp.rack_known or pos.hidden[pos.to_move]:
            raise SiuError("bad-position", "the rack of the player to move is unknown; give it in the CGP "
                                           "or as rack.<tiles> after the moves")
        if params.mode == "endgame":
            if pos.bag_size != 0:
                err = SiuError("bad-position", f"go endgame needs an empty bag; it holds {pos.bag_size} tiles")
                err.fallback = "auto"  # still answer the go with a bestmove
                raise err
            if any(pos.hidden):
                raise SiuError("bad-position", "go endgame needs both racks")
        if params.mode == "peg":
            if not 1 <= pos.bag_size <= 7:
                err = SiuError("bad-position", f"go peg needs 1 to 7 tiles in the bag; it holds {pos.bag_size}")
                err.fallback = "auto"
                raise err

    def honoured(self, mode: str) -> set[str]:
        if mode == "sim":
            return {"iterations"}
        if mode == "gen":
            return {"searchmoves", "alsosearchmoves"}
        if mode == "endgame":
            return {"depth"}
        return set()

    # -- searching ------------------------------------------------------------------------
    def _evaluator_options(self) -> dict:
        """Keyword options of :func:`heuri.evaluate.make_evaluator` from ``K``/``BestN``."""
        from ...eval.evaluate import engine_options

        return engine_options(self.engine, self.k, self.best_n)

    def evaluator(self, pack):
        """The evaluator named by the ``Engine`` option, with ``K`` and ``BestN``."""
        from ...eval.evaluate import make_evaluator

        key = ("ev", id(pack), self.engine, self.k, self.best_n)
        ev = self._players.get(key)
        if ev is None:
            ev = make_evaluator(pack, self.engine, **self._evaluator_options())
            self._players[key] = ev
        return ev

    def _player(self, pack, last: dict):
        """The player heuri's match runner would use (:func:`heuri.players.make_player`:
        the evaluator, and the endgame search once the bag is empty), with the evaluator
        built from ``K``/``BestN`` and recording its ranking in ``last["rank"]``."""
        from ...core.move import Move, Pass
        from ..players import make_player

        name = self.engine if (self.endgame or self.engine == "greedy") else f"{self.engine}-noend"
        key = ("player", id(pack), name, self.k, self.best_n)
        pl = self._players.get(key)
        if pl is None:
            pl = make_player(name, pack)
            self._players[key] = pl
        if hasattr(pl, "_choose") and self.engine != "greedy":
            ev = self.evaluator(pack)
            spec = pack.spec

            def choose(position):  # = Evaluator.choose, keeping the ranking for the info line
                r = ev.rank(position)
                last["rank"] = r
                return Pass() if len(r) == 0 else Move.from_record(r.moves[0], spec)

            pl._choose = choose
        return pl

    def search(self, sp: SiuPosition, params: GoParams, stop: "SearchStop",
               emit: Callable[[str], None]) -> str:
        if params.mode == "gen":
            return self._gen(sp, params, stop, emit)
        if params.mode == "endgame":
            return self._endgame(sp, params, stop, emit)
        if params.mode == "peg":
            return self._peg(sp, params, stop, emit)
        if params.mode == "infer":
            return self._infer(sp, params, stop, emit)
        if params.mode == "sim":
            return self._sim(sp, params, stop, emit)
        return self._auto(sp, params, stop, emit)

    def _sim(self, sp, params, stop, emit) -> str:
        """``go sim``: heuri.search.simulation over the ``Engine``'s best ``Candidates`` moves,
        until ``movetime`` (default 1 s when neither it nor ``iterations`` nor ``infinite``
        is given), ``iterations`` rollouts a candidate, or ``stop``. After each round of the
        race, one ``info sim move M eq E se S iterations N static V`` line per candidate
        still in it (``eq``: the mean rollout value, points, ``-`` before the first rollout;
        ``se``: its standard error, ``-`` before the second);
        at the end every candidate, then ``info string sim ...`` with the rollouts, rounds
        and what stopped it. With the bag empty the race is the endgame's (``go auto``)."""
        import time

        from ...core.move import Move
        from ...search.simulation import SimulationError, Simulator

        pos = sp.position
        if pos.bag_size == 0:
            emit("info string sim the bag is empty: the endgame search answers")
            return self._auto(sp, params, stop, emit)
        pack = sp.pack
        spec = pack.spec
        threads = min(64, params.threads or self.threads)
        key = ("sim", id(pack), self.engine, self.candidates, threads, self.sim_value, self.sim_rollout)
        sim = self._players.get(key)
        if sim is None:
            try:
                sim = Simulator(pack, engine=self.engine, candidates=max(2, self.candidates), threads=threads,
                                win=self.sim_value == "win", table=self.sim_rollout == "fast")
            except SimulationError as e:
                raise SiuError("bad-option", f"SimValue win: {e}") from None
            self._players[key] = sim
        seconds = None
        if stop.deadline is not None:
            seconds = max(0.01, stop.deadline - time.monotonic())
        elif params.iterations is None and not params.infinite:
            seconds = 1.0

        def lines(res, alive_only: bool) -> None:
            for c in res.candidates:
                if alive_only and not c.alive:
                    continue
                se = f"{c.stderr:.2f}" if c.n > 1 else "-"
                eq = f"{c.mean:.2f}" if c.n else "-"  # not rolled out (stopped before): no mean
                win = f" win {100 * c.win:.2f}" if c.wins else ""
                emit(f"info sim move {Move.from_record(c.record, spec).siu(spec, pos.board)} eq {eq} "
                     f"se {se} iterations {c.n} static {c.static:.2f}{win}")

        res = sim.simulate(pos, seconds=seconds, iterations=params.iterations, should_stop=stop.stopped,
                           on_round=lambda r: lines(r, True))
        lines(res, False)
        emit(f"info string sim {res.rollouts} rollouts, {res.rounds} rounds, {res.seconds:.2f} s, "
             f"stopped by {res.stopped_by}")
        return Move.from_record(res.best, spec).siu(spec, pos.board)

    def _infer(self, sp, params, stop, emit) -> str:
        """``go infer``: what the opponent kept with the last of ``moves``
        (heuri.search.inference, heuri2 as the model of the player, τ = 6 points): one
        ``info infer leave <tiles> prob <p> prior <q>`` line per leave, most probable first
        (``Candidates`` lines), then ``info infer tile <tile> expected <x> prior <y>`` for the
        tiles whose expected count moved most. ``movetime`` bounds the rack sampling. The
        ``bestmove`` is ``none``, as the draft says (section 6): ``go auto`` gives heuri's
        move."""
        import numpy as np

        from ...eval.evaluate import make_evaluator
        from ...search.inference import infer_from_position

        pack = sp.pack
        spec = pack.spec
        key = ("infer", id(pack))
        ev = self._players.get(key)
        if ev is None:
            ev = self._players[key] = make_evaluator(pack, "heuri2")
        limit = None
        if stop.deadline is not None:
            import time

            limit = max(0.05, (stop.deadline - time.monotonic()) * 0.8)
        inf = infer_from_position(ev, sp.before, sp.last_move, time_limit=limit, should_stop=stop.is_set)
        for i in range(min(self.candidates, len(inf.leaves))):
            emit(f"info infer leave {leave_text(inf.leaves[i], spec) or '-'} prob {inf.posterior[i]:.4f} "
                 f"prior {inf.prior[i]:.4f}")
        post_x, prior_x = inf.tile_expectation()
        for t in np.argsort(-np.abs(post_x - prior_x), kind="stable")[:5]:
            if post_x[t] > 0 or prior_x[t] > 0:
                emit(f"info infer tile {leave_text(np.eye(spec.n_kinds, dtype=np.int64)[t], spec)} "
                     f"expected {post_x[t]:.3f} prior {prior_x[t]:.3f}")
        how = "exact" if inf.exact else f"sampled {inf.samples} racks"
        emit(f"info string infer {how}, {inf.evaluated} racks valued, leave of {inf.leave_size} tiles")
        return "none"  # the draft's answer to go infer: a report, not a move

    def _peg(self, sp, params, stop, emit) -> str:
        """``go peg``: one ``info peg`` line per candidate, best first: ``move``, ``win``
        (wins + half the draws, %), ``wins``/``draws``/``losses`` (probabilities over the
        draws), ``spread`` (expected final spread), ``method`` (heuri.peg)."""
        from ...search.peg import PegSearch

        spec, board = sp.pack.spec, sp.position.board
        key = ("peg", id(sp.pack), self.engine)
        ps = self._players.get(key)
        if ps is None:  # the session's Engine picks the candidates and plays the replies
            ps = self._players[key] = PegSearch(sp.pack, evaluator=self.engine)
        res = ps.search(sp.position)
        for r in res.rows:
            emit(f"info peg move {r.move.siu(spec, board)} win {100 * r.win_prob:.2f} wins {r.wins:.4f} "
                 f"draws {r.draws:.4f} losses {r.losses:.4f} spread {r.spread:+.2f} method {r.method} "
                 f"draws_n {r.draws_n}")
        if res.note:
            emit(f"info string peg {res.note}")
        return res.rows[0].move.siu(spec, board)

    def _gen(self, sp, params, stop, emit) -> str:
        from ...core.move import Move

        pack, pos = sp.pack, sp.position
        spec = pack.spec
        ranked = self.evaluator(pack).rank(pos)
        texts = [Move.from_record(r, spec).siu(spec, pos.board) for r in ranked.moves]
        order = list(range(len(texts)))
        if params.searchmoves:
            want = self._canonical(sp, params.searchmoves, emit)
            order = [i for i in order if texts[i] in want]
            if not order:
                raise SiuError("bad-move", "searchmoves: none of " + excerpt(" ".join(params.searchmoves), EXCERPT)
                               + " is a legal move here")
        show = order[:self.candidates]
        if params.alsosearchmoves:
            also = self._canonical(sp, params.alsosearchmoves, emit)
            show += [i for i in order[self.candidates:] if texts[i] in also]
        for i in show:
            emit(f"info gen move {texts[i]} score {int(ranked.j[i])} eq {ranked.v[i]:.2f} "
                 f"leave {leave_text(ranked.leaves[i], spec)} e {ranked.e[i]:.2f} p {ranked.p[i]:.4f}")
        return texts[order[0]] if order else "pass"

    def _canonical(self, sp, texts: list[str], emit) -> set[str]:
        from ...core.errors import MoveError
        from ...core.move import Move

        spec, board = sp.pack.spec, sp.position.board
        out = set()
        for t in texts:
            try:
                m = Move.from_siu(t, board, spec)
                if hasattr(board, "canonical"):  # a one-tile play, written as the generator does
                    m = board.canonical(m)
                out.add(m.siu(spec, board))
            except (MoveError, HeuriError) as e:
                emit(f"info string error bad-move {excerpt(f'{t}: {e}', ERROR_TEXT)}")
        return out

    def _endgame_search(self, pack, stop, max_depth: int | None = None, match_limits: bool = False,
                        clock: tuple | None = None):
        """The exact endgame solver, stopped by SIU ``stop`` (the server also sets it when
        ``movetime`` runs out); ``match_limits``: the match players' node limits (``go
        auto``), else the solver's own (``go endgame``: exact unless stopped). ``clock``:
        ``(seconds,)`` of ``movetime``, or ``(None,)`` for ``infinite``: the node and
        move-list limits grow with the time (:func:`heuri.endgame.time_budget`), so that
        the clock (or ``stop``), not the untimed default of a million nodes, ends the search."""
        from ...search.endgame import EndgameSearch, time_budget
        from ..players import MATCH_EXACT_LIMITS, MATCH_WIDE_LIMITS, TwoStepEndgame

        kw = {} if max_depth is None else {"max_depth": max_depth}
        if match_limits:
            steps = [EndgameSearch(pack, **{**MATCH_EXACT_LIMITS, **kw}),
                     EndgameSearch(pack, **{**MATCH_WIDE_LIMITS, **kw})]
            for es in steps:
                es._stop = stop.is_set
            return TwoStepEndgame(*steps)
        es = EndgameSearch(pack, **kw)
        if clock is not None:
            budget = time_budget(clock[0], "compiled" if es.compiled and es._gen.fast else "python")
            es.max_nodes, es.max_generations = budget["max_nodes"], budget["max_generations"]
        es._stop = stop.is_set
        return es

    @staticmethod
    def _clock(params) -> tuple | None:
        """``(seconds,)`` of a ``go``'s ``movetime``, ``(None,)`` for ``infinite``, None
        without a clock (see :meth:`_endgame_search`)."""
        if params.infinite:
            return (None,)
        if params.movetime_ms is not None:
            return (max(params.movetime_ms, 1) / 1000.0,)
        return None

    def _emit_endgame(self, sp, res, emit) -> None:
        spec, board = sp.pack.spec, sp.position.board
        pv = []
        for m in res.pv:
            pv.append(m.siu(spec, board))
            board = board.play(m)
        emit(f"info endgame depth {res.depth} score spread {res.value:+d} nodes {res.nodes} "
             f"exact {'true' if res.exact else 'false'} pv {' '.join(pv)}")
        if not res.exact:
            why = {"stop": "stopped by movetime or stop", "time": "the clock ran out",
                   "nodes": "stopped by the node limit", "move lists": "stopped by the move-list limit"}
            emit(f"info string endgame value not exact: a horizon estimate at depth {res.depth} "
                 f"({why.get(res.stopped_by, 'the search was stopped') if res.stopped else 'the limits allowed no deeper search'})")

    def _endgame(self, sp, params, stop, emit) -> str:
        from ..players import GreedyPlayer

        search = self._endgame_search(sp.pack, stop, params.depth, clock=self._clock(params))
        res = search.search(sp.position)
        if res is None:
            emit("info string endgame search stopped before depth 1; playing the top-scoring move")
            return GreedyPlayer(sp.pack).choose(sp.position).siu(sp.pack.spec, sp.position.board)
        self._emit_endgame(sp, res, emit)
        return res.move.siu(sp.pack.spec, sp.position.board)

    def _auto(self, sp, params, stop, emit) -> str:
        from ...core.move import Placement

        pack, pos = sp.pack, sp.position
        spec = pack.spec
        last: dict = {}
        player = self._player(pack, last)
        if getattr(player, "search", None) is not None:
            # a clock (movetime, or infinite until stop) lets the exact solver run until it
            # proves the value or the time is up (the bigger budget plays better: README,
            # "Strength against the peers"), unless EndgameClock is false; otherwise the
            # match players' fixed budget, so that go auto answers the same way every time
            # (and plays the game an in-process match player plays)
            timed = self.endgame_clock and (params.movetime_ms is not None or params.infinite)
            inner = self._endgame_search(pack, stop, match_limits=not timed,
                                         clock=self._clock(params) if timed else None)

            class _Recording:
                def search(self, position):
                    last["res"] = r = inner.search(position)
                    return r

            player.search = _Recording()
        move = player.choose(pos)
        text = move.siu(spec, pos.board)
        if last.get("res") is not None:
            self._emit_endgame(sp, last["res"], emit)
        elif last.get("rank") is not None and len(last["rank"]):
            r = last["rank"]
            emit(f"info gen move {text} score {int(r.j[0])} eq {r.v[0]:.2f} leave "
                 f"{leave_text(r.leaves[0], spec)} e {r.e[0]:.2f} p {r.p[0]:.4f}")
        else:
            j = pos.board.score(move) if isinstance(move, Placement) else 0
            emit(f"info gen move {text} score {j} leave {leave_text(pos.rack - move.rack_counts(spec), spec)}")
        return text

