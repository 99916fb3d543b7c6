"""A recorded event's line written without rich reads exactly as rich would print it, and every
line rich would print otherwise (wider than the screen, markup-like, an emoji code, a wide
character, a terminal) is still rich's to print."""

from __future__ import annotations

import io
import sys

import pytest
from rich.cells import cell_len
from rich.console import Console

from cli import render

WORDS = [
    "supplies added: provisions=1",
    "moved 0,0 → 1,0 (1 square(s))",
    "day 1 starts with 1 square(s) — 6 miles × 2 ÷ 3 ± 1…",
    "a word " * 12,  # 84 characters: wraps at 40 columns
    "renamed to [bold]Kira[/bold]",  # markup-like text, shown as typed
    "note: back\\slash",
    "met :smile: on the road",  # an emoji code rich would replace
    "met 龍 on the road",  # two cells wide
    "ends with spaces   ",
]


def _by_rich(line: str, width: int) -> str:
    out = io.StringIO()
    Console(file=out, width=width, highlight=False).print(line)
    return out.getvalue()


@pytest.mark.parametrize("words", WORDS)
@pytest.mark.parametrize("preview", [False, True])
def test_an_event_line_reads_as_rich_prints_it(words: str, preview: bool,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    monkeypatch.setattr(render, "summary", lambda doc, ruleset: words)
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    render.print_events([{"seq": 12, "type": "Noted"}], "besm", preview=preview)
    before, after = ("Preview: ", " (nothing recorded)") if preview else ("", "")
    expected = _by_rich(f"{before}[bold]#12[/bold] {render.plain(words)}{after}", 40)
    assert out.getvalue() == expected


def test_only_short_plain_lines_skip_rich(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert render._printed_as_is("#3 moved 0,0 → 1,0 (1 square(s))")
    assert render._printed_as_is("x" * 40)
    assert not render._printed_as_is("x" * 41)
    assert not render._printed_as_is("#3 met :smile:")
    assert not render._printed_as_is("#3 [bold]")
    assert not render._printed_as_is("#3 龍")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert not render._printed_as_is("#3 moved")  # rich would style it for a terminal
    monkeypatch.setenv("TTY_COMPATIBLE", "0")
    assert render._printed_as_is("#3 moved")


def test_the_characters_taken_as_one_cell_are_one_cell_to_rich() -> None:
    assert {char: cell_len(char) for char in render.ONE_CELL} == dict.fromkeys(render.ONE_CELL, 1)
