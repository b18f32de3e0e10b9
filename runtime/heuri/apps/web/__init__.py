"""``heuri serve``: a local web board (Position, Game and Play views) over a JSON API.

- :mod:`heuri.web.service`: the answers, as plain dicts (no web framework);
- :mod:`heuri.web.app`: the Starlette application (routes, limits, errors as 4xx JSON);
- ``static/``: the page (HTML, CSS, a script; nothing fetched from the internet).

:func:`serve` runs it under uvicorn. Starlette and uvicorn are the ``web`` extra
(``pip install -e .[web]``).
"""
from __future__ import annotations

from ...core.errors import HeuriError


def serve(host: str = "127.0.0.1", port: int = 8765, langs=("es", "en", "fr")) -> int:
    """Load the packs of ``langs``, warm them up, and serve the board at
    ``http://host:port/`` until interrupted. Raises HeuriError when Starlette or uvicorn
    is missing, or a pack (PackError)."""
    try:
        import uvicorn

        from .app import create_app
    except ImportError as e:
        raise HeuriError(f"serve needs the web extra ({e.name} is not installed): pip install -e \".[web]\"") from None
    print(f"heuri serve: loading {', '.join(langs)} ...", flush=True)
    app = create_app(langs=langs)
    print(f"heuri serve: http://{host}:{port}/  (Ctrl-C stops it)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
