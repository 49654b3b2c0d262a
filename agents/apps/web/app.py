"""The web app: a Starlette application serving the pages, their static files and the JSON API under ``/api``.

Routes (the API's minimum is a contract, INTERFACE.md "Web"; docs/web.md documents the rest):

- ``GET /``: the start page; ``GET /play/{id}``: a game's page for one seat (``?seat=S&token=T``) or for
  several people sharing a screen (``?seats=S:T,S:T``); ``GET /play/{id}/table``: the table's HTML;
  ``GET /replay/{id}``: a replay's page; ``GET /replay/{id}/table``: one step's table.
- ``GET /api/agents?game=G&num_players=N&mode=M``: the agents that may sit at that table.
- ``POST /api/games``, ``GET /api/games/{id}?seat=S``, ``POST /api/games/{id}/actions``,
  ``GET /api/games/{id}/replay``: play (a person's seat needs its token: ``Authorization: Bearer T``).
- ``POST /api/replays`` (a ``sobek-replay/1`` file as the body, or ``{"path": ...}`` within the folder the
  server was given, or ``{"game": id}`` for a finished game), ``GET /api/replays/{id}?step=K&seat=S|full``.

Every refusal is a 4xx (or 503 when full) with ``{"error": "one line"}`` and changes nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from sobek_env.registry import GAMES, load_game
from sobek_env.replay import Replay, ReplayError

from . import pages
from .agents import agent_choices, check_spec, make_agents
from .sessions import GameSession, ReplaySession, Store, WebError, new_game, random_seed

MAX_JSON_BYTES = 16 * 1024            # a request's JSON body: far above any real one
MAX_REPLAY_BYTES = 4 * 1024 * 1024    # an uploaded replay (the longest real games are about 40 KB)
MAX_SEED = 2**63 - 1
MAX_WAIT = 60      # seconds a GET with ?wait= may wait for the seat's turn
WAIT_STEP = 0.05   # how often it looks
STATIC = Path(__file__).with_name("static")


@dataclass
class Settings:
    """What the server was started with."""

    max_games: int = 32
    finished_ttl: float = 1800.0
    idle_ttl: float = 3600.0
    models: Path | None = None          # the folder of shipped models offered as agents
    replays: Path | None = None         # the folder replay files may be opened from by path (None: none)
    hosts: tuple[str, ...] | None = None  # the Host names answered (None: any); main() sets this machine's names


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def body(request: Request, limit: int) -> bytes:
    """The request's body, refused (413) past ``limit`` bytes without reading the rest."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise WebError(413, f"the request body is larger than the {limit:,} bytes allowed")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise WebError(413, f"the request body is larger than the {limit:,} bytes allowed")
    return bytes(data)


async def json_body(request: Request) -> dict[str, Any]:
    data = await body(request, MAX_JSON_BYTES)
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise WebError(400, "the body is not JSON; send a JSON object") from None
    if not isinstance(doc, dict):
        raise WebError(400, f"the body must be a JSON object, got {type(doc).__name__}")
    return doc


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def integer(value: Any, name: str) -> int:
    """A query parameter or field as an integer; WebError 400 naming it."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value) < 20:
        return int(value)
    raise WebError(400, f"{name} must be an integer, got {value!r:.40}")


def create_app(settings: Settings | None = None) -> Starlette:
    """The web app (see the module docstring)."""
    settings = settings or Settings()
    store = Store(settings.max_games, settings.finished_ttl, settings.idle_ttl)

    def handled(handler):
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except WebError as exc:
                if request.url.path.startswith("/api/"):
                    return error(exc.status, exc.message)
                return HTMLResponse(pages.error_page(exc.status, exc.message), status_code=exc.status)
        return endpoint

    # ------------------------------------------------------------------ the API

    async def agents_route(request: Request) -> Response:
        game, players, mode = table_of(request.query_params)
        # reading the models' metadata loads torch the first time: off the event loop
        choices = await anyio.to_thread.run_sync(agent_choices, game, players, mode, settings.models)
        return JSONResponse({"agents": choices})

    def table_of(doc: Mapping[str, Any]) -> tuple[Any, int, str]:
        name = doc.get("game", "sobek")
        if name not in GAMES:
            raise WebError(400, f"game must be one of {', '.join(GAMES)}, got {name!r:.40}")
        game = load_game(name)
        players = integer(doc.get("num_players", game.default_players), "num_players")
        mode = doc.get("mode", "original")
        try:
            game.check_table(players, mode)
        except ValueError as exc:
            raise WebError(400, str(exc)) from None
        return game, players, mode

    async def create_game(request: Request) -> Response:
        doc = await json_body(request)
        unknown = sorted(set(doc) - {"game", "num_players", "agents", "seed", "mode"})
        if unknown:
            raise WebError(400, f"unknown field {unknown[0]!r:.40}; the fields are game, num_players, agents, seed, "
                                "mode")
        game, players, mode = table_of(doc)
        specs = doc.get("agents")
        if not isinstance(specs, list) or len(specs) != players:
            raise WebError(400, f"agents must be a list of one spec per seat ({players}), got {specs!r:.60}")
        specs = await anyio.to_thread.run_sync(
            lambda: [check_spec(spec, game, players, mode, settings.models) for spec in specs])
        if "human" not in specs:
            raise WebError(400, "at least one seat must be human; to watch agents play, open a replay of their game")
        seed = doc.get("seed")
        seed = random_seed() if seed is None else integer(seed, "seed")
        if not 0 <= seed <= MAX_SEED:
            raise WebError(400, f"seed must be from 0 to {MAX_SEED}, got {seed}")
        agents = await anyio.to_thread.run_sync(make_agents, specs, game, players, mode, seed)
        session = store.add(lambda key: new_game(key, game, players, specs, seed, mode, agents))
        await anyio.to_thread.run_sync(session.run_agents)
        return JSONResponse({"id": session.id, "tokens": {str(s): t for s, t in session.tokens.items()}},
                            status_code=201)

    def seat_param(request: Request, session: GameSession) -> int:
        return session.check_seat(integer(request.query_params.get("seat"), "seat"))

    async def game_view(request: Request) -> Response:
        session = store.get(request.path_params["id"], GameSession)
        seat = seat_param(request, session)
        session.check_token(seat, bearer(request))
        wait = request.query_params.get("wait")
        if wait is not None:  # a bot waits here for its turn rather than asking again and again
            seconds = integer(wait, "wait")
            if not 0 <= seconds <= MAX_WAIT:
                raise WebError(400, f"wait must be from 0 to {MAX_WAIT} seconds, got {seconds}")
            deadline = anyio.current_time() + seconds
            while not session.settled_for(seat) and anyio.current_time() < deadline and not session.closed:
                await anyio.sleep(WAIT_STEP)
        return JSONResponse(session.view(seat))

    async def game_action(request: Request) -> Response:
        session = store.get(request.path_params["id"], GameSession)
        doc = await json_body(request)
        unknown = sorted(set(doc) - {"seat", "action"})
        if unknown or "seat" not in doc or "action" not in doc:
            raise WebError(400, 'send {"seat": S, "action": ID}' + (f"; unknown field {unknown[0]!r:.40}"
                                                                    if unknown else ""))
        seat = session.check_seat(doc["seat"])
        session.check_token(seat, bearer(request))
        session.play(seat, doc["action"])
        await anyio.to_thread.run_sync(session.run_agents)
        return JSONResponse(session.view(seat))

    async def game_replay(request: Request) -> Response:
        session = store.get(request.path_params["id"], GameSession)
        text = session.replay_text()
        name = f"{session.game.name}-{session.replay.seed}.jsonl"
        return PlainTextResponse(text, media_type="application/x-ndjson",
                                 headers={"content-disposition": f'attachment; filename="{name}"'})

    async def open_replay(request: Request) -> Response:
        data = await body(request, MAX_REPLAY_BYTES)
        doc = None
        if request.headers.get("content-type", "").split(";")[0].strip() == "application/json":
            try:
                doc = json.loads(data)
            except (ValueError, UnicodeDecodeError):
                doc = None  # not one JSON object: a replay file's lines, read as such below
        if isinstance(doc, dict) and set(doc) == {"game"}:
            text, name = store.get(str(doc["game"]), GameSession).replay_text(), "the game"
        elif isinstance(doc, dict) and set(doc) == {"path"}:
            text, name = read_allowed(doc["path"]), str(doc["path"])
        else:
            text, name = data, "the uploaded file"
        try:
            replay = await anyio.to_thread.run_sync(Replay.loads, text, name)
            opened = await anyio.to_thread.run_sync(ReplaySession, "", replay)  # plays it again: off the loop
        except ReplayError as exc:
            raise WebError(400, f"cannot open the replay: {exc}") from None
        session = store.add(opened.named)
        return JSONResponse({"id": session.id, "steps": session.steps}, status_code=201)

    def read_allowed(path: Any) -> bytes:
        """A replay file inside the folder the server was given (``--replays``); WebError 400/403/404."""
        if settings.replays is None:
            raise WebError(403, "this server opens no replay file by path (start it with --replays DIR); upload it")
        if not isinstance(path, str) or not path or "\0" in path:
            raise WebError(400, f"path must be a file name, got {path!r:.60}")
        root = settings.replays.resolve()
        target = (root / path).resolve()
        if not target.is_relative_to(root):
            raise WebError(403, f"{path!r:.60} is outside the replay folder")
        if not target.is_file():
            raise WebError(404, f"no replay file {path!r:.60} in the replay folder")
        if target.stat().st_size > MAX_REPLAY_BYTES:
            raise WebError(413, f"{path!r:.60} is larger than the {MAX_REPLAY_BYTES:,} bytes allowed")
        return target.read_bytes()

    async def replay_step(request: Request) -> Response:
        session = store.get(request.path_params["id"], ReplaySession)
        step, seat = replay_params(request, session)
        return JSONResponse(await anyio.to_thread.run_sync(session.view, step, seat))

    def replay_params(request: Request, session: ReplaySession) -> tuple[int, int | str]:
        step = integer(request.query_params.get("step", "0"), "step")
        seat_text = request.query_params.get("seat", "full")
        return step, ("full" if seat_text == "full" else integer(seat_text, "seat"))

    # ------------------------------------------------------------------ the pages

    async def start_page(request: Request) -> Response:
        return HTMLResponse(pages.start_page(replay_folder=settings.replays is not None))

    def page_seats(request: Request, session: GameSession) -> list[tuple[int, str]]:
        """The (seat, token) pairs a page plays: ``seat`` and ``token``, or ``seats=S:T,S:T``; each checked."""
        query = request.query_params
        if "seats" in query:
            pairs = []
            for part in query["seats"].split(",")[:session.num_players]:
                seat, _, token = part.partition(":")
                pairs.append((session.check_seat(integer(seat, "seat")), token))
        else:
            pairs = [(seat_param(request, session), query.get("token", ""))]
        for seat, token in pairs:
            session.check_token(seat, token)
        return pairs

    async def play_page(request: Request) -> Response:
        session = store.get(request.path_params["id"], GameSession)
        pairs = page_seats(request, session)
        seat = pairs[0][0]
        acting = session.state.current_player
        if any(s == acting for s, _ in pairs):
            seat = acting
        return HTMLResponse(pages.play_page(session.view(seat), pairs))

    async def play_table(request: Request) -> Response:
        session = store.get(request.path_params["id"], GameSession)
        seat = seat_param(request, session)
        session.check_token(seat, request.query_params.get("token", "") or bearer(request))
        view = session.view(seat)
        if "move" in request.query_params:
            index = integer(request.query_params["move"], "move")
            view["table"] = session.moved_table(seat, index)
            view["legal"], view["looking_back"] = [], index
        return HTMLResponse(pages.table_html(view))

    async def replay_page(request: Request) -> Response:
        session = store.get(request.path_params["id"], ReplaySession)
        step, seat = replay_params(request, session)
        view = await anyio.to_thread.run_sync(session.view, step, seat)
        return HTMLResponse(pages.replay_page(view))

    async def replay_table(request: Request) -> Response:
        session = store.get(request.path_params["id"], ReplaySession)
        step, seat = replay_params(request, session)
        view = await anyio.to_thread.run_sync(session.view, step, seat)
        return HTMLResponse(pages.replay_html(view))

    routes = [
        Route("/", handled(start_page)),
        Route("/play/{id}", handled(play_page)),
        Route("/play/{id}/table", handled(play_table)),
        Route("/replay/{id}", handled(replay_page)),
        Route("/replay/{id}/table", handled(replay_table)),
        Route("/api/agents", handled(agents_route)),
        Route("/api/games", handled(create_game), methods=["POST"]),
        Route("/api/games/{id}", handled(game_view)),
        Route("/api/games/{id}/actions", handled(game_action), methods=["POST"]),
        Route("/api/games/{id}/replay", handled(game_replay)),
        Route("/api/replays", handled(open_replay), methods=["POST"]),
        Route("/api/replays/{id}", handled(replay_step)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_allowed},
                    middleware=[Middleware(Guard, hosts=settings.hosts)])
    app.state.store = store
    app.state.settings = settings
    return app


# Sent with every answer: the pages load nothing from elsewhere, run no inline script, are framed by nobody, and
# their addresses (which hold seat tokens) are never sent on as a referrer.
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                                 b"frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


class Guard:
    """ASGI middleware: refuses (400) a request whose Host is not one of ``hosts`` (so that a page of another site
    whose name is made to point at this machine cannot reach a server listening on this machine only), and adds
    :data:`SECURITY_HEADERS` to every answer."""

    def __init__(self, app: Any, hosts: tuple[str, ...] | None) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.hosts is not None:
            host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
            name = host.partition("]")[0] + "]" if host.startswith("[") else host.partition(":")[0]
            if name not in self.hosts:
                answer = error(400, f"this server answers only requests for {', '.join(self.hosts)}, not "
                                    f"{name[:60]!r}; start it with --host to be reached by another name")
                await answer(scope, receive, send)
                return

        async def guarded(message: dict) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, guarded)


async def not_found(request: Request, exc: Exception) -> Response:
    return error(404, f"nothing at {request.url.path[:80]!r}; the API is under /api (see docs/web.md)")


async def not_allowed(request: Request, exc: Exception) -> Response:
    return error(405, f"{request.method} is not allowed on {request.url.path[:80]!r}")


def default_models() -> Path | None:
    """The shipped models: ``models/`` of the current folder, else of the checkout this package sits in."""
    for folder in (Path(os.getcwd()) / "models", Path(__file__).resolve().parents[3] / "models"):
        if folder.is_dir():
            return folder
    return None
