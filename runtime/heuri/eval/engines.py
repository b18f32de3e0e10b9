"""The engine registry: every engine name a front end accepts, in one table.

An engine is an evaluator (:mod:`heuri.eval.evaluate`: greedy, heuri1 .. heuri5) with
options, plus whether it searches the endgame and the pre-endgame (:mod:`heuri.play.players`).
A variant is a name for options, not a class: ``heuri4-leave`` is ``heuri4`` with
``opponent=0, offset=0``, exactly what ``heuri4@opponent=0,offset=0`` gives.

The command line (``heuri best --engine``), SIU's ``Engine`` option, the web board and the
match players all read this table. It is pure data (no compiled code is imported here), so
that the command line's parser can list the engines without loading the evaluators.

>>> ENGINES["heuri4-leave"].evaluator, ENGINES["heuri4-leave"].options
('heuri4', {'opponent': 0.0, 'offset': 0.0})
>>> FRONT_END_ENGINES[0] == DEFAULT_ENGINE
True
"""
from __future__ import annotations

from dataclasses import dataclass, field

#: the engine a front end uses when none is named (``heuri best``, SIU's ``Engine``, ``heuri
#: serve``): the strongest measured one (docs, "Strength against the peers").
DEFAULT_ENGINE = "heuri5"

#: the evaluators, by the name :func:`heuri.eval.evaluate.make_evaluator` takes
EVALUATOR_NAMES = ("greedy", "heuri1", "heuri2", "heuri3", "heuri4", "heuri5", "heuri6")


@dataclass(frozen=True)
class Engine:
    """One registry entry.

    - ``evaluator``: one of :data:`EVALUATOR_NAMES`;
    - ``options``: the evaluator's keyword options the name stands for (an engine name's
      own ``@key=value`` options are applied over them);
    - ``endgame``: the endgame search plays once the bag is empty;
    - ``peg``: the pre-endgame search plays with a few tiles in the bag.
    """

    evaluator: str
    options: dict = field(default_factory=dict)
    endgame: bool = True
    peg: bool = False


def _variants() -> dict[str, Engine]:
    out = {"greedy": Engine("greedy", endgame=False)}
    for ev in ("heuri1", "heuri2", "heuri3", "heuri4", "heuri5", "heuri6"):
        out[ev] = Engine(ev)
        out[f"{ev}-noend"] = Engine(ev, endgame=False)
    for ev in ("heuri3", "heuri4", "heuri5", "heuri6"):
        out[f"{ev}-peg"] = Engine(ev, peg=True)
    # the heuri4 family's single terms (heuri.eval.evaluate.Heuri4's docstring)
    out["heuri4-leave"] = Engine("heuri4", {"opponent": 0.0, "offset": 0.0})
    out["heuri4-opp"] = Engine("heuri4", {"leave": False, "offset": 0.0})
    out["heuri4-offset"] = Engine("heuri4", {"leave": False, "opponent": 0.0})
    out["heuri4-lanes"] = Engine("heuri4", {"lanes": 0.5, "leave": False, "opponent": 0.0, "offset": 0.0})
    return out


#: engine name → :class:`Engine`
ENGINES: dict[str, Engine] = _variants()

#: the engines the front ends offer by name (``heuri best --engine``, SIU's ``Engine``
#: combo, the web board's list), the default first
FRONT_END_ENGINES: tuple[str, ...] = tuple(dict.fromkeys((DEFAULT_ENGINE, "heuri5", "heuri4", "heuri3", "heuri2",
                                                          "heuri1", "greedy")))


def evaluator_of(name: str) -> tuple[str, dict]:
    """``(evaluator, options)`` for an engine or evaluator name of the registry (a base
    evaluator gives itself and no options); raises KeyError for another name."""
    if name in EVALUATOR_NAMES:
        return name, {}
    e = ENGINES[name]
    return e.evaluator, dict(e.options)
