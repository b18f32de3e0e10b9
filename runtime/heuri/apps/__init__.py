"""Applications over the layers below: game analysis and its report, duplicate and its
arbitration, the topping trainer, the web board and the command line.

Nothing below imports from here (see docs/architecture.md)."""
