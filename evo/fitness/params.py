"""Checking a config's ``[evaluation.params]`` against a fitness plugin's signature (the schema engine of
:mod:`evo.schema` does the converting and the wording). Public through :func:`evo.fitness.check_params`.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evo.errors import EvoInputError, unknown_key_message
from evo.schema import check, field_label, understood

if TYPE_CHECKING:
    from evo.fitness.protocol import Plugin

__all__ = ["check_params"]

# annotations left as strings (a plugin file's own names could not be evaluated): the builtins are read
_TYPE_NAMES = {"int": int, "float": float, "bool": bool, "str": str, "list": list, "tuple": tuple}


def _annotations(plugin: Plugin) -> dict[str, Any]:
    """Each parameter's annotation, or None where it has none the schema engine checks."""
    try:
        signature = inspect.signature(plugin.func, eval_str=True)
    except Exception:
        signature = inspect.signature(plugin.func)
    out = {}
    for p in signature.parameters.values():
        tp = p.annotation
        if isinstance(tp, str):
            tp = _TYPE_NAMES.get(tp.strip(), p.empty)
        out[p.name] = tp if tp is not p.empty and understood(tp) else None
    return out


def check_params(
    plugin: Plugin, params: Mapping[str, Any], *, source: str | None, where: str = "[evaluation.params]"
) -> dict[str, Any]:
    """Check ``params`` against the plugin's signature; return every parameter (defaults filled in).

    The expected type of a parameter is its annotation (int, float, bool, str, list, tuple, ``tuple[float,
    ...]``, one of them ``| None``, ...), else the type of its default. An int is converted for a float;
    a float must be finite.
    """
    annotations = _annotations(plugin)
    out = dict(plugin.params)
    for key, value in params.items():
        if key not in plugin.params:
            if not plugin.params:
                raise EvoInputError(f"{where}: plugin '{plugin.name}' takes no parameters", source=source)
            raise EvoInputError(
                unknown_key_message(key, f"{where} (parameters of plugin '{plugin.name}')", plugin.params),
                source=source,
            )
        default = plugin.params[key]
        tp = annotations.get(key) or (type(default) if default is not None else None)
        converted, problem = check(value, tp) if tp is not None else (value, None)
        if problem is not None:
            raise EvoInputError(
                f"{problem} (plugin '{plugin.name}')", source=source, field=field_label(where, key)
            )
        out[key] = converted
    return out
