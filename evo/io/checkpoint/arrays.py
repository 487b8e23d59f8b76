"""Individuals as padded structure-of-arrays (what ``checkpoint.npz`` holds) and back as checkpoint
documents (the JSON checkpoint's form, which :mod:`evo.io.checkpoint.schema` validates). The arrays and
their shapes are listed in docs/runs.md, "checkpoint.npz".
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from json.encoder import encode_basestring_ascii
from operator import attrgetter
from typing import Any

import numpy as np

from evo.ga.individual import Individual
from evo.io.models import FORMAT, VERSION, creature_to_dict
from evo.io.numbers import encode_numbers

__all__ = ["individual_documents", "pack_individuals"]

# per-mass arrays, (n, max masses[, 2]); per-link arrays, (n, max links)
_MASS_FIELDS = {
    "positions": (np.float64, (2,)),
    "velocities": (np.float64, (2,)),
    "fixed": (np.bool_, ()),
    "mass": (np.float64, ()),
}
_LINK_FIELDS = {
    "link_a": np.int64,
    "link_b": np.int64,
    "rest": np.float64,
    "alpha": np.float64,
    "phi": np.float64,
    "stiffness": np.float64,
    "dashpot": np.float64,
}
_WAVE_FIELDS = {
    "omega": np.float64,
    "beta": np.float64,
    "wave_phase": np.float64,
    "wave_reverse": np.bool_,
    "autoreverse": np.bool_,
}


def _padded(
    columns: list[tuple[np.ndarray, ...]],
    counts: np.ndarray,
    fields: Mapping[str, tuple[Any, tuple[int, ...]]],
) -> dict[str, np.ndarray]:
    """Ragged rows (one tuple of rows per field) as zero-padded (n, max count, *tail) arrays: one
    concatenate and one indexed store per field, the indices found once."""
    n, width = len(counts), int(counts.max(initial=0))
    cells = np.flatnonzero(np.arange(width) < counts[:, None]) if n and width else None
    out = {}
    for rows, (name, (dtype, tail)) in zip(columns, fields.items(), strict=True):
        array = np.zeros((n, width, *tail), dtype=dtype)
        if cells is not None:
            array.reshape(n * width, *tail)[cells] = np.concatenate(rows).reshape(-1, *tail)
        out[name] = array
    return out


def _extras(ind: Individual) -> str:
    """The JSON text of what a creature holds beyond arrays (world, meta, polygons); "" when nothing."""
    creature = ind.creature
    if not (creature.world or creature.meta or creature.polys):
        return ""
    extras: dict[str, Any] = {"world": dict(creature.world), "meta": dict(creature.meta)}
    if creature.polys:
        extras["polys"] = creature_to_dict(creature)["polys"]
    return json.dumps(extras, separators=(",", ":"), allow_nan=False)


def _json_string(text: str) -> str:
    """``json.dumps(text)``: the C encoder json.dumps calls for a string, without its Python around it."""
    try:
        return encode_basestring_ascii(text)
    except TypeError:  # not a string after all
        return json.dumps(text)


def _json_list(items: Sequence[str]) -> str:
    """``json.dumps(list(items))`` for strings, as its C encoder writes them (", " between items)."""
    try:
        return "[" + ", ".join(map(encode_basestring_ascii, items)) + "]"
    except TypeError:  # an item that is not a string
        return json.dumps(list(items))


def _columns(getter: attrgetter, items: Sequence[Any], count: int) -> list[tuple[Any, ...]]:
    """``count`` attributes of each item, as one tuple per attribute."""
    return list(zip(*map(getter, items), strict=True)) or [()] * count


_MASS_OF = attrgetter(*_MASS_FIELDS)
_LINK_OF = attrgetter(*_LINK_FIELDS)
_LINK_PADDED = {name: (dtype, ()) for name, dtype in _LINK_FIELDS.items()}  # (dtype, per-link shape)
_WAVE_OF = attrgetter(*_WAVE_FIELDS)
_HEAD_OF = attrgetter("id", "parents", "born", "seed", "exploded", "values")


def pack_individuals(
    prefix: str, individuals: Sequence[Individual], objectives: int
) -> dict[str, np.ndarray]:
    """The individuals as named arrays ``<prefix>.<field>``.

    Args:
        prefix: the group's name (``population``, ``hall_of_fame``, ``elites``).
        individuals: told individuals (their fitness may be unset: ``evaluated`` is then False).
        objectives: the number of objective values of each fitness.

    Returns:
        The arrays: counts ``n_masses``/``n_links`` (n,); per-mass ``positions``/``velocities`` (n, M, 2) in
        px and px/frame, ``fixed``, ``mass``; per-link ``link_a``, ``link_b``, ``rest`` (px), ``alpha``,
        ``phi`` (rad), ``stiffness``, ``dashpot`` (n, L); the wave's ``omega`` (rad/frame), ``beta``,
        ``wave_phase``, ``wave_reverse``, ``autoreverse`` (n,); ``name`` and ``extras`` (JSON text), ``id``,
        ``parents`` (JSON text), ``born``, ``seed``, ``has_seed``, ``exploded``, ``evaluated`` (n,) and
        ``fitness`` (n, objectives).
    """
    n = len(individuals)
    creatures = [ind.creature for ind in individuals]
    # one tuple per field, over the individuals (attrgetter and zip: the loops run in C)
    masses = _columns(_MASS_OF, creatures, len(_MASS_FIELDS))
    links = _columns(_LINK_OF, creatures, len(_LINK_FIELDS))
    waves = _columns(_WAVE_OF, creatures, len(_WAVE_FIELDS))
    ids, parents, born, seeds, exploded, values = _columns(_HEAD_OF, individuals, 6)
    n_masses = np.array(list(map(len, masses[0])), dtype=np.int64)  # len: rows of positions
    n_links = np.array(list(map(len, links[0])), dtype=np.int64)
    out = {"n_masses": n_masses, "n_links": n_links}
    out.update(_padded(masses, n_masses, _MASS_FIELDS))
    out.update(_padded(links, n_links, _LINK_PADDED))
    for column, (name, dtype) in zip(waves, _WAVE_FIELDS.items(), strict=True):
        out[name] = np.array(column, dtype=dtype)
    evaluated = [v is not None for v in values]
    if all(evaluated) and all(len(v) == objectives for v in values):
        fitness = np.array(values, dtype=np.float64).reshape(n, objectives)
    else:
        fitness = np.full((n, objectives), np.nan)
        for row, v in enumerate(values):
            if v is not None:
                fitness[row] = v
    out.update(
        name=np.array([_json_string(c.name) for c in creatures], dtype=str),  # JSON: a trailing NUL stays
        extras=np.array([_extras(ind) for ind in individuals], dtype=str),
        id=np.array(ids, dtype=str),
        parents=np.array(list(map(_json_list, parents)), dtype=str),
        born=np.array(born, dtype=np.int64),
        seed=np.array([s or 0 for s in seeds], dtype=np.uint64),
        has_seed=np.array([s is not None for s in seeds], dtype=np.bool_),
        exploded=np.array(exploded, dtype=np.bool_),
        evaluated=np.array(evaluated, dtype=np.bool_),
        fitness=fitness,
    )
    for key in ("name", "extras", "id", "parents"):  # an empty group: str arrays of kind 'U' all the same
        out[key] = out[key].astype(np.str_) if out[key].size else np.zeros(0, dtype="<U1")
    return {f"{prefix}.{key}": value for key, value in out.items()}


def _array(
    arrays: Mapping[str, np.ndarray], name: str, kind: str, shape: tuple[int | None, ...]
) -> np.ndarray:
    """The array ``name``, checked to be of dtype kind ``kind`` and of ``shape`` (None: any length)."""
    if name not in arrays:
        raise KeyError(name)
    array = arrays[name]
    ok = array.dtype.kind in kind and array.ndim == len(shape)
    ok = ok and all(want is None or got == want for got, want in zip(array.shape, shape, strict=False))
    if not ok:
        expected = "x".join("?" if s is None else str(s) for s in shape) or "a scalar"
        raise ValueError(
            f"{name}: expected an array of kind '{kind}' and shape {expected}, got {array.dtype} "
            f"{array.shape}"
        )
    return array


def _model_document(a: dict[str, Any], i: int) -> dict[str, Any]:
    """Row ``i`` of unpacked group arrays as an ``evo-model`` document (defaults left out, as models are)."""
    nm, nl = a["n_masses"][i], a["n_links"][i]
    masses = []
    for (x, y), (vx, vy), fixed, mass in zip(
        a["positions"][i][:nm], a["velocities"][i][:nm], a["fixed"][i][:nm], a["mass"][i][:nm], strict=True
    ):
        m: dict[str, Any] = {"x": x, "y": y}
        if vx != 0.0 or vy != 0.0:
            m.update(vx=vx, vy=vy)
        if fixed:
            m["fixed"] = True
        if mass != 1.0:
            m["mass"] = mass
        masses.append(m)
    links = []
    columns = [a[name][i][:nl] for name in _LINK_FIELDS]
    for la, lb, rest, alpha, phi, stiffness, dashpot in zip(*columns, strict=True):
        link: dict[str, Any] = {"a": la, "b": lb, "rest": rest}
        for key, value, default in (
            ("alpha", alpha, 0.0),
            ("phi", phi, 0.0),
            ("stiffness", stiffness, 1.0),
            ("dashpot", dashpot, 0.0),
        ):
            if value != default:
                link[key] = value
        links.append(link)
    wave: dict[str, Any] = {"omega": a["omega"][i], "beta": a["beta"][i]}
    if a["wave_phase"][i] != 0.0:
        wave["phase"] = a["wave_phase"][i]
    if a["wave_reverse"][i]:
        wave["direction"] = "reverse"
    if a["autoreverse"][i]:
        wave["autoreverse"] = True
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "name": json.loads(a["name"][i]),
        "masses": masses,
        "links": links,
        "wave": wave,
        "world": {},
        "meta": {},
    }
    if a["extras"][i]:
        extras = json.loads(a["extras"][i])
        if not isinstance(extras, dict):
            raise ValueError(f"extras[{i}]: expected a JSON object")
        doc.update(extras)
    return doc


def individual_documents(
    arrays: Mapping[str, np.ndarray], prefix: str, objectives: int
) -> list[dict[str, Any]]:
    """The group ``prefix`` of a checkpoint's arrays as checkpoint documents (``id``, ``parents``, ``born``,
    ``seed``, ``exploded``, ``fitness``, ``model``), in the form a JSON checkpoint holds them.

    Raises:
        KeyError: an array is missing. ValueError: an array has the wrong kind or shape, or a count
            exceeds its padded width.
    """
    ids = _array(arrays, f"{prefix}.id", "U", (None,))
    n = ids.shape[0]
    a: dict[str, Any] = {}
    for name, kind in (("n_masses", "i"), ("n_links", "i")):
        a[name] = _array(arrays, f"{prefix}.{name}", kind, (n,))
    widths = {"mass": int(a["n_masses"].max(initial=0)), "link": int(a["n_links"].max(initial=0))}
    if (a["n_masses"] < 0).any() or (a["n_links"] < 0).any():
        raise ValueError(f"{prefix}: negative counts of masses or links")
    for name, (dtype, tail) in _MASS_FIELDS.items():
        array = _array(arrays, f"{prefix}.{name}", np.dtype(dtype).kind, (n, None, *tail))
        if array.shape[1] < widths["mass"]:
            raise ValueError(f"{prefix}.{name}: narrower than its n_masses")
        a[name] = array.tolist()
    for name, dtype in _LINK_FIELDS.items():
        array = _array(arrays, f"{prefix}.{name}", np.dtype(dtype).kind, (n, None))
        if array.shape[1] < widths["link"]:
            raise ValueError(f"{prefix}.{name}: narrower than its n_links")
        a[name] = array.tolist()
    for name, dtype in _WAVE_FIELDS.items():
        a[name] = _array(arrays, f"{prefix}.{name}", np.dtype(dtype).kind, (n,)).tolist()
    for name in ("name", "extras", "parents"):
        a[name] = _array(arrays, f"{prefix}.{name}", "U", (n,)).tolist()
    born = _array(arrays, f"{prefix}.born", "i", (n,)).tolist()
    seed = _array(arrays, f"{prefix}.seed", "u", (n,)).tolist()
    has_seed = _array(arrays, f"{prefix}.has_seed", "b", (n,)).tolist()
    exploded = _array(arrays, f"{prefix}.exploded", "b", (n,)).tolist()
    evaluated = _array(arrays, f"{prefix}.evaluated", "b", (n,)).tolist()
    fitness = _array(arrays, f"{prefix}.fitness", "f", (n, objectives))
    a["n_masses"], a["n_links"] = a["n_masses"].tolist(), a["n_links"].tolist()
    docs = []
    for i, ident in enumerate(ids.tolist()):
        parents = json.loads(a["parents"][i])
        docs.append(
            {
                "id": ident,
                "parents": parents,
                "born": born[i],
                "seed": seed[i] if has_seed[i] else None,
                "exploded": exploded[i],
                "fitness": encode_numbers(fitness[i]) if evaluated[i] else None,
                "model": _model_document(a, i),
            }
        )
    return docs
