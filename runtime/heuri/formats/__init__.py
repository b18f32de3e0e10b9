"""Game records and drawings over the core: GCG (read, replay, write) and the board as SVG.

Imports only from :mod:`heuri.core` (see docs/architecture.md)."""
