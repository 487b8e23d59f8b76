"""``evo studio [MODEL | RUN_DIR | FOLDER]``: the local web studio (design, play, analyze, evolve).

Prints ``http://127.0.0.1:PORT/?token=TOKEN`` as the first line of stdout and serves until Ctrl-C (status
0) or SIGTERM (143). Needs the ``studio`` extra. Protocol and security: docs/studio.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import webbrowser
from pathlib import Path

from evo.errors import EvoInputError

NAME = "studio"
HELP = "design, play, analyze and evolve creatures in the browser (a local web app)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        metavar="MODEL | RUN_DIR",
        nargs="?",
        help="a model file (.json or .xml) to open, a run folder to browse, or a folder to save into",
    )
    parser.add_argument(
        "--port", type=int, default=8765, help="port to listen on; 0 picks a free one (default 8765)"
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--no-open", action="store_true", help="do not open a web browser")


def _is_run_folder(path: Path) -> bool:
    return (path / "config.toml").is_file() and (
        (path / "history.csv").is_file() or (path / "checkpoint.json").is_file()
    )


def run(args: argparse.Namespace) -> int:
    try:
        from evo.studio.server import serve
        from evo.studio.session import StudioSession
    except ImportError:
        raise EvoInputError("the studio needs its extra: pip install 'evo[studio]'") from None
    from evo.io.models import load_model

    if not 0 <= args.port <= 65535:
        raise EvoInputError(f"--port: expected 0..65535, got {args.port}")
    studio = StudioSession()
    if args.target:
        target = Path(args.target).absolute()  # before any plugin code could move the current folder
        if target.is_dir() and _is_run_folder(target):
            from evo.studio.children import call_now

            # a folder that is not a readable run is refused here, in one line; read in a child process,
            # as reading its config imports its plugins
            what, seconds = str(target), studio.limits.child_seconds
            call_now("listing", {"folder": str(target)}, what=what, cwd=target.parent, seconds=seconds)
            studio.run, studio.folder = target, target.parent
        elif target.is_dir():
            studio.folder = target
        else:
            studio.model = load_model(target)
            studio.path, studio.folder = target, target.parent
    from evo.io.studio_files import remove_redirect_page, write_redirect_page

    pages: list[Path] = []

    def ready(url: str) -> None:
        print(url, flush=True)
        if not args.no_open:  # the browser is handed a private file, not the URL: argv is public (ps)
            pages.append(write_redirect_page(url))
            webbrowser.open(pages[-1].as_uri())

    try:
        status = serve(studio, args.host, args.port, on_ready=ready)
    except OSError as exc:
        hint = "; try --port 0 (any free port)" if args.port else ""
        raise EvoInputError(
            f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}{hint}"
        ) from None
    finally:
        for page in pages:
            remove_redirect_page(page)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)  # served and stopped: no thread still computing (an analysis) holds the exit up
