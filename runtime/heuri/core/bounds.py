"""Numbers and text a user gives, checked once where they come in.

Every number that reaches heuri from outside (a command-line option, an engine option in
a name such as ``heuri4@k=3``, an SIU ``go`` parameter) passes through one of these
functions, so that NaN, the infinities, a huge integer or a word where a number belongs
get a one-line error naming the input, instead of a silently wrong answer deep inside
(``-k nan`` once ranked the pass above a 66-point bingo: every comparison with NaN is
false).

- :func:`check_float` / :func:`check_int`: a value (text or number) → a finite float / an
  int within ``[lo, hi]``, or :class:`BoundsError` naming the input;
- :func:`float_arg` / :func:`int_arg`: the same as argparse ``type=`` callables (argparse
  prints ``heuri best: error: argument -k: ...`` and exits with status 2);
- :func:`excerpt`: a short, printable excerpt of text a user sent, for error messages
  (control characters escaped, long text cut), so that an error line never repeats
  megabytes or raw control bytes.
"""
from __future__ import annotations

import argparse
import math

from .errors import HeuriError


class BoundsError(HeuriError):
    """A number that is not a number, not finite, not whole where it must be, or outside
    its range; the message names the input and the range."""


def _num(x) -> str:
    """A bound as text: ``1,000`` for an int, ``2.5`` for a float."""
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        x = int(x)
    return f"{x:,}" if isinstance(x, int) else f"{x:g}"


def _range_text(lo, hi, lo_open: bool = False) -> str:
    if lo is not None and hi is not None:
        return f"{'more than ' + _num(lo) + ' and up to' if lo_open else 'from ' + _num(lo) + ' to'} {_num(hi)}"
    if lo is not None:
        return f"{'more than' if lo_open else 'at least'} {_num(lo)}"
    if hi is not None:
        return f"at most {_num(hi)}"
    return "any finite number"


def check_float(value, name: str, lo: float | None = None, hi: float | None = None,
                lo_open: bool = False) -> float:
    """``value`` (a str, int or float) as a finite float within ``[lo, hi]`` (``(lo, hi]``
    when ``lo_open``; None: no bound). Raises BoundsError naming ``name`` for text that is
    not a number, NaN, ±inf (also ``1e400``, which overflows to inf) and values out of
    range.

    >>> check_float("2.5", "-k", 0, 100, lo_open=True)
    2.5
    >>> check_float("nan", "-k")
    Traceback (most recent call last):
    heuri.core.bounds.BoundsError: -k 'nan': not a finite number; give any finite number
    """
    what = _range_text(lo, hi, lo_open)
    if isinstance(value, bool):
        raise BoundsError(f"{name} {value!r}: not a number; give {what}")
    try:
        x = float(value)
    except OverflowError:  # an int beyond the float range
        raise BoundsError(f"{name}: a number too large; give {what}") from None
    except (TypeError, ValueError):
        raise BoundsError(f"{name} {excerpt(str(value), 40)!r}: not a number; give {what}") from None
    if not math.isfinite(x):
        raise BoundsError(f"{name} {excerpt(str(value), 40)!r}: not a finite number; give {what}")
    if (lo is not None and (x <= lo if lo_open else x < lo)) or (hi is not None and x > hi):
        raise BoundsError(f"{name} {x:g}: out of range; give {what}")
    return x


def check_int(value, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` (a str of decimal digits, or an int) as an int within ``[lo, hi]`` (None:
    no bound). Raises BoundsError naming ``name`` for anything else: a fraction, ``1e3``,
    NaN, a number too long to read (Python refuses more than 4,300 digits), out of range.

    >>> check_int("12", "--top", 1, 1000)
    12
    >>> check_int("1e3", "--top", 1, 1000)
    Traceback (most recent call last):
    heuri.core.bounds.BoundsError: --top '1e3': not a whole number; give from 1 to 1,000
    """
    what = _range_text(lo, hi)
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise BoundsError(f"{name} {excerpt(str(value), 40)!r}: not a whole number; give {what}")
    try:
        x = int(value)
    except ValueError:
        raise BoundsError(f"{name} {excerpt(str(value), 40)!r}: not a whole number; give {what}") from None
    if (lo is not None and x < lo) or (hi is not None and x > hi):
        shown = str(x) if len(str(x)) <= 24 else f"{str(x)[:12]}... ({len(str(x))} digits)"
        raise BoundsError(f"{name} {shown}: out of range; give {what}")
    return x


def float_arg(lo: float | None = None, hi: float | None = None, lo_open: bool = False):
    """An argparse ``type=``: :func:`check_float` with these bounds; argparse names the
    option in its error (``argument -k: 'nan': not a finite number; ...``).

    >>> float_arg(0, 100, lo_open=True)("3")
    3.0
    """
    def parse(text: str) -> float:
        try:
            return check_float(text, "", lo, hi, lo_open)
        except BoundsError as e:
            raise argparse.ArgumentTypeError(str(e).lstrip()) from None

    parse.__name__ = "number"
    return parse


def int_arg(lo: int | None = None, hi: int | None = None):
    """An argparse ``type=``: :func:`check_int` with these bounds.

    >>> int_arg(1, 10)("7")
    7
    """
    def parse(text: str) -> int:
        try:
            return check_int(text, "", lo, hi)
        except BoundsError as e:
            raise argparse.ArgumentTypeError(str(e).lstrip()) from None

    parse.__name__ = "whole number"
    return parse


def excerpt(text: str, limit: int = 80) -> str:
    """At most ``limit`` characters of ``text`` to quote back in an error line: control
    characters (C0, DEL, C1, and the line and paragraph separators) written as ``\\xNN`` /
    ``\\uNNNN`` escapes, and a longer text cut with ``...`` and its full length.

    >>> excerpt("go\\x1b[2J now")
    'go\\\\x1b[2J now'
    >>> excerpt("A" * 100, 30)
    'AAAAAAAAAA... (100 characters)'
    """
    pieces = []
    for ch in text:
        o = ord(ch)
        if o < 0x20 or 0x7F <= o < 0xA0 or ch in "\u2028\u2029\ufeff":
            pieces.append(f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}")
        elif not ch.isprintable():
            pieces.append(f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}")
        else:
            pieces.append(ch)
        if len(pieces) > limit:  # enough to know it is cut (each piece is at least 1 character)
            break
    if sum(map(len, pieces)) <= limit:
        return "".join(pieces)
    tail = f"... ({len(text)} characters)"
    room, kept = max(0, limit - len(tail)), []
    for piece in pieces:  # whole escapes only
        if len(piece) > room:
            break
        kept.append(piece)
        room -= len(piece)
    return "".join(kept) + tail
