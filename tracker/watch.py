"""`trek watch`: keep the read models of a PostgreSQL store live, reconnecting when it drops.

The eventsourcing library's ProjectionRunner does the subscribing: it opens the Trek
application's recorder with LISTEN/NOTIFY and hands every newly recorded event, with its
notification id, to `TrekViewsProjection`. The projection folds everything past the read
models' stored position with the Projector, which writes the views and the tracking row
(`trek_view_tracking`) in one transaction. The runner's tracking recorder is that same row
(`TrekViews`), so a subscription always starts right after what is already folded, and no
second tracking table is made.

When the runner fails (the server ended the backend, restarted, or the network went away),
the watcher reports it, waits a short and growing while, opens the store again and starts a
new runner; the new subscription delivers everything recorded in the meantime.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from eventsourcing.persistence import InterfaceError, OperationalError, Tracking
from eventsourcing.postgres import PostgresDatastore, PostgresTrackingRecorder
from eventsourcing.projection import Projection, ProjectionRunner

from domain.errors import TrackerError
from domain.ruleset import Registry
from tracker.app import Trek
from tracker.application import TrekApplication, playing
from tracker.postgres_driver import require_postgres_for_watch
from tracker.stores import Location, StoreError

Report = Callable[[dict[str, Any]], None]

# How long to wait before each reconnection attempt; the last one repeats.
BACKOFF = (0.5, 1.0, 2.0, 4.0, 8.0)
# A connection that stayed up this long counts as healthy: the next failure starts the
# backoff again from its first step.
HEALTHY_AFTER = 30.0
# How often the watcher looks for events the subscription did not deliver (a NOTIFY lost
# while listening started, or a connection that died without an error).
CHECK_EVERY = 3.0
# The runner's own application needs one connection to LISTEN and one to read events.
RUNNER_POOL = {"POSTGRES_POOL_SIZE": "1", "POSTGRES_MAX_OVERFLOW": "2"}


class SubscriptionStalled(Exception):
    """Events were recorded but the subscription did not deliver them."""


class TrekViews(PostgresTrackingRecorder):
    """The read models of one open Trek store, seen by the library as its tracking recorder.

    The tracking position is Trek's own `trek_view_tracking` row, which the Projector writes
    in the same transaction as the views. A subclass bound to an open store is made by
    `bind_views`, because the runner builds its view from a class.
    """

    store: ClassVar[Trek]
    report: ClassVar[Report]

    def __init__(self, datastore: PostgresDatastore, **kwargs: Any) -> None:
        super().__init__(datastore, **kwargs)
        # The furthest position this watcher has seen the read models at.
        self.reached = self.store.projector.position()
        self.busy = False

    def create_table(self) -> None:
        """Nothing to create: the tracking row lives in Trek's own schema."""

    def max_tracking_id(self, application_name: str) -> int | None:
        if application_name != TrekApplication.name:
            return None
        return self.store.projector.position() or None

    def insert_tracking(self, tracking: Tracking) -> None:
        """The read models can only stand at a position by folding up to it."""
        if tracking.notification_id > self.reached:
            self.catch_up()

    def catch_up(self) -> None:
        """Fold every event past the stored position and report where the views now stand."""
        self.busy = True
        try:
            folded = self.store.projector.catch_up()
            self.reached = max(self.reached, self.store.projector.position())
        finally:
            self.busy = False
        type(self).report({"event": "caught_up", "notification_id": self.reached,
                           "folded": folded})


def bind_views(store: Trek, report: Report) -> type[TrekViews]:
    """A TrekViews class whose instances fold into `store` and report through `report`."""

    class BoundTrekViews(TrekViews):
        pass

    BoundTrekViews.store = store
    BoundTrekViews.report = report
    return BoundTrekViews


class TrekViewsProjection(Projection[TrekViews]):
    """Brings the read models up to date each time the runner delivers a newer event."""

    name = "trek_views"

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        # One fold takes in every event recorded so far, so the deliveries it already
        # covered are passed over without touching the database.
        self.view.insert_tracking(tracking)


def _is_connection_problem(error: BaseException) -> bool:
    import psycopg

    return isinstance(error, (psycopg.OperationalError, psycopg.InterfaceError,
                              OperationalError, InterfaceError, StoreError,
                              SubscriptionStalled, OSError))


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0].strip() if text else type(error).__name__


class Watcher:
    """Follows one PostgreSQL store until stopped, its time is up, or an unexpected error."""

    def __init__(self, db: str, rulesets: Registry, *, gm: str | None = None,
                 report: Report | None = None, backoff: Sequence[float] = BACKOFF,
                 check_every: float = CHECK_EVERY) -> None:
        self.location = Location.parse(db)
        self.rulesets = rulesets
        self.gm = gm
        self.report: Report = report or (lambda _event: None)
        self.backoff = tuple(backoff) or BACKOFF
        self.check_every = check_every
        self.position = 0
        self._stopping = threading.Event()
        self._runner: ProjectionRunner[TrekApplication, TrekViews] | None = None

    def stop(self) -> None:
        """Ends `run` soon and cleanly; safe to call from a signal handler or another thread."""
        self._stopping.set()
        runner = self._runner
        if runner is not None:
            runner.stop()

    def run(self, seconds: float | None = None) -> str:
        """Watch until stopped (or for `seconds`); returns why it ended."""
        require_postgres_for_watch(self.location)
        deadline = None if seconds is None else time.monotonic() + seconds
        store: Trek | None = None
        failures = 0
        reason = "stopped"
        try:
            # A store that cannot be opened at the start is an error, said in one sentence;
            # later on, the same problem is waited out.
            store = self._open()
            self._report_position("watching", store)
            connected = time.monotonic()
            while True:
                try:
                    if store is None:
                        store = self._open()
                        connected = time.monotonic()
                        self._report_position("reconnected", store)
                    reason = self._follow(store, deadline)
                    break
                except Exception as error:
                    if not _is_connection_problem(error):
                        raise TrackerError(self.location.scrub(
                            f"watching {self.location.display} stopped: {_first_line(error)}"
                        )) from None
                    if store is not None:
                        self._close(store)
                        store = None
                        if time.monotonic() - connected >= HEALTHY_AFTER:
                            failures = 0
                    delay = self.backoff[min(failures, len(self.backoff) - 1)]
                    failures += 1
                    self.report({"event": "reconnecting", "attempt": failures,
                                 "retry_in": delay,
                                 "error": self.location.scrub(_first_line(error))})
                    ended = self._pause(delay, deadline)
                    if ended is not None:
                        reason = ended
                        break
        except KeyboardInterrupt:
            reason = "interrupted"
        finally:
            if store is not None:
                self._close(store)
        self.report({"event": "stopped", "notification_id": self.position, "reason": reason})
        return reason

    # -- one connection -----------------------------------------------------------------------

    def _open(self) -> Trek:
        return Trek.open(self.location.target, rulesets=self.rulesets, writable=False,
                         gm=self.gm)

    @staticmethod
    def _close(store: Trek) -> None:
        # A dead connection may fail to close; it is gone anyway.
        with contextlib.suppress(Exception):
            store.close()

    def _report_position(self, event: str, store: Trek) -> None:
        self.position = max(self.position, store.projector.position())
        latest = store.app.recorder.max_notification_id() or 0
        self.report({"event": event, "store": self.location.display,
                     "notification_id": self.position, "log": latest})

    def _follow(self, store: Trek, deadline: float | None) -> str:
        """Run one ProjectionRunner on `store`; returns why it ended, raises when it failed."""
        env = store.location.eventsourcing_env(create=False) | RUNNER_POOL
        runner = ProjectionRunner(
            application_class=playing(self.rulesets),
            projection_class=TrekViewsProjection,
            view_class=bind_views(store, self._delivered),
            env=env,
        )
        self._runner = runner
        try:
            with runner:
                return self._wait(runner, deadline)
        finally:
            self._runner = None

    def _delivered(self, event: dict[str, Any]) -> None:
        self.position = max(self.position, int(event["notification_id"]))
        self.report(event)

    def _wait(self, runner: ProjectionRunner[TrekApplication, TrekViews],
              deadline: float | None) -> str:
        next_check = time.monotonic() + self.check_every
        behind: tuple[int, int] | None = None
        while True:
            if self._stopping.is_set():
                return "stopped"
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return "time"
            timeout = min(0.5, next_check - now)
            if deadline is not None:
                timeout = min(timeout, deadline - now)
            # Raises the error that ended the runner's threads, if any did.
            runner.run_forever(timeout=max(timeout, 0.0))
            if runner.is_interrupted.is_set():
                if self._stopping.is_set():
                    return "stopped"
                raise SubscriptionStalled("the subscription ended by itself")
            if time.monotonic() >= next_check:
                behind = self._check_delivery(runner, behind)
                next_check = time.monotonic() + self.check_every

    @staticmethod
    def _check_delivery(runner: ProjectionRunner[TrekApplication, TrekViews],
                        behind: tuple[int, int] | None) -> tuple[int, int] | None:
        """Notice events the subscription has not delivered for a whole check interval."""
        view = runner.view
        latest = runner.app.recorder.max_notification_id() or 0
        if latest <= view.reached or view.busy:
            return None
        if behind == (latest, view.reached):
            raise SubscriptionStalled(
                f"notification {latest} was recorded but not delivered; subscribing again")
        return latest, view.reached

    def _pause(self, delay: float, deadline: float | None) -> str | None:
        """Wait before reconnecting; returns a reason to end instead, if one comes first."""
        if deadline is not None:
            delay = min(delay, max(deadline - time.monotonic(), 0.0))
        if self._stopping.wait(delay):
            return "stopped"
        if deadline is not None and time.monotonic() >= deadline:
            return "time"
        return None
