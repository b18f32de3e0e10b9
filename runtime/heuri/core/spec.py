"""Language specs: tiles, counts, values, blank rules, game rules and board layout.

A spec lives in ``lexicons/<lang>/spec.toml``; every language difference the engine knows
is a field here, never an ``if lang == ...``. Tile ids: letter tiles are ``0 .. L-1`` in the
spec's order, the blank is ``L``; a rack, leave or bag is a count vector of length ``L+1``.

>>> spec = load_spec("es")
>>> spec.n_letters, spec.blank, spec.total_tiles, spec.total_points
(28, 28, 100, 192)
>>> spec.average_tile_value
1.92
>>> spec.format_tiles(spec.tokenise("CHORRO"))
'[CH]O[RR]O'
"""
from __future__ import annotations

import functools

import os
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from .errors import SpecError
from .tiletext import JOINERS, check_spelling, format_spelling, nfc, scan

#: Repository root (runtime/heuri/spec.py → ../../); where ``lexicons/`` and ``build/`` live.
REPO_ROOT = Path(__file__).resolve().parents[3]
LEXICONS = REPO_ROOT / "lexicons"


def build_root() -> Path:
    """Where packs are looked for: ``$HEURI_BUILD`` or ``<repo>/build`` (read at each call,
    so that ``heuri --build DIR`` applies to what follows)."""
    return Path(os.environ.get("HEURI_BUILD", REPO_ROOT / "build"))

END_RULES = ("double", "transfer")
WORDLIST_SOURCES = ("list", "hunspell", "import")
PREMIUM_CHARS = "TDtd*."
BLANK_CLASSES = ("both", "vowel", "consonant", "neither")
TIE_RULES = ("board-order",)
WRONG_SCORE_RULES = ("warning", "zero")


@dataclass(frozen=True)
class DuplicateRules:
    """The duplicate format's rules, from the ``[duplicate]`` table of a spec (see
    :mod:`heuri.duplicate`). Immutable.

    - ``vowels``: letter tiles that count as vowels; ``both``: letter tiles that count as a
      vowel and as a consonant (French Y); every other letter tile is a consonant;
    - ``blank``: how a blank counts (``"both"``, ``"vowel"``, ``"consonant"``, ``"neither"``);
    - ``early_turns``: turns 1..early_turns need ``early_minimum`` vowels and as many
      consonants in the draw, later turns ``late_minimum`` of each;
    - ``tie_rule``: how the master game picks among equal-scoring tops (``"board-order"``);
    - ``wrong_score``: arbitration of a valid move announced with a wrong score:
      ``"warning"`` (the real score and a warning; from warning ``free_warnings + 1`` on,
      each costs ``warning_penalty`` points) or ``"zero"`` (the move scores 0);
    - ``source``: where the rules come from (text, for records and reports).
    """

    vowels: tuple[str, ...]
    both: tuple[str, ...]
    blank: str
    early_turns: int
    early_minimum: int
    late_minimum: int
    tie_rule: str
    wrong_score: str
    free_warnings: int
    warning_penalty: int
    source: str


@dataclass(frozen=True)
class LanguageSpec:
    """One language: tile set, blank rules, game rules, board. Immutable.

    Attributes are plain tuples; ``counts`` and ``values`` are indexed by tile id (letters
    only, the blank is described by ``blank_count``/``blank_value``).
    """

    code: str
    name: str
    lexicon: str
    tiles: tuple[str, ...]
    counts: tuple[int, ...]
    values: tuple[int, ...]
    blank_count: int
    blank_value: int
    blank_cannot_represent: tuple[str, ...]
    rack_size: int
    bingo_bonus: int
    exchange_min_bag: int
    end_rule: str
    max_scoreless_turns: int
    board: tuple[str, ...]
    wordlist_file: str
    strip_accents: bool
    keep: tuple[str, ...]
    replace: tuple[tuple[str, str], ...]
    path: Path | None = None
    duplicate: DuplicateRules | None = None
    #: ``"list"`` (``wordlist_file`` is a word list), ``"hunspell"`` (``hunspell_dic`` +
    #: ``hunspell_aff`` are expanded by pipeline/hunspell.py into the list) or ``"import"``
    #: (no bundled list: packs come from a lexicon file the player has, ``heuri lexicon
    #: import``).
    wordlist_source: str = "list"
    hunspell_dic: str = ""
    hunspell_aff: str = ""
    #: Names this language answers to in records (``[recognise]``; see :func:`recognise`).
    recognise_lexicons: tuple[str, ...] = ()
    recognise_distributions: tuple[str, ...] = ()
    _index: dict = field(default_factory=dict, compare=False, repr=False)

    # -- tile alphabet ---------------------------------------------------------------
    @property
    def n_letters(self) -> int:
        """Number of letter tile kinds L (the blank is id L)."""
        return len(self.tiles)

    @property
    def blank(self) -> int:
        """Tile id of the blank (= L)."""
        return len(self.tiles)

    @property
    def n_kinds(self) -> int:
        """Length of a count vector: L letters + the blank."""
        return len(self.tiles) + 1

    @property
    def total_tiles(self) -> int:
        return sum(self.counts) + self.blank_count

    @property
    def total_points(self) -> int:
        return sum(c * v for c, v in zip(self.counts, self.values)) + self.blank_count * self.blank_value

    @property
    def average_tile_value(self) -> float:
        """Mean face value of a tile in the full bag, blanks included (Spanish: 192/100 =
        1.92, the ā of Heuri_1's b = 50 + 2.5(σ_L + ā·t), paper §4.2)."""
        return self.total_points / self.total_tiles

    def distribution(self):
        """Full bag as a count vector, shape (L+1,), dtype int64, blank last."""
        import numpy as np

        return np.array(list(self.counts) + [self.blank_count], dtype=np.int64)

    def value_vector(self):
        """Face values by tile id, shape (L+1,), dtype int64 (blank = blank_value)."""
        import numpy as np

        return np.array(list(self.values) + [self.blank_value], dtype=np.int64)

    def tile_id(self, symbol: str) -> int:
        """Id of a tile symbol (``"A"``, ``"CH"``; ``"?"`` or ``"#"`` is the blank).

        Raises TileError naming the symbol and the language."""
        from .errors import TileError

        s = nfc(symbol).upper()
        if s in ("?", "#"):
            return self.blank
        try:
            return self.tiles.index(s)
        except ValueError:
            raise TileError(f"{symbol!r} is not a tile of {self.name} ({self.code})") from None

    def symbol(self, tile: int) -> str:
        """Symbol of a tile id, ``'#'`` for the blank."""
        return "#" if tile == self.blank else self.tiles[tile]

    # -- words -----------------------------------------------------------------------
    def normalise(self, entry: str) -> str:
        """Word-list entry → the spelling the tokeniser reads: NFC, upper case, the spec's
        replacements (``Œ`` → ``OE``), accents stripped except on ``keep`` letters."""
        s = unicodedata.normalize("NFC", entry.strip()).upper()
        for a, b in self.replace:
            s = s.replace(a, b)
        if self.strip_accents:
            out = []
            for ch in s:
                if ch in self.keep:
                    out.append(ch)
                else:
                    out.append("".join(c for c in unicodedata.normalize("NFD", ch)
                                       if unicodedata.category(c) != "Mn"))
            s = "".join(out)
        return s

    def tokenise(self, word: str) -> tuple[int, ...] | None:
        """Split a normalised word into tile ids, longest tile first (Spanish: CH, LL, RR,
        then single letters, so C+H never spells CH). None if it does not tokenise."""
        rx = self._index.get("rx")
        if rx is None:
            import re

            # Alternation tried in order, longest symbol first: greedy tokenising.
            alts = sorted(self.tiles, key=len, reverse=True)
            rx = self._index["rx"] = (re.compile("|".join(map(re.escape, alts))),
                                      {t: i for i, t in enumerate(self.tiles)})
        pattern, ids = rx
        parts = pattern.findall(word)
        # findall skips characters no tile matches: the parts must spell the whole word.
        if "".join(parts) != word:
            return None
        return tuple(ids[p] for p in parts)

    def format_tiles(self, tiles, blank: str = "#") -> str:
        """Tile ids → text; multi-letter tiles in brackets (``[CH]``), the blank as
        ``blank`` (``#`` in keys, ``?`` in racks)."""
        parts = []
        for t in tiles:
            t = int(t)
            parts.append(blank if t == self.blank else format_spelling(self.tiles[t]))
        return "".join(parts)

    def parse_tiles(self, text: str) -> list[int]:
        """Text → tile ids. Accepts ``?`` or ``#`` for a blank, ``[CH]`` brackets for
        multi-letter tiles (:mod:`heuri.tiletext`), upper or lower case. Raises TileError
        naming the bad part."""
        return [self.tile_id(tok) for tok in scan(text, "?#")]

    # -- board -----------------------------------------------------------------------
    @property
    def board_size(self) -> int:
        return len(self.board)

    # -- inputs and names -------------------------------------------------------------
    def source_files(self) -> dict[str, Path]:
        """The committed inputs besides the spec, by kind: ``{"wordlist": path}`` for a
        plain list, ``{"dic": path, "aff": path}`` for a Hunspell dictionary, ``{}`` for a
        spec without a bundled list (``source = "import"``)."""
        if self.wordlist_source == "import":
            return {}
        if self.wordlist_source == "hunspell":
            return {"dic": self.path / self.hunspell_dic, "aff": self.path / self.hunspell_aff}
        return {"wordlist": self.path / self.wordlist_file}

    def answers_to(self, lexicon: str | None, distribution: str | None = None) -> bool:
        """True when a record's lexicon name (GCG ``#lexicon``, CGP ``lex``) starts with one
        of ``[recognise] lexicons`` or with this spec's own lexicon, or its distribution name
        (``#tile-distribution``, ``ld``) is one of ``[recognise] distributions``, the
        spec's name or code; all case-insensitive, spaces and ``_`` alike."""
        def key(x: str) -> str:
            return x.strip().replace(" ", "_").upper()

        if lexicon and lexicon.strip():
            lx = key(lexicon)
            if any(lx.startswith(key(p)) for p in self.recognise_lexicons + (self.lexicon,) if p.strip()):
                return True
        if distribution and distribution.strip():
            ld = key(distribution)
            return ld in {key(d) for d in self.recognise_distributions + (self.name, self.code)}
        return False


def _need(d: dict, key: str, typ, where: str):
    if key not in d:
        raise SpecError(f"{where}: missing field '{key}'")
    v = d[key]
    if typ is int and isinstance(v, bool) or not isinstance(v, typ):
        raise SpecError(f"{where}: field '{key}' must be {typ.__name__}, got {v!r}")
    return v


def _duplicate_rules(d: dict, syms: list[str], w: str) -> DuplicateRules | None:
    """The optional ``[duplicate]`` table, checked (None when the spec has none)."""
    if "duplicate" not in d:
        return None
    where = f"{w} [duplicate]"
    t = _need(d, "duplicate", dict, w)
    vowels = tuple(_need(t, "vowels", list, where))
    both = tuple(_need(t, "both", list, where))
    for name, tiles in (("vowels", vowels), ("both", both)):
        bad = [x for x in tiles if x not in syms]
        if bad:
            raise SpecError(f"{where}: '{name}' lists {bad}, which are not tiles of this language")
    if set(vowels) & set(both):
        raise SpecError(f"{where}: {sorted(set(vowels) & set(both))} are in both 'vowels' and 'both'")
    rules = DuplicateRules(
        vowels=vowels, both=both,
        blank=_need(t, "blank", str, where),
        early_turns=_need(t, "early_turns", int, where),
        early_minimum=_need(t, "early_minimum", int, where),
        late_minimum=_need(t, "late_minimum", int, where),
        tie_rule=_need(t, "tie_rule", str, where),
        wrong_score=_need(t, "wrong_score", str, where),
        free_warnings=_need(t, "free_warnings", int, where),
        warning_penalty=_need(t, "warning_penalty", int, where),
        source=_need(t, "source", str, where),
    )
    for name, value, allowed in (("blank", rules.blank, BLANK_CLASSES), ("tie_rule", rules.tie_rule, TIE_RULES),
                                 ("wrong_score", rules.wrong_score, WRONG_SCORE_RULES)):
        if value not in allowed:
            raise SpecError(f"{where}: {name} must be one of {allowed}, got {value!r}")
    for name in ("early_turns", "early_minimum", "late_minimum", "free_warnings", "warning_penalty"):
        if getattr(rules, name) < 0:
            raise SpecError(f"{where}: {name} must be >= 0")
    return rules


def spec_path(lang: str | Path) -> Path:
    """``lexicons/<lang>/spec.toml`` for a language code, or the spec in a folder/path."""
    p = Path(lang)
    if p.suffix == ".toml":
        return p
    if p.is_dir():
        return p / "spec.toml"
    return LEXICONS / str(lang) / "spec.toml"


def load_spec(lang: str | Path) -> LanguageSpec:
    """Read and check a language spec.

    ``lang`` is a code (``"es"``: ``lexicons/es/spec.toml``), a language folder or a
    ``.toml`` path. Raises SpecError naming the file and the field for a missing file, bad
    TOML, a missing or wrong field, or inconsistent values.
    """
    path = spec_path(lang)
    if not path.is_file():
        raise SpecError(f"{path}: no language spec here (expected lexicons/<lang>/spec.toml)")
    try:
        d = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{path}: not valid TOML: {e}") from None
    w = str(path)
    lang_t = _need(d, "language", dict, w)
    wl = _need(d, "wordlist", dict, w)
    tiles_t = _need(d, "tiles", dict, w)
    blank_t = _need(d, "blank", dict, w)
    rules = _need(d, "rules", dict, w)
    board_t = _need(d, "board", dict, w)
    letters = _need(tiles_t, "letters", list, f"{w} [tiles]")
    if not letters:
        raise SpecError(f"{w} [tiles]: 'letters' is empty")
    syms, counts, values = [], [], []
    for i, t in enumerate(letters):
        where = f"{w} [tiles] letters[{i}]"
        if not isinstance(t, dict):
            raise SpecError(f"{where}: expected {{ tile = ..., count = ..., value = ... }}")
        s = nfc(_need(t, "tile", str, where))
        c = _need(t, "count", int, where)
        v = _need(t, "value", int, where)
        if check_spelling(s) != "upper":
            # The readers (heuri.tiletext) must be able to read back what the writers write.
            raise SpecError(f"{where}: field 'tile' = {s!r} is not a tile spelling heuri can read "
                            f"and write: upper-case letters with a lower-case form, and between "
                            f"letters only {' '.join(JOINERS)} (L·L); no digits, spaces, '.', "
                            f"apostrophes or hyphens")
        if s in syms:
            raise SpecError(f"{where}: tile {s!r} appears twice")
        if c < 0 or v < 0:
            raise SpecError(f"{where}: count and value must be >= 0")
        syms.append(s); counts.append(c); values.append(v)
    if len(syms) > 63:
        raise SpecError(f"{w} [tiles]: at most 63 letter tiles are supported, got {len(syms)}")
    end_rule = _need(rules, "end_rule", str, f"{w} [rules]")
    if end_rule not in END_RULES:
        raise SpecError(f"{w} [rules]: end_rule must be one of {END_RULES}, got {end_rule!r}")
    layout = _need(board_t, "layout", list, f"{w} [board]")
    n = len(layout)
    if n < 1 or any(not isinstance(r, str) or len(r) != n for r in layout):
        raise SpecError(f"{w} [board]: layout must be {n} strings of {n} characters")
    for r, row in enumerate(layout):
        bad = set(row) - set(PREMIUM_CHARS)
        if bad:
            raise SpecError(f"{w} [board]: layout row {r + 1} has {sorted(bad)}; use {PREMIUM_CHARS}")
    if sum(row.count("*") for row in layout) != 1:
        raise SpecError(f"{w} [board]: layout needs exactly one centre square '*'")
    replace = _need(wl, "replace", dict, f"{w} [wordlist]")
    source = wl.get("source", "list")
    if source not in WORDLIST_SOURCES:
        raise SpecError(f"{w} [wordlist]: field 'source' must be one of {WORDLIST_SOURCES}, got {source!r}")
    if source == "hunspell":
        dic = _need(wl, "dic", str, f"{w} [wordlist] (source = \"hunspell\")")
        aff = _need(wl, "aff", str, f"{w} [wordlist] (source = \"hunspell\")")
        wordlist_file = ""
    elif source == "import":
        dic = aff = wordlist_file = ""
    else:
        dic = aff = ""
        wordlist_file = _need(wl, "file", str, f"{w} [wordlist]")
    recog = d.get("recognise", {})
    if not isinstance(recog, dict):
        raise SpecError(f"{w} [recognise]: expected a table with 'lexicons' and 'distributions'")
    names = {}
    for k in ("lexicons", "distributions"):
        v = recog.get(k, [])
        if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
            raise SpecError(f"{w} [recognise]: field '{k}' must be a list of non-empty strings, got {v!r}")
        names[k] = tuple(v)
    blank_count = _need(blank_t, "count", int, f"{w} [blank]")
    if "total" in tiles_t:
        total = _need(tiles_t, "total", int, f"{w} [tiles]")
        if sum(counts) + blank_count != total:
            raise SpecError(f"{w} [tiles]: field 'total' = {total} but the letter counts add up to "
                            f"{sum(counts)} and [blank] count to {blank_count} ({sum(counts) + blank_count})")
    spec = LanguageSpec(
        code=_need(lang_t, "code", str, f"{w} [language]"),
        name=_need(lang_t, "name", str, f"{w} [language]"),
        lexicon=_need(lang_t, "lexicon", str, f"{w} [language]"),
        tiles=tuple(syms), counts=tuple(counts), values=tuple(values),
        blank_count=blank_count,
        blank_value=_need(blank_t, "value", int, f"{w} [blank]"),
        blank_cannot_represent=tuple(nfc(x) for x in _need(blank_t, "cannot_represent", list, f"{w} [blank]")),
        rack_size=_need(rules, "rack_size", int, f"{w} [rules]"),
        bingo_bonus=_need(rules, "bingo_bonus", int, f"{w} [rules]"),
        exchange_min_bag=_need(rules, "exchange_min_bag", int, f"{w} [rules]"),
        end_rule=end_rule,
        max_scoreless_turns=_need(rules, "max_scoreless_turns", int, f"{w} [rules]"),
        board=tuple(layout),
        wordlist_file=wordlist_file,
        strip_accents=_need(wl, "strip_accents", bool, f"{w} [wordlist]"),
        keep=tuple(nfc(k) for k in _need(wl, "keep", list, f"{w} [wordlist]")),
        replace=tuple((str(k), str(v)) for k, v in replace.items()),
        path=path.parent,
        duplicate=_duplicate_rules(d, syms, w),
        wordlist_source=source, hunspell_dic=dic, hunspell_aff=aff,
        recognise_lexicons=names["lexicons"], recognise_distributions=names["distributions"],
    )
    if spec.rack_size < 2 or spec.rack_size > n:
        raise SpecError(f"{w} [rules]: rack_size {spec.rack_size} must be between 2 and {n}")
    if spec.code != path.parent.name and path.parent.parent == LEXICONS:
        raise SpecError(f"{w} [language]: code {spec.code!r} differs from its folder {path.parent.name!r}")
    return spec


def list_languages() -> list[str]:
    """Language codes with a spec under ``lexicons/`` (the pipeline's targets)."""
    return sorted(p.parent.name for p in LEXICONS.glob("*/spec.toml"))


def recognise_tiles(spellings, folders: "list[Path] | None" = None) -> str | None:
    """Language code of a board or rack from the tiles it uses: the one language whose
    tile set holds every spelling in ``spellings`` (upper case, brackets removed: ``Ñ``,
    ``CH``; the blank's ``?`` is not given), among the specs of ``lexicons/`` and the
    built packs (or the spec folders given). Spanish answers for a text with ``Ñ`` or
    ``CH``, Catalan for ``Ç``; plain A-Z letters fit several languages: None, as when no
    spec holds them all. Specs that do not load are skipped."""
    want = {nfc(x).upper() for x in spellings}
    if not want:
        return None
    if folders is None:
        folders = sorted(p.parent for p in build_root().glob("*/spec.toml")) + \
            sorted(p.parent for p in LEXICONS.glob("*/spec.toml"))
    hits = set()
    for f in folders:
        try:
            got = _code_and_tiles(str(f), (Path(f) / "spec.toml").stat().st_mtime_ns)
        except OSError:
            continue
        if got is not None and want <= got[1]:
            hits.add(got[0])
    return hits.pop() if len(hits) == 1 else None


@functools.lru_cache(maxsize=64)
def _code_and_tiles(folder: str, mtime_ns: int) -> "tuple[str, frozenset[str]] | None":
    """(code, tile spellings) of the spec in ``folder`` (read once per modification time),
    None when it does not load."""
    try:
        sp = load_spec(folder)
    except SpecError:
        return None
    return sp.code, frozenset(sp.tiles)


def recognise(lexicon: str | None, distribution: str | None = None,
              folders: "list[Path] | None" = None) -> str | None:
    """Language code of a record from its lexicon and distribution names, asked of every
    spec that can be loaded: the built packs' (``<build>/<lang>/spec.toml``, see
    :func:`heuri.pack.build_root`) and ``lexicons/<lang>/spec.toml``, or the spec folders
    given. The lexicon name decides first; a distribution name only when no lexicon
    matches. None when no spec, or more than one language, answers (ambiguous).
    Specs that do not load are skipped (the pack loader reports them when asked)."""
    if folders is None:
        folders = sorted(p.parent for p in build_root().glob("*/spec.toml")) + \
            sorted(p.parent for p in LEXICONS.glob("*/spec.toml"))
    specs = {}
    for f in folders:
        try:
            sp = load_spec(f)
        except SpecError:
            continue
        specs.setdefault(sp.code, []).append(sp)
    for lx, ld in ((lexicon, None), (None, distribution)):
        hits = sorted(c for c, sps in specs.items() if any(sp.answers_to(lx, ld) for sp in sps))
        if len(hits) == 1:
            return hits[0]
        if hits:
            return None
    return None
