"""Play in the browser: ``sobek-env web [--host 127.0.0.1] [--port 8000]`` (or ``python -m agents.apps.web``)
serves a web app for both games: a start page (the game, the players, each seat's agent, a seed), the table
as each person's seat sees it with his choices in the game's words, the others' moves step by step, the
end, replays, and the JSON API under ``/api`` that the pages use and bots may use (docs/web.md).

It needs the extra ``web`` (Starlette and uvicorn). It listens on 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import argparse
from pathlib import Path

LOOPBACK = {"127.0.0.1": ("127.0.0.1", "localhost"), "localhost": ("127.0.0.1", "localhost"), "::1": ("[::1]",)}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sobek-env web", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1",
                        help="the address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    parser.add_argument("--max-games", type=int, default=32, metavar="N",
                        help="games and replays held at once (default 32); more get 503 until some expire")
    parser.add_argument("--models", type=Path, default=None, metavar="DIR",
                        help="the folder of models offered as agents (default: ./models or the checkout's)")
    parser.add_argument("--replays", type=Path, default=None, metavar="DIR",
                        help="a folder whose replay files may be opened by name (default: none; upload them)")
    return parser


def main(argv: list[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not 0 < args.port < 65536:
        parser.error(f"argument --port: must be from 1 to 65535, got {args.port}")
    if args.max_games < 1:
        parser.error(f"argument --max-games: must be 1 or more, got {args.max_games}")
    for option in ("models", "replays"):
        folder = getattr(args, option)
        if folder is not None and not folder.is_dir():
            parser.error(f"argument --{option}: {str(folder)!r} is not a folder")
    try:
        import uvicorn

        from .app import Settings, create_app, default_models
    except ImportError as exc:
        parser.error(f"the web app needs the extra 'web': pip install 'sobek-env[web]' ({exc})")
    # listening on this machine only, it answers only this machine's names (see app.Guard)
    hosts = LOOPBACK.get(args.host)
    settings = Settings(max_games=args.max_games, models=args.models or default_models(), replays=args.replays,
                        hosts=hosts)
    print(f"Serving on http://{args.host}:{args.port}/ (Ctrl-C stops)")
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="warning")


__all__ = ["build_parser", "main"]
