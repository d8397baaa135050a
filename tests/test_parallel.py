"""`beside`: work that only reads the build's data runs on a second core while the tables are written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipeline.parallel import beside


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
