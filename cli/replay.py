"""`trek replay`: rebuild (or, with --verify, check) every read model from the event log.

A module of its own, loaded without the other commands: a rebuild of a long campaign is the
command a GM waits longest for, and it needs the tracker and little else. Rich is imported
only to draw a progress bar on a terminal, or to print the differences --verify finds."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from cli.context import open_store, settings
from cli.options import TrekCommand, store_options
from cli.output import json_text
from domain.errors import TrackerError


@click.command(cls=TrekCommand)
@click.option("--verify", is_flag=True,
              help="Rebuild in memory and compare with the stored read models; changes nothing.")
@click.option("--accept-tampering", is_flag=True,
              help="Rebuild even over a broken hash chain, taking the log as it now stands "
                   "(after `trek verify` has shown what changed).")
@store_options
def replay(verify: bool, accept_tampering: bool) -> None:
    """Rebuild every read model from the event log, in one transaction (records no event).

    Refused over a broken hash chain unless --accept-tampering is given."""
    if verify and accept_tampering:
        raise click.UsageError("--verify changes nothing; --accept-tampering is for a rebuild")
    trek_app = open_store(writes=not verify)
    show_bar = not settings().json and sys.stderr.isatty()
    with _progress("verifying" if verify else "replaying", show_bar) as progress:
        result = (trek_app.verify_views(progress) if verify
                  else trek_app.replay(progress, accept_tampering=accept_tampering))
    if settings().json:
        sys.stdout.write(json_text(result))
    elif verify:
        from cli import render

        if result["verified"]:
            render.console.print("Read models match the event log.")
        if result.get("behind"):
            render.console.print(f"They are {result['behind']} event(s) behind it; reads fold "
                                 "those in, and the next recording command stores them.")
        for problem in result["differences"]:
            render.errors.print(problem, markup=False)
    else:
        click.echo(f"Rebuilt the read models from {result['notifications']} events in "
                   f"{result['seconds']}s.")
    if verify and not result["verified"]:
        raise TrackerError(f"the read models differ from the event log in "
                           f"{len(result['differences'])} place(s); run `trek replay` to rebuild")


@contextmanager
def _progress(label: str, shown: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr while the work runs (None when it is not shown)."""
    if not shown:
        yield None
        return
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task(label, total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield progress
