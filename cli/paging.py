"""Long output on a terminal goes through a pager, as git does it; a reader that stops early
(a pager quit, `| head`) ends the output quietly.

The pager is `$TREK_PAGER`, else `$PAGER`, else `less -FRX` when `less` is installed. Either
variable set to nothing or to `cat` means no pager. `LESS=FRX` is set for the pager unless the
environment already says otherwise, so a `PAGER=less` also quits at once on a short output,
keeps colours and leaves the text on the screen.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from rich.console import Console

DEFAULT_PAGER = "less -FRX"


class PipeConsole(Console):
    """A rich console that lets a closed pipe be the caller's to handle (rich's own would
    point standard output at /dev/null and exit with 1), and that reads the screen's size
    (COLUMNS, LINES, the terminal) each time it prints unless given one.

    rich keeps the COLUMNS and LINES it finds when a console is made; a console made as its
    module is imported would keep that moment's size for the whole process (the shell, the
    server, or whichever command first imported it).
    """

    def __init__(self, *, width: int | None = None, height: int | None = None,
                 **options: Any) -> None:
        super().__init__(width=width, height=height, **options)
        self._width, self._height = width, height

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


def pager_command(environ: dict[str, str] | None = None) -> str | None:
    """The shell command to page through, or None for no pager."""
    env = os.environ if environ is None else environ
    for name in ("TREK_PAGER", "PAGER"):
        value = env.get(name)
        if value is not None:
            value = value.strip()
            return None if value in ("", "cat") else value
    return DEFAULT_PAGER if shutil.which("less") else None


@contextmanager
def stdout_reader_may_leave() -> Iterator[None]:
    """Stop quietly when whoever reads standard output stops reading (`trek log | head`)."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()


def silence_stdout() -> None:
    # What is still buffered for the closed pipe would fail again at exit, with a message.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


@contextmanager
def paged(console: Console, *, enabled: bool = True) -> Iterator[Console]:
    """The console long human output is printed on: one that writes into the pager when
    standard output is a terminal and a pager is wanted, else one like `console` (which must
    write to standard output) on standard output.

    The pager shows it with the terminal's width and colours. When the reader quits the pager
    before the end, the rest is dropped without a word; Ctrl-C stops the output, waits for the
    pager to close and exits with 130.
    """
    command = pager_command() if enabled and _is_terminal() else None
    if command is None:
        with stdout_reader_may_leave():
            yield PipeConsole(highlight=False)
        return
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        process = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env,
                                   encoding=encoding, errors="replace")
    except OSError:
        with stdout_reader_may_leave():
            yield PipeConsole(highlight=False)
        return
    assert process.stdin is not None
    sys.stdout.flush()
    system: Any = console.color_system
    pager = PipeConsole(file=process.stdin, force_terminal=True, color_system=system,
                    width=console.width, height=console.height, highlight=False)
    interrupted = False
    try:
        yield pager
    except BrokenPipeError:
        pass
    except KeyboardInterrupt:
        interrupted = True
    finally:
        _close_quietly(process.stdin)
        _wait(process)
    if interrupted:
        raise SystemExit(130)


def _is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _close_quietly(stream: Any) -> None:
    with suppress(OSError):  # a pager that quit early: the rest has nowhere to go
        stream.close()


def _wait(process: subprocess.Popen[str]) -> None:
    """Wait for the pager to be closed; Ctrl-C meanwhile is the pager's, not ours."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        process.wait()
    finally:
        signal.signal(signal.SIGINT, previous)
