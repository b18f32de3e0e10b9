"""Evaluation: the augmented bag and p(s | L), the bingo term δ on the real board, leave
quality, the evaluators, and the engine registry.

Imports only from :mod:`heuri.core` and :mod:`heuri.formats` (see docs/architecture.md)."""
