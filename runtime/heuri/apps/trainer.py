"""The topping trainer: a duplicate master game played alone in the terminal.

Each turn shows the board, the draw and the running totals, and asks for a move in the
usual notation (``H4 MOT`` down, ``8D WORD`` across; a blank in lower case; tiles already
on the board written out or as ``.``) under a per-turn time limit shown as a countdown. An
illegal or misspelled move is refused with the reason and may be corrected while time
remains; an empty line gives up the turn (0 points), as does the end of the time. After
each turn: your move and score against the top, the top(s), and your percentage of the top
so far.

:class:`Trainer` holds the logic (no screen: tested directly); :func:`run` is the screen,
with prompt_toolkit for the prompt and its countdown toolbar and rich for the board and the
tables. The trainer can write the moves played as a players' sheet
(:mod:`heuri.arbitration`) that ``heuri duplicate score`` reads.
"""
from __future__ import annotations

import asyncio
import csv
import io
import time
from dataclasses import dataclass, field

from .duplicate import MasterGame, Turn, check_move, check_notation, move_to_gcg
from .duplicate.verdicts import written_out
from ..core.errors import MoveError
from ..core.move import Move
from ..formats.render import move_text


@dataclass
class TurnResult:
    """One turn played: ``turn`` (the :class:`heuri.duplicate.Turn`), ``move`` (as typed, in
    the trainer's notation, or '' when no move was made), ``score`` (points), ``refused``
    (the illegal moves tried, with the reasons), ``seconds`` (time taken), ``timed_out``,
    ``reason``: why the move scores 0 when it was handed in illegal (:meth:`Trainer.hand_in`;
    '' otherwise), with ``reason_kind`` and ``reason_params`` (the MoveError's ``kind`` and
    ``params``, the move as typed in ``params["move"]``) for an interface that says it in its
    own language."""

    turn: Turn
    move: str
    score: int
    refused: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    timed_out: bool = False
    reason: str = ""
    reason_kind: str = ""
    reason_params: dict = field(default_factory=dict)

    @property
    def is_top(self) -> bool:
        return bool(self.move) and self.score == self.turn.score


class Trainer:
    """The state of a topping session over a :class:`heuri.duplicate.MasterGame`.

    ``words``: the word list moves are checked against (``pack.words``); ``notation``:
    ``"gcg"`` (``8D WORD`` across, ``H4 MOT`` down) or ``"fisf"`` (the French federation's
    references: ``H4 MOT`` across on row H, ``4H MOT`` down; :data:`heuri.duplicate.NOTATIONS`),
    for the moves typed and the tops shown. Use
    :meth:`try_move` for each attempt (it raises MoveError for a refused move and records
    it), :meth:`finish_turn` once the player settles or time is up; :attr:`results` lists
    the turns played."""

    def __init__(self, game: MasterGame, words, player: str = "me", notation: str = "gcg"):
        self.game = game
        self.words = words
        self.player = player
        self.notation = notation
        move_to_gcg("", notation)  # an unknown notation fails here
        self.results: list[TurnResult] = []
        self._refused: list[tuple[str, str]] = []

    @property
    def over(self) -> bool:
        return len(self.results) >= len(self.game.turns)

    @property
    def current(self) -> Turn:
        """The turn to play. Raises IndexError when the game is over."""
        return self.game.turns[len(self.results)]

    def try_move(self, text: str) -> int:
        """Check ``text`` for the current turn and return its score (points). Raises
        MoveError with the reason (bad notation, illegal placement, a word not in the list,
        tiles not in the draw); the refusal is recorded for the turn's result."""
        try:
            _, score = check_move(self.game.spec, self.current, text, self.words, self.notation)
        except MoveError as e:
            self._refused.append((text, str(e)))
            raise
        return score

    def finish_turn(self, text: str | None, seconds: float = 0.0, timed_out: bool = False) -> TurnResult:
        """Settle the current turn with the move ``text`` (already accepted by
        :meth:`try_move`) or None for no move (0 points), and move on."""
        t = self.current
        score = check_move(self.game.spec, t, text, self.words, self.notation)[1] if text else 0
        r = TurnResult(t, " ".join(text.split()) if text else "", score, self._refused, seconds, timed_out)
        self._refused = []
        self.results.append(r)
        return r

    def hand_in(self, text: str | None, seconds: float = 0.0, timed_out: bool = False,
                late: str = "", late_params: dict | None = None) -> TurnResult:
        """Settle the current turn with the move handed in, once, as the arbitrator does
        (:func:`heuri.duplicate.judge`'s nullity): a legal move scores its points; a move
        that is written as a move but is illegal (a word not in the list, a bad placement,
        tiles not in the draw) scores 0 and keeps its reason (``TurnResult.reason``);
        None or blank: no move (0). ``late``: a reason the move is not taken (handed in
        after the time): no move (0), the text kept in ``refused`` with that reason, the
        result's ``reason_kind`` ``"late"`` with ``late_params`` (``{"seconds": N}``).
        Raises MoveError (kind ``"malformed-play"``), changing nothing, for text that is
        not a move in the trainer's notation at all (a coordinate and a word of the language's tiles), which
        a sheet could not hold."""
        t = self.current
        given = " ".join((text or "").split())
        if given:
            # the move as people write it (CA(RR)OÑE) or in GCG (CA.OÑE, CA[RR]OÑE)
            try:
                why = check_notation(written_out(move_to_gcg(given, self.notation), self.game.spec), self.game.spec)
            except MoveError as e:
                why = str(e)
            if why:
                raise MoveError(why, "malformed-play", move=given)
        score, reason, kind, params = 0, late, ("late" if late else ""), dict(late_params or {})
        if late and given:  # a slip handed in after the time is not collected: no move
            self._refused.append((given, late))
            given = ""
        elif given:
            try:
                score = check_move(self.game.spec, t, given, self.words, self.notation)[1]
            except MoveError as e:
                reason, kind, params = str(e), e.kind, {**e.params, "move": given}
        r = TurnResult(t, given, score, self._refused, seconds, timed_out, reason, kind, params)
        self._refused = []
        self.results.append(r)
        return r

    # -- running totals ---------------------------------------------------------------
    @property
    def total(self) -> int:
        """Your points so far."""
        return sum(r.score for r in self.results)

    @property
    def top_total(self) -> int:
        """The master game's points over the turns played so far."""
        return sum(r.turn.score for r in self.results)

    @property
    def percent(self) -> float:
        """Your total as a percentage of the tops so far (0 before the first turn)."""
        return 100.0 * self.total / self.top_total if self.top_total else 0.0

    @property
    def tops(self) -> int:
        """Turns where you found a top."""
        return sum(r.is_top for r in self.results)

    @property
    def coords(self) -> str:
        """The coordinates of the trainer's notation (:data:`heuri.move.COORDS`)."""
        return "fisf" if self.notation == "fisf" else "standard"

    def top(self, t: Turn) -> str:
        """The top of turn ``t`` in the trainer's notation, as people read it: the whole
        word, tiles already on the board in parentheses (``E3 VAINQ(U)E``)."""
        return move_text(t.top, self.game.spec, t.board, self.coords)

    def equal_tops(self, t: Turn) -> list[str]:
        """The other moves that score the top on turn ``t``, written as :meth:`top`."""
        spec = self.game.spec
        return [move_text(Move.from_gcg(x, t.board, spec), spec, t.board, self.coords) for x in t.tops[1:]]

    def write_sheet(self, path) -> None:
        """Write the moves played as a players' sheet (player,turn,move,score,game), the
        file ``heuri duplicate score`` reads; moves in GCG notation whatever the trainer's.
        Turns without a move are left out (missing)."""
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(self.sheet_text())

    def sheet_text(self) -> str:
        """The players' sheet of :meth:`write_sheet` as text (CSV, lines ending in CR LF as
        the csv module writes them). Illegal moves handed in are written with 0 points:
        the score command judges them illegal."""
        buf = io.StringIO(newline="")
        w = csv.writer(buf)
        w.writerow(["player", "turn", "move", "score", "game"])
        for r in self.results:
            if r.move:
                w.writerow([self.player, r.turn.number, move_to_gcg(r.move, self.notation), r.score,
                            self.game.game_id])
        return buf.getvalue()


# -- the screen ---------------------------------------------------------------------------------
def _clock(seconds: float) -> str:
    s = max(0, int(seconds + 0.999))
    return f"{s // 60}:{s % 60:02d}"


def _header(tr: Trainer, t: Turn) -> str:
    spec = tr.game.spec
    n = len(tr.game.turns)
    pct = f"{tr.percent:.1f} %" if tr.results else "-"
    return (f"Turn {t.number}/{n}   draw: {t.draw.text(spec)}   you {tr.total} / top {tr.top_total} ({pct}), "
            f"{tr.tops} tops")


def explain(tr: Trainer, t: Turn) -> str:
    """One line on the draw: the bingos it had on the board, and how likely a septet was
    before the draw (:func:`heuri.duplicate.septet_probability`)."""
    n = t.bingo_moves
    s = "no bingo on this board" if n == 0 else f"{n} bingo{'s' if n > 1 else ''} on this board"
    if n and not t.bingo:
        s += " (none tops)"
    if t.p_septet is not None:
        s += f"; before the draw, a septet (a rack spelling a word) had p = {t.p_septet:.3f}"
    return s


async def _ask(session, message: str, deadline: float | None, hint: str = ""):
    """One prompt; None when the deadline passes first. The bottom toolbar counts down."""
    def toolbar():
        if deadline is None:
            return " Enter: next turn "
        left = deadline - time.monotonic()
        return f" time left {_clock(left)}   move: {hint}; blank in lower case; empty line: no move "
    task = session.prompt_async(message, bottom_toolbar=toolbar, refresh_interval=0.5)
    if deadline is None:
        return await task
    try:
        return await asyncio.wait_for(task, timeout=max(0.0, deadline - time.monotonic()))
    except asyncio.TimeoutError:
        return None


async def run_async(tr: Trainer, time_limit: float = 180.0, console=None, session=None,
                    pause: bool = True) -> Trainer:
    """Play the whole game on the terminal (see the module doc). ``console``: a
    rich Console (default: stdout); ``session``: a prompt_toolkit PromptSession (tests pass
    one bound to a pipe input); ``pause``: wait for Enter after each turn's result.
    Ctrl-D or Ctrl-C stops the session early. Returns the trainer."""
    from prompt_toolkit import PromptSession
    from rich.console import Console
    from rich.markup import escape
    from rich.panel import Panel
    from rich.table import Table

    con = console or Console()
    session = session or PromptSession()
    spec = tr.game.spec
    fisf = tr.notation == "fisf"
    hint = "H4 MOT (across, row H) or 4H MOT (down)" if fisf else "8D WORD (across) or H4 MOT (down)"
    con.print(f"[bold]heuri duplicate[/bold]: {spec.name}, master game {tr.game.game_id}, "
              f"{len(tr.game.turns)} turns, {_clock(time_limit)} a turn", highlight=False)
    try:
        while not tr.over:
            t = tr.current
            # escape(): tile text such as [ch] (a blank CH) is not rich markup
            con.print(Panel(escape(t.board.render(rows_as_letters=fisf)), title=escape(_header(tr, t)), expand=False), highlight=False)
            start = time.monotonic()
            deadline = start + time_limit
            accepted = None
            timed_out = False
            while True:
                text = await _ask(session, f"turn {t.number} {t.draw.text(spec)} > ", deadline, hint)
                if text is None:
                    timed_out = True
                    con.print("[red]time is up[/red]")
                    break
                if not text.strip():
                    break
                try:
                    tr.try_move(text)
                except MoveError as e:
                    con.print(f"[red]refused:[/red] {escape(str(e))}", highlight=False)
                    continue
                accepted = text
                break
            r = tr.finish_turn(accepted, time.monotonic() - start, timed_out)
            mine = f"{r.move} {r.score}" if r.move else "no move, 0"
            verdict = "[green]top![/green]" if r.is_top else f"{r.score - t.score:+d}"
            others = (f" (equal tops: {', '.join(tr.equal_tops(t))})"
                      if len(t.tops) > 1 else "")
            con.print(f"you: {escape(mine)}   top: {escape(tr.top(t))} {t.score}{escape(others)}   {verdict}   "
                      f"total {tr.total} / {tr.top_total} = {tr.percent:.1f} %, {tr.tops} tops", highlight=False)
            con.print(f"  {explain(tr, t)}", highlight=False)
            if pause and not tr.over:
                await _ask(session, "Enter for the next turn ", None)
    except (EOFError, KeyboardInterrupt):
        con.print("stopped")
    table = Table(title=f"your game: {tr.total} of {tr.top_total} points ({tr.percent:.1f} %), {tr.tops} tops")
    for col in ("turn", "draw", "your move", "pts", "top", "top pts"):
        table.add_column(col, justify="right" if col in ("turn", "pts", "top pts") else "left")
    for r in tr.results:
        table.add_row(str(r.turn.number), escape(r.turn.draw.text(spec)), escape(r.move or "-"), str(r.score),
                      escape(tr.top(r.turn)), str(r.turn.score))
    con.print(table)
    return tr


def run(tr: Trainer, time_limit: float = 180.0, console=None, session=None, pause: bool = True) -> Trainer:
    """:func:`run_async` from synchronous code."""
    return asyncio.run(run_async(tr, time_limit, console, session, pause))
