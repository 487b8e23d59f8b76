"""``evo plugins``: list the fitness plugins evo can find, with their parameters and origins."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evo.fitness import Plugin, discover

NAME = "plugins"
HELP = "list the fitness plugins (shipped, from plugin paths and entry points) with their parameters"


class _OldPathFlag(argparse._AppendAction):
    """``--path``, the first release's name of ``--plugin-path``: it still works, with a warning."""

    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[override]
        print(
            f"evo {NAME}: warning: {option_string} is deprecated since evo 0.2.0 and goes in 0.3.0; "
            "use --plugin-path",
            file=sys.stderr,
        )
        super().__call__(parser, namespace, values, option_string)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--plugin-path",
        dest="path",
        metavar="DIR_OR_FILE",
        action="append",
        default=[],
        help="also load plugins from this folder or .py file (repeatable)",
    )
    parser.add_argument(
        "--path", dest="path", metavar="DIR_OR_FILE", action=_OldPathFlag, help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--config", metavar="CONFIG.toml", help="also load the plugin_paths of this config file"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def _config_paths(config: str) -> list[str]:
    from evo.run.config import load_config

    return list(load_config(config).evaluation.plugin_paths)


def describe(plugin: Plugin) -> dict:
    return {
        "name": plugin.name,
        "doc": plugin.doc,
        "objectives": list(plugin.objectives),
        "weights": list(plugin.weights),
        "record_every": plugin.record_every,
        "params": {
            k: v if isinstance(v, int | float | str | bool | None) else repr(v)
            for k, v in plugin.params.items()
        },
        "origin": plugin.origin,
        "measures": {
            name: None if span is None else list(span)
            for name, span in zip(plugin.measures, plugin.measure_ranges, strict=True)
        },
    }


def _objectives_text(plugin: Plugin) -> str:
    return ", ".join(
        f"{name} ({'maximise' if w > 0 else 'minimise'}{'' if abs(w) == 1 else f', weight {w:g}'})"
        for name, w in zip(plugin.objectives, plugin.weights, strict=True)
    )


def run(args: argparse.Namespace) -> int:
    paths = [str(Path(p).resolve()) for p in args.path]
    if args.config:
        paths += _config_paths(args.config)
    plugins = sorted(discover(paths).values(), key=lambda p: p.name)
    if args.json:
        print(json.dumps({"plugins": [describe(p) for p in plugins]}))
        return 0
    for plugin in plugins:
        print(f"{plugin.name}: {plugin.doc or '(no description)'}")
        print(f"    objectives: {_objectives_text(plugin)}; records every {plugin.record_every:g} frames")
        params = ", ".join(f"{k} = {v!r}" for k, v in plugin.params.items()) or "none"
        print(f"    parameters: {params}")
        if plugin.measures:
            spans = [
                name if span is None else f"{name} [{span[0]:g}, {span[1]:g}]"
                for name, span in zip(plugin.measures, plugin.measure_ranges, strict=True)
            ]
            print(f"    measures (for MAP-Elites): {', '.join(spans)}")
        print(f"    from: {plugin.origin}")
    return 0
