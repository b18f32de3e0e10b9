"""The ASGI application of ``heuri serve`` (Starlette): the page and the JSON API.

Every ``/api`` answer is JSON. A request the API cannot answer gets a 4xx with
``{"error": message, "kind": tag}`` in plain words (400 bad input: unknown tile, illegal
move, bad CGP, bad GCG line; 404 no such game or file; 413 a body over
:data:`MAX_BODY` bytes; 422 too much work, e.g. a record of more than
:data:`heuri.web.service.MAX_GCG_EVENTS` moves); an unexpected failure is a 500 with a
one-line message (the traceback goes to the server's log, not to the client).

The work of a request (move generation, ranking, analysis) runs in a worker thread
(``starlette.concurrency.run_in_threadpool``), so the event loop keeps serving other tabs
meanwhile. Routes: see :func:`create_app` and the README (section "A web board").
"""
from __future__ import annotations

import json
import logging
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ...core.errors import HeuriError, KindedError
from .service import MAX_GCG_EVENTS, MAX_ROWS, ApiError, Service

#: the largest request body read (bytes); a GCG record is a few KB
MAX_BODY = 1 << 20
STATIC = Path(__file__).parent / "static"
log = logging.getLogger("heuri.serve")


def _error(status: int, message: str, kind: str = "error") -> JSONResponse:
    return JSONResponse({"error": message, "kind": kind}, status_code=status)


async def _body(request: Request) -> dict:
    """The request's JSON object, read at most :data:`MAX_BODY` bytes (ApiError 413
    beyond, before reading it all when Content-Length says so)."""
    size = request.headers.get("content-length")
    if size and size.isdigit() and int(size) > MAX_BODY:
        raise ApiError(f"the request is {int(size):,} bytes; at most {MAX_BODY:,} are accepted "
                       f"(a game record is a few KB)", 413, "too-large")
    chunks, n = [], 0
    async for chunk in request.stream():
        n += len(chunk)
        if n > MAX_BODY:
            raise ApiError(f"the request is over {MAX_BODY:,} bytes; at most that is accepted", 413, "too-large")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ApiError(f"the request body is not JSON ({e})", 400, "bad-json") from None
    if not isinstance(data, dict):
        raise ApiError("the request body must be a JSON object ({\"cgp\": ...})", 400, "bad-json")
    return data


async def _answer(fn, *args) -> Response:
    """Run ``fn(*args)`` in a worker thread and answer its result as JSON (text for a str),
    or the error it raised as a 4xx (see the module doc)."""
    try:
        out = await run_in_threadpool(fn, *args)
    except ApiError as e:
        return _error(e.status, str(e), e.kind)
    except HeuriError as e:
        return _error(400, str(e), e.kind if isinstance(e, KindedError) else "bad-input")
    except Exception as e:  # a bug: say so in one line, keep the traceback in the log
        log.exception("internal error in %s", getattr(fn, "__name__", fn))
        return _error(500, f"internal error ({type(e).__name__}); the server log has the details", "internal")
    if isinstance(out, str):
        return PlainTextResponse(out)
    return JSONResponse(out)


def create_app(service: Service | None = None, langs=("es", "en", "fr"), warm: bool = True) -> Starlette:
    """The Starlette app over ``service`` (default: a :class:`Service` of ``langs``,
    warmed up when ``warm``).

    Routes: ``GET /`` the page; ``GET /static/...`` its script and style; ``GET /api/info``;
    ``POST /api/position``, ``/api/moves``, ``/api/best``, ``/api/preview``, ``/api/game``;
    ``POST /api/play`` (a new game against heuri), ``GET /api/play/{id}``,
    ``POST /api/play/{id}/move``, ``GET /api/play/{id}/gcg`` (the record, as a download)."""
    svc = service or Service(langs)
    if warm and service is None:
        svc.warm_up()

    def endpoint(method):
        async def handler(request: Request) -> Response:
            try:
                req = await _body(request)
            except ApiError as e:
                return _error(e.status, str(e), e.kind)
            return await _answer(method, req)
        handler.__name__ = method.__name__
        return handler

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")

    async def info(request: Request) -> Response:
        return await _answer(_info, svc)

    async def play_state(request: Request) -> Response:
        return await _answer(svc.play_state, request.path_params["gid"])

    async def play_move(request: Request) -> Response:
        try:
            req = await _body(request)
        except ApiError as e:
            return _error(e.status, str(e), e.kind)
        return await _answer(svc.play_move, request.path_params["gid"], req)

    async def play_gcg(request: Request) -> Response:
        gid = request.path_params["gid"]
        resp = await _answer(svc.play_gcg, gid)
        if resp.status_code == 200:
            resp.headers["content-disposition"] = f'attachment; filename="heuri-{gid}.gcg"'
            resp.headers["content-type"] = "text/plain; charset=utf-8"
        return resp

    async def http_error(request: Request, exc: HTTPException) -> Response:
        return _error(exc.status_code, f"{request.method} {request.url.path}: {exc.detail}", "http")

    routes = [
        Route("/", index),
        Route("/api/info", info),
        Route("/api/position", endpoint(svc.position), methods=["POST"]),
        Route("/api/moves", endpoint(svc.moves), methods=["POST"]),
        Route("/api/best", endpoint(svc.best), methods=["POST"]),
        Route("/api/preview", endpoint(svc.preview), methods=["POST"]),
        Route("/api/game", endpoint(svc.game), methods=["POST"]),
        Route("/api/play", endpoint(svc.play_new), methods=["POST"]),
        Route("/api/play/{gid}", play_state),
        Route("/api/play/{gid}/move", play_move, methods=["POST"]),
        Route("/api/play/{gid}/gcg", play_gcg),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    app.state.service = svc
    return app


def _info(svc: Service) -> dict:
    """``GET /api/info``: the languages served with their tiles (the page's palette),
    the engines and the limits."""
    from ...core.tiletext import format_spelling
    from .service import ENGINES

    langs = []
    for code, pack in svc.packs.items():
        spec = pack.spec
        dist = spec.distribution()
        tiles = [{"tile": spec.tiles[t], "text": format_spelling(spec.tiles[t]), "value": int(spec.values[t]),
                  "count": int(dist[t])} for t in range(spec.n_letters)]
        langs.append({"code": code, "name": spec.name, "lexicon": spec.lexicon, "tiles": tiles,
                      "blanks": int(dist[spec.blank]), "rack_size": spec.rack_size,
                      "size": spec.board_size})
    return {"langs": langs, "engines": list(ENGINES), "limits": {"body_bytes": MAX_BODY,
                                                               "gcg_moves": MAX_GCG_EVENTS, "rows": MAX_ROWS}}
