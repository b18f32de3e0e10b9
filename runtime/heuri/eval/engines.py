"""The engine registry: every engine name a front end accepts, in one table.

Pure data (no compiled code is imported here), so that the command line's parser, SIU's
option list and the web board can list the engines without loading the evaluators.
"""
from __future__ import annotations

#: the engine a front end uses when none is named (``heuri best``, SIU's ``Engine``, ``heuri
#: serve``): the strongest measured one (docs, "Strength against the peers").
DEFAULT_ENGINE = "heuri5"
