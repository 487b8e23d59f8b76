"""Listeners on the generation loop (EvoTorch-style hooks): what a callback is told and how it stops a run.

A callback is a :class:`Callback` (any of its hooks) or a plain callable, which gets each generation's
:class:`GenerationStatus`. The run folder, the progress bars and ``run.log`` are callbacks too.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evo.ga.individual import Individual
from evo.model import Creature

if TYPE_CHECKING:
    from evo.fitness import Plugin
    from evo.ga.loop import Evolution
    from evo.run.config import Config

__all__ = [
    "Callback",
    "FailureMessage",
    "GenerationStatus",
    "Member",
    "ProgressBars",
    "RunStart",
    "as_callbacks",
    "member_of",
]


@dataclass(frozen=True)
class Member:
    """A creature of the hall of fame (or a generation's best) with its fitness and lineage.

    Attributes:
        creature: the :class:`~evo.model.Creature`.
        fitness: one value per objective (``-inf`` for an exploded creature of a maximised objective).
        objectives: the objective names.
        id: ``"g12-34"``; ``generation`` the generation it was born in; ``parents`` the ids it came from.
        seed: the seed its fitness plugin was called with.
    """

    creature: Creature
    fitness: tuple[float, ...]
    objectives: tuple[str, ...]
    id: str
    generation: int
    parents: tuple[str, ...] = ()
    seed: int | None = None

    def __repr__(self) -> str:
        values = ", ".join(f"{n} {v:.6g}" for n, v in zip(self.objectives, self.fitness, strict=False))
        return f"Member({self.id}, {values}, {self.creature.n_masses} masses)"


def member_of(ind: Individual, objectives: Sequence[str]) -> Member:
    """The :class:`Member` view of a told individual."""
    return Member(
        creature=ind.creature,
        fitness=tuple(ind.values or ()),
        objectives=tuple(objectives),
        id=ind.id,
        generation=ind.born,
        parents=tuple(ind.parents),
        seed=ind.seed,
    )


class _Control:
    def __init__(self) -> None:
        self.stop = False


@dataclass(frozen=True)
class GenerationStatus:
    """What a callback is told after each generation.

    Attributes:
        generation: the generation just finished (0 is the initial population).
        generations: the generations the run is asked for.
        evaluations: the creatures evaluated in this generation.
        stats: the generation's row of ``history.csv`` (``<objective>_best``, ``_mean``, ``_std``,
            ``_min``, ``masses_mean``, ``links_mean``, ``exploded``...).
        hall_of_fame: the hall of fame after this generation, best first.
        seconds: wall-clock seconds the generation took.
    """

    generation: int
    generations: int
    evaluations: int
    stats: Mapping[str, float]
    hall_of_fame: tuple[Member, ...]
    seconds: float
    _control: _Control = field(default_factory=_Control, repr=False, compare=False)

    @property
    def best(self) -> Member | None:
        """The best creature found so far."""
        return self.hall_of_fame[0] if self.hall_of_fame else None

    def stop(self) -> None:
        """Ask the run to stop after this generation (its checkpoint is written first)."""
        self._control.stop = True

    @property
    def stop_requested(self) -> bool:
        """Whether :meth:`stop` was called."""
        return self._control.stop


@dataclass(frozen=True)
class RunStart:
    """What a callback is told when the loop starts: the checked config, the plugin, the evolution (its
    state; generation -1 for a new run) and whether it resumes a run folder."""

    config: Config
    plugin: Plugin
    evolution: Evolution
    resumed: bool
    workers: int


class FailureMessage(str):
    """The one-line message of a failed evaluation (a ``str``), with the full traceback of what the plugin
    raised as ``traceback`` ("" when there is none: it returned something that is not a fitness)."""

    traceback: str

    def __new__(cls, line: str, traceback: str = "") -> FailureMessage:
        message = super().__new__(cls, line)
        message.traceback = traceback
        return message


class Callback:
    """Hooks on the generation loop, called in the process that runs :func:`evo.evolve`; override any.

    ``on_failure`` may return a phrase that the run's one-line error message ends with (the run folder
    says where it saved the creature).
    """

    def on_run_start(self, run: RunStart) -> None:
        """Called once, before the first generation of this call (also when resuming).

        Args:
            run: the :class:`RunStart`: config, plugin, evolution, whether it resumes, workers.
        """

    def on_generation_start(self, generation: int, evaluations: int) -> None:
        """Called when a generation's broods are planned, before they are bred and evaluated; where the
        generation before is reported while this one runs (docs/runs.md, "Workers"), once that report is
        done: then possibly while its broods are already bred and evaluated (with lane threads, between
        their kernel calls).

        Args:
            generation: the generation about to be made (0 is the initial population).
            evaluations: how many creatures it will evaluate.
        """

    def on_evaluated(self, count: int) -> None:
        """Called each time a batch of evaluations comes back (what the progress bar counts).

        Args:
            count: the evaluations in this batch (they add up to the generation's ``evaluations``).
        """

    def on_generation_told(self, status: GenerationStatus) -> None:
        """Called once a generation is told: in a GA run with a run folder (and no ``[ga] refine``), beside
        the next generation's work (once its broods are bred, as their kernel calls start; with worker
        processes, once the work is sent out), otherwise (and for the last generation) before the next
        one is asked for. The generation is reported
        (:meth:`on_generation_end`) later, once every callback's work started here is done (the run
        folder starts its durable checkpoint write here, when the generation is one it checkpoints:
        ``[run] checkpoint_interval``). ``status.stop()`` here ends the run after this generation, the
        next one's work dropped if under way (``evo run`` stops so on Ctrl-C and SIGTERM).

        Args:
            status: the generation's :class:`GenerationStatus`.
        """

    def on_generation_end(self, status: GenerationStatus) -> None:
        """Called when a generation is reported: after it is told and, if the run folder checkpoints it
        (``[run] checkpoint_interval``), its checkpoint is durable, possibly while the next generation is
        already being bred and evaluated (docs/runs.md, "Workers"); ``status.stop()`` ends the run after
        it.

        Args:
            status: the generation's :class:`GenerationStatus`.
        """

    def on_failure(
        self, generation: int, index: int, creature: Creature, seed: int, message: str
    ) -> str | None:
        """Called when a creature's evaluation fails, before the run raises
        :class:`~evo.run.folder.RunFailed` (not when the creature is unknown: a worker that died).

        Args:
            generation: the generation being made.
            index: the creature's place among the generation's evaluations (its id is
                ``f"g{generation}-{index}"``).
            creature: the creature whose evaluation failed.
            seed: the seed its fitness plugin was called with.
            message: what went wrong, in one line; a :class:`FailureMessage`, whose ``traceback`` holds
                the full traceback of what the plugin raised ("" when it returned something wrong).

        Returns:
            A phrase the run's one-line error ends with (e.g. where the creature was saved), or None.
        """
        return None

    def on_run_end(self, stopped: bool) -> None:
        """Called once when the loop ends, whatever happened (also after a failure).

        Args:
            stopped: True when a callback (or Ctrl-C) stopped the run before its last generation.
        """


class _Function(Callback):
    def __init__(self, func: Callable[[GenerationStatus], Any]):
        self.func = func

    def on_generation_end(self, status: GenerationStatus) -> None:
        self.func(status)


def as_callbacks(items: Sequence[Callback | Callable[[GenerationStatus], Any]]) -> list[Callback]:
    """Callbacks as :class:`Callback` objects (a plain callable gets each generation's status)."""
    out: list[Callback] = []
    for item in items:
        if isinstance(item, Callback):
            out.append(item)
        elif callable(item):
            out.append(_Function(item))
        else:
            raise TypeError(f"a callback must be a Callback or a callable, got {type(item).__name__}")
    return out


def _bar_kind() -> tuple[Any, bool]:
    """(tqdm's bar class, whether a second bar can be drawn under the first): its widgets in a Jupyter
    kernel with ipywidgets; text elsewhere, one bar only in a kernel without them (a notebook's output
    cannot move its cursor up; tqdm.auto would warn there)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    if shell is not None and getattr(shell, "kernel", None) is not None:
        try:
            import ipywidgets  # noqa: F401
        except ImportError:
            from tqdm.std import tqdm

            return tqdm, False
        from tqdm.notebook import tqdm

        return tqdm, True
    from tqdm.std import tqdm

    return tqdm, True


class ProgressBars(Callback):
    """tqdm bars: the generations, and the evaluations of the current one (counted as they return); the
    first objective's best and mean in the postfix. Drawn on standard error."""

    def __init__(self, leave: bool = True):
        self.leave = leave
        self.outer: Any = None
        self.inner: Any = None
        self.objective = ""
        self._nested = True

    def on_run_start(self, run: RunStart) -> None:
        tqdm, self._nested = _bar_kind()
        self._tqdm = tqdm
        total = run.config.run.generations
        self.objective = run.plugin.objectives[0]
        self.outer = tqdm(
            total=total,
            initial=min(run.evolution.generation + 1, total),
            desc=run.config.run.name,
            unit="gen",
            dynamic_ncols=True,
            leave=self.leave,
        )

    def on_generation_start(self, generation: int, evaluations: int) -> None:
        if not self._nested:  # one line of text cannot hold two bars
            return
        self.inner = self._tqdm(
            total=evaluations, desc=f"generation {generation}", unit="eval", leave=False, position=1
        )

    def on_evaluated(self, count: int) -> None:
        if self.inner is not None:
            self.inner.update(count)

    def on_generation_end(self, status: GenerationStatus) -> None:
        if self.inner is not None:
            self.inner.close()
            self.inner = None
        best, mean = status.stats[f"{self.objective}_best"], status.stats[f"{self.objective}_mean"]
        text = f"best {best:.4g}  mean {mean:.4g}"
        if "coverage" in status.stats:  # a MAP-Elites run: the archive's
            text += f"  coverage {status.stats['coverage']:.3g}"
        self.outer.set_postfix_str(text, refresh=False)
        self.outer.update(1)

    def on_run_end(self, stopped: bool) -> None:
        if self.inner is not None:
            self.inner.close()
            self.inner = None
        if self.outer is not None:
            self.outer.close()
