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
    """A tile string names a tile the language does not have."""
