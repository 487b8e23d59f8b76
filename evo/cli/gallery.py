"""``evo gallery RUN_DIR``: write the run's elite gallery, one self-contained HTML page (docs/gallery.md)."""

from __future__ import annotations

import argparse
import sys
import webbrowser

from evo.cli._numbers import integer
from evo.errors import EvoInputError

NAME = "gallery"
HELP = "write RUN_DIR/gallery/index.html: replays of the elites, fitness charts, race (one offline file)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run_dir", metavar="RUN_DIR", help="a run folder written by evo run, or a Sodarace race file (.xml)"
    )
    parser.add_argument(
        "--out", metavar="OUT.html", help="for a race file: the page to write (default RACE.html)"
    )
    parser.add_argument(
        "--top",
        type=integer(1, 1_000_000, "elites to show"),
        metavar="N",
        help="show only the N best elites (default: all)",
    )
    parser.add_argument("--open", action="store_true", help="open the page in the default web browser")
    parser.add_argument(
        "--screenshot",
        metavar="OUT.png",
        help="also save a screenshot of the page, taken with headless Chromium (docs/gallery.md)",
    )
    parser.add_argument(
        "--browser", metavar="PATH", help="Chromium or Chrome for --screenshot (default: found on PATH)"
    )


def run(args: argparse.Namespace) -> int:
    from evo.gallery import write_gallery
    from evo.io.soda_race import is_race_file

    if is_race_file(args.run_dir):  # a Sodarace race file: its own page, beside it (or --out)
        from evo.gallery.race_page import write_race_page

        if args.top is not None:
            raise EvoInputError("--top is for run folders; a race page shows every contender")
        path = write_race_page(args.run_dir, args.out)
    elif args.out is not None:
        raise EvoInputError("--out is for a race file; a run's gallery is RUN_DIR/gallery/index.html")
    else:
        path = write_gallery(args.run_dir, top=args.top)  # checks --top itself
    print(path)
    if args.screenshot:
        from evo.io.screenshot import take_screenshot

        take_screenshot(path, args.screenshot, browser=args.browser)
        print(args.screenshot)
    if args.open and not webbrowser.open(path.resolve().as_uri()):
        print(f"evo gallery: could not open a browser; open {path} yourself", file=sys.stderr)
    return 0
