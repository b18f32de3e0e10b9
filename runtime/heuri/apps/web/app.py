"""The ASGI application of ``heuri serve`` (Starlette): the page and the JSON API.

Every ``/api`` answer is JSON. A request the API cannot answer gets a 4xx with
``{"error": message, "kind": tag}`` in plain words (400 bad input: unknown tile, illegal
move, bad CGP, bad GCG line, a field of the wrong type or out of range, JSON nested deeper
than :data:`MAX_DEPTH`; 403 a request from another site's page; 404 no such game or
file; 409 a stale move; 413 a body over :data:`MAX_BODY` bytes; 415 a POST that is not
JSON; 421 a ``Host`` that is not this server's; 422 too much work, e.g. a record of more
than :data:`heuri.web.service.MAX_GCG_EVENTS` moves; 429 too many games); an unexpected
failure is a 500 ``{"error", "kind": "internal", "id"}`` whose short ``id`` is in the
server's log line, with the traceback (logged once; a client that went away is not an
error).

:class:`Guard` (a pure ASGI middleware, outermost) checks every request before the routes:
the ``Host`` header names this server (its address and port, ``localhost``,
``127.0.0.1``, ``[::1]``): a page of another site reached through DNS rebinding is refused;
an ``Origin`` header (or ``Sec-Fetch-Site`` on ``/api``) from another site is refused, so
another site's page cannot drive the server; a POST must be ``application/json`` (a
cross-site form cannot send it without a preflight); and it adds the headers of every
answer (``X-Frame-Options``, ``Content-Security-Policy``, ``X-Content-Type-Options``,
``Referrer-Policy``, and ``Cache-Control: no-store`` on the API).

The work of a request (move generation, ranking, analysis) runs in a worker thread, at most
:data:`COMPUTE_LIMIT` at once (``anyio.to_thread`` with a capacity limiter), so the
event loop keeps serving other tabs meanwhile and the evaluators alive are bounded. Routes:
see :func:`create_app` and the README (section "A web board").
"""
from __future__ import annotations

import ipaddress
import json
import logging
import os
import re
import secrets
from pathlib import Path
from urllib.parse import urlsplit

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ...core.errors import HeuriError, KindedError
from .service import MAX_GCG_EVENTS, MAX_ROWS, ApiError, NotFinite, Service

#: the largest request body read (bytes); a GCG record is a few KB
MAX_BODY = 1 << 20
#: the deepest nesting of arrays and objects a request body may have (the API's are 1 deep)
MAX_DEPTH = 32
#: requests computing at once (worker threads); more wait their turn
COMPUTE_LIMIT = max(2, min(4, os.cpu_count() or 2))
STATIC = Path(__file__).parent / "static"
log = logging.getLogger("heuri.serve")

#: the page's policy: its own script and style only (the boards are inline SVG with a
#: <style> block and style attributes, hence 'unsafe-inline' for styles, not for scripts)
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = [(b"x-frame-options", b"DENY"), (b"content-security-policy", CSP.encode()),
           (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
           (b"cross-origin-opener-policy", b"same-origin"), (b"cross-origin-resource-policy", b"same-origin")]
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and a loopback address (``127.x.x.x``, ``::1``)."""
    host = host.strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _error(status: int, message: str, kind: str = "error", **extra) -> JSONResponse:
    return JSONResponse({"error": message, "kind": kind, **extra}, status_code=status)


def _params(e: HeuriError) -> dict:
    """A kinded error's ``params`` (:class:`heuri.errors.KindedError`) as JSON values, for
    the page to say the message in its own language; ``{}`` for other errors."""
    out = {}
    for k, v in getattr(e, "params", {}).items():
        if isinstance(v, (list, tuple)):
            out[k] = [int(x) for x in v]
        elif isinstance(v, (bool, str)) or v is None:
            out[k] = v
        else:
            out[k] = int(v)
    return out


def _split_host(value: str) -> tuple[str, int | None] | None:
    """``(name, port)`` of a ``Host`` header (``name:port``, ``[::1]:port``, no port:
    None); None when it is not one."""
    m = re.fullmatch(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-_]+)(?::(\d{1,5}))?", value.strip())
    if not m:
        return None
    return m.group(1).strip("[]").lower(), int(m.group(2)) if m.group(2) else None


class Guard:
    """The outermost ASGI middleware (see the module doc): ``Host``, ``Origin`` and
    content-type checks, the security headers, and every unexpected exception as a JSON
    500 with a short id, logged once. ``host``, ``port``: where the server listens
    (``port`` None: any port, as in tests); ``allow_remote``: any ``Host`` is taken (the
    server was told to listen beyond this machine); the ``Origin`` must still be the
    server's own. ``token``: when set, every request must carry it, as ``?token=`` in the
    address (the answer then sets it as a cookie for the page's next requests) or as that
    cookie (``heuri_token``); others get a 401."""

    def __init__(self, app, host: str = "127.0.0.1", port: int | None = None, allow_remote: bool = False,
                 token: str | None = None):
        self.app = app
        self.port = port
        self.allow_remote = allow_remote
        self.token = token
        names = set(LOOPBACK_NAMES)
        if host not in ("0.0.0.0", "::", ""):
            names.add(host.strip("[]").lower())
        self.names = names

    def _host_ok(self, value: str | None) -> bool:
        if value is None:
            return False
        hp = _split_host(value)
        if hp is None:
            return False
        name, port = hp
        if self.port is not None and (port if port is not None else 80) != self.port:
            return False
        return self.allow_remote or name in self.names

    def _refusal(self, scope) -> JSONResponse | None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host")
        if not self._host_ok(host):
            shown = (host or "")[:60]
            return _error(421, f"Host {shown!r} is not this server; open it as http://127.0.0.1:{self.port or 'PORT'}/ "
                               f"(names of this machine only)", "bad-host")
        path = scope.get("path", "")
        origin = headers.get("origin")
        if origin is not None:
            o = urlsplit(origin)
            if origin == "null" or o.scheme not in ("http", "https") or o.netloc.lower() != host.lower():
                return _error(403, f"a request from another site's page ({origin[:60]!r}) is refused; use the "
                                   f"board's own page", "cross-origin")
        site = headers.get("sec-fetch-site")
        if path.startswith("/api") and site in ("cross-site", "same-site"):
            return _error(403, "a request from another site's page is refused; use the board's own page",
                          "cross-origin")
        if self.token is not None and not self._token_ok(scope, headers):
            return _error(401, "this server asks for its token: open the address it printed at start "
                               "(http://HOST:PORT/?token=...)", "no-token")
        if scope.get("method") == "POST":
            ctype = headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype != "application/json":
                return _error(415, f"POST {path}: the body must be JSON, sent with Content-Type: application/json "
                                   f"(got {ctype[:40] or 'none'!r})", "not-json")
        return None

    def _token_ok(self, scope, headers: dict) -> bool:
        from http.cookies import SimpleCookie
        from urllib.parse import parse_qs

        given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
        if not given:
            try:
                c = SimpleCookie(headers.get("cookie", ""))
            except Exception:  # a malformed cookie header: no token
                return False
            given = c["heuri_token"].value if "heuri_token" in c else ""
        return secrets.compare_digest(given.encode(), self.token.encode())

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        api = scope.get("path", "").startswith("/api")
        started = False

        async def send_with_headers(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                hs = [(k, v) for k, v in message.get("headers", []) if k.lower() not in dict(HEADERS)]
                hs += HEADERS
                if api:
                    hs = [(k, v) for k, v in hs if k.lower() != b"cache-control"] + [(b"cache-control", b"no-store")]
                if self.token is not None and b"token=" in scope.get("query_string", b""):
                    hs.append((b"set-cookie", f"heuri_token={self.token}; Path=/; HttpOnly; SameSite=Strict"
                               .encode()))
                message = {**message, "headers": hs}
            await send(message)

        try:
            refusal = self._refusal(scope)
            if refusal is not None:
                return await refusal(scope, receive, send_with_headers)
            await self.app(scope, receive, send_with_headers)
        except (ClientDisconnect, anyio.BrokenResourceError, anyio.ClosedResourceError, ConnectionError):
            log.debug("client went away during %s %s", scope.get("method"), scope.get("path"))
        except Exception as e:  # a bug: one log line with an id, the client gets the id
            eid = secrets.token_hex(4)
            log.error("internal error %s in %s %s: %s", eid, scope.get("method"), scope.get("path"),
                      type(e).__name__, exc_info=e)
            if not started:
                try:
                    await _internal(eid, e)(scope, receive, send_with_headers)
                except Exception:  # the client is gone: nothing more to say
                    pass


def _internal(eid: str, e: BaseException) -> JSONResponse:
    return _error(500, f"internal error ({type(e).__name__}, id {eid}); the server log has the details",
                  "internal", id=eid)


def _depth_ok(text: str, limit: int) -> bool:
    """Whether the JSON text nests arrays and objects at most ``limit`` deep (strings are
    skipped; a malformed text is left to the parser)."""
    depth = 0
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > limit:
                return False
        elif c in "]}":
            depth -= 1
    return True


def parse_body(raw: bytes) -> dict:
    """A request body as the API's object: UTF-8 JSON, an object, nested at most
    :data:`MAX_DEPTH` deep. ``NaN``, ``Infinity``, a number beyond a float (``1e400``)
    and an integer of more than 30 digits are kept as :class:`heuri.web.service.NotFinite`
    for the field's own check (a 400 naming the field). Raises ApiError (400)."""
    if not raw.strip():
        return {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError("the request body is not JSON (not UTF-8 text)", 400, "bad-json") from None
    if not _depth_ok(text, MAX_DEPTH):
        raise ApiError(f"the request body nests arrays or objects more than {MAX_DEPTH} deep; the API's fields are "
                       f"strings, numbers and booleans", 400, "too-deep")

    def number(s: str):
        v = float(s)
        return v if v not in (float("inf"), float("-inf")) else NotFinite(s)

    try:
        data = json.loads(text, parse_constant=NotFinite, parse_float=number,
                          parse_int=lambda s: int(s) if len(s.lstrip("-")) <= 30 else NotFinite(s))
    except RecursionError:
        raise ApiError(f"the request body nests more than {MAX_DEPTH} deep", 400, "too-deep") from None
    except (json.JSONDecodeError, ValueError) as e:
        msg = e.msg if isinstance(e, json.JSONDecodeError) else "a malformed value"
        where = f" at line {e.lineno} column {e.colno}" if isinstance(e, json.JSONDecodeError) else ""
        raise ApiError(f"the request body is not JSON ({msg}{where})", 400, "bad-json") from None
    if not isinstance(data, dict):
        raise ApiError("the request body must be a JSON object ({\"cgp\": ...})", 400, "bad-json")
    return data


async def _body(request: Request) -> dict:
    """The request's JSON object, read at most :data:`MAX_BODY` bytes (ApiError 413
    beyond, before reading it all when Content-Length says so); :func:`parse_body`."""
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
    return parse_body(b"".join(chunks))


def create_app(service: Service | None = None, langs=("es", "en", "fr"), warm: bool = True,
               host: str = "127.0.0.1", port: int | None = None, allow_remote: bool = False,
               records=None, token: str | None = None) -> Starlette:
    """The Starlette app over ``service`` (default: a :class:`Service` of ``langs`` reading
    ``records``, warmed up when ``warm``), behind :class:`Guard` (``host``, ``port``,
    ``allow_remote``, ``token``).

    Routes: ``GET /`` the page; ``GET /static/...`` its script and style; ``GET /api/info``;
    ``GET /api/messages[?lang=]`` (the interface's catalogue, :func:`_messages`);
    ``POST /api/position``, ``/api/moves``, ``/api/best``, ``/api/explain``, ``/api/think``
    (think longer), ``/api/preview``, ``/api/game``;
    ``POST /api/play`` (a new game against heuri), ``GET /api/play/{id}``,
    ``POST /api/play/{id}/move``, ``GET /api/play/{id}/gcg`` (the record, as a download),
    ``GET /api/play/{id}/infer`` (what heuri may hold);
    the duplicate trainer (:class:`heuri.web.service.DuplicateTrainers`): ``POST
    /api/duplicate`` (a new game), ``GET /api/duplicate/{id}``, ``POST
    /api/duplicate/{id}/move``, ``POST /api/duplicate/{id}/next``, ``GET
    /api/duplicate/{id}/sheet`` (the players' sheet, CSV, as a download)."""
    svc = service or Service(langs, records=records)
    if warm and service is None:
        svc.warm_up()
    limiter = []

    async def answer(fn, *args) -> Response:
        """Run ``fn(*args)`` in a worker thread and answer its result as JSON (text for a
        str), or the error it raised as a 4xx (see the module doc)."""
        if not limiter:
            limiter.append(anyio.CapacityLimiter(COMPUTE_LIMIT))
        try:
            out = await anyio.to_thread.run_sync(lambda: fn(*args), limiter=limiter[0])
        except ApiError as e:
            return _error(e.status, str(e), e.kind, params=_params(e))
        except HeuriError as e:
            return _error(400, str(e), e.kind if isinstance(e, KindedError) else "bad-input", params=_params(e))
        if isinstance(out, str):
            return PlainTextResponse(out)
        return JSONResponse(out)

    def endpoint(method):
        async def handler(request: Request) -> Response:
            try:
                req = await _body(request)
            except ApiError as e:
                return _error(e.status, str(e), e.kind)
            return await answer(method, req)
        handler.__name__ = method.__name__
        return handler

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")

    async def info(request: Request) -> Response:
        return await answer(_info, svc)

    async def ui_messages(request: Request) -> Response:
        return JSONResponse(_messages(request.query_params.get("lang"), request.headers.get("accept-language")))

    async def play_state(request: Request) -> Response:
        return await answer(svc.play_state, request.path_params["gid"])

    async def play_move(request: Request) -> Response:
        try:
            req = await _body(request)
        except ApiError as e:
            return _error(e.status, str(e), e.kind)
        return await answer(svc.play_move, request.path_params["gid"], req)

    async def play_infer(request: Request) -> Response:
        coords = request.query_params.get("coords", "standard")
        if coords not in ("standard", "fisf"):
            return _error(400, f"coords: {coords[:20]!r}: give standard or fisf", "bad-request")
        return await answer(svc.play_infer, request.path_params["gid"], coords)

    async def play_gcg(request: Request) -> Response:
        gid = request.path_params["gid"]
        resp = await answer(svc.play_gcg, gid)
        if resp.status_code == 200:
            resp.headers["content-disposition"] = 'attachment; filename="heuri-game.gcg"'
            resp.headers["content-type"] = "text/plain; charset=utf-8"
        return resp

    async def duplicate_state(request: Request) -> Response:
        return await answer(svc.duplicate.state, request.path_params["gid"])

    def duplicate_call(method):
        async def handler(request: Request) -> Response:
            try:
                req = await _body(request)
            except ApiError as e:
                return _error(e.status, str(e), e.kind)
            return await answer(method, request.path_params["gid"], req)
        handler.__name__ = method.__name__
        return handler

    async def duplicate_sheet(request: Request) -> Response:
        resp = await answer(svc.duplicate.sheet, request.path_params["gid"])
        if resp.status_code == 200:
            resp.headers["content-disposition"] = 'attachment; filename="heuri-duplicate-sheet.csv"'
            resp.headers["content-type"] = "text/csv; charset=utf-8"
        return resp

    async def http_error(request: Request, exc: HTTPException) -> Response:
        return _error(exc.status_code, f"{request.method} {request.url.path[:100]}: {exc.detail}", "http")

    routes = [
        Route("/", index),
        Route("/api/info", info),
        Route("/api/messages", ui_messages),
        Route("/api/position", endpoint(svc.position), methods=["POST"]),
        Route("/api/moves", endpoint(svc.moves), methods=["POST"]),
        Route("/api/best", endpoint(svc.best), methods=["POST"]),
        Route("/api/explain", endpoint(svc.explain), methods=["POST"]),
        Route("/api/think", endpoint(svc.think), methods=["POST"]),
        Route("/api/preview", endpoint(svc.preview), methods=["POST"]),
        Route("/api/game", endpoint(svc.game), methods=["POST"]),
        Route("/api/play", endpoint(svc.play_new), methods=["POST"]),
        Route("/api/play/{gid}", play_state),
        Route("/api/play/{gid}/move", play_move, methods=["POST"]),
        Route("/api/play/{gid}/gcg", play_gcg),
        Route("/api/play/{gid}/infer", play_infer),
        Route("/api/duplicate", endpoint(svc.duplicate.new), methods=["POST"]),
        Route("/api/duplicate/{gid}", duplicate_state),
        Route("/api/duplicate/{gid}/move", duplicate_call(svc.duplicate.move), methods=["POST"]),
        Route("/api/duplicate/{gid}/next", duplicate_call(svc.duplicate.next), methods=["POST"]),
        Route("/api/duplicate/{gid}/sheet", duplicate_sheet),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    app.state.service = svc
    app.add_middleware(Guard, host=host, port=port, allow_remote=allow_remote, token=token)
    return app


def _info(svc: Service) -> dict:
    """``GET /api/info``: the languages served with their tiles (the page's palette) and
    lexicons (``lexicons``: ``[{name, default}]``, the default pack's first; the page offers
    a choice when there are several), the engines, the limits, and whether records can be
    read by path."""
    from ...core.tiletext import format_spelling
    from .service import ENGINES

    langs = []
    for code, pack in svc.packs.items():
        spec = pack.spec
        dist = spec.distribution()
        tiles = [{"tile": spec.tiles[t], "text": format_spelling(spec.tiles[t]), "value": int(spec.values[t]),
                  "count": int(dist[t])} for t in range(spec.n_letters)]
        langs.append({"code": code, "name": spec.name, "lexicon": spec.lexicon, "lexicons": svc.lexicons(code),
                      "tiles": tiles,
                      "blanks": int(dist[spec.blank]), "rack_size": spec.rack_size,
                      "size": spec.board_size})
    return {"langs": langs, "engines": list(ENGINES), "records": svc.records is not None,
            "limits": {"body_bytes": MAX_BODY, "gcg_moves": MAX_GCG_EVENTS, "rows": MAX_ROWS}}


def _messages(lang: str | None, accept_language: str | None) -> dict:
    """``GET /api/messages``: the web board's interface language and its catalogue,
    ``{"lang", "languages", "messages": {English: translation}}``. The language: ``lang``
    when it is an interface language (en, es, fr), else the first of the browser's
    ``Accept-Language`` that is one, else English (:mod:`heuri.apps.i18n`)."""
    from .. import i18n

    code = i18n.interface_language(lang) if lang else i18n.negotiate(accept_language)
    return {"lang": code, "languages": [{"code": c, "name": i18n.LANGUAGE_NAMES[c]} for c in i18n.INTERFACE_LANGUAGES],
            "messages": i18n.messages(code)}
