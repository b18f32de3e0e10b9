"""``heuri serve``: a local web board (Position, Game and Play views) over a JSON API.

- :mod:`heuri.web.service`: the answers, as plain dicts (no web framework);
- :mod:`heuri.web.app`: the Starlette application (routes, limits, errors as 4xx JSON);
- ``static/``: the page (HTML, CSS, a script; nothing fetched from the internet).

:func:`serve` runs it under uvicorn. Starlette and uvicorn are the ``web`` extra
(``pip install -e .[web]``).
"""
from __future__ import annotations

import secrets

from ...core.errors import HeuriError


def serve(host: str = "127.0.0.1", port: int = 8765, langs=("es", "en", "fr"), records=None,
          allow_remote: bool = False) -> int:
    """Load the packs of ``langs``, warm them up, and serve the board at
    ``http://host:port/`` until interrupted; ``records``: the folder the Game view may read
    ``.gcg`` files from (None: none); ``allow_remote``: ``host`` may be other than loopback
    (a warning is printed, and a random token asked of every request is in the address
    printed). Raises HeuriError when Starlette or uvicorn is missing, or a
    pack (PackError)."""
    try:
        import uvicorn

        from .app import create_app, is_loopback
    except ImportError as e:
        raise HeuriError(f"serve needs the web extra ({e.name} is not installed): pip install -e \".[web]\"") from None
    remote = not is_loopback(host)
    if remote and not allow_remote:
        raise HeuriError(f"serve: --host {host} listens beyond this machine; add --allow-remote to do so")
    print(f"heuri serve: loading {', '.join(langs)} ...", flush=True)
    # beyond this machine, a random token (in the address printed below) is asked of every request
    token = secrets.token_urlsafe(18) if remote else None
    app = create_app(langs=langs, host=host, port=port, allow_remote=remote, records=records, token=token)
    if remote:
        print(f"heuri serve: WARNING: listening on {host}: anyone who can reach this address can use the board "
              f"(rank positions, play games{', read the records under ' + str(records) if records else ''})",
              flush=True)
    if records:
        print(f"heuri serve: the Game view may open the .gcg files under {app.state.service.records}", flush=True)
    shown = f"[{host}]" if ":" in host else host
    print(f"heuri serve: http://{shown}:{port}/{'?token=' + token if token else ''}  (Ctrl-C stops it)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
