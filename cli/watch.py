"""`trek watch`: keep the read models of a PostgreSQL store live while GMs record."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from datetime import UTC, datetime
from typing import Any

import click

from cli import render
from cli.context import rulesets
from cli.options import Settings, TrekCommand, store_options
from tracker.app import gm_from_env
from tracker.postgres_driver import require_driver, require_postgres_for_watch
from tracker.stores import Location, StoreKind

APPLICATION_NAME = "trek watch"

_REASONS = {
    "time": "its time was up",
    "stopped": "it was asked to stop",
    "interrupted": "it was interrupted",
}


def describe(event: dict[str, Any]) -> str:
    """One line for a GM watching the terminal."""
    kind = event["event"]
    at = event.get("notification_id")
    if kind in ("watching", "reconnected"):
        verb = "Watching" if kind == "watching" else "Reconnected to"
        return (f"{verb} {event['store']}: read models at notification {at} of "
                f"{event['log']}." + (" Ctrl-C stops." if kind == "watching" else ""))
    if kind == "caught_up":
        if event["folded"]:
            return f"Caught up {event['folded']} event(s): read models at notification {at}."
        return f"Notification {at} recorded; its command had already caught up the read models."
    if kind == "reconnecting":
        return (f"Lost the store ({event['error']}); reconnecting in {event['retry_in']:g}s "
                f"(attempt {event['attempt']}).")
    if kind == "stopped":
        why = _REASONS.get(event["reason"], event["reason"])
        return f"Stopped at notification {at}: {why}."
    return json.dumps(event)


class Printer:
    """Prints watcher events, one line each, from whichever thread reports them."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.lock = threading.Lock()

    def __call__(self, event: dict[str, Any]) -> None:
        now = datetime.now(UTC)
        with self.lock:
            if self.as_json:
                line = {**event, "at": now.isoformat(timespec="seconds")}
                sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
                sys.stdout.flush()
            else:
                stamp = now.astimezone().strftime("%H:%M:%S")
                render.console.print(f"{stamp}  {describe(event)}", markup=False,
                                     soft_wrap=True)


@click.command(cls=TrekCommand)
@click.option("--for", "seconds", type=click.FloatRange(0, min_open=True), metavar="SECONDS",
              help="Stop after SECONDS (default: run until Ctrl-C or SIGTERM).")
@store_options
def watch(seconds: float | None) -> None:
    """Keep the read models of a PostgreSQL store live while other GMs record.

    Subscribes to the store (PostgreSQL LISTEN/NOTIFY) and folds each newly recorded event
    of every campaign into the stored read models, so status and log are current for
    anyone reading them. A dropped connection or a server restart is waited out: it
    reconnects and catches up what was recorded meanwhile. Ctrl-C or SIGTERM stops it.

    SQLite stores need no watcher: their read models catch up after every command.
    """
    settings = click.get_current_context().ensure_object(Settings)
    printer = Printer(settings.json)
    require_postgres_for_watch(Location.parse(settings.db))
    require_driver(settings.db)
    # Imported here: the watcher needs the PostgreSQL driver, which a plain install lacks.
    from tracker.watch import Watcher

    watcher = Watcher(settings.db, rulesets(), gm=gm_from_env(settings.gm), report=printer)
    if watcher.location.kind is StoreKind.POSTGRES:
        # Lets a DBA see the watcher's connections in pg_stat_activity.
        os.environ.setdefault("PGAPPNAME", APPLICATION_NAME)
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, lambda *_: watcher.stop()) if in_main_thread \
        else None
    try:
        watcher.run(seconds)
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)
