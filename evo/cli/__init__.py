"""``python -m evo``: argument parsing and exit codes only; the work is done in the command modules.

Every command is a module of :mod:`evo.cli` with ``NAME``, ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int``; bad input is one line on stderr and status 2. The protocol and the statuses:
docs/internals.md, "The command line".
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
import warnings

from evo import __version__
from evo.cli._numbers import OutOfRange
from evo.errors import EvoInputError, EvoInputWarning, one_line

# one entry per command module under evo/cli/
COMMANDS = (
    "simulate",
    "validate",
    "convert",
    "bench",
    "plugins",
    "run",
    "inspect",
    "analyze",
    "gallery",
    "replay",
    "race",
    "refine",
    "warm",
    "studio",
    "tasks",
    "audit",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own usage errors: one line, status 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="evo", description="Evolutionary creature designer (Sodaconstructor physics).")
    parser.add_argument("--version", action="version", version=f"evo {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS:
        module = importlib.import_module(f"evo.cli.{name}")
        cmd = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        cmd.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        module.add_arguments(cmd)
        cmd.set_defaults(_run=module.run)
    return parser


def _input_warning_printer(command: str):
    """A ``warnings.showwarning`` that prints each distinct input warning once, as one line on stderr."""
    shown: set[str] = set()
    default = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if not issubclass(category, EvoInputWarning):
            default(message, category, filename, lineno, file, line)
        elif str(message) not in shown:
            shown.add(str(message))
            print(f"evo {command}: warning: {message}", file=sys.stderr)

    return show


def _refuse_out_of_range(args: argparse.Namespace) -> None:
    """A numeric flag outside its range (see :mod:`evo.cli._numbers`): one line naming the flag."""
    for name, value in vars(args).items():
        if isinstance(value, OutOfRange):
            raise EvoInputError(value.problem, field=f"--{name.replace('_', '-')}")


def _refuse_undecodable(args: argparse.Namespace) -> None:
    """A command-line value that is not UTF-8 (``--out $'run\\xff'``: Python holds its bytes as lone
    surrogates) would fail later, when it is logged or written into a file: refused here, in one line."""
    for name, value in vars(args).items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    shown = ascii(item.encode("utf-8", "surrogateescape"))[1:]
                    flag = (
                        name
                        if name in ("config", "model", "run_dir", "race")
                        else f"--{name.replace('_', '-')}"
                    )
                    raise EvoInputError(
                        f"{shown} is not UTF-8; evo records every path and value as UTF-8 text: rename it",
                        field=flag,
                    ) from None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        _refuse_undecodable(args)
        _refuse_out_of_range(args)
        with warnings.catch_warnings():
            warnings.simplefilter("always", EvoInputWarning)
            warnings.showwarning = _input_warning_printer(args.command)
            return int(args._run(args) or 0)
    except EvoInputError as exc:
        if args.debug:
            traceback.print_exc()
        print(f"evo {args.command}: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"evo {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
