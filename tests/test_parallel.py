"""`beside`: work that only reads the build's data runs on a second core while the tables are written;
`collector_paused`: the garbage collector does not walk the build's millions of records."""

from __future__ import annotations

import functools
import gc
import os
import weakref
from pathlib import Path
from typing import Any

import pytest

from pipeline.runner.pool import arrow_pool, beside, collector_paused, cpu_seconds, helpers_watched, peak_rss


class Unpicklable(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.handle = lambda: None  # a lambda cannot be pickled


@pytest.mark.parametrize("parallel", [True, False])
def test_the_function_sees_the_parents_data_and_its_answer_comes_back(parallel: bool, tmp_path: Path) -> None:
    data = {"claims": list(range(1000))}

    def total() -> int:
        (tmp_path / "pid").write_text(str(os.getpid()))
        return sum(data["claims"])

    with beside(total, parallel=parallel) as answer:
        (tmp_path / "table.csv").write_text("written meanwhile\n")
    assert answer.result() == 499500
    ran_here = (tmp_path / "pid").read_text() == str(os.getpid())
    assert ran_here is not parallel
    assert (tmp_path / "table.csv").read_text() == "written meanwhile\n"


class Rows(list[int]):
    """A list that a weak reference can follow."""


@pytest.mark.parametrize("parallel", [True, False], ids=["forked", "run here"])
def test_while_the_block_runs_this_process_lets_go_of_what_the_function_holds(parallel: bool) -> None:
    """Once the function has run here, or the child has its own copy of its data, this process
    holds that data only if something else here does (the claims table's process held every
    claim of a build until the tables were written)."""
    rows = Rows(range(1000))
    gone = weakref.ref(rows)
    total = functools.partial(sum, rows)
    del rows
    with beside(total, parallel=parallel, what="summing") as answer:
        del total
        gc.collect()
        assert gone() is None
    assert answer.result() == 499500


@pytest.mark.parametrize("stream", [False, True], ids=["read at the end", "read as it comes"])
def test_a_forked_process_says_its_peak_memory_and_what_it_did(stream: bool) -> None:
    """The largest process of a build is often one it forked: each says its own peak, the
    parent's pages it shares included, and the build lists them by what they did."""
    held = bytearray(64 * 2**20)  # the parent's: counted in the child's peak once it touches them

    def touch() -> int:
        grown = bytes(32 * 2**20)  # the child's own
        return sum(held[:: 2**12]) + len(grown)

    with helpers_watched() as peaks:
        with beside(touch, what="touching", stream=stream) as forked:
            pass
        with beside(touch, parallel=False, what="running here") as here:
            pass
    assert forked.result() == here.result() == 32 * 2**20
    assert forked.peak is not None and forked.peak > (64 + 32) * 2**20
    assert here.peak is None and here.cpu is None  # the block's own process: its figures are the build's
    assert forked.cpu is not None
    assert peaks == [("touching", forked.peak, forked.cpu)]
    assert peak_rss() > 64 * 2**20


@pytest.mark.parametrize("stream", [False, True], ids=["read at the end", "read as it comes"])
def test_a_forked_process_says_the_cpu_time_it_took_which_the_parent_did_not(stream: bool) -> None:
    """On two cores a build's steps show only what the build process waited for: each process
    forked beside it says how much CPU time it took, counted from its fork, not the parent's."""
    spent = cpu_seconds()
    assert spent > 0.2, "this process has worked already: a child counting from it would show it"

    def spin() -> float:
        start = cpu_seconds()
        assert start < 0.2, "a forked process counts from its fork"
        while cpu_seconds() < start + 0.3:
            pass
        return start

    with helpers_watched() as found, beside(spin, what="spinning", stream=stream) as forked:
        pass
    assert forked.cpu is not None and 0.3 <= forked.cpu < 5
    assert found == [("spinning", forked.peak, forked.cpu)]
    assert cpu_seconds() - spent < 0.25, "the parent only waited"


@pytest.mark.parametrize("stream", [False, True], ids=["read at the end", "read as it comes"])
def test_a_table_comes_back_whole_its_columns_out_of_band(stream: bool) -> None:
    """A frame's Arrow and numpy buffers travel as their own messages (pickle protocol 5), so
    the frame the parent gets is made of the bytes it received; it must equal the one sent,
    text with nulls and non-ASCII, nullable integers and booleans alike."""
    import pandas as pd

    from pipeline.outputs.schema import Column
    from pipeline.outputs.write import frame

    columns = [Column("size", "string", ""), Column("gpus", "int", ""), Column("ib", "bool", "")]
    data = {"size": ["Standard_ND40rs_v2", None, "NC6 \u2013 \u00e9"], "gpus": [8, None, 1], "ib": [True, None, False]}
    with beside(lambda: frame(data, columns), stream=stream) as made:
        pass
    pd.testing.assert_frame_equal(made.result(), frame(data, columns))


@pytest.mark.parametrize("stream", [False, True], ids=["read at the end", "read as it comes"])
def test_an_answer_that_cannot_be_read_is_an_error_not_a_hang(stream: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading the answer fails (here: no memory for it). The build stops with an error that
    names the work and says why, and the process still writing its answer is ended."""
    from multiprocessing.connection import Connection

    def no_memory(self: Connection, maxlength: int | None = None) -> bytes:
        raise MemoryError("the answer does not fit")

    monkeypatch.setattr(Connection, "recv_bytes", no_memory)
    ended = "the process doing the sum ended without an answer"
    with pytest.raises(RuntimeError, match=ended) as raised, beside(lambda: sum(range(10)), what="sum", stream=stream):
        pass
    assert isinstance(raised.value.__cause__, MemoryError)


@pytest.mark.parametrize("parallel", [True, False])
def test_an_exception_in_the_function_is_raised_here(parallel: bool) -> None:
    def broken() -> int:
        raise ValueError("the contracts could not be read")

    with pytest.raises(ValueError, match="the contracts could not be read"), beside(broken, parallel=parallel):
        pass


def test_an_exception_that_cannot_be_pickled_arrives_as_text() -> None:
    def broken() -> int:
        raise Unpicklable("a handle that cannot travel")

    with pytest.raises(RuntimeError, match="a handle that cannot travel"), beside(broken):
        pass


def _refuse() -> None:
    raise TypeError("this object cannot be rebuilt")


class Unloadable:
    """Pickles, but fails when loaded."""

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (_refuse, ())


def test_an_answer_that_pickles_but_does_not_load_is_named_not_raw() -> None:
    with (
        pytest.raises(RuntimeError, match=r"answer of the process doing the report could not be read.*rebuilt"),
        beside(Unloadable, what="report"),
    ):
        pass


def test_a_function_that_dies_without_answering_is_an_error_not_a_hang() -> None:
    def dies() -> int:
        os._exit(3)

    with pytest.raises(RuntimeError, match=r"ended without an answer \(exit code 3\)"), beside(dies):
        pass


def test_an_error_in_the_block_stops_the_function(tmp_path: Path) -> None:
    marker = tmp_path / "finished"

    def slow() -> int:
        import time

        time.sleep(30)
        marker.write_text("should never be written")
        return 1

    with pytest.raises(KeyError), beside(slow):
        raise KeyError("writing a table failed")
    assert not marker.exists()


def test_when_the_fork_fails_the_function_runs_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process out of memory or of process slots still builds, on one core."""
    import multiprocessing.process

    def no_fork(self: object) -> None:
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", no_fork)
    with beside(os.getpid) as answer:
        pass
    assert answer.result() == os.getpid()


def test_the_childs_traceback_travels_with_its_exception() -> None:
    def broken() -> int:
        return {"a": 1}["b"]

    with pytest.raises(KeyError) as caught, beside(broken):
        pass
    notes = "\n".join(getattr(caught.value, "__notes__", []))
    assert "in the forked process:" in notes and 'return {"a": 1}["b"]' in notes


def test_a_dying_process_is_named_by_what_it_was_doing() -> None:
    dying = pytest.raises(RuntimeError, match=r"the process doing the reconciling ended without an answer")
    with dying, beside(lambda: os._exit(5), what="reconciling"):
        pass


def test_inside_the_block_no_collection_runs_however_much_is_made() -> None:
    runs: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            runs.append(info["generation"])

    gc.callbacks.append(count)
    try:
        with collector_paused():
            made = [[i] for i in range(100_000)]  # 140 times the threshold that starts a collection
            assert not gc.isenabled()
            assert runs == []
        assert gc.isenabled()
        more = [[i] for i in range(100_000)]
        assert runs  # running again
    finally:
        gc.callbacks.remove(count)
    assert len(made) == len(more)


def test_a_cycle_made_inside_the_block_is_collected_after_it() -> None:
    class Node:
        def __init__(self) -> None:
            self.me = self  # only the collector, never a reference count, frees it

    with collector_paused():
        gone = weakref.ref(Node())
        churn = [[i] for i in range(100_000)]  # would have started collections many times over
        assert gone() is not None
    gc.collect()
    assert gone() is None
    assert len(churn) == 100_000


def test_only_the_outermost_block_restarts_the_collector_even_after_an_error() -> None:
    with collector_paused():
        with pytest.raises(KeyError), collector_paused():
            raise KeyError("a bad document")
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_function_decorated_with_it_runs_without_the_collector() -> None:
    @collector_paused()
    def stage() -> bool:
        return gc.isenabled()

    assert stage() is False
    assert gc.isenabled()


def test_arrow_allocates_from_jemalloc_in_the_block_and_from_the_pool_before_after_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pool keeps no freed column's pages (`arrow_pool`); whoever called the build gets
    their own pool back, even when the block fails."""
    import pyarrow as pa

    monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL", raising=False)
    before = pa.default_memory_pool().backend_name
    jemalloc = pa.jemalloc_memory_pool()
    held = jemalloc.bytes_allocated()
    with pytest.raises(KeyError), arrow_pool():
        assert pa.default_memory_pool().backend_name == "jemalloc"
        column = pa.array(["a value"] * 100_000)
        assert jemalloc.bytes_allocated() >= held + 700_000
        raise KeyError("the block fails")
    assert pa.default_memory_pool().backend_name == before
    del column


def test_a_pool_chosen_by_whoever_runs_the_build_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    import pyarrow as pa

    monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "system")
    before = pa.default_memory_pool().backend_name
    with arrow_pool():
        assert pa.default_memory_pool().backend_name == before
