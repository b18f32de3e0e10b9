"""Interface languages: every marked message is translated in es and fr, translations keep
their placeholders, the web board gets its catalogue, and the board's script marks only
literal messages (the extractor sees them all)."""
from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from heuri.apps import i18n

STATIC = Path(i18n.__file__).parent / "web" / "static"


@pytest.fixture(scope="module")
def template():
    return i18n.extract_template()


def test_every_marked_message_is_translated(template):
    """A message marked in the Python code, the templates, the board's script or its page
    and missing from a catalogue (or only fuzzy there) fails here: run
    ``python -m heuri.apps.i18n update``, translate what it lists, and commit the .po files."""
    ids = [m.id for m in template if m.id]
    assert len(ids) > 200  # the board, the report and the ranking are marked
    assert i18n.untranslated() == {"es": [], "fr": []}


def test_the_extractor_finds_each_kind_of_mark(template):
    where = {(m.id if isinstance(m.id, str) else m.id[0]): {p for p, _ in m.locations} for m in template if m.id}
    assert "heuri/apps/web/static/index.html" in where["Rank moves"]  # data-i18n
    assert "heuri/apps/web/static/index.html" in where["tile palette"]  # data-i18n-attr
    assert any("<b>[CH]</b>" in k for k in where)  # data-i18n-html keeps its <b> marks
    assert "heuri/apps/web/static/app.js" in where["Type a rack first (e.g. {rack})."]  # t("...")
    assert "heuri/apps/web/static/i18n.js" in where["{move} places no tile."]  # N_("...")
    assert "heuri/apps/templates/game.html" in where["Summary"]  # {{ _("...") }}
    assert "heuri/apps/templates/ranking.html" in where["Players' moves"]
    assert "heuri/apps/report.py" in where["Score and spread"]  # _ = translator(...)
    assert "{n} turn" in where  # ngettext: the singular is the id


def test_translations_keep_placeholders_and_marks():
    """``{name}`` placeholders and ``<b>`` marks of a message are all in its translation
    (a missing one would print a wrong sentence or raise KeyError in .format)."""
    def marks(s):
        return sorted(re.findall(r"\{\w*\}", s)), s.count("<b>"), s.count("</b>")

    for lang in ("es", "fr"):
        for m in i18n.catalogue(lang):
            if not m.id:
                continue
            ids = [m.id] if isinstance(m.id, str) else list(m.id)
            strings = [m.string] if isinstance(m.string, str) else list(m.string)
            for s in strings:
                assert marks(s) == marks(ids[-1]), (lang, m.id, s)


def test_each_catalogue_is_in_its_own_language():
    """No French entry carries the Spanish translation (a merge of the catalogues once put
    Spanish sentences into the French one): where both translate a message, and the
    translation differs from the English, the two differ. Words the two languages share
    ("scrabble", "top") are short and said alike on purpose; they are listed."""
    shared = {"bingo", "bingo %", "p(bingo)", "Position", "Top", "top"}
    es = {m.id: m.string for m in i18n.catalogue("es") if m.id and isinstance(m.id, str)}
    same = [m.id for m in i18n.catalogue("fr")
            if m.id and isinstance(m.id, str) and m.id not in shared and m.string
            and m.string == es.get(m.id) and m.string != m.id]
    assert same == []
    fr = i18n.translator("fr")
    assert fr("Coordinates") == "Coordonnées" and fr("leave quality") == "qualité du reliquat"


def test_club_vocabulary():
    """The Scrabble words as the clubs say them (docs/i18n.md gives the sources)."""
    fr, es = i18n.translator("fr"), i18n.translator("es")
    assert [fr(w) for w in ("rack", "leave", "bingo", "blank (red letter, no value)", "turn", "game", "bag",
                            "draw", "pass", "Exchange")] == \
        ["tirage", "reliquat", "scrabble", "joker (lettre rouge, sans valeur)", "coup", "partie", "pioche",
         "tirage", "passe", "Échanger"]
    assert [es(w) for w in ("rack", "bingo", "a blank", "move", "game", "bag", "pass", "Exchange")] == \
        ["atril", "scrabble", "un comodín", "jugada", "partida", "bolsa", "pase", "Cambiar"]
    assert fr("two moves handed in for one turn") == "plusieurs bulletins pour le même coup"  # FISF's words
    tr = i18n.translations("fr")
    assert tr.ngettext("{n} tile", "{n} tiles", 1).format(n=1) == "1 jeton"
    assert tr.ngettext("{n} tile", "{n} tiles", 7).format(n=7) == "7 jetons"
    assert i18n.translator("en")("turn") == i18n.translator(None)("turn") == "turn"


def test_languages_are_negotiated():
    assert i18n.negotiate("fr-CH, fr;q=0.9, en;q=0.8") == "fr"
    assert i18n.negotiate("de-DE,es;q=0.5,fr;q=0.4") == "es"
    assert i18n.negotiate("fr;q=0,es;q=0.1") == "es"  # q=0: not wanted
    assert i18n.negotiate("pt-BR") == "en"
    assert i18n.interface_language("es-AR") == "es" and i18n.interface_language("xx") == "en"


def test_the_board_marks_only_literal_messages():
    """``t(...)`` takes a literal English message (the extractor cannot read a variable or a
    template string); dynamic words go in as ``{placeholders}``."""
    js = (STATIC / "app.js").read_text(encoding="utf-8")
    calls = re.findall(r"(?<![\w.])(?:window\.)?t\(\s*(.)", js)
    assert len(calls) > 50
    assert set(calls) == {'"'}, "a t(...) call whose message is not a double-quoted literal"


def test_the_page_gets_its_catalogue(pack_es):
    pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e .[web])")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from heuri.web.app import create_app
    from heuri.web.service import Service

    app = create_app(Service(packs={"es": pack_es}), port=8765)
    with warnings.catch_warnings(), TestClient(app, base_url="http://127.0.0.1:8765") as c:
        warnings.simplefilter("ignore")
        d = c.get("/api/messages?lang=fr").json()
        assert d["lang"] == "fr" and d["messages"]["Rank moves"] == "Classer les coups"
        assert [x["code"] for x in d["languages"]] == ["en", "es", "fr"]
        d = c.get("/api/messages", headers={"accept-language": "es-ES,es;q=0.9,en;q=0.5"}).json()
        assert d["lang"] == "es" and d["messages"]["Rack"] == "Atril"
        d = c.get("/api/messages?lang=pl", headers={"accept-language": "fr"}).json()
        assert d == {"lang": "en", "languages": d["languages"], "messages": {}}  # asked for: no catalogue
        r = c.get("/api/messages")
        assert r.json()["lang"] == "en" and "script-src 'self'" in r.headers["content-security-policy"]


def test_the_commands_take_a_page_language():
    from heuri.apps.cli import build_parser

    ap = build_parser()
    assert ap.parse_args(["analyze", "games/", "--ui-lang", "fr"]).ui_lang == "fr"
    assert ap.parse_args(["analyze", "games/"]).ui_lang is None  # each game's language
    args = ap.parse_args(["duplicate", "score", "--game", "g.gcg", "--sheets", "s/", "--ui-lang", "es"])
    assert args.ui_lang == "es"
    with pytest.raises(SystemExit):
        ap.parse_args(["analyze", "games/", "--ui-lang", "de"])  # not an interface language


def test_update_merges_and_keeps_translations_of_messages_that_come_back(tmp_path):
    """``update`` on a small package: a new message comes in untranslated, one translated
    ahead as an obsolete entry (``#~``) takes its translation, and a removed one stays
    obsolete with its translation."""
    from babel.messages.pofile import read_po

    pkg = tmp_path / "heuri"
    (pkg / "apps").mkdir(parents=True)
    src = pkg / "apps" / "page.py"
    src.write_text('_ = str\nA = _("Hello {name}")\nB = _("New message")\n', encoding="utf-8")
    po = pkg / "apps" / "locale" / "fr" / "LC_MESSAGES" / "heuri.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n\n'
                  '#~ msgid "Hello {name}"\n#~ msgstr "Bonjour {name}"\n', encoding="utf-8")
    assert i18n.update(pkg, languages=("fr",)) == {"fr": ["New message"]}
    cat = read_po(po.open("rb"))
    assert cat.get("Hello {name}").string == "Bonjour {name}" and cat.get("New message").string == ""
    assert "Hello {name}" in (pkg / "apps" / "locale" / "heuri.pot").read_text(encoding="utf-8")
    src.write_text('_ = str\nB = _("New message")\n', encoding="utf-8")
    assert i18n.update(pkg, languages=("fr",)) == {"fr": ["New message"]}
    cat = read_po(po.open("rb"))
    assert cat.get("Hello {name}") is None and cat.obsolete["Hello {name}"].string == "Bonjour {name}"
