"""Read the words of a KWG file (the word graph of wolges, MAGPIE and Macondo).

The format, as documented by the wolges project (andy-k/wolges): a flat array of 32-bit
little-endian nodes, no header. Each node is one arc:

- bits 0-21: the index of the node where this arc's children start (0: no children);
- bit 22: the last arc of its sibling list ("is end");
- bit 23: the path ending with this arc spells a word ("accepts");
- bits 24-31: the tile: 1 .. n for the letters of the letter distribution in its order
  (1 = A in English), 0 for the GADDAG's separator.

Node 0's arc index is the DAWG's root (the first sibling list of first letters) and node 1's
the GADDAG's. Only the DAWG part is read here: it lists every word once, left to right.

heuri numbers the letters of a KWG by the language spec's ``[tiles] letters`` order: tile
1 is the spec's first letter (the order of MAGPIE's letter distributions, which the specs
of lexicons/ follow).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from heuri.errors import WordListError

ARC_MASK = 0x3FFFFF
IS_END = 0x400000
ACCEPTS = 0x800000
#: The longest word a DAWG path may spell before the file is taken as corrupt (a cycle).
MAX_DEPTH = 64


def _nodes(path: Path) -> np.ndarray:
    raw = Path(path).read_bytes()
    if len(raw) % 4:
        raise WordListError(f"{path}: truncated KWG: {len(raw)} bytes is not a whole number of "
                            f"4-byte nodes (the last node starts at byte offset {len(raw) - len(raw) % 4})")
    if len(raw) < 8:
        raise WordListError(f"{path}: not a KWG: {len(raw)} bytes, the two root nodes need 8 (byte offset 0)")
    return np.frombuffer(raw, dtype="<u4")


def read_kwg(path: Path) -> list[tuple[int, ...]]:
    """The DAWG words of the KWG at ``path``, each a tuple of tile numbers (1-based: 1 = the
    spec's first letter), in the graph's order (sorted by tile number).

    Raises WordListError naming the file and the byte offset of the bad node when the file
    is not a whole number of nodes, an arc points past the end, a sibling list runs off the
    end, an arc carries the separator tile 0 in the DAWG part, or a path is longer than
    :data:`MAX_DEPTH` (a cycle)."""
    arr = _nodes(path)
    n = len(arr)
    nodes = arr.tolist()  # Python ints: the walk reads each node once or a few times
    root = nodes[0] & ARC_MASK
    if root == 0 or root >= n:
        raise WordListError(f"{path}: corrupt KWG: the DAWG root (node 0, byte offset 0) points to node "
                            f"{root}, {'none' if root == 0 else f'past the last node {n - 1}'}")
    words: list[tuple[int, ...]] = []
    # Depth-first, each frame the index of the next arc to visit in a sibling list.
    prefix: list[int] = []
    stack = [root]
    while stack:
        i = stack[-1]
        if i >= n:
            raise WordListError(f"{path}: truncated KWG: node {i - 1} (byte offset {4 * (i - 1)}) is not "
                                f"the last of its sibling list, but the file ends after it")
        node = nodes[i]
        tile = node >> 24
        if tile == 0:
            raise WordListError(f"{path}: corrupt KWG: node {i} (byte offset {4 * i}) carries the "
                                f"separator tile 0 in the DAWG part")
        # Advance this frame to the sibling (or end it), then descend.
        if node & IS_END:
            stack[-1] = -1
        else:
            stack[-1] = i + 1
        del prefix[len(stack) - 1:]
        prefix.append(tile)
        if node & ACCEPTS:
            words.append(tuple(prefix))
        child = node & ARC_MASK
        if child:
            if child >= n:
                raise WordListError(f"{path}: corrupt KWG: node {i} (byte offset {4 * i}) points to node "
                                    f"{child}, past the last node {n - 1}")
            if len(stack) >= MAX_DEPTH:
                raise WordListError(f"{path}: corrupt KWG: a path longer than {MAX_DEPTH} tiles at node {i} "
                                    f"(byte offset {4 * i}): the graph has a cycle")
            stack.append(child)
        while stack and stack[-1] == -1:
            stack.pop()
    return words
