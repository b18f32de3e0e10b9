"""Playing games: players over the engine registry, matches, the SIU server and its
backend, the SIU client for external engines.

Imports only from the layers below (core, formats, eval, search; see docs/architecture.md)."""
