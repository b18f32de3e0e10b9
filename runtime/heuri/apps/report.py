"""The HTML analysis report: one self-contained page a game, and a summary page a batch.

Pages are rendered from Jinja2 templates shipped in ``heuri/templates`` (package data);
everything they show is inline: CSS, the boards (:mod:`heuri.render` SVG), the plots
(Matplotlib figures saved as SVG, text as paths) and a few lines of script to step through
the turns. Nothing is fetched when the page is viewed, so it opens from a file.

- :func:`game_plots`: the plots of one :class:`heuri.analyze.GameAnalysis` (equity lost a
  turn and cumulated, score and spread, p(bingo next turn) of the played and the best move);
- :func:`game_html`: the page of one game (summary per player, plots, the board after each
  turn with the played move against the engine's best, the turn table);
- :func:`index_html`: the batch page (per player: mean equity lost a turn and a game, missed
  bingos a game and their mean value, agreement with the engine, the five worst moves with
  links; one line a game).

Every page says which lexicon answered, and counts in a banner at the top the moves whose
words that lexicon does not hold ("not in <lexicon>": not ranked, no equity lost).

The pages speak English, Spanish or French (``ui_lang``; a game's page defaults to the
game's language): their text is marked for :mod:`heuri.apps.i18n`.
"""
from __future__ import annotations

import io
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .analyze import GameAnalysis

COLOURS = ("#1f6fb4", "#d1495b", "#2a9d55", "#8d5fd3")

from .analyze import COSTLY  # noqa: E402  (the summaries' threshold, points)


@lru_cache(maxsize=8)
def _env(language: str | None = None):
    """The templates' Jinja environment, speaking ``language`` (en, es, fr; None: English)."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(loader=PackageLoader("heuri.apps", "templates"), autoescape=select_autoescape(["html"]),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = _num
    from .i18n import install
    install(env, language)
    return env


def template_env(language: str | None = None):
    """The Jinja environment of the package's templates (``heuri/apps/templates``), with
    ``_``/``ngettext`` in ``language`` (en, es, fr) and the ``num`` filter; one a language."""
    return _env(language)


def _num(x, digits: int = 1) -> str:
    """A number for a table: '' for None, else rounded."""
    if x is None:
        return ""
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def _svg(fig, salt: str) -> str:
    """A Matplotlib figure as inline SVG (no XML prolog; ids salted per plot so two plots
    of one page never share an id)."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": salt, "svg.fonttype": "path"}):
        # no metadata block: the page stays byte-for-byte the same for the same game
        fig.savefig(buf, format="svg",
                    metadata={"Creator": None, "Date": None, "Format": None, "Type": None})
    s = buf.getvalue()
    return s[s.index("<svg"):]


def _figure(h: float = 2.8):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.2, h), dpi=100)
    # fixed margins: one draw a figure (bbox_inches="tight" or a layout engine draws twice)
    fig.subplots_adjust(left=0.09, right=0.91, bottom=0.16, top=0.9)
    return fig, fig.add_subplot(1, 1, 1)


def game_plots(g: "GameAnalysis", ui_lang: str | None = None) -> dict[str, str]:
    """SVG strings keyed ``equity``, ``score``, ``bingo`` for one game's page, their words
    in ``ui_lang`` (default: English)."""
    from .i18n import translator

    _ = translator(ui_lang)
    rows = g.rows
    nicks = [p[0] for p in g.players]
    out = {}
    fig, ax = _figure()
    ax2 = ax.twinx()
    for s, nick in enumerate(nicks):
        rs = [r for r in rows if r["seat"] == s]
        t = [r["turn"] for r in rs]
        lost = [r["equity_lost"] or 0.0 for r in rs]
        ax.bar(t, lost, color=COLOURS[s % 4], alpha=0.55, label=_("{player}: a turn").format(player=nick))
        cum = [sum(lost[:i + 1]) for i in range(len(lost))]
        ax2.plot(t, cum, color=COLOURS[s % 4], marker="o", ms=3, label=_("{player}: cumulative").format(player=nick))
    ax.set_xlabel(_("turn"))
    ax.set_ylabel(_("equity lost a turn (points)"))
    ax2.set_ylabel(_("cumulative (points)"))
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="upper left")
    ax.set_title(_("Equity lost against {engine}").format(engine=g.engine), fontsize=10)
    out["equity"] = _svg(fig, "equity")

    fig, ax = _figure()
    t = [r["turn"] for r in rows]
    first = [r["score"] if r["seat"] == 0 else r["opp_score"] for r in rows]
    second = [r["opp_score"] if r["seat"] == 0 else r["score"] for r in rows]
    ax.plot(t, first, color=COLOURS[0], label=nicks[0])
    ax.plot(t, second, color=COLOURS[1], label=nicks[1] if len(nicks) > 1 else "")
    spread = [a - b for a, b in zip(first, second)]
    ax.fill_between(t, spread, 0, color="#999", alpha=0.3,
                    label=_("spread ({first} − {second})").format(first=nicks[0], second=nicks[1]))
    ax.axhline(0, color="#666", lw=0.8)
    ax.set_xlabel(_("turn"))
    ax.set_ylabel(_("points"))
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title(_("Score and spread"), fontsize=10)
    out["score"] = _svg(fig, "score")

    fig, ax = _figure()
    for s, nick in enumerate(nicks):
        rs = [r for r in rows if r["seat"] == s and r["analysed"] and r["p"] is not None]
        ax.plot([r["turn"] for r in rs], [r["p"] for r in rs], color=COLOURS[s % 4], marker="o", ms=4,
                label=_("{player}: played").format(player=nick))
        ax.plot([r["turn"] for r in rs], [r["best_p"] for r in rs], color=COLOURS[s % 4], marker="o", ms=6,
                mfc="none", ls=":", label=_("{player}: {engine}'s best").format(player=nick, engine=g.engine))
    ax.set_ylim(0, 1)
    ax.set_xlabel(_("turn"))
    ax.set_ylabel(_("p(bingo next turn)"))
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title(_("Probability of a bingo next turn, from the leave"), fontsize=10)
    out["bingo"] = _svg(fig, "bingo")
    return out


def _said(word: str, _) -> str:
    """A move's word in the page's language: the pass is a word of the language (``pase``,
    ``passe``); a placement or an exchange reads the same in every language."""
    return _("pass") if word == "pass" else word


def _words(r: dict, coords: str, _=None) -> dict:
    """``{word, best_word, bingo_word, sim_best_word}``: a row's moves as people read them, in ``coords``
    (a row written before those columns existed shows its GCG text); ``_``: the page's
    translator (a pass in its language)."""
    from ..formats.render import recoord

    _ = _ or (lambda x: x)
    return {"word": _said(recoord(r.get("word") or r.get("move") or "", coords), _),
            "best_word": _said(recoord(r.get("best_word") or r.get("best") or "", coords), _),
            "bingo_word": _said(recoord(r.get("best_bingo_word") or r.get("best_bingo") or "", coords), _),
            "sim_best_word": _said(recoord(r.get("sim_best_word") or r.get("sim_best") or "", coords), _)}


def _gcg_word(text: str, board, coords: str) -> str:
    """A GCG move text on ``board`` as people read it (the text itself where it does not read)."""
    from ..core.errors import MoveError
    from ..core.move import Move
    from ..formats.render import move_text

    try:
        return move_text(Move.from_gcg(text, board, board.spec), board.spec, board, coords)
    except (MoveError, ValueError):
        return text


def game_html(g: "GameAnalysis", index_href: str | None = None, coords: str = "standard",
              ui_lang: str | None = None) -> str:
    """The page of one analysed game (see the module docstring). ``index_href``: a link
    back to the batch page, if any; ``coords``: how moves are written and the board
    labelled (:data:`heuri.move.COORDS`); ``ui_lang``: the page's language (en, es, fr;
    default: the game's language, English for any other)."""
    from ..core.move import Placement
    from ..formats.render import board_svg
    from .i18n import translator

    ui_lang = ui_lang or g.lang
    _ = translator(ui_lang)
    # premium squares as the clubs write them (word/letter × 2 or 3)
    premium = {"3W": _("3W"), "2W": _("2W"), "3L": _("3L"), "2L": _("2L")}
    turns = []
    for v in g.views:
        r = v.row
        # the engine's best beside the move played when it differs (a move not in the lexicon: always)
        second = v.best if (v.best is not None and (r.get("equity_lost") not in (None, 0.0) or r.get("off_list"))) \
            else None
        words = _words(r, coords, _)
        label = _("turn {n}: {player} {move}").format(n=r["turn"], player=r["player"], move=words["word"])
        # the engine's choice drawn on its own small board (the board before the turn, with it)
        choice = None
        if isinstance(v.best, Placement) and (v.played is None or v.best != v.played):
            choice = board_svg(v.before.play(v.best), played=v.best, cell=16,
                               label=_("turn {n}: {engine} plays {move}").format(n=r["turn"], engine=g.engine,
                                                                                 move=words["best_word"]),
                               rows_as_letters=coords == "fisf", premium=premium)
        alts = list(v.alternatives)
        pt = v.played_terms
        extra = pt if pt is not None and not any(a.rank == pt.rank and pt.rank for a in alts) else None
        alt_words = {a.move: _said(_gcg_word(a.move, v.before, coords), _) for a in alts + ([extra] if extra else [])}
        turns.append({"row": r, "svg": board_svg(v.board, played=v.played if isinstance(v.played, Placement) else None,
                                                  second=second if isinstance(second, Placement) else None,
                                                  label=label, rows_as_letters=coords == "fisf", premium=premium),
                      "choice_svg": choice, "alternatives": alts, "played_terms": pt, "played_extra": extra,
                      "alt_words": alt_words, **words})
    summary = g.summary()
    return _env(ui_lang).get_template("game.html").render(g=g, s=summary, turns=turns, plots=game_plots(g, ui_lang),
                                                          index_href=index_href,
                                                          formula=equity_formula(g.engine, ui_lang),
                                                          terms=used_terms(g), costly=COSTLY,
                                                          simulated=g.think if any(
                                                              r.get("sim_lost") is not None for r in g.rows) else None)


def used_terms(g: "GameAnalysis") -> list[str]:
    """The keys of :data:`heuri.eval.explain.TERMS` the report's tables show for ``g``:
    score and bingo always, the others where an alternative or a played move has them
    (or, for the lanes, where one was not computed)."""
    from ..eval.explain import TERM_KEYS

    ts = [t for v in g.views for t in list(v.alternatives) + ([v.played_terms] if v.played_terms else [])]
    return [k for k in TERM_KEYS if k in ("score", "bingo") or any(getattr(t, k) != 0 for t in ts)
            or (k == "lanes" and any(not t.lanes_known for t in ts))]


def equity_formula(engine: str, ui_lang: str | None = None) -> str:
    """What the pages say ``v`` is for ``engine`` (a :mod:`heuri.players` name, options
    allowed): heuri4 and its variants subtract two terms from Heuri's ``j + e``; heuri5
    weights the second by 3 and adds the tiles' scoring power.

    >>> equity_formula("heuri3")
    'v = j + e'
    >>> equity_formula("heuri4-noend")[:22]
    'v = j + e − c − Δe_opp'
    >>> equity_formula("heuri5-peg")[:28]
    'v = j + e − c − 3·Δe_opp + P'
    >>> equity_formula("heuri4", "fr")[:46]
    'v = j + e − c − Δe_opp (heuri4 : moins le coût'
    """
    from ..play.players import ENGINES
    from .i18n import translator

    _ = translator(ui_lang)
    evaluator = ENGINES.get(engine.partition("@")[0], ("", False))[0]
    if evaluator == "heuri5":
        return _("v = j + e − c − 3·Δe_opp + P (heuri5: minus the next rack's handicap cost c and "
                 "the change Δe_opp the move makes to the opponent's bingo expectation, plus P, the "
                 "points the next rack's tiles add to a move that is not a bingo)")
    if evaluator.startswith("heuri4"):
        return _("v = j + e − c − Δe_opp (heuri4: minus the next rack's handicap cost c and the "
                 "change Δe_opp the move makes to the opponent's bingo expectation)")
    return "v = j + e"


def batch_tables(summaries: list[dict], rows: list[dict]) -> dict:
    """The figures of the batch page: ``players`` (one dict a player nick: games, turns
    analysed, equity lost a turn and a game, missed bingos a game and their mean value,
    agreement, moves that gave up more than :data:`COSTLY` points a game, the simulation's
    points given up a simulated turn (``sim_lost_per_turn``, None without one), ``worst``: the five
    analysed turns with the largest equity lost) and
    ``games`` (the per-game summaries)."""
    from .analyze import player_stats

    by = {}
    for s in summaries:
        for nick in s["per_player"]:
            by.setdefault(nick, set()).add(s["id"])
    players = []
    for nick, games in sorted(by.items()):
        rs = [r for r in rows if r["player"] == nick and r["game"] in games]
        st = player_stats(rs)
        known = [r for r in rs if r["analysed"] and r["rack_known"] and not r.get("rack_partial")
                 and r["equity_lost"] is not None]
        worst = sorted(known, key=lambda r: (-r["equity_lost"], r["game"], r["turn"]))[:5]
        n = len(games)
        players.append({"nick": nick, "games": n, **st,
                        "equity_lost_per_game": round(st["equity_lost"] / n, 2) if n else None,
                        "missed_bingos_per_game": round(st["missed_bingos"] / n, 2) if n else None,
                        "costly_moves_per_game": round(st["costly_moves"] / n, 2) if n else None,
                        "sim_lost_per_turn": round(st["sim_lost"] / st["simulated"], 2) if st["simulated"] else None,
                        "worst": [{k: r.get(k) for k in ("game", "turn", "move", "rack", "best", "equity_lost",
                                                         "word", "best_word")}
                                  for r in worst]})
    return {"players": players, "games": summaries}


def index_html(summaries: list[dict], rows: list[dict], failed: list | None = None, engine: str = "",
               coords: str = "standard", ui_lang: str | None = None) -> str:
    """The batch page: per player figures and links into each game's page
    (``games/<id>.html``); ``failed``: ``(path, message)`` of the records that could not be
    analysed; ``coords``: how moves are written (:data:`heuri.move.COORDS`); ``ui_lang``:
    the page's language (default: the games' language when they share one, else English)."""
    if ui_lang is None:
        langs = {s.get("lang") for s in summaries}
        ui_lang = langs.pop() if len(langs) == 1 else None
    from .i18n import translator

    t = batch_tables(summaries, rows)
    for p in t["players"]:
        p["worst"] = [{**w, **_words(w, coords, translator(ui_lang))} for w in p["worst"]]
    lexicons = list(dict.fromkeys(s.get("lexicon") or "?" for s in summaries))
    off = [s.get("off_list") or 0 for s in summaries]
    return _env(ui_lang).get_template("index.html").render(players=t["players"], games=t["games"], failed=failed or [],
                                                           engine=engine, formula=equity_formula(engine, ui_lang),
                                                           costly=COSTLY, lexicons=lexicons, off=sum(off),
                                                           off_games=sum(k > 0 for k in off),
                                                           simulated=any(p["simulated"] for p in t["players"]))
