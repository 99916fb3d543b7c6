"""The server's reads: one read-only store, open from start-up to shutdown, whose queries every
page, every API read and the live stream's poller go through, one at a time.

Nothing is kept between reads but the connections: each read asks the store afresh, so it sees
what anyone recorded meanwhile (this server, a `trek` command in a terminal, another server on
the same PostgreSQL store). A store that fails under a read (a restart, a dropped connection)
is opened again for the next one.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from domain.errors import TrackerError
from tracker.stores import StoreError

if TYPE_CHECKING:
    from tracker.app import Trek

T = TypeVar("T")


class Reads:
    """The held store and the lock that lets one thread at a time read through it (a store's
    connection runs one transaction at a time)."""

    def __init__(self, open_store: Callable[[], Trek]) -> None:
        self._open_store = open_store
        self._lock = threading.Lock()
        self._trek: Trek | None = None
        self._closed = False

    def open(self) -> None:
        """Open the store now (at start-up) rather than on the first read, its event store's
        connection too (made on first use)."""
        with self._lock:
            self._opened().app.recorder.max_notification_id()

    def run(self, read: Callable[[Trek], T]) -> T:
        """`read(trek)` on the held store; a failure of the store itself drops it, so the next
        read opens it again, while a refusal (no such campaign, a damaged log) keeps it."""
        with self._lock:
            trek = self._opened()
            try:
                return read(trek)
            except TrackerError as error:
                if isinstance(error, StoreError):
                    self._drop()
                raise
            except Exception:
                self._drop()
                raise

    def close(self) -> None:
        """Close the store at shutdown; a read after this opens none."""
        with self._lock:
            self._closed = True
            self._drop()

    def _opened(self) -> Trek:
        if self._closed:
            raise StoreError("the server is stopping; its store is closed")
        if self._trek is None:
            self._trek = self._open_store()
        return self._trek

    def _drop(self) -> None:
        trek, self._trek = self._trek, None
        if trek is not None:
            # A dead connection may fail to close; it is gone anyway.
            with contextlib.suppress(Exception):
                trek.close()
