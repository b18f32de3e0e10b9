"""Interface languages: the messages a person reads, in English, Spanish or French.

The web board, the analysis report and the duplicate ranking speak the player's language.
English text in the source is the message id; the catalogues under ``heuri/apps/locale``
(gettext ``.po`` files, ``locale/<lang>/LC_MESSAGES/heuri.po``, with the template
``locale/heuri.pot``) give the Spanish and French. They are read with Babel
(:func:`babel.messages.pofile.read_po`) and compiled in memory when first used, so a
clean clone works as it is (``pip install -e .``): there is no ``.mo`` file to build.

Where messages are marked:

- Python code that builds page or report text: ``_ = translator(language)``, then
  ``_("English text {n}").format(n=...)``;
- Jinja templates, once :func:`install` has run on their environment:
  ``{{ _("English text") }}``;
- the web board's script: ``t("English text {n}", {n: value})`` (``static/i18n.js``),
  with the catalogue from ``GET /api/messages`` (:func:`messages`);
- the web board's page (``static/index.html``): ``data-i18n`` on an element whose text is
  the message, ``data-i18n-html`` on one whose content is a message with ``<b>`` marks,
  ``data-i18n-attr="title placeholder"`` for attributes (:func:`extract_html`).

``python -m heuri.apps.i18n update`` extracts every marked message into ``heuri.pot`` and
merges it into each catalogue (new messages come in untranslated, changed ones fuzzy);
``python -m heuri.apps.i18n check`` lists the messages a catalogue does not translate
(see ``docs/i18n.md``).
"""

from __future__ import annotations

import gettext as _gettext
import io
import re
import sys
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path

#: The interface languages, in the order a language switch lists them.
INTERFACE_LANGUAGES: tuple[str, ...] = ("en", "es", "fr")
#: Each interface language's name in that language (the switch's labels).
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "es": "Español", "fr": "Français"}
#: The gettext domain: ``locale/<lang>/LC_MESSAGES/heuri.po``.
DOMAIN = "heuri"
#: The catalogues' folder (package data).
LOCALE_DIR = Path(__file__).parent / "locale"
#: The package's root (``runtime/heuri``): the sources whose messages are extracted.
PACKAGE_DIR = Path(__file__).resolve().parent.parent

#: Where messages are marked, for the extractor: ``(glob under the package, Babel
#: extraction method, keywords)``. Babel's ``python`` and ``javascript`` extractors,
#: Jinja2's (``jinja2.ext.babel_extract``) and :func:`extract_html` for the board's page.
SOURCES: tuple[tuple[str, str, dict], ...] = (
    ("**/*.py", "python", {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}),
    ("apps/templates/*.html", "jinja2.ext:babel_extract", {"_": None, "gettext": None, "ngettext": (1, 2)}),
    ("apps/web/static/*.js", "javascript", {"t": None, "N_": None}),
    ("apps/web/static/index.html", "heuri.apps.i18n:extract_html", {}),
)


def interface_language(language: str | None) -> str:
    """The interface language for ``language`` (a code such as ``"fr"``, ``"fr-CA"``,
    ``"es_ES"``, or None): its first part when it is one of :data:`INTERFACE_LANGUAGES`,
    else English.

    >>> interface_language("fr-CA"), interface_language("es_ES"), interface_language("pl"), interface_language(None)
    ('fr', 'es', 'en', 'en')
    """
    code = re.split(r"[-_]", (language or "").strip().lower(), maxsplit=1)[0]
    return code if code in INTERFACE_LANGUAGES else "en"


def negotiate(accept_language: str | None) -> str:
    """The interface language an ``Accept-Language`` header asks for: the first of its
    languages, by quality then order, that is an interface language; English when none is.

    >>> negotiate("de-DE,de;q=0.9,fr;q=0.8,en;q=0.5")
    'fr'
    >>> negotiate("es-419,es;q=0.9"), negotiate(""), negotiate(None)
    ('es', 'en', 'en')
    """
    asked = []
    for i, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        m = re.search(r"q\s*=\s*([0-9.]+)", params)
        if m:
            try:
                q = float(m.group(1))
            except ValueError:
                q = 0.0
        code = re.split(r"[-_]", tag.strip().lower(), maxsplit=1)[0]
        if code in INTERFACE_LANGUAGES and q > 0:
            asked.append((-q, i, code))
    return min(asked)[2] if asked else "en"


def catalogue_path(language: str) -> Path:
    """The ``.po`` file of ``language`` (``locale/<lang>/LC_MESSAGES/heuri.po``)."""
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@lru_cache(maxsize=None)
def catalogue(language: str):
    """The :class:`babel.messages.catalog.Catalog` of ``language`` (``"es"``, ``"fr"``),
    read from its ``.po`` file; None for English (the source's own text) and for a
    language without a catalogue."""
    from babel.messages.pofile import read_po

    if language == "en":
        return None
    path = catalogue_path(language)
    if not path.is_file():
        return None
    with open(path, "rb") as fh:
        return read_po(fh, locale=language, domain=DOMAIN)


@lru_cache(maxsize=None)
def translations(language: str | None) -> _gettext.NullTranslations:
    """The :class:`gettext.GNUTranslations` of ``language`` (its catalogue compiled in
    memory with :func:`babel.messages.mofile.write_mo`; fuzzy entries left out), or
    :class:`gettext.NullTranslations` (English) for English and any other language."""
    from babel.messages.mofile import write_mo

    cat = catalogue(interface_language(language))
    if cat is None:
        return _gettext.NullTranslations()
    buf = io.BytesIO()
    write_mo(buf, cat, use_fuzzy=False)
    buf.seek(0)
    return _gettext.GNUTranslations(buf)


def translator(language: str | None):
    """The ``gettext`` function for *language* (``"en"``, ``"es"``, ``"fr"``; a regional
    code such as ``"fr-CA"`` is its language).

    Returns a callable ``str -> str``: the message's translation, or the message itself
    (English) when the catalogue has none. An unknown or missing language answers in
    English.

    >>> translator("fr")("turn")
    'coup'
    >>> translator("pl")("turn")
    'turn'
    """
    return translations(language).gettext


def messages(language: str | None) -> dict[str, str]:
    """The web board's catalogue: ``{English message: translation}`` of ``language``, its
    translated entries only (none that are fuzzy); ``{}`` for English."""
    cat = catalogue(interface_language(language))
    if cat is None:
        return {}
    out = {}
    for m in cat:
        if m.id and isinstance(m.id, str) and isinstance(m.string, str) and m.string and not m.fuzzy:
            out[m.id] = m.string
    return out


def install(env, language: str | None) -> None:
    """Make ``_`` (gettext) and ``ngettext`` available to the templates of Jinja
    environment *env*, in *language*; ``lang`` is the interface language's code (for
    ``<html lang>``)."""
    tr = translations(language)
    env.globals["_"] = tr.gettext
    env.globals["ngettext"] = tr.ngettext
    env.globals["ui_lang"] = interface_language(language)


# -- the page's marks ---------------------------------------------------------------------
def _squash(text: str) -> str:
    return " ".join(text.split())


class _Marks(HTMLParser):
    """Collects the messages of an HTML page's ``data-i18n``, ``data-i18n-html`` and
    ``data-i18n-attr`` marks, with their line numbers."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self.open: list[list] = []  # [tag, line, kind, parts, depth]

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        line = self.getpos()[0]
        for name in (a.get("data-i18n-attr") or "").split():
            if a.get(name):
                self.found.append((line, _squash(a[name])))
        for frame in self.open:
            frame[4] += 1
            if frame[2] == "html" and tag == "b":
                frame[3].append("<b>")
        kind = "text" if "data-i18n" in a else "html" if "data-i18n-html" in a else None
        if kind:
            self.open.append([tag, line, kind, [], 0])

    def handle_endtag(self, tag):
        for frame in self.open:
            if frame[2] == "html" and tag == "b" and frame[4] > 0:
                frame[3].append("</b>")
        if self.open and self.open[-1][4] == 0 and self.open[-1][0] == tag:
            _, line, _, parts, _ = self.open.pop()
            text = _squash("".join(parts))
            if text:
                self.found.append((line, text))
        for frame in self.open:
            frame[4] = max(0, frame[4] - 1)

    def handle_data(self, data):
        for frame in self.open:
            frame[3].append(data)


def extract_html(fileobj, keywords, comment_tags, options):
    """Babel extraction method for the web board's page: yields ``(line, None, message,
    [])`` for each ``data-i18n`` element (its text, whitespace squashed), each
    ``data-i18n-html`` element (its content with ``<b>`` marks kept) and each attribute
    named by ``data-i18n-attr``."""
    text = fileobj.read().decode("utf-8")
    p = _Marks()
    p.feed(text)
    p.close()
    for line, message in p.found:
        yield line, None, message, []


# -- extraction and update ------------------------------------------------------------------
def extract_template(package_dir: Path | None = None):
    """A :class:`babel.messages.catalog.Catalog` (the template) of every message marked in
    the sources of :data:`SOURCES` under ``package_dir`` (default: this package), each with
    the places it is marked."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_file

    from ..core.version import __version__

    root = Path(package_dir or PACKAGE_DIR)
    cat = Catalog(project="heuri", version=__version__, copyright_holder="the heuri contributors",
                  msgid_bugs_address="", domain=DOMAIN, charset="utf-8", fuzzy=False)
    seen = set()
    for pattern, method, keywords in SOURCES:
        for path in sorted(root.glob(pattern)):
            if path in seen or "locale" in path.parts:
                continue
            seen.add(path)
            rel = path.relative_to(root.parent).as_posix()
            for line, message, comments, context in extract_from_file(
                    method, str(path), keywords=keywords, comment_tags=("i18n:",), strip_comment_tags=True):
                cat.add(message, None, [(rel, line)], auto_comments=comments, context=context)
    return cat


def update(package_dir: Path | None = None, languages=("es", "fr")) -> dict[str, list[str]]:
    """Extract the template (``locale/heuri.pot``) and merge it into each language's
    catalogue (Babel's ``Catalog.update``: a new message comes in untranslated, a changed
    one fuzzy with its old translation as a hint, a removed one is kept as obsolete,
    ``#~``). A message that comes back, or is translated ahead as an obsolete entry, takes
    its obsolete translation again. Returns ``{language: untranslated or fuzzy messages}``."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po, write_po

    root = Path(package_dir or PACKAGE_DIR)
    locale_dir = root / "apps" / "locale"
    template = extract_template(root)
    pot = locale_dir / f"{DOMAIN}.pot"
    if pot.is_file():  # the same messages: the same file (no new date to commit)
        with open(pot, "rb") as fh:
            old = read_po(fh, domain=DOMAIN)

        def entries(c):
            return [(m.id, sorted({f for f, _ in m.locations}), m.auto_comments) for m in c if m.id]

        if entries(old) == entries(template):
            template.creation_date = old.creation_date
    locale_dir.mkdir(parents=True, exist_ok=True)
    with open(pot, "wb") as fh:
        write_po(fh, template, width=100, omit_header=False, sort_output=False, include_lineno=False)
    missing = {}
    for lang in languages:
        path = locale_dir / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
        if path.is_file():
            with open(path, "rb") as fh:
                cat = read_po(fh, locale=lang, domain=DOMAIN)
        else:
            cat = Catalog(locale=lang, domain=DOMAIN, project="heuri", charset="utf-8", fuzzy=False)
        kept = {_key(m): (key, m) for key, m in cat.obsolete.items() if m.string and not m.fuzzy}
        cat.update(template, no_fuzzy_matching=False, update_header_comment=False)
        for m in cat:
            if m.id and (not m.string or m.fuzzy) and _key(m) in kept:
                key, old = kept[_key(m)]
                m.string = old.string
                m.flags.discard("fuzzy")
                m.previous_id = []
                cat.obsolete.pop(key, None)
        cat.project, cat.version, cat.msgid_bugs_address = template.project, template.version, ""
        cat.copyright_holder = template.copyright_holder
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as fh:
            write_po(fh, cat, width=100, omit_header=False, include_lineno=False, ignore_obsolete=False)
        missing[lang] = [m.id for m in cat if m.id and (not m.string or m.fuzzy)]
    catalogue.cache_clear()
    translations.cache_clear()
    return missing


def _key(message):
    """A catalogue entry's identity: its message (a plural's singular) and context."""
    mid = message.id if isinstance(message.id, str) else message.id[0]
    return mid, message.context


def untranslated(languages=("es", "fr"), package_dir: Path | None = None) -> dict[str, list[str]]:
    """``{language: messages}``: each message marked in the sources that the language's
    catalogue does not translate (missing, empty or fuzzy). Empty lists: all translated."""
    template = extract_template(package_dir)
    out = {}
    for lang in languages:
        cat = catalogue(lang)
        out[lang] = [m.id for m in template if m.id and (cat is None or cat.get(m.id) is None
                                                         or not cat.get(m.id).string or cat.get(m.id).fuzzy)]
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m heuri.apps.i18n update|check``: see the module doc."""
    args = sys.argv[1:] if argv is None else argv
    if args not in (["update"], ["check"]):
        print("usage: python -m heuri.apps.i18n update|check\n"
              "  update: extract the marked messages into locale/heuri.pot and merge them into es and fr\n"
              "  check:  list the messages a catalogue does not translate (exit 1 if any)", file=sys.stderr)
        return 2
    missing = update() if args == ["update"] else untranslated()
    for lang, ids in missing.items():
        print(f"{lang}: {len(ids)} message(s) to translate in {catalogue_path(lang)}")
        for m in ids:
            print(f"  {m!r}")
    return 1 if any(missing.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
