"""Read the words of a Quackle DAWG file (``.dawg``, Quackle's lexicon format, version 1).

The format, as Quackle writes it (quackleio/dawgfactory.cpp) and reads it
(lexiconparameters.cpp):

- byte 0: the format version, 1;
- bytes 1-16: a hash of the word list (Quackle names the lexicon by it);
- bytes 17-19: the number of words, big-endian;
- byte 20: the number of letters N, then the N letters' texts in UTF-8, each followed by
  one space (``A B C ...``; Polish ``A Ą B ...``);
- then 7-byte nodes to the end of the file. Node 0 is the root; each node is:
  bytes 0-2 the index of its first child (big-endian; 0: no children), byte 3 the letter
  (bits 0-5: index into the header's letters; bit 6: last child of its parent; bit 7: the
  word is also in the smaller list of a two-list DAWG), bytes 4-6 the word's playability
  (big-endian; not 0 exactly when the path ending here spells a word).

Version 0 (no header, no alphabet) is not read: such a file does not say which letters its
numbers stand for.
"""
from __future__ import annotations

from pathlib import Path

from heuri.errors import WordListError

NODE = 7
HEADER_FIXED = 21
#: The longest word a path may spell before the file is taken as corrupt (a cycle).
MAX_DEPTH = 64


def read_dawg(path: Path) -> tuple[list[str], list[tuple[int, ...]], int]:
    """``(letters, words, declared)`` of the Quackle DAWG at ``path``: the header's letter
    texts (index 0 first), each word as a tuple of letter indices in the graph's order, and
    the word count the header declares.

    Raises WordListError naming the file and the byte offset for another version than 1, a
    header cut short or not UTF-8, a node area that is not a whole number of 7-byte nodes,
    a child index past the last node, a letter index past the alphabet, or a path longer
    than :data:`MAX_DEPTH` (a cycle)."""
    raw = Path(path).read_bytes()
    if not raw:
        raise WordListError(f"{path}: empty file, not a Quackle DAWG (byte offset 0)")
    if raw[0] != 1:
        raise WordListError(f"{path}: Quackle DAWG version {raw[0]} at byte offset 0; heuri reads version 1 "
                            f"(the version that names its letters)")
    if len(raw) < HEADER_FIXED:
        raise WordListError(f"{path}: truncated Quackle DAWG: the header needs {HEADER_FIXED} bytes, "
                            f"the file ends at byte offset {len(raw)}")
    declared = int.from_bytes(raw[17:20], "big")
    n_letters = raw[20]
    letters, pos = [], HEADER_FIXED
    for k in range(n_letters):
        end = raw.find(b" ", pos)
        if end < 0:
            raise WordListError(f"{path}: truncated Quackle DAWG: letter {k + 1} of {n_letters} of the header "
                                f"has no end (byte offset {pos})")
        try:
            text = raw[pos:end].decode("utf-8")
        except UnicodeDecodeError:
            raise WordListError(f"{path}: corrupt Quackle DAWG: letter {k + 1} of the header is not UTF-8 "
                                f"(byte offset {pos})") from None
        if not text:
            raise WordListError(f"{path}: corrupt Quackle DAWG: letter {k + 1} of the header is empty "
                                f"(byte offset {pos})")
        letters.append(text)
        pos = end + 1
    body = raw[pos:]
    if len(body) % NODE:
        cut = pos + len(body) - len(body) % NODE
        raise WordListError(f"{path}: truncated Quackle DAWG: the nodes from byte offset {pos} are not a whole "
                            f"number of {NODE}-byte nodes (the last one starts at byte offset {cut})")
    n = len(body) // NODE
    if n < 1:
        raise WordListError(f"{path}: truncated Quackle DAWG: no root node (byte offset {pos})")

    def offset(i: int) -> int:
        return pos + NODE * i

    words: list[tuple[int, ...]] = []
    prefix: list[int] = []
    first = int.from_bytes(body[0:3], "big")
    if first >= n:
        raise WordListError(f"{path}: corrupt Quackle DAWG: the root (byte offset {pos}) points to node "
                            f"{first}, past the last node {n - 1}")
    stack = [first] if first else []
    while stack:
        i = stack[-1]
        if i >= n:
            raise WordListError(f"{path}: truncated Quackle DAWG: node {i - 1} (byte offset {offset(i - 1)}) "
                                f"is not the last child of its parent, but the file ends after it")
        o = NODE * i
        child = (body[o] << 16) | (body[o + 1] << 8) | body[o + 2]
        flags = body[o + 3]
        letter = flags & 63
        if letter >= n_letters:
            raise WordListError(f"{path}: corrupt Quackle DAWG: node {i} (byte offset {offset(i)}) has letter "
                                f"{letter}, the header names {n_letters} letters")
        stack[-1] = -1 if flags & 64 else i + 1
        del prefix[len(stack) - 1:]
        prefix.append(letter)
        if body[o + 4] | body[o + 5] | body[o + 6]:
            words.append(tuple(prefix))
        if child:
            if child >= n:
                raise WordListError(f"{path}: corrupt Quackle DAWG: node {i} (byte offset {offset(i)}) points "
                                    f"to node {child}, past the last node {n - 1}")
            if len(stack) >= MAX_DEPTH:
                raise WordListError(f"{path}: corrupt Quackle DAWG: a path longer than {MAX_DEPTH} letters at "
                                    f"node {i} (byte offset {offset(i)}): the graph has a cycle")
            stack.append(child)
        while stack and stack[-1] == -1:
            stack.pop()
    return letters, words, declared
