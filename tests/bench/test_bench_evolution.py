"""The evolution bench's clock: where a generation's time ends now that its tell is done in two parts."""

from __future__ import annotations

from evo.bench.evolution import GenerationClock, bench_config
from evo.run.callbacks import Callback
from evo.run.evolve import run_prepared
from evo.run.folder.writer import FolderWriter, prepare


def test_the_clock_ends_each_generation_when_its_last_evaluation_is_back_before_it_is_told(tmp_path):
    """With a run folder a generation is told beside the next one's work; the clock still ends it when
    its evaluations are all back, once per generation, in order, with the generation's evaluations."""
    order: list = []

    class Clock(GenerationClock):
        def _ended(self) -> None:
            super()._ended()
            order.append(("ended", len(self.ends) - 1))

    class Told(Callback):
        def on_generation_told(self, status) -> None:
            order.append(("told", status.generation))

    config = bench_config(population=8, frames=50, generations=4).replace(pool={"workers": 1})
    prepared = prepare(config, out=tmp_path / "run", force=True)
    clock = Clock()
    run_prepared(prepared, [FolderWriter(prepared), clock, Told()])
    assert len(clock.ends) == len(clock.cpu) == 4 and clock.ends == sorted(clock.ends)
    assert clock.evaluations[0] == 8 and all(0 < n <= 8 for n in clock.evaluations)
    assert clock.start < clock.ends[0]
    for g in range(4):  # each generation ends before it is told
        assert order.index(("ended", g)) < order.index(("told", g))
    for g in range(3):  # told beside the next generation's work, before its evaluations are back
        assert order.index(("told", g)) < order.index(("ended", g + 1))
