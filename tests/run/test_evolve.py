"""``evo.evolve`` and ``evo.open_run``: the library face of a run, against ``evo run`` itself."""

from __future__ import annotations

import filecmp
import gc
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import evo
from evo.errors import EvoInputError
from evo.fitness import registry

ROOT = Path(__file__).resolve().parents[2]

TINY = {
    "run": {"name": "tiny", "seed": 5, "generations": 4, "population": 12},
    "evaluation": {"frames": 300, "plugin": "distance", "params": {"settle_frames": 0}},
    "world": {"max_speed": 50.0},
    "pool": {"workers": 1},
}


@pytest.fixture(autouse=True)
def _fresh_registry(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTERED", {})
    monkeypatch.setattr(registry, "_REFS", {})


def tiny_config(tmp_path: Path, **changes) -> Path:
    doc = {table: dict(keys) for table, keys in TINY.items()}
    for table, keys in changes.items():
        doc.setdefault(table, {}).update(keys)
    lines = []
    for table, keys in doc.items():
        lines.append(f"[{table}]")
        for key, value in keys.items():
            if isinstance(value, dict):
                continue
            lines.append(f"{key} = {value!r}".replace("'", '"'))
        for key, value in keys.items():
            if isinstance(value, dict):
                lines.append(f"[{table}.{key}]")
                lines.extend(f"{k} = {v!r}" for k, v in value.items())
    path = tmp_path / "tiny.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def same_files(a: Path, b: Path, ignore=("run.log",)) -> list[str]:
    """Names of files that differ between two run folders (recursively), run.log aside."""
    compare = filecmp.dircmp(a, b, ignore=list(ignore))
    out = [*compare.left_only, *compare.right_only]
    _, mismatch, errors = filecmp.cmpfiles(a, b, compare.common_files, shallow=False)
    out += mismatch + errors
    for sub in compare.common_dirs:
        out += [f"{sub}/{name}" for name in same_files(a / sub, b / sub, ignore)]
    return out


def test_evolve_with_out_writes_the_same_folder_as_evo_run_byte_for_byte(tmp_path):
    config = tiny_config(tmp_path)
    cli = tmp_path / "cli"
    subprocess.run(
        [sys.executable, "-m", "evo", "run", str(config), "--out", str(cli), "--quiet"], check=True, cwd=ROOT
    )
    result = evo.evolve(config, out=tmp_path / "lib", progress=False)
    assert same_files(cli, tmp_path / "lib") == []
    assert sorted(p.name for p in (tmp_path / "lib").iterdir()) == sorted(p.name for p in cli.iterdir())
    assert result.folder == tmp_path / "lib" and result.generation == 3 and not result.stopped


def test_evolve_in_memory_writes_nothing_and_finds_what_a_folder_run_finds(tmp_path, monkeypatch):
    config = evo.Config.from_toml(tiny_config(tmp_path))
    folder = evo.evolve(config, out=tmp_path / "run", progress=False)
    work = tmp_path / "elsewhere"
    work.mkdir()
    monkeypatch.chdir(work)
    memory = evo.evolve(config, progress=False)
    assert list(work.iterdir()) == []
    assert memory.folder is None
    assert np.array_equal(memory.history, folder.history)
    assert [m.id for m in memory.hall_of_fame] == [m.id for m in folder.hall_of_fame]
    assert [m.fitness for m in memory.hall_of_fame] == [m.fitness for m in folder.hall_of_fame]


def test_a_run_drops_the_arrays_its_last_breeding_call_kept_for_the_next(tmp_path, monkeypatch):
    """The compiled breeding keeps its children's arrays for the next call on its thread
    (evo.ga.kernels.parents); the run's last generation's are dropped when the run ends (the inprocess
    path: one worker's default makes its generations from arrays, without that call)."""
    from evo.ga.kernels import parents

    kept = []
    real = parents.remember_children

    def remember(children, *args):
        kept.append(len(children))
        return real(children, *args)

    monkeypatch.setattr("evo.ga.kernels.brood.remember_children", remember)
    config = evo.Config.from_toml(tiny_config(tmp_path)).replace(pool={"backend": "inprocess"})
    evo.evolve(config, progress=False)
    assert len(kept) == 3 and getattr(parents._MADE, "record", None) is None


def test_the_history_is_a_structured_array_with_the_columns_of_history_csv(tmp_path):
    result = evo.evolve(tiny_config(tmp_path), progress=False)
    assert result.history.dtype.names[:4] == ("generation", "evaluations", "distance_best", "distance_mean")
    assert list(result.history["generation"]) == [0, 1, 2, 3]
    assert result.history["distance_best"][-1] == result.best.fitness[0]


def height(result, *, settle_frames: int = 50) -> float:
    """Mean centroid height after settling (px)."""
    return float(result.centroids[result.index_at(settle_frames) :, 1].mean())


@evo.fitness_plugin("reach", weights=(1.0, -1.0), objectives=("reach", "masses_used"))
def reach(result) -> tuple[float, float]:
    """Rightmost x reached, and the number of masses (fewer is better)."""
    return float(result.positions[:, :, 0].max()), float(result.model.n_masses)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_python_function_is_a_fitness_in_process_and_in_forked_workers(tmp_path, workers):
    result = evo.evolve(tiny_config(tmp_path), fitness=height, workers=workers, progress=False)
    assert result.objectives == ("height",)
    assert result.config.evaluation.plugin == "height"
    again = evo.evolve(tiny_config(tmp_path), fitness=height, workers=1, progress=False)
    assert np.array_equal(result.history, again.history)


def test_a_decorated_function_brings_its_objectives_and_weights(tmp_path):
    result = evo.evolve(tiny_config(tmp_path), fitness=reach, progress=False)
    assert result.objectives == ("reach", "masses_used")
    assert "masses_used_best" in result.history.dtype.names
    assert result.evolution.settings.weights == (1.0, -1.0)


def test_register_fitness_makes_a_function_a_plugin_that_configs_name(tmp_path):
    plugin = evo.register_fitness("height", height)
    assert plugin.origin == f"python:{__name__}:height"
    config = evo.Config.from_toml(tiny_config(tmp_path, evaluation={"plugin": "height"}))
    assert config.evaluation.params == {"settle_frames": 0}  # the config's params, checked against it
    named = evo.evolve(config, progress=False)
    direct = evo.evolve(config, fitness=height, progress=False)
    assert np.array_equal(named.history, direct.history)
    other = evo.evolve(tiny_config(tmp_path), fitness=height, progress=False)  # distance's params dropped
    assert other.config.evaluation.params == {"settle_frames": 50}


def test_a_module_function_string_is_imported_where_it_is_needed(tmp_path):
    plugin = evo.register_fitness("reach_there", f"{__name__}:reach")
    assert plugin.objectives == ("reach", "masses_used")
    assert plugin.ref().origin == f"python:{__name__}:reach"
    with pytest.raises(EvoInputError, match="cannot import no_such_module:f"):
        evo.register_fitness("nope", "no_such_module:f")


def test_a_function_only_this_process_knows_is_refused_elsewhere_in_one_line():
    def local(result) -> float:
        return 0.0

    plugin = evo.register_fitness("local", local)
    assert plugin.origin == "registered:local"
    registry._REGISTERED.clear()  # what another process sees
    registry._REFS.clear()
    with pytest.raises(EvoInputError) as info:
        registry.load_ref(plugin.ref())
    assert "importable module" in str(info.value) and "\n" not in str(info.value)


def test_a_callback_sees_every_generation_and_can_stop_the_run(tmp_path):
    seen = []

    def watch(status):
        seen.append((status.generation, status.evaluations, status.best.id))
        assert status.stats["generation"] == status.generation
        if status.generation == 1:
            status.stop()

    result = evo.evolve(tiny_config(tmp_path), out=tmp_path / "run", callbacks=[watch], progress=False)
    assert [g for g, _, _ in seen] == [0, 1]
    assert result.stopped and result.generation == 1
    resumed = evo.evolve(tiny_config(tmp_path), out=tmp_path / "run", resume=True, progress=False)
    evo.evolve(tiny_config(tmp_path), out=tmp_path / "whole", progress=False)
    assert same_files(tmp_path / "run", tmp_path / "whole") == []
    assert resumed.generation == 3


def test_a_run_freezes_what_start_up_made_while_it_runs_and_leaves_the_collector_as_it_found_it(tmp_path):
    gc.unfreeze()  # what an earlier test froze here (a dask worker run in this process freezes its heap)
    frozen = []
    evo.evolve(tiny_config(tmp_path), callbacks=[lambda status: frozen.append(gc.get_freeze_count())])
    assert len(frozen) == 4 and min(frozen) > 0 and gc.get_freeze_count() == 0
    gc.freeze()  # the caller's own: left to the caller, and nothing of the run's added to it
    try:
        held = gc.get_freeze_count()
        frozen.clear()
        evo.evolve(tiny_config(tmp_path), callbacks=[lambda status: frozen.append(gc.get_freeze_count())])
        assert len(frozen) == 4 and max(frozen) <= held and 0 < gc.get_freeze_count() <= held  # some freed
    finally:
        gc.unfreeze()


def test_callback_objects_get_every_hook_in_order(tmp_path):
    calls = []

    class Recorder(evo.Callback):
        def on_run_start(self, run):
            calls.append(("start", run.resumed))

        def on_generation_start(self, generation, evaluations):
            calls.append(("generation", generation))

        def on_evaluated(self, count):
            if calls[-1][0] != "evaluated":
                calls.append(("evaluated",))

        def on_generation_end(self, status):
            calls.append(("end", status.generation))

        def on_run_end(self, stopped):
            calls.append(("done", stopped))

    evo.evolve(tiny_config(tmp_path, run={"generations": 2}), callbacks=[Recorder()], progress=False)
    assert calls == [
        ("start", False),
        ("generation", 0),
        ("evaluated",),
        ("end", 0),
        ("generation", 1),
        ("evaluated",),
        ("end", 1),
        ("done", False),
    ]


def test_open_run_reads_a_folder_typed(tmp_path):
    done = evo.evolve(tiny_config(tmp_path), out=tmp_path / "run", progress=False)
    run = evo.open_run(tmp_path / "run")
    assert run.config == done.config
    assert np.array_equal(run.history, done.history)
    assert [m.id for m in run.hall_of_fame] == [m.id for m in done.hall_of_fame]
    assert run.best.fitness == done.best.fitness and run.best.objectives == ("distance",)
    assert run.evolution.generation == 3
    with pytest.raises(EvoInputError, match="no such run folder"):
        evo.open_run(tmp_path / "nothing")


def test_a_run_scored_by_a_function_of_another_session_still_opens(tmp_path):
    script = textwrap.dedent(
        f"""
        import evo
        def height(result) -> float:
            return float(result.centroids[:, 1].mean())
        config, out = {str(tiny_config(tmp_path))!r}, {str(tmp_path / "run")!r}
        evo.evolve(config, fitness=height, out=out, progress=False)
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, cwd=ROOT)
    run = evo.open_run(tmp_path / "run")  # 'height' is not registered in this process
    assert run.config.evaluation.plugin == "height" and run.best.objectives == ("height",)


def test_config_from_toml_and_from_dict_give_the_same_config_and_replace_checks_again(tmp_path):
    import tomllib

    path = tiny_config(tmp_path)
    from_file = evo.Config.from_toml(path)
    from_dict = evo.Config.from_dict(tomllib.loads(path.read_text()), base_dir=tmp_path, source=str(path))
    assert from_file == from_dict
    changed = from_file.replace(run={"generations": 9}, world={"gravity": 0.3})
    assert changed.run.generations == 9 and changed.world.gravity == 0.3 and from_file.run.generations == 4
    with pytest.raises(EvoInputError, match=r"\[run\] population"):
        from_file.replace(run={"population": 1})


def test_the_user_can_own_the_loop_with_ask_and_tell(tmp_path):
    config = evo.Config.from_toml(tiny_config(tmp_path))
    evolution = evo.Evolution(config.loop_settings())
    for _ in range(3):
        plan = evolution.ask()
        kids = [evo.breed(brood, config.genome, config.ga) for brood in plan.broods]
        record = evolution.tell(
            [evo.ChildResult(c, c and evo.Evaluation((float(c.n_links),), False)) for k in kids for c in k]
        )
    assert record["generation"] == 2 and record["distance_best"] == max(
        m.values[0] for m in evolution.hall_of_fame
    )


def test_the_loop_owned_as_before_0_2_still_runs_with_deprecation_warnings(tmp_path):
    config = evo.Config.from_toml(tiny_config(tmp_path))
    old, new = evo.Evolution(config.loop_settings()), evo.Evolution(config.loop_settings())
    for _ in range(2):
        with pytest.warns(DeprecationWarning, match="plan.broods"):
            broods = list(old.ask())
        kids = [evo.breed(brood, config.genome, config.ga) for brood in broods]
        with pytest.warns(DeprecationWarning, match="ChildResult"):
            record = old.tell([[(c, None if c is None else float(c.n_links)) for c in k] for k in kids])
        plan = new.ask()
        kids = [evo.breed(brood, config.genome, config.ga) for brood in plan.broods]
        told = new.tell(
            [evo.ChildResult(c, c and evo.Evaluation((float(c.n_links),), False)) for k in kids for c in k]
        )
        assert record == told


def test_the_public_names_all_resolve():
    for name in evo.__all__:
        assert getattr(evo, name) is not None, name
    with pytest.raises(AttributeError):
        evo.no_such_thing  # noqa: B018


def test_a_creature_and_a_run_draw_themselves_in_a_notebook(tmp_path):
    walker = evo.load_model(ROOT / "genomes" / "walker.json")
    html = walker._repr_html_()
    assert html.startswith("<svg") and "<animate" in html and "walker" in html
    run = evo.evolve(tiny_config(tmp_path), progress=False)
    page = run._repr_html_()
    assert page.count("<svg") >= 2 and "distance" in page
