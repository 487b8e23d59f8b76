"""The dask backend: chunks of tasks on a dask cluster (a local cluster it starts, or a scheduler's address).

The job and context reach every worker once, as a worker plugin (worker side: :mod:`.dask_worker`); a task
carries its chunk only; results come back in task order, errors as data. A local cluster's chunks go to a
chunk runner (a dask actor) per worker until one is lost (:mod:`.dask_cluster`); ``share``: docs/cluster.md.
"""

from __future__ import annotations

import contextlib
import logging
import math
import pickle
import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import distributed

from evo.run.backends.base import (
    ErrorData,
    EvaluationFailed,
    Job,
    Progress,
    Task,
    chunks_of,
    dask_address_problem,
    log,
    run_chunk,
)
from evo.run.backends.dask_cluster import Client as _Client
from evo.run.backends.dask_cluster import local_cluster, replay
from evo.run.backends.dask_worker import (
    ChunkRunner,
    RunData,
    chunk_on_worker,
    one_line,
    setup_on_worker,
    versions,
    worker_pids,
)
from evo.run.backends.inprocess import InProcess
from evo.run.shards.remote import READY
from evo.run.shards.shared import Watch

__all__ = ["DaskPool", "started_first"]


RUNNER_ANSWER = 10.0  # s: how long a new chunk runner may take to answer its first call
CLOSE_WAIT = 15.0  # s: how long close() waits for an early start it asked to give up
# with ``share``, the evo run process's chunk (the last) weighs this many times a worker's: a worker's chunk
# also pays dask's messages and its event loop (docs/performance.md, "Round twelve")
LAST_WEIGHT = 1.25
WORKER_COUNT_AGE = 10.0  # s: how long the number of workers (for the chunk size) is taken as known
# s: a worker holding a chunk's result not fetched yet is taken for stopped once the scheduler has not heard
# from it for this long (its heartbeats come every second or less)
SILENT_WORKER = 10.0
# whether make_backend's local clusters start while the run goes on (``early_start``); benchmarks that
# time the cluster itself turn it off (:func:`started_first`)
EARLY_START = True
START_WAIT_STEP = 0.25  # s: how often a start on its thread looks whether the run has ended meanwhile
_RUNNER_LOST = "a worker holding a chunk runner was lost"  # (why chunks go as tasks, as run.log says)
_RUNNER_STALLED = "a chunk runner stalled"

WorkerSetup = Callable[[Any, str], Any]


@contextlib.contextmanager
def started_first() -> Iterator[None]:
    """Within it, :func:`evo.run.backends.make_backend`'s local clusters start before the first generation
    runs, as before round fourteen (for benchmarks that time the cluster's own generations or its start
    and close; docs/performance.md, "Round fourteen")."""
    global EARLY_START
    before, EARLY_START = EARLY_START, False
    try:
        yield
    finally:
        EARLY_START = before


def _chunk_outcome(data: bytes) -> tuple[list, ErrorData | None, float]:
    """A chunk's (results, first error, seconds) from what :func:`chunk_on_worker` returned, its workers'
    log records handed to this process's loggers."""
    done, error, seconds, records = pickle.loads(data)
    replay(records)
    return done, error, seconds


async def _forward(runner: int, number: int, call: Any, answers: queue.Queue) -> None:
    """Put a chunk runner's answer to ``answers`` when it comes (in the client's event loop):
    ``(runner, chunk number, its pickled outcome, failed)``, ``failed`` True when its worker is gone."""
    try:
        answers.put((runner, number, await call, False))
    except Exception:
        answers.put((runner, number, None, True))


class DaskPool:
    """Run the job on a dask cluster, ``chunksize`` tasks per dask task (0: about eight chunks per worker
    per batch), results in task order.

    Args:
        job: a module-level function ``job(payload, context)``, importable on the workers.
        context: plain data for the job; pickled once, given to every worker (also those that join
            later) as a worker plugin, unpickled and set up once per worker.
        workers: worker processes of the local cluster started when ``address`` is None.
        chunksize: tasks per chunk (0: automatic).
        address: a running scheduler (``tcp://host:8786``); None starts a local cluster on this machine
            (:class:`~evo.run.backends.dask_cluster.ForkedCluster`).
        worker_setup: module-level ``setup(context, folder) -> context``, run once per worker and run
            (``folder``: the worker's scratch folder); an exception there fails the run naming the worker.
        before_start: called before a local cluster's workers are forked (to load the kernels once,
            from numba's on-disk cache, which each worker then has).
        worker_wait: seconds to wait for a first worker, and for one to come back when none is left.
        connect_timeout: seconds to try to reach the scheduler at ``address``.
        poll: seconds between checks that the scheduler and some worker are still there.
        share: with a local cluster (no ``address``) and ``workers >= 2``, this process counts as one of
            the ``workers``: the cluster gets ``workers - 1`` and this process runs, once the other
            chunks are sent to the chunk runners, the last one itself, then those not sent yet (latest
            first); the results are the same whoever runs a chunk.
        early_start: with ``share``, the first :meth:`run` forks the local cluster's workers and starts
            the rest (its scheduler, the workers joining it, their setup, the chunk runners) on a thread
            of this process, and this process runs every batch alone, as :class:`InProcess` does, until
            the cluster is ready (:attr:`processes` is 1 meanwhile): a run's first generations go on
            while the cluster starts (docs/performance.md, "Round fourteen").

    The cluster is started (or connected to) and checked by the first :meth:`run`, so that every failure
    reaches the caller as :class:`EvaluationFailed` (with ``early_start``, a failure to start at the
    first :meth:`run` after it).
    """

    def __init__(
        self,
        job: Job,
        context: Any,
        workers: int,
        chunksize: int = 0,
        *,
        address: str | None = None,
        worker_setup: WorkerSetup | None = None,
        before_start: Callable[[], None] | None = None,
        worker_wait: float = 60.0,
        connect_timeout: float = 30.0,
        poll: float = 1.0,
        share: bool = False,
        early_start: bool = False,
    ):
        self.workers = max(1, workers)
        self.share = share and address is None and self.workers >= 2  # this process runs chunks too
        self.early_start = early_start and self.share
        self._starting: threading.Thread | None = None  # the early start under way
        self._start_failed: EvaluationFailed | None = None  # how it ended, until a run raises it
        self._ready = False  # the cluster started early is this pool's now
        self._alone_batches = 0  # batches this process ran alone while the cluster started
        self._on_its_own = False  # stalled runners' workers were ended and none is left: it runs the chunks
        self._cancel = threading.Event()  # set by close(): an early start under way gives up
        self._failure_raised = False  # a run raised the early start's failure
        self._job, self._context = job, context
        self.contended = False  # one chunk per worker: dask's scheduler balances (work stealing)
        self.chunksize = chunksize
        self.address = address
        self.worker_wait = worker_wait
        self.connect_timeout = connect_timeout
        self.poll = poll
        self._before_start = before_start
        self._token = uuid.uuid4().hex[:12]  # names this run's tasks; never reaches a result
        self._blob = pickle.dumps((job, context, worker_setup), protocol=pickle.HIGHEST_PROTOCOL)
        self._level = logging.getLogger("evo").getEffectiveLevel()
        self._batches = 0
        self._registered = False  # the run's RunData plugin, with the scheduler
        self._cluster: Any = None
        self._client: Any = None
        self._no_workers_since: float | None = None
        self._counted: tuple[float, int] | None = None  # (when, how many workers)
        # the last batch's futures, let go only once the next batch is sent: letting them go sends the
        # scheduler a message, after which the client's stream holds the next one back for 10 ms
        self._last_batch: list[Any] = []
        self.startup_seconds: dict[str, float] = {}  # "cluster", "setup": the first run's costs
        # a local cluster's chunk runners (dask actors, one per worker) and the futures that keep them;
        # None: chunks go as tasks (a scheduler's address, or a runner was lost)
        self._runners: list[Any] | None = None
        self._runner_futures: list[Any] = []
        self._runner_pids: list[int] = []  # their workers' process ids
        self._serving = False  # the runners were asked to serve steps, and not yet to end
        self._stints = 0  # the stints the runners were asked to serve
        self.sent = {"runner": 0, "task": 0}  # chunks sent each way (for tests and benchmarks)
        # the longest a chunk took so far (s), on a runner or here: how long runners may be silent (Watch)
        self._longest_chunk = 0.0
        self._said_stalled = False  # tasks silent too long, no worker to end: said once

    @property
    def processes(self) -> int:
        """The processes a batch is cut for (:func:`evo.run.batching.chunk_shares`): 1 while this process
        runs the batches alone (``early_start``, the cluster not ready; or no worker left once stalled
        runners' workers were ended), else ``workers``."""
        return 1 if self._alone or self._on_its_own else self.workers

    @property
    def _alone(self) -> bool:
        return self.early_start and not self._ready

    @property
    def last_weight(self) -> float:
        """How many times a worker's chunk the last chunk of a batch weighs
        (:func:`evo.run.batching.chunk_shares`): :data:`LAST_WEIGHT` where this process runs it beside
        the chunk runners (``share``), 1 where every chunk goes to a worker (or this process runs them
        all: the cluster not ready, or no worker left)."""
        if self._alone or self._on_its_own:
            return 1.0
        runners_lost = self._client is not None and self._runners is None
        return LAST_WEIGHT if self.share and not runners_lost else 1.0

    # -- generations from arrays (evo.run.shards.engine.Partnered) ----------------------------------
    @property
    def shards(self) -> bool:
        """Whether :func:`evo.run.shards.run_sharded` may make the run's generations from arrays with
        this pool's chunk runners as partners (a local cluster, this process one of the workers)."""
        return self.share

    @property
    def context(self) -> Any:
        """The job's context (as every worker has it)."""
        return self._context

    def partners_why(self) -> tuple[str | None, bool]:
        """Why the chunk runners cannot make the next generations from arrays with this process now, and
        whether for good (no runners: a lost worker, or none could be made; a cluster that failed to
        start); (None, False) when they can. Before the first :meth:`run` and while the cluster starts,
        not yet (:func:`evo.run.shards.run_sharded` then makes generations from arrays alone), and so
        once no worker is left (stalled runners' workers ended): this process goes on alone, as one
        worker does, not in chunks."""
        if self._on_its_own:
            return "no worker of the local dask cluster is left", False
        if self._client is None and self._starting is None and self._start_failed is None:
            try:  # (a resumed run: no batch has started the cluster)
                self._start_early() if self.early_start else self._start()
            except EvaluationFailed as exc:  # (the next batch raises it)
                self._start_failed = exc
                return "the local dask cluster did not start", True
        self._adopt()
        if self._start_failed is not None:  # (the next batch raises it)
            return "the local dask cluster did not start", True
        if self._client is None or self._alone:
            return "the local dask cluster is not ready yet", False
        if not self._runners:
            return "the local dask cluster has no chunk runners", True
        return None, False

    def partners(self) -> int:
        """How many chunk runners there are."""
        return len(self._runners or ())

    def partner_pipes(self) -> list[Any]:
        """Start every chunk runner serving the steps of generations made from arrays and return this
        process's ends of their pipes, in runner order (each has said it serves this stint; what one
        before left unread on them is dropped). :meth:`end_partners` must follow, whatever happens.

        Raises:
            RuntimeError: a runner did not start serving within ``RUNNER_ANSWER`` seconds."""
        pipes = [self._cluster.steps_pipe(pid) for pid in self._runner_pids]
        if any(pipe is None for pipe in pipes):
            raise RuntimeError("a chunk runner has no pipe to this process")
        self._stints += 1  # (each serving says which: what an earlier one left unread is dropped)
        for runner in self._runners or ():  # (each call runs until end_partners: not awaited)
            runner.serve_steps(self._stints)
        self._serving = True
        ready = READY + str(self._stints).encode()
        deadline = time.monotonic() + RUNNER_ANSWER
        for pipe in pipes:
            while True:
                if not pipe.poll(max(0.0, deadline - time.monotonic())):
                    raise RuntimeError("a chunk runner did not start serving")
                if pipe.recv_bytes() == ready:
                    break
        return pipes

    def end_partners(self) -> None:
        """The chunk runners asked to serve steps by the last :meth:`partner_pipes` stop (or will, once
        they start): an empty message to each; their chunks go on."""
        if self._cluster is not None and self._serving:
            for pid in self._runner_pids:
                with contextlib.suppress(Exception):
                    self._cluster.steps_pipe(pid).send_bytes(b"")
        self._serving = False

    def check_partners(self) -> None:
        """While waiting for a chunk runner: raise when the scheduler or every worker is gone."""
        self._check_alive()

    def partner_lost(self, stalled: Iterable[int] = ()) -> None:
        """A chunk runner's worker was lost, or the runners ``stalled`` (their numbers: their workers are
        ended, :meth:`_end_stalled`): chunks go as tasks from now on, and no generation is made from arrays
        with runners again."""
        stalled = list(stalled)
        self._end_stalled(stalled)
        self._drop_runners(_RUNNER_STALLED if stalled else _RUNNER_LOST)

    def _end_stalled(self, runners: list[int]) -> None:
        """End the local cluster's workers holding the chunk runners ``runners`` (stopped or stuck: a
        task sent to one would wait for it too): :meth:`_end_workers`."""
        if runners and self._cluster is not None:
            self._end_workers([self._runner_pids[runner] for runner in runners])

    def _end_workers(self, pids: list[int]) -> None:
        """End the local cluster's worker processes ``pids`` (stopped or stuck); with none left, this
        process runs every chunk from now on where it may evaluate the run's plugin (``share``).

        Raises:
            EvaluationFailed: none is left, and the plugin must not run in this process."""
        for pid in pids:
            self._cluster.end(pid)
        if not self._cluster.alive():
            if not self.share:  # (a plugin of the user's runs in workers only: docs/runs.md)
                raise EvaluationFailed(
                    -1,
                    None,
                    "the local dask cluster's workers gave no answer (stopped or stuck): none is left",
                )
            self._on_its_own = True

    # -- the cluster ------------------------------------------------------------------------------------
    @property
    def where(self) -> str:
        return f"the dask scheduler at {self.address}" if self.address else "the local dask cluster"

    @staticmethod
    def _cannot_start(exc: BaseException) -> EvaluationFailed:
        return EvaluationFailed(-1, None, f"cannot start a local dask cluster: {one_line(exc)}")

    def _forked(self) -> Any:
        """The local cluster's workers forked here (after ``before_start``), its scheduler not started
        yet (:class:`~evo.run.backends.dask_cluster.ForkedCluster`); it is this pool's cluster from now."""
        if self._before_start is not None:
            self._before_start()
        try:
            self._cluster = local_cluster(self.workers - self.share, start=False)
        except Exception as exc:
            raise self._cannot_start(exc) from None
        return self._cluster

    def _start_early(self) -> None:
        """Fork the local cluster's workers here, then start the rest on a thread (:meth:`_start`)."""
        forked = self._forked()
        starting = threading.Thread(
            target=self._start_on_thread, args=(forked,), name="evo-dask-start", daemon=True
        )
        try:
            starting.start()
        except RuntimeError as exc:  # no thread to be had: the workers go, the run fails in one line
            forked.close()
            self._cluster = None
            raise self._cannot_start(exc) from None
        self._starting = starting

    def _start_on_thread(self, forked: Any) -> None:
        try:
            self._start(forked)
        except EvaluationFailed as exc:
            self._start_failed = exc
        except BaseException as exc:
            self._start_failed = self._cannot_start(exc)

    def _adopt(self) -> None:
        """Once the early start has ended: the cluster is ready, or the next :meth:`run` raises why not."""
        if self._starting is not None and not self._starting.is_alive():
            self._starting.join()
            self._starting = None
            self._ready = self._start_failed is None
            if self._ready:
                log.info(
                    "dask: %s takes chunks from the next batch on (this process ran %d alone while it"
                    " started)", self.where, self._alone_batches,
                )  # fmt: skip

    def _start(self, forked: Any = None) -> None:
        """Start the local cluster (``forked``: its workers forked already, by :meth:`_start_early`) or
        connect to the scheduler; set the run up on the workers; start the chunk runners."""
        start = time.perf_counter()
        if self.address:
            problem = dask_address_problem(self.address)
            if problem is not None:  # a client made with it may never let the process exit
                raise EvaluationFailed(-1, None, f"{self.where}: {problem}")
            try:
                self._client = _Client(self.address, timeout=self.connect_timeout, set_as_default=False)
            except Exception as exc:
                raise EvaluationFailed(-1, None, f"cannot reach {self.where}: {one_line(exc)}") from None
        else:
            cluster = self._forked() if forked is None else forked
            try:
                cluster.start()
                # results fetched from the workers directly, not relayed by the scheduler (this process)
                self._client = distributed.Client(
                    cluster.cluster, set_as_default=False, direct_to_workers=True
                )
            except Exception as exc:
                raise self._cannot_start(exc) from None
        try:
            self._client.register_plugin(RunData(self._token, self._blob, self._level))
        except Exception as exc:
            raise EvaluationFailed(
                -1, None, f"cannot give the run's data to {self.where}: {one_line(exc)}"
            ) from None
        self._registered = True
        self._wait_for_a_worker(step=self.worker_wait if forked is None else START_WAIT_STEP)
        self.startup_seconds["cluster"] = time.perf_counter() - start
        self._given_up()
        self._check_workers()
        if not self.address:
            self._given_up()
            self._start_runners()

    def _wait_for_a_worker(self, step: float) -> None:
        """Wait up to ``worker_wait`` seconds for a first worker, looking every ``step`` seconds whether
        the run has ended meanwhile (an early start's thread)."""
        deadline = time.monotonic() + self.worker_wait
        while True:
            try:
                self._client.wait_for_workers(1, timeout=max(0.01, min(step, deadline - time.monotonic())))
                return
            except TimeoutError:
                self._given_up()
                if time.monotonic() >= deadline:
                    raise EvaluationFailed(
                        -1, None, f"no dask worker joined {self.where} within {self.worker_wait:g} s"
                    ) from None

    def _given_up(self) -> None:
        """Raise once :meth:`close` has asked an early start to give up."""
        if self._cancel.is_set():
            raise EvaluationFailed(-1, None, f"the run ended before {self.where} had started")

    def _start_runners(self) -> None:
        """One chunk runner per worker of the local cluster: a chunk then costs one round trip to its worker
        instead of a task's messages through the scheduler (docs/cluster.md). Where they cannot be
        made, chunks go as tasks."""
        try:
            addresses = sorted(self._client.scheduler_info()["workers"])
            futures = [
                self._client.submit(
                    ChunkRunner,
                    self._token,
                    actor=True,
                    workers=[address],
                    allow_other_workers=False,
                    pure=False,
                    key=f"evo-{self._token}-runner-{n}",
                )
                for n, address in enumerate(addresses)
            ]
            runners = [future.result(timeout=self.worker_wait) for future in futures]
            for runner in runners:
                # calls go through this client (which is not the process's default), and a call to a
                # worker that is gone fails at once rather than waiting for its actor to come back
                runner._client, runner._future = self._client, None
            pids = [runner.ready().result(timeout=RUNNER_ANSWER) for runner in runners]
            if not all(isinstance(pid, int) for pid in pids):  # each answers a first call, or tasks
                raise RuntimeError("a chunk runner did not answer")
        except Exception as exc:
            log.debug("dask: no chunk runners (%s); chunks go as tasks", one_line(exc))
            return
        self._runners, self._runner_futures, self._runner_pids = runners, futures, pids

    def _check_workers(self) -> None:
        """Set the run up on every worker now (plugin, warm kernel); the first failure, by address, fails
        the run naming the worker."""
        start = time.perf_counter()
        answers = self._client.run(setup_on_worker, self._token, on_error="return")
        here = versions()
        problems = []
        ready = 0
        for address in sorted(answers):
            answer = answers[address]
            if isinstance(answer, BaseException):  # gone meanwhile: a replacement sets itself up later
                log.warning("dask worker %s did not answer the check: %s", address, one_line(answer))
                continue
            replay(answer["records"])
            if answer["error"] is not None:
                problems.append(answer["error"])
                continue
            for name, version in answer["versions"].items():
                if version != here[name]:
                    log.warning(
                        "dask worker %s has %s %s, this machine %s: results may differ from a local run",
                        address, name, version, here[name],
                    )  # fmt: skip
            ready += 1
        if problems or not ready:
            raise EvaluationFailed(
                -1, None, problems[0] if problems else f"no dask worker of {self.where} answered"
            )
        self.startup_seconds["setup"] = time.perf_counter() - start
        log.info(
            "dask: %d worker(s) of %s ready; cluster %.2f s, plugin and kernel on every worker %.2f s",
            ready, self.where, self.startup_seconds["cluster"], self.startup_seconds["setup"],
            extra={"dask_startup": dict(self.startup_seconds)},  # for benchmarks
        )  # fmt: skip

    def _worker_count(self) -> int:
        return len(self._client.nthreads())

    def _known_workers(self) -> int:
        """The number of workers, asked of the scheduler at most every ``WORKER_COUNT_AGE`` seconds."""
        now = time.monotonic()
        if self._counted is None or now - self._counted[0] > WORKER_COUNT_AGE:
            self._counted = (now, max(1, self._worker_count()))
        return self._counted[1]

    def _check_alive(self) -> None:
        """Raise when the scheduler is gone, or when no worker has been there for ``worker_wait``."""
        if self._client.status != "running":
            raise EvaluationFailed(-1, None, f"lost the connection to {self.where}")
        try:
            count = self._worker_count()
        except Exception as exc:
            raise EvaluationFailed(
                -1, None, f"lost the connection to {self.where}: {one_line(exc)}"
            ) from None
        if not count and self._cluster is not None and not self._cluster.alive():
            # the local cluster's workers have no nanny: none comes back
            raise EvaluationFailed(
                -1,
                None,
                "dask workers kept dying while running a chunk of this generation: no worker"
                " of the local dask cluster is left",
            )
        now = time.monotonic()
        if count:
            self._no_workers_since = None
        elif self._no_workers_since is None:
            self._no_workers_since = now
        elif now - self._no_workers_since > self.worker_wait:
            raise EvaluationFailed(
                -1, None, f"no dask worker left on {self.where} for {self.worker_wait:g} s"
            )

    # -- a batch ----------------------------------------------------------------------------------------
    def _chunk_size(self, expected: int, workers: int) -> int:
        return self.chunksize or max(1, math.ceil(expected / (8 * workers)))

    def run(
        self, tasks: Iterable[Task], progress: Progress | None = None, expected: int | None = None
    ) -> list[Any]:
        """The job's results for ``tasks`` in order; ``progress(weight)`` as each chunk comes back. The
        batch is sent once all its tasks are known (``expected`` is not needed).

        If tasks fail, the one reported is the first in task order (as with the other backends): once a
        chunk fails, later chunks are cancelled and earlier ones waited for. A worker that dies has its
        chunks run again elsewhere (by dask); on a local cluster, a worker that gives no answer for too
        long (stopped or stuck) is ended and its chunks go the same way (:meth:`_run_on_runners`,
        :meth:`_collect`); a chunk whose workers keep dying, a lost scheduler, no worker for
        ``worker_wait`` seconds, or none left where this process may not run the plugin raise
        :class:`EvaluationFailed` (``index`` -1).
        """
        if self._alone:  # the cluster starts meanwhile (``early_start``)
            if self._start_failed is not None:
                self._failure_raised = True
                raise self._start_failed
            if self._starting is None:
                self._start_early()
            out = InProcess(self._job, self._context).run(tasks, progress)
            self._alone_batches += 1
            self._adopt()
            return out
        if self._on_its_own:
            return InProcess(self._job, self._context).run(tasks, progress)
        if self._start_failed is not None:  # (a start asked for by partners_why)
            self._failure_raised = True
            raise self._start_failed
        if self._client is None:
            self._start()
        if expected is None:
            tasks = list(tasks)
            expected = len(tasks)
        workers = self._known_workers()
        size = self._chunk_size(expected, workers)
        batch = self._batches
        self._batches += 1
        order: list[int] = []
        weight: dict[int, int] = {}
        chunks: list[list[tuple[int, Any]]] = []
        for chunk in chunks_of(list(tasks), size):
            for task in chunk:
                order.append(task.index)
                weight[task.index] = task.weight
            chunks.append([(task.index, task.payload) for task in chunk])
        if not chunks:
            chunks = [[]]
        if not order:
            return []
        results: dict[int, Any] = {}
        if self._runners:
            done, lost = self._run_on_runners(chunks, weight, progress)
            for pairs in done.values():
                results.update(pairs)
            if lost is None:
                return [results[index] for index in order]
            # a runner was lost, or stalled: the chunks not done (a failed one again: it fails the same
            # way) go as tasks, now and from now on
            self._drop_runners(lost)
            chunks = [chunk for n, chunk in enumerate(chunks) if n not in done]
            if self._on_its_own:  # (in task order: the first error raised is the first in order)
                for chunk in chunks:
                    pairs, error = self._run_here(chunk, weight, progress)
                    if error is not None:
                        raise EvaluationFailed(*error)
                    results.update(pairs)
                return [results[index] for index in order]
        # a graph for the first chunk of each worker, sent at once, then one for the rest while they
        # run (a submit per chunk would cost the scheduler far more); a key per chunk
        chunk_of: dict[Any, int] = {}
        for start, stop in ((0, workers), (workers, len(chunks))):
            numbers = range(start, min(stop, len(chunks)))
            if not numbers:
                continue
            futures = self._client.map(
                chunk_on_worker,
                [self._token] * len(numbers),
                [pickle.dumps(chunks[n], protocol=pickle.HIGHEST_PROTOCOL) for n in numbers],
                key=[f"evo-{self._token}-{batch}-{n}" for n in numbers],
                pure=False,
            )
            chunk_of.update(zip(futures, numbers, strict=True))
        self._last_batch = list(chunk_of)
        self.sent["task"] += len(chunk_of)
        if progress is not None:
            progress(0)  # everything is out with the workers: the caller may do its own work
        results.update(self._collect(chunk_of, weight, progress, chunks))
        return [results[index] for index in order]

    def _run_on_runners(
        self, chunks: list[list[tuple[int, Any]]], weight: dict[int, int], progress: Progress | None
    ) -> tuple[dict[int, list], str | None]:
        """Run the chunks on the chunk runners, a chunk to each, the next to the first that is free.
        Returns each chunk's results by chunk number -- all of them, or those done when a runner was lost
        (its worker died) or stalled -- and why not all (None when all). A chunk's error is raised (the
        first in task order) once the chunks before it are done.

        Runners that give no answer while this process waits for them, for as long as the shards
        workers' :class:`~evo.run.shards.shared.Watch` allows partners to be silent (the scale: the
        longest chunk so far, a runner's or this process's), stalled (stopped, or stuck): their chunks
        are not waited for."""
        runners = list(self._runners or ())
        answers: queue.Queue = queue.Queue()
        waiting = list(range(len(chunks)))[::-1]  # popped from the end: chunk 0 first
        busy: dict[int, int] = {}  # runner -> its chunk
        done: dict[int, list] = {}
        errors: dict[int, ErrorData] = {}

        def send(runner: int) -> None:  # the next chunk not after a failed one, if any, to ``runner``
            while waiting and waiting[-1] > min(errors, default=len(chunks)):
                waiting.pop()
            if not waiting:
                return
            number = waiting.pop()
            busy[runner] = number
            data = pickle.dumps(chunks[number], protocol=pickle.HIGHEST_PROTOCOL)
            try:
                call = runners[runner].run(data)
            except Exception:  # the handle knows its worker is gone
                answers.put((runner, number, None, True))
                return
            self._client.loop.add_callback(_forward, runner, number, call, answers)
            self.sent["runner"] += 1

        mine = waiting.pop(0) if self.share and len(chunks) > 1 else None  # the last chunk: this process's
        for runner in range(len(runners)):
            send(runner)
        beside = getattr(progress, "beside", None)
        if mine is not None and beside is not None:  # the caller's own work, while the workers have theirs
            beside()
        while mine is not None:  # then the latest not sent yet, while none failed
            pairs, error = self._run_here(chunks[mine], weight, progress)
            done[mine] = pairs
            if error is not None:
                errors[mine] = error
            mine = waiting.pop(0) if waiting and not errors else None
        if progress is not None:
            progress(0)  # everything is out with the workers: the caller may do its own work
        lost: str | None = None
        silent = 0.0  # how long no runner answered while this process waited (not while it was stopped)
        while busy:
            limit = Watch.allowed(self._longest_chunk)
            since = time.perf_counter()
            try:
                runner, number, outcome, failed = answers.get(timeout=min(self.poll, limit))
            except queue.Empty:
                silent += min(time.perf_counter() - since, self.poll + Watch.WATCHED)
                self._check_alive()
                # (no stall before a chunk's time is known: a slow first batch is not a stopped one;
                # nor with an answer just come)
                if silent > limit and self._longest_chunk > 0.0 and answers.empty():
                    said = "a chunk runner gave no answer for %.3g s (stopped or stuck); its worker is ended"
                    log.warning("dask: " + said, limit)
                    self._end_stalled(list(busy))
                    lost = _RUNNER_STALLED
                    break
                continue
            silent = 0.0
            del busy[runner]
            if failed:  # its worker is gone: let the others finish theirs, send nothing more
                lost = _RUNNER_LOST
                continue
            pairs, error, seconds = _chunk_outcome(outcome)
            self._longest_chunk = max(self._longest_chunk, seconds)
            done[number] = pairs
            if progress is not None:
                progress(sum(weight[index] for index, _ in pairs))
            if error is not None:
                errors[number] = error
            if not lost:
                send(runner)
        if lost is not None:
            return {n: pairs for n, pairs in done.items() if n not in errors}, lost
        if errors:
            raise EvaluationFailed(*errors[min(errors)])
        return done, None

    def _run_here(
        self, chunk: list[tuple[int, Any]], weight: dict[int, int], progress: Progress | None
    ) -> tuple[list, ErrorData | None]:
        """``chunk`` run in this process (:func:`run_chunk`: its results and first error), its seconds
        counted among the chunks' (the runners' and tasks' limit), its weight said to ``progress``."""
        began = time.perf_counter()
        pairs, error = run_chunk(self._job, self._context, chunk)
        self._longest_chunk = max(self._longest_chunk, time.perf_counter() - began)
        if progress is not None:
            progress(sum(weight[index] for index, _ in pairs))
        return pairs, error

    def _drop_runners(self, why: str = _RUNNER_LOST) -> None:
        if self._runners is not None:
            where = "chunks go as tasks" if not self._on_its_own else "no worker is left: chunks are run here"
            log.info("dask: %s; %s from now on", why, where)
        self._runners, self._runner_futures = None, []

    def _collect(
        self,
        chunk_of: dict[Any, int],
        weight: dict[int, int],
        progress: Progress | None,
        chunks: list[list[tuple[int, Any]]],
    ) -> dict:
        """The results of the chunks sent as tasks (``chunk_of``: each future's chunk number in
        ``chunks``), by task index, each chunk's progress said as it comes back. The first error in task
        order is raised once the chunks before it are done (later ones cancelled).

        Tasks that give no answer while this process waits, for as long as the chunk runners may be
        silent (:meth:`_run_on_runners`), on a local cluster have the workers holding them ended
        (:meth:`_tasks_stalled`): dask gives their tasks to the workers left, or with none left this
        process runs them (where it may run the plugin)."""
        results: dict[int, Any] = {}
        errors: dict[int, ErrorData] = {}  # chunk number -> its first error
        pending = set(chunk_of)
        # fetches each chunk's result in the client's event loop as soon as it is done (all at once)
        arrived = distributed.as_completed(
            list(chunk_of), loop=self._client.loop, with_results=True, raise_errors=False
        )
        busy = 0.0
        silent = 0.0  # how long no chunk came back while this process waited (not while it was stopped)

        def add(number: int, pairs: list, error: ErrorData | None) -> None:
            results.update(pairs)
            if progress is not None:
                progress(sum(weight[index] for index, _ in pairs))
            if error is not None:
                errors[number] = error
                for other in [f for f in pending if chunk_of[f] > min(errors)]:
                    pending.discard(other)
                    other.cancel()

        try:
            while pending:
                limit = Watch.allowed(self._longest_chunk)
                since = time.perf_counter()
                try:
                    future, outcome = arrived.queue.get(timeout=min(self.poll, limit))
                except queue.Empty:
                    silent += min(time.perf_counter() - since, self.poll + Watch.WATCHED)
                    self._check_alive()
                    # (as the runners' deadline: none before a chunk's time is known, nor with an answer
                    # just come)
                    if silent > limit and self._longest_chunk > 0.0 and arrived.queue.empty():
                        silent = 0.0
                        self._tasks_stalled(pending, limit)
                        if self._on_its_own:  # no worker left: the rest here, in chunk order
                            for future in sorted(pending, key=chunk_of.__getitem__):
                                if future in pending:  # (not cancelled after an earlier one failed)
                                    pending.discard(future)
                                    future.cancel()
                                    number = chunk_of[future]
                                    add(number, *self._run_here(chunks[number], weight, None))
                    continue
                if future not in pending:  # cancelled here after an earlier chunk failed
                    continue
                silent = 0.0
                pending.discard(future)
                done, error, seconds = self._outcome(future, outcome)
                busy += seconds
                self._longest_chunk = max(self._longest_chunk, seconds)
                add(chunk_of[future], done, error)
        finally:
            for future in pending:
                future.cancel()
        if errors:
            raise EvaluationFailed(*errors[min(errors)])
        log.debug("%d chunks, %.3f s of worker time", len(chunk_of), busy)
        return results

    def _tasks_stalled(self, pending: set[Any], limit: float) -> None:
        """No chunk sent as a task (``pending``: the futures not back) came back for ``limit`` seconds: on a
        local cluster, the workers holding them are ended (:meth:`_end_workers`) -- those running them,
        and those holding a result not fetched yet that the scheduler has not heard from for
        :data:`SILENT_WORKER` seconds (a fetch from a stopped worker holds up the others' with it); a
        scheduler's workers are not this run's to end: it is said once, and the run waits for dask (a
        worker whose heartbeats stop is removed after the scheduler's ``worker-ttl``).

        Raises:
            EvaluationFailed: the scheduler is gone; or none is left, and the plugin must not run here."""
        said = "dask: a chunk sent as a task gave no answer for %.3g s (stopped or stuck); %s"
        if self._cluster is None:
            if not self._said_stalled:
                self._said_stalled = True
                log.warning(said, limit, f"waiting for {self.where} to give it to another worker")
            return
        keys = {future.key for future in pending}
        try:
            running = {address for address, held in self._client.processing().items() if keys & set(held)}
            finished = [future for future in pending if future.status == "finished"]
            holders = self._client.who_has(finished).values() if finished else ()
            workers = self._client.run_on_scheduler(worker_pids)
        except Exception as exc:
            lost = f"lost the connection to {self.where}: {one_line(exc)}"
            raise EvaluationFailed(-1, None, lost) from None
        silent = {
            address
            for held in holders
            for address in held
            if workers.get(address, (0, 0.0))[1] > SILENT_WORKER
        }
        ours = set(self._cluster.pids)
        ending = sorted({workers[a][0] for a in running | silent if a in workers and workers[a][0] in ours})
        if not ending:
            if not self._said_stalled:
                self._said_stalled = True
                log.warning(said, limit, "no worker of the local dask cluster is known to hold it; waiting")
            return
        log.warning(said, limit, "its worker is ended" if len(ending) == 1 else "their workers are ended")
        self._end_workers(ending)
        if self._on_its_own:
            log.info("dask: no worker is left: chunks are run here from now on")

    def _outcome(self, future: Any, outcome: Any) -> tuple[list, ErrorData | None, float]:
        """A chunk's (results, first error, seconds) from what came back for its future."""
        if future.status == "cancelled":
            self._check_alive()
            raise EvaluationFailed(-1, None, f"lost the connection to {self.where}")
        if future.status == "error":
            exc = outcome[1] if isinstance(outcome, tuple) else outcome
            if type(exc).__name__ == "KilledWorker":
                message = "dask workers kept dying while running a chunk of this generation"
            else:
                message = f"a dask task failed: {one_line(exc)}"
            raise EvaluationFailed(-1, None, message)
        return _chunk_outcome(outcome)

    def close(self) -> None:
        starting, self._starting = self._starting, None
        if starting is not None and starting.is_alive():  # an early start under way: it gives up
            self._cancel.set()
            if self._cluster is not None:  # its workers are not needed: waits on them end at once
                self._cluster.kill()
            starting.join(CLOSE_WAIT)
            if starting.is_alive():
                log.debug("dask: the local cluster's start did not end within %g s of the close", CLOSE_WAIT)
        elif starting is not None:
            starting.join()
        failed = self._start_failed
        if failed is not None and not self._cancel.is_set() and not self._failure_raised:
            log.warning("dask: %s", failed.message)  # the run ended before a batch could say so
        client, cluster = self._client, self._cluster
        self._client = self._cluster = None
        self._last_batch = []
        self._runners, self._runner_futures = None, []
        if client is not None:
            # a client that lost its scheduler logs that it gives up reconnecting: the run said it already
            lost = client.status != "running"
            quiet = logging.getLogger("distributed.client")
            level = quiet.level
            if lost:
                quiet.setLevel(logging.CRITICAL)
            try:
                # a long-lived cluster forgets the run (a local one ends with it: no call that a
                # stopped worker would leave unanswered)
                if self._registered and not lost and cluster is None:
                    with contextlib.suppress(Exception):
                        client.unregister_worker_plugin(f"evo-run-{self._token}")
                client.close(timeout=10)
            except Exception as exc:  # a scheduler already gone
                log.debug("closing the dask client: %s", exc)
            finally:
                quiet.setLevel(level)
        if cluster is not None:
            cluster.close(timeout=10)

    def __enter__(self) -> DaskPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
