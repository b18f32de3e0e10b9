"""GCG reader/writer: syntax, pragmas, encodings, event kinds, errors with line numbers."""
from __future__ import annotations

from pathlib import Path

import pytest

from heuri.errors import GcgError
from heuri.gcg import detect_end_rule, read_gcg, read_gcg_file, replay, write_gcg
from heuri.spec import load_spec

from shared_cases import ALL_CASES, CASES
EN = load_spec("en")

HEAD = "#character-encoding UTF-8\n#player1 p1 Player One\n#player2 p2 Player Two\n"


def test_event_kinds_and_fields():
    g = read_gcg(HEAD + (
        ">p1: AEINRST 8D RETSINA +66 66\n"
        ">p2: EEEEEEE -EEE +0 0\n"
        ">p1: ?ADEHLW 9F ZAW +20 86\n"
        ">p1: ?ADEHLW --  -20 66\n"
        ">p2: ABCDEFG -3 +0 0\n"
        ">p1: ABCDEFG -  +0 66\n"
        ">p2: - +0 0\n"
        ">p1:  (challenge) +5 71\n"
        ">p2: (OPEG) +14 14 extra note\n"
        ">p1: NU (NU) -2 69\n"
        ">p1: NU (time) -10 59\n"))
    kinds = [e.kind for e in g.events]
    assert kinds == ["play", "exchange", "play", "withdrawn", "exchange", "pass", "pass", "challenge",
                     "end_points", "end_penalty", "time"]
    e = g.events[0]
    assert (e.line, e.nick, e.player, e.rack, e.move, e.score, e.total) == (4, "p1", 0, "AEINRST", "8D RETSINA", 66, 66)
    assert g.events[4].move == "-3" and g.events[6].rack == "" and g.events[8].note == "extra note"
    assert g.events[8].move == "OPEG" and g.events[9].move == "NU"
    assert g.players == [("p1", "Player One"), ("p2", "Player Two")]
    assert g.pragma("character-encoding") == "UTF-8"


def test_write_round_trip_semantic_and_exact():
    text = (CASES / "en" / "002.gcg").read_text()
    g = read_gcg(text)
    assert write_gcg(g) == text.rstrip("\n") + "\n"                 # single-spaced file: exact
    for f in sorted(ALL_CASES.glob("*/*.gcg")):
        try:
            g = read_gcg(f)
        except GcgError:
            continue
        g2 = read_gcg(write_gcg(g))
        assert [e.text() for e in g2.events] == [e.text() for e in g.events], f
        assert [(p.name, p.value) for p in g2.pragmas] == [(p.name, p.value) for p in g.pragmas], f


def test_latin1_crlf_and_lowercase_coordinates():
    g = read_gcg(CASES / "en" / "042.gcg")                  # Latin-1, no encoding pragma
    assert g.players[0][1] == "Jugador Número Uno"
    g = read_gcg(CASES / "en" / "079.gcg")                  # CRLF
    assert all("\r" not in e.move for e in g.events if e.move)
    g = read_gcg(CASES / "en" / "011.gcg")                  # Quackle: '8d', spacing, trailing text
    assert g.events[0].move == "8d JETON" and g.events[2].note == "BE, ET, DO"
    data = (HEAD.replace("#character-encoding UTF-8\n", "") + ">p1: AEINRST 8D RETSINA +66 66\n").encode("latin-1")
    assert read_gcg(data).events[0].score == 66


def test_tile_alias_pragmas_and_digraphs():
    g = read_gcg(CASES / "es" / "001.gcg")
    assert [p.value for p in g.pragmas if p.name == "tile"] == ["[CH] [ch]", "[LL] [ll]", "[RR] [rr]"]
    assert g.guess_language() == "es"
    assert read_gcg(CASES / "fr" / "001.gcg").guess_language() == "fr"
    assert read_gcg(CASES / "en" / "002.gcg").guess_language() == "en"
    assert read_gcg(CASES / "en" / "001.gcg").guess_language() is None


@pytest.mark.parametrize("text,kind,line", [
    ("", "empty-file", 0),
    ("#character-encoding ASCII\n#player1 a A\n", "unsupported-encoding", 1),
    ("#player1 a A\n#character-encoding UTF-8\n", "misplaced-encoding", 2),
    (HEAD + "#title x\n#title y\n", "redundant-pragma", 5),
    (HEAD + ">p1: AB 8G AB +8 8\n#lexicon CSW21\n", "pragma-after-events", 5),
    ("#player1 p1 A\n#player2 p1 B\n", "duplicate-nicknames", 2),
    (HEAD + "#game-type lonify\n", "unknown-game-variant", 4),
    (HEAD + ">p3: AB 8G AB +8 8\n", "unknown-player", 4),
    (HEAD + ">p1: A3B 8G AB +8 8\n", "malformed-rack", 4),
    (HEAD + ">p1: AB 8G A2B +8 8\n", "malformed-play", 4),
    (HEAD + ">p1: AB 8G AB 8 8\n", "malformed-line", 4),
    (HEAD + ">p1: AB 8G AB +8\n", "malformed-line", 4),
    (HEAD + ">p1: AB foo +8 8\n", "malformed-play", 4),
    (HEAD + "hello\n", "malformed-line", 4),
    (HEAD + ">p1: (#) +2 2\n", "malformed-rack", 4),
])
def test_reader_errors(text, kind, line):
    with pytest.raises(GcgError) as e:
        read_gcg(text)
    assert e.value.kind == kind and e.value.line == line
    if line:
        assert f":{line}:" in str(e.value)


def test_end_rule_detection():
    assert detect_end_rule(read_gcg(CASES / "en" / "033.gcg")) == "transfer"   # Quackle: (T) +1, T (T) -1
    assert detect_end_rule(read_gcg(CASES / "en" / "001.gcg")) == "double"     # Woogles: (BLONST) +16
    assert detect_end_rule(read_gcg(CASES / "en" / "013.gcg")) is None


def test_replay_reports_mismatch_not_rescore():
    g = read_gcg(HEAD + ">p1: AEINRST 8D RETSINA +60 60\n>p2: ABCDEFG 9D AB +10 10\n")
    r = replay(g, EN)
    assert not r.ok and len(r.mismatches) == 1
    m = r.mismatches[0]
    assert (m.line, m.recorded_score, m.engine_score, m.recorded_total, m.engine_total) == (4, 60, 66, 60, 66)
    assert r.steps[0].recorded_totals == [60, 0] and r.steps[0].engine_totals == [66, 0]


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(GcgError) as e:
        read_gcg(tmp_path / "nope.gcg")
    assert e.value.kind == "no-file" and "nope.gcg" in str(e.value)
    with pytest.raises(GcgError) as e:
        read_gcg_file(str(tmp_path / "nope.gcg"))
    assert e.value.kind == "no-file" and "nope.gcg" in str(e.value)


def test_text_is_never_taken_for_a_file_name():
    """A one-line str naming an existing record is read as a record's text (and refused),
    never opened; read_gcg_file opens it."""
    name = str(CASES / "en" / "002.gcg")
    with pytest.raises(GcgError) as e:
        read_gcg(name)
    assert e.value.kind == "malformed-line" and e.value.line == 1
    assert len(read_gcg_file(name).events) == len(read_gcg(Path(name)).events) == 32


# -- what players' tools write, read right ---------------------------------------------
PLAYERS = "#player1 p1 Player One\n#player2 p2 Player Two\n"
# 8H ANTSIER: 8 points doubled by the centre, + 50; N2 DITZIE(S) scored by the engine (38)
OPENING = PLAYERS + ">p1: AEINRST 8H ANTSIER +66 66\n>p2: DEIILTZ N2 DITZIE. +38 38\n"


def test_byte_order_mark_is_stripped(tmp_path):
    text = "#character-encoding UTF-8\n" + OPENING
    f = tmp_path / "bom.gcg"
    f.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    for src in (f, f.read_bytes(), "\ufeff" + text):
        g = read_gcg(src)
        assert g.pragma("character-encoding") == "UTF-8" and len(g.events) == 2
    # without an encoding pragma too
    assert len(read_gcg(b"\xef\xbb\xbf" + OPENING.encode()).events) == 2


def test_multi_line_note_is_one_note_and_round_trips():
    text = OPENING + "#note A long note\nthat runs over\n\nthree lines\n>p1: ?AEHLOW 9G HAW +28 94\n"
    g = read_gcg(text)
    notes = [p for p in g.pragmas if p.name == "note"]
    assert len(notes) == 1 and notes[0].value == "A long note\nthat runs over\nthree lines"
    assert len(g.events) == 3 and g.events[2].move == "9G HAW"
    g2 = read_gcg(write_gcg(g))
    assert [(p.name, p.value) for p in g2.pragmas] == [(p.name, p.value) for p in g.pragmas]
    # a stray line that follows no note is still refused, with its line
    with pytest.raises(GcgError) as e:
        read_gcg(OPENING + "stray text\n")
    assert e.value.kind == "malformed-line" and e.value.line == 5


def test_tolerated_oddities_are_warnings_with_their_line():
    g = read_gcg("#note before anything\n#player1 a Sam Smith\n#player2 b Sam Smith\n"
                 ">a: AEINRST 8H ANTSIER +66 66\n#rack2 DEIILTZ\n>b: DEIILTZ N2 DITZIE. +38 38\n")
    assert g.warnings == [(0, "players 'a' and 'b' share the full name 'Sam Smith'"),
                          (1, "#note before the first move: a note comments on the move before it"),
                          (5, "#rack2 DEIILTZ stands before the last move (line 6); a #rackN line "
                              "gives a rack after the last move")]
    r = replay(g, EN)
    assert r.ok and r.warnings[:3] == g.warnings


def test_player_numbers_start_at_one():
    # found by the fuzz suite: '#player0' indexed the player list from the end (IndexError)
    with pytest.raises(GcgError) as e:
        read_gcg("#player0 a A\n#player2 b B\n>a: AEINRST 8H ANTSIER +66 66\n")
    assert e.value.kind == "malformed-pragma" and e.value.line == 1

