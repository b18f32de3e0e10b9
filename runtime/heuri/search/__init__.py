"""Search over the evaluators: the exact and width-limited endgame, the pre-endgame.

Imports only from the layers below (core, formats, eval; see docs/architecture.md)."""
