"""Log records of forked worker processes reach a handler of the parent's (the run log) through a pipe,
and no process ever waits on a write that a killed worker left unfinished (docs/internals.md, "Workers'
log records").
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import threading
from multiprocessing.connection import wait
from multiprocessing.reduction import ForkingPickler

__all__ = ["WorkerLogHandler"]

WAIT = 2.0  # s a worker waits for the pipe's write lock before it drops its records (a dead holder)
POLL = 0.2  # s between the reading thread's looks at whether the handler was closed (close() wakes it)
JOIN = 5.0  # s close() waits for the reading thread to write what is left in the pipe


class WorkerLogHandler(logging.Handler):
    """Hand every record to ``target``: those of the process that made the handler at once, those of
    processes forked from it through a pipe that a thread of the maker reads.

    A worker writes its record into the pipe itself, under ``write_lock``, before its logging call
    returns (no queue and no feeder thread): a record logged before a worker returns a result is in the
    pipe before the result reaches the parent, and nothing at a worker's exit waits for a write. A worker
    killed while it writes keeps the lock for ever: the others wait ``WAIT`` seconds for it, then drop
    their records; the maker never takes the lock, so it neither loses its own records nor hangs.
    """

    def __init__(self, target: logging.Handler, name: str = "evo-run-log"):
        super().__init__(target.level)
        self.target = target
        context = multiprocessing.get_context("fork")
        self.write_lock = context.Lock()
        self._owner = os.getpid()
        self._reader, self._writer = context.Pipe(duplex=False)
        # close() writes one byte here, so that the reading thread stops waiting for records at once
        self._wake, self._waker = context.Pipe(duplex=False)
        self._dropping = False  # in a worker: the write lock was not to be had, records are dropped
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._receive, name=name, daemon=True)
        self._thread.start()

    def emit(self, record: logging.LogRecord) -> None:
        if os.getpid() == self._owner:
            self.target.handle(record)
            return
        if self._dropping:
            return
        try:
            data = bytes(ForkingPickler.dumps(_plain(record)))
        except Exception:
            self.handleError(record)
            return
        if not self.write_lock.acquire(timeout=WAIT):
            self._dropping = True  # its holder died while writing: waiting again would only cost time
            return
        try:
            self._writer.send_bytes(data)
        except OSError:  # the maker is gone
            self._dropping = True
        finally:
            self.write_lock.release()

    def _receive(self) -> None:
        while True:
            try:
                if self._reader not in wait([self._reader, self._wake], POLL):
                    if self._closed.is_set():  # closed, and every record in the pipe written
                        break
                    continue
                record = ForkingPickler.loads(self._reader.recv_bytes())
            except (EOFError, OSError):
                break
            self.target.handle(record)

    def close(self) -> None:
        """Write the records still in the pipe (waiting at most ``JOIN`` s: a worker killed halfway
        through a long record leaves one that never ends), then close ``target``."""
        if os.getpid() == self._owner and not self._closed.is_set():
            self._closed.set()
            with contextlib.suppress(OSError):  # else the thread sees the close within POLL seconds
                self._waker.send_bytes(b"!")
            self._thread.join(JOIN)
            self.target.close()
            for end in (self._wake, self._waker):
                end.close()
        super().close()


def _plain(record: logging.LogRecord) -> logging.LogRecord:
    """``record`` with its message and traceback as text: its arguments may not be picklable."""
    record.msg, record.args = record.getMessage(), None
    if record.exc_info:
        record.exc_text = record.exc_text or logging.Formatter().formatException(record.exc_info)
        record.exc_info = None
    return record
