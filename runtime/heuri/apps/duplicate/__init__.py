"""Duplicate: the master game, the draw rule and arbitration.

In duplicate every player gets the same draw each turn and the board always takes the
top-scoring move ("le top", "la jugada maestra"); a player scores what their own move would
have scored on that board. The rules are data, the ``[duplicate]`` table of the language
spec (:class:`heuri.spec.DuplicateRules`; ``lexicons/<lang>/spec.toml`` names the
federations' regulations they come from):

- **draw validity** (:func:`is_valid_draw`): up to turn ``early_turns`` a draw holds at
  least ``early_minimum`` vowels and as many consonants, later ``late_minimum`` of each
  (FISF: 2 and 2 up to turn 15, then 1 and 1). Tiles in ``both`` (French Y) and, by
  default, the blank count as a vowel and as a consonant at once;
- **an invalid draw** goes back to the bag whole, the leave too, and a full rack is drawn
  again ("rejet", :func:`draw_rack`);
- **the end**: the game ends when no valid draw can be made from the leave and the bag
  (:func:`can_draw`), or when the bag is empty and the draw has no move; a draw with no
  move while the bag still holds tiles goes back whole and is drawn again (heuri's choice:
  the regulations found say nothing of it);
- **equal tops** (:func:`pick_top`): the regulations leave the choice to the arbitrator;
  heuri takes the first in board order (row, column, across before down, then the tiles);
- **scoring** as in the classic game (premiums, ``bingo_bonus`` for a whole rack); no
  end-of-game adjustments;
- **arbitration** (:func:`arbitrate`): an illegal, misspelled or unplayable move or a missing
  turn scores 0 ("nullité"); a valid move announced with a wrong score keeps its real score
  and earns a warning, and from warning ``free_warnings + 1`` on each costs
  ``warning_penalty`` points (``wrong_score = "warning"``, the FISF rule), or scores 0
  (``wrong_score = "zero"``).

The code: :mod:`heuri.apps.duplicate.rules` (the draw rules, equal tops),
:mod:`heuri.apps.duplicate.master` (the master game, its record, CGPs and sheet) and
:mod:`heuri.apps.duplicate.verdicts` (the notation of a handed-in move, the verdicts,
arbitration); their public names are importable from here, as from the single module
``heuri.duplicate`` before. :mod:`heuri.apps.arbitration` reads the players' sheets.

Randomness: one ``numpy.random.Generator`` seeded by ``seed`` draws every tile, so the same
seed gives the same master game. Racks, leaves and bags are count vectors over tile ids,
shape (L+1,), int64, blank last.

>>> import heuri
>>> g = master_game(heuri.load_pack("fr"), seed=1)
>>> g.total, len(g.turns), g.turns[0].draw.text(g.spec), g.turns[0].top_word(g.spec), g.turns[0].score
(791, 24, 'EEGJMUV', '8D JUGEE', 42)
"""
# the public names of the three modules, importable from here as before
from .master import (MASTER_NICK, MasterGame, SHEET_COLUMNS, Turn, cgp_before, draw_note, game_id, load_master,
                     master_from_record, master_game, septet_probability, sheet, to_gcg)
from .rules import (Draw, DuplicateError, MAX_NO_MOVE_REDRAWS, MAX_REDRAWS, can_draw, count_classes, draw_rack,
                    is_valid_draw, minimum, pick_top, rules_of, tile_classes)
from .verdicts import (NOTATIONS, PlayerResult, TWICE, VERDICTS, Verdict, arbitrate, check_move, check_notation,
                       judge, move_from_gcg, move_to_gcg)
