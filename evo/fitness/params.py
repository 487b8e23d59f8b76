"""Checking a config's ``[evaluation.params]`` against a fitness plugin's signature.

Public through :func:`evo.fitness.check_params`.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evo.errors import EvoInputError, unknown_key_message

if TYPE_CHECKING:
    from evo.fitness.protocol import Plugin

__all__ = ["check_params"]


def _is_real(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


_TYPE_NAMES = {"int": int, "float": float, "bool": bool, "str": str, "list": list, "tuple": tuple}


def _annotations(plugin: Plugin) -> dict[str, Any]:
    try:
        signature = inspect.signature(plugin.func, eval_str=True)
    except Exception:
        signature = inspect.signature(plugin.func)
    out = {}
    for p in signature.parameters.values():
        tp = p.annotation
        if isinstance(tp, str):
            tp = _TYPE_NAMES.get(tp.strip(), p.empty)
        if typing.get_origin(tp) in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            tp = args[0] if len(args) == 1 else p.empty
        tp = typing.get_origin(tp) or tp
        out[p.name] = tp if tp in _TYPE_NAMES.values() else None
    return out


def _coerce(value: Any, tp: type) -> tuple[bool, Any]:
    if tp is bool:
        return isinstance(value, bool), value
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool), value
    if tp is float:
        ok = _is_real(value)
        return ok, float(value) if ok else None
    if tp is str:
        return isinstance(value, str), value
    if tp in (list, tuple):
        return isinstance(value, list | tuple), tp(value) if isinstance(value, list | tuple) else None
    return True, value


_DESCRIBE = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}


def check_params(
    plugin: Plugin, params: Mapping[str, Any], *, source: str | None, where: str = "[evaluation.params]"
) -> dict[str, Any]:
    """Check ``params`` against the plugin's signature; return every parameter (defaults filled in).

    The expected type of a parameter is its annotation (int, float, bool, str, list, tuple, or one of
    them ``| None``), else the type of its default. An int is accepted (and converted) for a float.
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
        ok, converted = _coerce(value, tp) if tp is not None else (True, value)
        if not ok:
            expected = _DESCRIBE.get(tp, "a list")
            raise EvoInputError(
                f"{where} {key}: expected {expected} (plugin '{plugin.name}'), got {value!r}", source=source
            )
        out[key] = converted
    return out
