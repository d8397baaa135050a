"""Work for the second core: a function run in a forked process beside the caller's own work.

The parse stage has its pool of workers; the later stages have one large in-memory state
(claims, facts, tables) that a worker would need whole. A fork shares that state without
copying or pickling it, so splitting such a stage in two halves, or running the report beside
the writing of the tables, pays even where a pool of workers would not. Here too what a build's
processes are measured by: the CPU time, the peak memory, and the `Clock` of a build's steps.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from multiprocessing.sharedctypes import Synchronized
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class HelperDied(RuntimeError):
    """A forked process ended without an answer: killed (by the system, out of memory, or by
    a person), or failed in a way that could not be sent. Raised where its block ends."""


class Beside(Generic[T]):
    """What a function run by `beside` returned, once the block it ran beside has ended."""

    def __init__(self) -> None:
        self._value: T | None = None
        self._done = False
        self.peak: int | None = None
        """The forked process's peak resident memory in bytes, answer sent (`peak_rss`); None
        when the function ran in this process, or the process ended before it said."""
        self.cpu: float | None = None
        """The forked process's own CPU seconds (user and system), answer sent (`cpu_seconds`):
        what the second core did is not in the build's steps. None as for `peak`."""

    def _set(self, value: T) -> None:
        self._value, self._done = value, True

    @property
    def done(self) -> bool:
        """Whether the function returned (false while the block runs, or if it failed)."""
        return self._done

    def result(self) -> T:
        assert self._done, "result() is read after the with block"
        return self._value  # type: ignore[return-value]


def end_with(parent: int) -> None:
    """In a pool's worker (its initializer): end the worker once `parent` has ended. Workers
    wait for work on a queue the parent feeds, and a parent killed outright (SIGKILL, the
    out-of-memory killer) never closes it: its workers waited for ever, each holding its memory."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_CHECK)
        os._exit(1)

    threading.Thread(target=watch, name="ends with the build", daemon=True).start()


def worker_started(parent: int, peak: Synchronized[int]) -> None:
    """A pool worker's initializer: the worker ends with `parent` (`end_with`), and as it exits it
    raises `peak` (a shared `multiprocessing.Value` of bytes) to its own peak memory if higher.
    What `wait4` keeps of the children, the largest of all the process ever waited for, would
    name a larger earlier child's (of a build before, in the same process) as the workers'."""
    from multiprocessing import util

    end_with(parent)

    def say() -> None:
        with peak.get_lock():
            peak.value = max(peak.value, peak_rss())

    util.Finalize(None, say, exitpriority=10)  # run as the worker process exits


ORPHAN_CHECK = 0.5
"""Seconds between a worker's looks at whether the build that started it is still there."""


def cores(workers: int | None) -> int:
    """Processes a stage may use: `workers` when given, else one per core."""
    return workers or os.cpu_count() or 1


@contextlib.contextmanager
def beside(
    fn: Callable[[], T], *, parallel: bool = True, what: str = "work", stream: bool = False
) -> Iterator[Beside[T]]:
    """Run `fn` in a forked process while the with block runs in this one; its return value
    (or its exception, raised here) is there when the block ends. A fork shares the parent's
    data without copying or pickling it, which is what makes a second core pay for work that
    only reads. Without fork, with `parallel` false, or when the fork fails, `fn` runs first,
    in this process. `what` names the work in the error raised if the process dies.

    With `stream`, for a large answer (a table, many records), a thread reads it as it comes
    (reading a pipe lets go of the GIL): the answer would otherwise wait in the pipe, its
    process blocked, until the block ends. The block must then not fork, since a process
    forked while another thread runs may deadlock."""
    handle: Beside[T] = Beside()
    child = None
    if parallel and "fork" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("fork")
        reader, writer = context.Pipe(duplex=False)
        child = context.Process(target=_run_and_send, args=(fn, writer, os.getpid()), daemon=True)
        # Objects the collector would visit in the child are moved out of its reach first: its
        # visits would write to every page of the shared heap and so copy it all.
        gc.freeze()
        give_back()
        try:
            child.start()
        except (OSError, AssertionError):  # no memory or processes left; or a daemonic caller
            reader.close()
            child = None
        finally:
            gc.unfreeze()
            writer.close()
    # What `fn` holds is let go of once it has run here, or once the child has its copy (as
    # `multiprocessing` lets go of its target), not when the block ends: at 10,000 documents
    # the claims table's process held every claim alive in the build through the writing of
    # the tables.
    if child is None:
        handle._set(fn())
        del fn
        yield handle
        return
    del fn
    answered = False
    received: list[bytes | BaseException] = []
    receiver = threading.Thread(target=_receive, args=(reader, received, handle), daemon=True) if stream else None
    try:
        if receiver:
            receiver.start()
        yield handle
        if receiver:
            receiver.join()
        else:
            _receive(reader, received, handle)
        data = [part for part in received if isinstance(part, bytes)]
        if not data or len(data) < len(received):
            failure = next((part for part in received if isinstance(part, BaseException)), None)
            if child.is_alive():  # it may be blocked writing what could not be read
                child.terminate()
            child.join()
            raise HelperDied(
                f"the process doing the {what} ended without an answer (exit code {child.exitcode})"
            ) from failure
        try:
            status, payload = pickle.loads(data[0], buffers=data[1:])
        except Exception as exc:  # it pickled but does not load: a programming fault, named here
            raise RuntimeError(f"the answer of the process doing the {what} could not be read: {exc!r}") from exc
        answered = True
        if handle.peak is not None and handle.cpu is not None:
            watched(what, handle.peak, handle.cpu)
        if status == "error":
            raise payload
        handle._set(payload)
    finally:
        if not answered and child.is_alive():
            child.terminate()
        child.join()
        if receiver and receiver.ident is not None:  # started
            receiver.join()
        reader.close()


Helper = tuple[str, int, float]
"""A process the build watched (one `beside` forked, or its parse workers together): what it
did, its peak memory in bytes and its CPU seconds."""

_watching: list[list[Helper]] = []


@contextlib.contextmanager
def helpers_watched() -> Iterator[list[Helper]]:
    """Each process `beside` forks while the block runs, and each that says what it used
    (`watched`), as `Helper`s in the order they answered: a build's largest process is often not
    the build's own, and on two cores half its CPU time is spent beside its steps."""
    found: list[Helper] = []
    _watching.append(found)
    try:
        yield found
    finally:
        _watching.remove(found)


def watched(what: str, peak: int, cpu: float) -> None:
    """Record a process that did `what` in the open `helpers_watched` blocks: those `beside`
    forks, and others that say what they used (the parse workers)."""
    for found in _watching:
        found.append((what, peak, cpu))


def _receive(reader: Connection, received: list[bytes | BaseException], handle: Beside[Any]) -> None:
    """The answer's pickle, then its out-of-band buffers, into `received`; nothing if the
    process ends before it has sent all of it, and what went wrong if reading failed. Then the
    process's peak memory, into `handle`."""
    try:
        count = int.from_bytes(reader.recv_bytes(), "little")
        parts = [reader.recv_bytes() for _ in range(count + 1)]
    except (EOFError, OSError):
        return
    except BaseException as exc:  # a thread's error is handed to the block's end
        received.append(exc)
        return
    received.extend(parts)
    with contextlib.suppress(EOFError, OSError):
        handle.peak = int.from_bytes(reader.recv_bytes(), "little")
        handle.cpu = int.from_bytes(reader.recv_bytes(), "little") / 1e6


_pauses = 0
"""How many `collector_paused` blocks are open: the outermost one restarts the collector."""
_resume = True
"""Whether the collector ran before the outermost block began."""


def give_back() -> None:
    """Hand the C heap's free pages back to the system (glibc's `malloc_trim`; nothing elsewhere).

    A process forked from this one starts with every page this one has, in use or not: memory
    freed here but kept by the allocator would count again in the fork's size."""
    global _trim
    if _trim is None:
        try:
            _trim = ctypes.CDLL(None).malloc_trim
        except (OSError, AttributeError):
            _trim = False
    if _trim:
        _trim(0)


_trim: Any = None


@contextlib.contextmanager
def arrow_pool() -> Iterator[None]:
    """A block during which Arrow allocates from jemalloc, where pyarrow has it and whoever runs
    the build has not chosen a pool (`ARROW_DEFAULT_MEMORY_POOL`); the pool before is restored.

    pyarrow's default on Linux, mimalloc, keeps the pages of the columns a build frees (each
    table's, once written): at 10,000 documents the build process still held 1,003 MiB with
    4 MiB of Arrow memory in use, where with jemalloc it held 725 MiB, and its largest process
    peaked at 1,350-1,367 MiB where it now peaks at 1,211-1,227 MiB, in the same time. A process
    forked beside the build counts the pages it inherits, so those kept pages counted twice."""
    import pyarrow as pa

    try:
        pool = None if "ARROW_DEFAULT_MEMORY_POOL" in os.environ else pa.jemalloc_memory_pool()
    except NotImplementedError:  # a pyarrow built without it
        pool = None
    if pool is None:
        yield
        return
    before = pa.default_memory_pool()
    pa.set_memory_pool(pool)
    try:
        yield
    finally:
        pa.set_memory_pool(before)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """A block (or, as a decorator, a function) during which the garbage collector does not run.

    A build makes millions of long-lived records and no reference cycles among them, and each
    full collection walks every one: at 10,000 documents, 35 of them took 174 s of a 1,577 s
    build, up to 30 s each, and not one found an object to free. Reference counts still free
    whatever is dropped; the few cycles a block makes are collected once the outermost block
    ends and the collector runs again (unless it was off before)."""
    global _pauses, _resume
    if not _pauses:
        _resume = gc.isenabled()
        gc.disable()
    _pauses += 1
    try:
        yield
    finally:
        _pauses -= 1
        if not _pauses and _resume:
            gc.enable()


def _run_and_send(fn: Callable[[], Any], writer: Connection, parent: int) -> None:
    _die_with_parent(parent)
    try:
        answer: tuple[str, Any] = ("ok", fn())
    except BaseException as exc:  # sent to the parent, which raises it there
        exc.add_note("in the forked process:\n" + "".join(traceback.format_exception(exc)).rstrip())
        answer = ("error", exc)
    # Buffers (a table's Arrow columns, numpy arrays) go out of band, each as its own message:
    # the parent's table is then made of the bytes it receives, not of a copy of them.
    buffers: list[memoryview] = []

    def out_of_band(buffer: pickle.PickleBuffer) -> bool:
        try:
            buffers.append(buffer.raw())
        except BufferError:  # not contiguous: pickled in band
            return True
        return False

    try:
        data = pickle.dumps(answer, protocol=5, buffer_callback=out_of_band)
        # An exception whose __init__ does not take its args fails only when loaded. A result is
        # not loaded here: that would double the cost of a large one (`beside` names its failure).
        if answer[0] == "error":
            pickle.loads(data, buffers=buffers)
    except Exception:  # it still reaches the parent, as text
        text = "".join(traceback.format_exception(answer[1])) if answer[0] == "error" else repr(answer[1])
        data = pickle.dumps(("error", RuntimeError(text)), protocol=pickle.HIGHEST_PROTOCOL)
        buffers = []
    writer.send_bytes(len(buffers).to_bytes(8, "little"))
    writer.send_bytes(data)
    for buffer in buffers:
        writer.send_bytes(buffer)
    writer.send_bytes(peak_rss().to_bytes(8, "little"))  # last: sending costs memory too
    writer.send_bytes(round(cpu_seconds() * 1e6).to_bytes(8, "little"))
    writer.close()


def cpu_seconds() -> float:
    """This process's own CPU time so far, user and system, of all its threads: a forked
    process counts from its fork."""
    return time.process_time()


def ended_children() -> float:
    """The CPU seconds (user and system) of this process's children that have ended and been
    waited for (the parse workers, the forked helpers), with their own such children's: what
    `wait4` counts for them, to the microsecond."""
    try:
        import resource
    except ImportError:  # Windows has no `resource`: whole clock ticks
        times = os.times()
        return times.children_user + times.children_system
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def peak_rss() -> int:
    """This process's peak resident memory so far, in bytes: VmHWM on Linux (a forked process's
    own, the parent's pages it still shares included), else ru_maxrss (kilobytes on Linux,
    bytes on macOS); 0 where the platform does not say."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource
    except ImportError:  # not on Windows
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def _die_with_parent(parent: int) -> None:
    """On Linux, ask to be killed when the parent dies (even by SIGKILL), so that a killed
    build leaves no process writing into its staging folder; a parent that died before the
    request was made is caught by its pid."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)


class Clock:
    """Seconds between the steps of one build, the CPU time they took and the build process's
    peak memory when each ended: each `lap` ends the step it names."""

    def __init__(self) -> None:
        self._last = time.perf_counter()
        self._used = (cpu_seconds(), ended_children())
        self.laps: tuple[tuple[str, float], ...] = ()
        self.peaks: tuple[tuple[str, int], ...] = ()
        self.cpu: tuple[tuple[str, float, float], ...] = ()
        """For each step, the CPU seconds of the build process and of its processes waited for
        in it (`BuildResult.cpu`)."""

    def lap(self, step: str) -> None:
        now = time.perf_counter()
        self.laps += ((step, round(now - self._last, 4)),)
        used = (cpu_seconds(), ended_children())
        self.cpu += ((step, round(used[0] - self._used[0], 4), round(used[1] - self._used[1], 4)),)
        self._used = used
        # Linux keeps a process's memory counts per CPU and sums them now and then: a reading of
        # the peak so far can come out a few hundred kB below the one before it.
        before = self.peaks[-1][1] if self.peaks else 0
        self.peaks += ((step, max(peak_rss(), before)),)
        self._last = now
