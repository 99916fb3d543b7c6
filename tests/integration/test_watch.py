"""`trek watch` keeps the read models of a PostgreSQL store live, through dropped connections.

The events are recorded by a writer that never catches the read models up (a second
TrekApplication saving the campaign directly), so whatever the stored read models show
beyond the campaign's start was folded by the watcher. The watcher runs as the real `trek`
program; its connections carry the application name "trek watch", which is how the test
ends them from another connection without ending its own.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner
from conftest import TrekRun, trek_command, trek_env
from rulesets import RULESETS

from cli.main import trek
from domain.campaign import Stamp, campaign_id
from domain.commands.supplies import AddSupplies
from tracker.app import Trek, TrekApplication
from tracker.stores import Location
from tracker.watch import SubscriptionStalled, Watcher

# Real `trek` processes (or the benchmarks that time them): left out by -m "not slow".
pytestmark = pytest.mark.slow

Run = Callable[..., TrekRun]
Event = dict[str, Any]

SLUG = "ashes-road"
WAIT = 60.0  # generous: the suite shares two cores with other work


class Writer:
    """Records SuppliesAdded events straight into the store; never touches the read models."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.app: TrekApplication | None = None

    def add_provisions(self, amount: int) -> int:
        if self.app is None:
            # Made on first use: the store's tables exist only once `trek init` has run.
            self.app = TrekApplication(
                Location.parse(self.url).eventsourcing_env(create=False), RULESETS)
        campaign = self.app.repository.get(campaign_id(SLUG))
        campaign.stamp = Stamp(gm="writer", at=datetime.now(UTC))
        campaign.handle(AddSupplies({"provisions": amount}))
        self.app.save(campaign)
        return int(campaign.version)

    def close(self) -> None:
        if self.app is not None:
            self.app.close()


@pytest.fixture
def writer(pg_url: str) -> Iterator[Writer]:
    made = Writer(pg_url)
    yield made
    made.close()


def stored(url: str) -> tuple[int, int, int]:
    """(tracking position, events in the stored campaign view, stored provisions)."""
    with Trek.open(url, rulesets=RULESETS, writable=False) as store:
        view = store.projector.stored_view(str(campaign_id(SLUG)))
        assert view is not None
        return (store.projector.position(), view.events,
                view.game.supplies.get("provisions", 0))


def wait_for(check: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.2)


class WatchProcess:
    """`trek watch --json` as a real subprocess, its JSON lines collected as they come."""

    def __init__(self, url: str, cwd: Path, *args: str) -> None:
        self.process = subprocess.Popen(
            trek_command("watch", "--json", *args), cwd=cwd, env=trek_env(url),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        self.events: list[Event] = []
        self.stderr = ""
        self._lock = threading.Lock()
        # Both pipes are drained by threads, so neither can fill up and stall the watcher.
        self._readers = [threading.Thread(target=self._read_events, daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True)]
        for reader in self._readers:
            reader.start()

    def _read_events(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._lock:
                self.events.append(json.loads(line))

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        self.stderr = self.process.stderr.read()

    def seen(self, kind: str) -> list[Event]:
        with self._lock:
            return [e for e in self.events if e["event"] == kind]

    def wait_for_event(self, kind: str, count: int = 1) -> Event:
        wait_for(lambda: len(self.seen(kind)) >= count or self.process.poll() is not None,
                 f"{count} {kind!r} line(s) from trek watch")
        found = self.seen(kind)
        assert len(found) >= count, self.report()
        return found[count - 1]

    def finish(self, timeout: float = WAIT) -> int:
        returncode = self.process.wait(timeout=timeout)
        for reader in self._readers:
            reader.join(timeout)
        return returncode

    def report(self) -> str:
        return f"events: {self.events}\nstderr: {self.stderr}"

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def end_watcher_connections(url: str) -> int:
    """Terminate every backend of the watcher, from a connection that is not one of them."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name = 'trek watch' "
            "AND pid <> pg_backend_pid()) AS ended").fetchone()
    assert row is not None
    return int(row[0])


def watcher_connections(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND application_name = 'trek watch'").fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.postgres
def test_watch_folds_events_recorded_elsewhere_and_survives_dropped_connections(
        pg_url: str, writer: Writer, trek_cli: Run, tmp_path: Path) -> None:
    started = trek_cli("init", "Ashes Road", "--seed", "1", db=pg_url)
    assert started.returncode == 0, started
    assert stored(pg_url) == (1, 1, 0)

    watch = WatchProcess(pg_url, tmp_path, "--for", "240")
    try:
        hello = watch.wait_for_event("watching")
        assert (hello["notification_id"], hello["log"]) == (1, 1)
        assert "***" in hello["store"]
        assert Location.parse(pg_url).password not in json.dumps(watch.events)

        # Three events from elsewhere: notifications 2, 3 and 4, provisions 2+3+4.
        assert [writer.add_provisions(n) for n in (2, 3, 4)] == [2, 3, 4]
        wait_for(lambda: stored(pg_url) == (4, 4, 9), "the watcher to fold events 2-4")

        # The server ends every connection of the watcher.
        assert watcher_connections(pg_url) >= 2
        ended = end_watcher_connections(pg_url)
        assert ended >= 2
        # Recorded while the watcher is down or reconnecting: notifications 5 and 6.
        assert [writer.add_provisions(n) for n in (5, 6)] == [5, 6]
        lost = watch.wait_for_event("reconnecting")
        assert lost["attempt"] == 1
        back = watch.wait_for_event("reconnected")
        assert back["notification_id"] >= 4
        wait_for(lambda: stored(pg_url) == (6, 6, 20),
                 "the reconnected watcher to fold events 5 and 6")

        # And it keeps following after the reconnect.
        assert writer.add_provisions(7) == 7
        wait_for(lambda: stored(pg_url) == (7, 7, 27), "the watcher to fold event 7")

        watch.process.send_signal(signal.SIGTERM)
        assert watch.finish() == 0, watch.report()
    finally:
        watch.kill()

    assert "Traceback" not in watch.stderr, watch.report()
    assert watch.events[-1]["event"] == "stopped", watch.report()
    assert (watch.events[-1]["notification_id"], watch.events[-1]["reason"]) == (7, "stopped")
    caught_up = watch.seen("caught_up")
    # Nobody else folded: the watcher folded the six recorded events, each exactly once.
    assert sum(e["folded"] for e in caught_up) == 6, watch.report()
    assert max(e["notification_id"] for e in caught_up) == 7
    # All of its connections were closed on the way out.
    wait_for(lambda: watcher_connections(pg_url) == 0, "the watcher's connections to close")

    verified = trek_cli("replay", "--verify", db=pg_url)
    assert verified.returncode == 0, verified
    status = trek_cli("status", "--json", db=pg_url).json()
    assert (status["events"], status["supplies"]["provisions"]) == (7, 27)


@pytest.mark.postgres
def test_watch_catches_up_at_start_and_stops_when_its_time_is_up(
        pg_url: str, writer: Writer, trek_cli: Run) -> None:
    started = trek_cli("init", "Ashes Road", "--seed", "1", db=pg_url)
    assert started.returncode == 0, started
    assert [writer.add_provisions(n) for n in (1, 10)] == [2, 3]
    # The writer does not fold: the stored read models still stand at the campaign's start.
    assert stored(pg_url) == (1, 1, 0)

    began = time.monotonic()
    run = trek_cli("watch", "--for", "3", "--json", db=pg_url)
    took = time.monotonic() - began
    assert run.returncode == 0, run
    assert took >= 3
    events = [json.loads(line) for line in run.stdout.splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds == ["watching", "caught_up", "stopped"], run
    assert (events[0]["notification_id"], events[0]["log"]) == (1, 3)
    assert (events[1]["notification_id"], events[1]["folded"]) == (3, 2)
    assert (events[2]["notification_id"], events[2]["reason"]) == (3, "time")
    assert stored(pg_url) == (3, 3, 11)

    human = trek_cli("watch", "--for", "1", db=pg_url)
    assert human.returncode == 0, human
    lines = human.stdout.splitlines()
    assert len(lines) == 2, human
    assert "read models at notification 3 of 3" in lines[0]
    assert "postgresql://trek:***@" in lines[0]
    assert "Stopped at notification 3" in lines[1]
    password = Location.parse(pg_url).password
    assert password is not None
    assert password not in human.stdout + human.stderr


def test_watch_refuses_an_sqlite_store_and_creates_nothing(trek_cli: Run, tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    refused = trek_cli("watch", "--for", "1", db=str(missing))
    assert refused.returncode == 1, refused
    assert refused.stdout == ""
    assert refused.stderr.strip().splitlines() == [
        "Error: `trek watch` needs a PostgreSQL store (--db postgresql://...); the read "
        "models of an SQLite store already catch up after every command."]
    assert not missing.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []

    existing = tmp_path / "table.db"
    assert trek_cli("init", "Ashes Road", db=str(existing)).returncode == 0
    before = existing.read_bytes()
    again = trek_cli("watch", db=str(existing))
    assert again.returncode == 1, again
    assert "needs a PostgreSQL store" in again.stderr
    assert existing.read_bytes() == before


def test_watch_refuses_a_memory_store() -> None:
    result = CliRunner().invoke(trek, ["watch", "--db", "memory:watch-test"])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "needs a PostgreSQL store" in result.stderr
    assert "of a memory store" in result.stderr


def test_watch_says_in_one_sentence_when_the_server_cannot_be_reached(trek_cli: Run) -> None:
    url = "postgresql://trek:not-this-password@127.0.0.1:1/nowhere"
    refused = trek_cli("watch", "--json", db=url)
    assert refused.returncode == 1, refused
    assert refused.stdout == ""
    [line] = refused.stderr.strip().splitlines()
    assert line.startswith("Error: Cannot reach the PostgreSQL store "
                           "postgresql://trek:***@127.0.0.1:1/nowhere")
    assert "not-this-password" not in refused.stderr


def test_watch_help() -> None:
    result = CliRunner().invoke(trek, ["watch", "--help"], prog_name="trek")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Usage: trek watch [OPTIONS]")
    for option in ("--for SECONDS", "--db", "--json"):
        assert option in result.output
    assert "PostgreSQL" in result.output


def test_a_subscription_that_stops_delivering_is_noticed() -> None:
    """A NOTIFY that never arrives must not leave the read models behind for ever."""
    log = {"latest": 6}
    view = SimpleNamespace(reached=4, busy=False)
    runner: Any = SimpleNamespace(view=view, app=SimpleNamespace(recorder=SimpleNamespace(
        max_notification_id=lambda: log["latest"])))

    # Behind at one look may just be an event on its way: noted, not yet a failure.
    first = Watcher._check_delivery(runner, None)
    assert first == (6, 4)
    # Still behind by the same at the next look: the subscription is given up.
    with pytest.raises(SubscriptionStalled, match="notification 6"):
        Watcher._check_delivery(runner, first)
    # Progress in between, a fold in progress, or nothing to deliver: all fine.
    view.reached = 5
    assert Watcher._check_delivery(runner, first) == (6, 5)
    view.busy = True
    assert Watcher._check_delivery(runner, (6, 5)) is None
    view.busy, view.reached = False, 6
    assert Watcher._check_delivery(runner, (6, 5)) is None
