"""What every backend shares: tasks, the failure they report, running a chunk with errors as data, and
the per-evaluation time limit that runs where the job runs (docs/runs.md, "Timeouts").

A backend runs a *job* -- ``job(payload, context) -> result``, a module-level function -- on each
:class:`Task` and returns the results in task order, whatever the number of workers or the chunking.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import math
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from evo.errors import Interruption

__all__ = [
    "DASK_SCHEMES",
    "EvaluationFailed",
    "dask_address_problem",
    "chunks_of",
    "EvaluationTimeout",
    "Job",
    "Progress",
    "Task",
    "error_data",
    "evaluation_time_limit",
    "run_chunk",
    "set_evaluation_monitor",
]

log = logging.getLogger("evo.run.backends")

# the protocols a scheduler address may name (none: tcp)
DASK_SCHEMES = ("tcp", "tls")  # tls:// takes its certificates from dask's own configuration
_ADDRESS = re.compile(
    r"(?:(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://)?"
    r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)"
    r"(?::(?P<port>[0-9]{1,5}))?"
)


def dask_address_problem(address: str) -> str | None:
    """None when ``address`` has the form of a scheduler address (``tcp://host:8786``,
    ``tls://[::1]:8786``, ``host:8786``), else what is wrong with it: checked before any dask client is
    made (one whose address does not parse may never let the process exit)."""
    found = _ADDRESS.fullmatch(address.strip())
    if found is None:
        return "expected a scheduler address such as 'tcp://host:8786'"
    if found["scheme"] is not None and found["scheme"].lower() not in DASK_SCHEMES:
        schemes = " or ".join(f"{scheme}://" for scheme in DASK_SCHEMES)
        return f"expected the protocol {schemes} (as in 'tcp://host:8786'), not {found['scheme']}://"
    if found["port"] is None:
        return "expected a port after the host (as in 'tcp://host:8786')"
    if not 1 <= int(found["port"]) <= 65535:
        return f"expected a port in [1, 65535], got {found['port']}"
    return None


Job = Callable[[Any, Any], Any]
# progress(weight) as work comes back; a backend whose workers run apart from the caller also calls
# progress(0) once every task is sent out, while the caller would otherwise only wait
Progress = Callable[[int], None]
ErrorData = tuple[int, "str | None", str, Any]


@dataclass(frozen=True)
class Task:
    """``payload`` for the job, ``index`` its place in the batch, ``weight`` the units of progress it
    stands for (for ``evo run``: the evaluations it makes), and ``chunk``: when tasks give one, the
    consecutive tasks of one chunk go to a worker together (else the backend cuts chunks by size)."""

    index: int
    payload: Any
    weight: int = 1
    chunk: int | None = None


class EvaluationFailed(Exception):
    """A task raised (or its worker died: ``index`` -1). ``plugin`` may be None; ``detail`` is whatever
    plain data the job's exception carried in its ``detail`` attribute."""

    def __init__(self, index: int, plugin: str | None, message: str, detail: Any = None):
        self.index = index
        self.plugin = plugin
        self.message = message
        self.detail = detail
        where = f"plugin '{plugin}'" if plugin else "task"
        super().__init__(f"{where} failed on task {index}: {message}")


def chunks_of(tasks: Sequence[Task], size: int) -> list[list[Task]]:
    """``tasks`` cut into chunks: by their ``chunk`` ids when they carry them (consecutive tasks of one id
    together), else ``size`` at a time."""
    out: list[list[Task]] = []
    for task in tasks:
        if not out:
            out.append([task])
        elif task.chunk is not None:
            if task.chunk == out[-1][-1].chunk:
                out[-1].append(task)
            else:
                out.append([task])
        elif len(out[-1]) >= size:
            out.append([task])
        else:
            out[-1].append(task)
    return out


def error_data(index: int, exc: BaseException) -> ErrorData:
    plugin = getattr(exc, "plugin", None)
    message = getattr(exc, "message", None)
    if message is None:
        message = f"{type(exc).__name__}: {exc}"
    name = getattr(plugin, "name", plugin)
    return index, (str(name) if name is not None else None), str(message), getattr(exc, "detail", None)


def run_chunk(
    job: Job,
    context: Any,
    chunk: Sequence[tuple[int, Any]],
    timed_out: frozenset[tuple[int, int]] = frozenset(),
    between: Callable[[], None] | None = None,
    beside: Callable[[], None] | None = None,
) -> tuple[list[tuple[int, Any]], ErrorData | None]:
    """Run a chunk; stop at the first error and return it as data with what was done so far.

    Args:
        job: ``job(payload, context)``, run on each payload in order; a job with an attribute
            ``prepare(payloads, context) -> list`` is called first on the chunk's payloads and then as
            ``job(payload, context, prepared)`` with its item.
        context: the job's context.
        chunk: (task index, payload) pairs.
        timed_out: (task index, evaluation number) pairs known to run past the time limit (their worker
            hung and was replaced): :func:`evaluation_time_limit` times them out at once.
        between: called after each payload's job (in-process: the caller's chance to report the
            generation before as soon as it is written); what it raises ends the chunk. Given with
            ``beside`` to the job's ``prepare`` step too, which may call it meanwhile (the batched one:
            after each kernel call it reads, while other threads' calls run).
        beside: the caller's own work (in-process: the generation before's bookkeeping), called once:
            by the job's ``prepare`` step, given it as a keyword (``prepare(payloads, context,
            beside=beside, between=between)``: only for a job whose ``prepare`` takes them, as
            evo.run.job's does; the batched one calls it while the chunk's kernel calls run), else before
            the chunk's first job.

    Returns:
        The (task index, result) pairs done, and the first error as data (:func:`error_data`) or None.
    """
    global _task, _timed_out
    done = []
    _timed_out = timed_out
    prepare = getattr(job, "prepare", None)
    # a job with a ``prepare`` step gets what it made for the chunk's payloads (e.g. bred broods)
    payloads = [payload for _, payload in chunk]
    if prepare is not None and beside is not None:
        prepared = prepare(payloads, context, beside=beside, between=between)
    else:
        if beside is not None:
            beside()
        prepared = prepare(payloads, context) if prepare else None
    try:
        with alarm_handler():  # the time limit's handler, once for the chunk
            for position, (index, payload) in enumerate(chunk):
                _task = index
                try:
                    if prepared is None:
                        done.append((index, job(payload, context)))
                    else:
                        done.append((index, job(payload, context, prepared[position])))
                except (Exception, EvaluationTimeout) as exc:  # errors travel back as data
                    return done, error_data(index, exc)
                if between is not None:
                    between()
    finally:
        _task, _timed_out = -1, frozenset()
    return done, None


# -- the time limit of one evaluation (worker side) -------------------------------------------------
class EvaluationTimeout(Interruption):
    """An evaluation ran past its time limit. A BaseException, like KeyboardInterrupt, so that neither a
    plugin's ``except Exception`` nor :func:`evo.fitness.evaluate` (which reports what a plugin raises)
    takes it for an error of the plugin's own."""

    def __init__(self, seconds: float = 0.0):
        super().__init__(f"no result within {seconds:g} s")
        self.seconds = seconds

    def __reduce__(self) -> tuple:  # picklable, so a worker can send it back to the parent
        return (type(self), (self.seconds,))


Monitor = Callable[[int, int, float], None]
_task = -1  # the task run_chunk is running in this process
_timed_out: frozenset[tuple[int, int]] = frozenset()
_monitor: Monitor | None = None
REPEAT = 1.0  # s: a plugin that swallows the timeout gets it again this often


def set_evaluation_monitor(monitor: Monitor | None) -> None:
    """Have ``monitor(task, evaluation, started)`` called as each evaluation starts and ``monitor(-1, -1,
    0.0)`` as it ends, in this process. A backend installs one in its workers to find a worker stuck where
    the time limit cannot interrupt it.

    Args:
        monitor: the callable (``started`` is ``time.monotonic()``, the same clock in every process of
            the machine), or None for none.
    """
    global _monitor
    _monitor = monitor


@contextlib.contextmanager
def evaluation_time_limit(seconds: float, evaluation: int = 0) -> Iterator[None]:
    """Raise :class:`EvaluationTimeout` in the body once it has run ``seconds``.

    In the main thread a ``SIGALRM`` timer interrupts Python code and blocking calls (``time.sleep``,
    I/O, lock waits), again every second if the body swallows it; in another thread an asynchronous
    exception interrupts Python code only. Neither reaches into C code that never returns to the
    interpreter: the fork backend's parent replaces such a worker. The timer of the main thread is
    ``ITIMER_REAL``: the body must not use its own.

    Args:
        seconds: the time limit (wall-clock seconds); 0 for none.
        evaluation: the number of the evaluation within the task run now (for the monitor, and to time
            out at once one that :func:`run_chunk` was told is known to hang).

    Raises:
        EvaluationTimeout: the body ran too long.
    """
    if (_task, evaluation) in _timed_out:
        raise EvaluationTimeout(seconds)
    if _monitor is not None:
        _monitor(_task, evaluation, time.monotonic())
    try:
        if seconds <= 0:
            yield
        elif threading.current_thread() is threading.main_thread():
            with _alarm(seconds):
                yield
        else:
            with _thread_alarm(seconds):
                yield
    finally:
        if _monitor is not None:
            _monitor(-1, -1, 0.0)


# the main thread's SIGALRM handler while run_chunk runs (installed once per chunk, not per evaluation)
_ALARM_SECONDS: list[float | None] = [None]  # the armed limit, or None
_HANDLER_INSTALLED = [0]


def _fire(signum: int, frame: Any) -> None:
    seconds = _ALARM_SECONDS[0]
    if seconds is not None:
        raise EvaluationTimeout(seconds)


@contextlib.contextmanager
def alarm_handler() -> Iterator[None]:
    """Install the time limit's SIGALRM handler for a block of evaluations (in the main thread only;
    elsewhere this does nothing), so that each evaluation only arms and disarms the timer."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _fire)
    _HANDLER_INSTALLED[0] += 1
    try:
        yield
    finally:
        _HANDLER_INSTALLED[0] -= 1
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    if not _HANDLER_INSTALLED[0]:
        with alarm_handler(), _alarm(seconds):
            yield
        return
    _ALARM_SECONDS[0] = seconds
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds, REPEAT)
        yield
    except EvaluationTimeout:
        raise EvaluationTimeout(seconds) from None
    finally:
        while True:  # a timeout that fires while this disarms is dropped: the body is over
            try:
                _ALARM_SECONDS[0] = None
                signal.setitimer(signal.ITIMER_REAL, 0.0)
                break
            except EvaluationTimeout:
                continue


class _ThreadTimer:
    """The time limit of the evaluations of one thread other than the main one: a watcher thread, made
    once for that thread (a thread per evaluation cost ~0.2 ms each on a dask worker), that raises
    :class:`EvaluationTimeout` in it asynchronously once the armed deadline passes, and again every
    ``REPEAT`` seconds until it is disarmed.

    Arming and disarming only write the deadline: the watcher is woken only when it sleeps past the new
    deadline (or for good: disarmed past the last deadline), and on waking re-reads the deadline and
    sleeps on if it moved. With a limit of seconds and evaluations of milliseconds it wakes about once per
    limit, not twice per evaluation: each wake took the GIL from the evaluating thread (a dask worker's
    compute thread: 140-260 context switches a generation of the bench's dask section, now ~45)."""

    def __init__(self) -> None:
        self.target = ctypes.c_ulong(threading.get_ident())
        self.changed = threading.Condition()
        self.deadline: float | None = None  # time.monotonic() of the next timeout, None: disarmed
        self.latest = -math.inf  # the deadline last armed
        self.wakes_at = math.inf  # when the watcher wakes next by itself (inf: only when notified)
        self.raised = False  # a timeout was raised since the last disarm (maybe not yet delivered)
        watcher = threading.Thread(target=self._watch, name="evo-time-limit", daemon=True)
        watcher.start()

    def arm(self, seconds: float) -> None:
        with self.changed:
            self.deadline = self.latest = time.monotonic() + seconds
            if self.deadline < self.wakes_at:
                self.wakes_at = -math.inf  # woken: it reads the deadline before it sleeps again
                self.changed.notify()

    def disarm(self) -> None:
        """Disarm, withdrawing a timeout raised but not yet delivered (none can be raised after this)."""
        with self.changed:
            self.deadline = None
            if self.raised:
                self.raised = False
                ctypes.pythonapi.PyThreadState_SetAsyncExc(self.target, None)

    def _watch(self) -> None:
        with self.changed:
            while True:
                if self.deadline is None:  # sleeps on to the last deadline, which the next one passes
                    left = self.latest - time.monotonic()
                    self.wakes_at = self.latest if left > 0 else math.inf
                    self.changed.wait(left if left > 0 else None)
                    continue
                left = self.deadline - time.monotonic()
                if left > 0:
                    self.wakes_at = self.deadline
                    self.changed.wait(left)
                    continue
                ctypes.pythonapi.PyThreadState_SetAsyncExc(self.target, ctypes.py_object(EvaluationTimeout))
                self.raised = True
                self.deadline = time.monotonic() + REPEAT


_thread_timers = threading.local()


@contextlib.contextmanager
def _thread_alarm(seconds: float) -> Iterator[None]:
    timer = getattr(_thread_timers, "timer", None)
    if timer is None:
        timer = _thread_timers.timer = _ThreadTimer()
    timer.arm(seconds)
    try:
        yield
    except EvaluationTimeout:
        raise EvaluationTimeout(seconds) from None
    finally:
        while True:  # as above; one raised but not yet delivered is withdrawn
            try:
                timer.disarm()
                break
            except EvaluationTimeout:
                continue
