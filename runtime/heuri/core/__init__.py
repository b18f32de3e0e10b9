"""The ground layer: tiles and their spellings, the language spec and its built pack, the
board, moves, move generation (with its kernel interface), positions, games and CGP.

Imports nothing from the other layers (see docs/architecture.md)."""
