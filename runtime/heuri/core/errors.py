"""Errors raised by heuri. All subclass ValueError and name the input and the place."""


class HeuriError(ValueError):
    """Base class of every heuri error."""


class SpecError(HeuriError):
    """A language spec (``lexicons/<lang>/spec.toml``) has a missing or wrong field."""


class WordListError(HeuriError):
    """A word list is missing, empty or unreadable."""


class PackError(HeuriError):
    """A language pack is missing, incomplete or stale (built from other inputs)."""


class TileError(HeuriError):
    """A tile string names a tile the language does not have. ``part``: the text at fault
    (``'1'``, ``'[C'``), or None."""

    def __init__(self, message: str, part: str | None = None):
        super().__init__(message)
        self.part = part


class KindedError(HeuriError):
    """A HeuriError with a machine-readable ``kind`` (a short tag such as
    ``"tiles-not-in-rack"``) next to the human message, and ``params``: the message's
    parts (``move``, ``words``, ``square`` as ``[row, col]`` 0-based, ``form`` naming the
    variant of the kind), so that an interface can say it again in its own language
    (the web board's catalogue, :mod:`heuri.apps.i18n`). Every value is a str, an int or
    a list of ints (JSON)."""

    def __init__(self, message: str, kind: str = "error", **params):
        super().__init__(message)
        self.kind = kind
        self.params = params


class Note(str):
    """A warning's text (a ``str``, equal to its English message) with a machine-readable
    ``kind`` and ``params``, as :class:`KindedError` carries them, for what is not an error:
    a record that bends a rule, a word outside the list. An interface says it again in its
    own language from the kind and the parts (the web board's catalogue); every other use
    reads it as the English sentence.

    >>> n = Note("line 3: QXZ not in CSW21", "gcg-off-list", move="8G QXZ", words="QXZ")
    >>> n == "line 3: QXZ not in CSW21", n.kind, n.params["move"]
    (True, 'gcg-off-list', '8G QXZ')
    """

    kind: str
    params: dict

    def __new__(cls, message: str, kind: str = "note", **params):
        self = super().__new__(cls, message)
        self.kind = kind
        self.params = params
        return self


class MoveError(KindedError):
    """A move's text does not parse (``kind`` "malformed-play", "malformed-rack",
    "bad-coordinate") or a move is illegal on a board or in a position (``kind``
    "play-out-of-bounds", "square-occupied", "playthrough-mismatch", "not-connected",
    "centre-not-covered", "tiles-not-in-rack", "exchange-not-allowed", "phony", ...)."""


class GcgError(KindedError):
    """A GCG game record is malformed or inconsistent. ``line`` is the 1-based line number
    (0 for the whole file), ``kind`` names the problem (``"inconsistent-total"``,
    ``"pragma-after-events"``, ...), and the message says what was expected."""

    def __init__(self, message: str, kind: str = "malformed-line", line: int = 0, path: str | None = None):
        where = f"{path or '<gcg>'}" + (f":{line}" if line else "")
        # params: an interface frames the (English) detail in its own language
        super().__init__(f"{where}: {message} [{kind}]", kind, source="gcg", line=line, detail=message,
                         where="line" if line else "file")
        self.line = line
        self.path = path


class CgpError(KindedError):
    """A CGP position string is malformed (wrong number of rows or squares, bad tile, bad
    score, bad operation)."""
