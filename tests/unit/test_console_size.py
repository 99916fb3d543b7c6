"""The terminal output follows the screen's width as it is when a line is printed, not as it
was when the console was made (the shell and the server outlive a change)."""

from __future__ import annotations

import io

import pytest

from cli.paging import PipeConsole


def test_a_console_reads_columns_each_time_it_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    out = io.StringIO()
    console = PipeConsole(file=out, highlight=False)
    assert console.width == 40
    monkeypatch.setenv("COLUMNS", "120")
    assert console.width == 120
    console.print("word " * 20)
    # 100 characters fit on one 120-column line; at 40 they would take three.
    assert out.getvalue().count("\n") == 1


def test_a_width_given_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    console = PipeConsole(file=io.StringIO(), width=30)
    assert console.width == 30
