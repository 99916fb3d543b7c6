"""The live stream: one poller per server watches the logs its listeners follow and hands
every new entry to each of them, once and in order.

The SQLite recorder cannot subscribe, so the poller reads each followed campaign's newest seq
(one row) every quarter of a second, and the new log entries only when it moved. It sees what
anyone recorded: this server, a `trek` command in a terminal, another server on the same
PostgreSQL store. One poller serves every listener, so twenty open pages cost one query. It
reads through the server's held store (cli/web/reads.py).

What this server itself records or decides does not wait for the next poll: the route that
wrote nudges the poller and every open stream (`Live.nudge`), so an event, a request or a
decision reaches the pages as soon as it is kept. The quarter-second poll is for everyone
else's writes.

A listener's head is the seq of the last entry it was handed, never the newest seq read
before the entries: an event recorded between those two reads is among the entries, and is
handed then and not again.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from cli.web.reads import Reads
    from tracker.app import Trek

INTERVAL = 0.25
# Handed to every listener by `Live.nudge`: not an entry of the log, a word that the table
# (the requests, the pause switch, the seats) may have changed, to be looked at now.
NUDGE: dict[str, Any] = {}


@dataclass(eq=False)
class Listener:
    """One open stream: where its entries go (an asyncio queue on the server's loop)."""

    slug: str
    loop: asyncio.AbstractEventLoop
    # The newest seq this listener has been handed.
    head: int
    queue: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)

    def hand(self, entry: dict[str, Any]) -> None:
        self.loop.call_soon_threadsafe(self.queue.put_nowait, entry)


class Live:
    """The poller thread and its listeners, by campaign."""

    def __init__(self, reads: Reads, interval: float = INTERVAL) -> None:
        self.reads = reads
        self.interval = interval
        self.lock = threading.Lock()
        self.listeners: dict[str, set[Listener]] = {}
        self.stopping = threading.Event()
        # Set when the server is asked to stop: every open stream ends.
        self.closing = threading.Event()
        self.woken = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name="trek-live", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.closing.set()
        self.stopping.set()
        self.woken.set()
        if self.thread is not None:
            self.thread.join(timeout=5)

    def listen(self, slug: str, head: int) -> Listener:
        """A new listener for `slug`, handed every entry after `head`."""
        listener = Listener(slug, asyncio.get_running_loop(), head)
        with self.lock:
            self.listeners.setdefault(slug, set()).add(listener)
        self.woken.set()
        return listener

    def leave(self, listener: Listener) -> None:
        with self.lock:
            followers = self.listeners.get(listener.slug, set())
            followers.discard(listener)
            if not followers:
                self.listeners.pop(listener.slug, None)

    def nudge(self) -> None:
        """This server has just recorded or decided something: poll now, and have every open
        stream look at the table now."""
        with self.lock:
            listeners = [listener for followers in self.listeners.values()
                         for listener in followers]
        for listener in listeners:
            listener.hand(NUDGE)
        self.woken.set()

    def _run(self) -> None:
        while not self.stopping.is_set():
            # Cleared before the poll, so a nudge that comes during it is a poll right after.
            self.woken.clear()
            self.poll()
            self.woken.wait(self.interval)

    def poll(self) -> None:
        """Hand each listener the entries recorded past its head, in order."""
        with self.lock:
            followed = {slug: list(listeners) for slug, listeners in self.listeners.items()}
        for slug, listeners in followed.items():
            head = min(listener.head for listener in listeners)
            try:
                entries = self.reads.run(functools.partial(_after, slug=slug, head=head))
            except Exception:
                # Tried again at the next poll; one campaign's failure holds up no other.
                continue
            for listener in listeners:
                for entry in entries:
                    if entry["seq"] > listener.head:
                        listener.hand(entry)
                        listener.head = entry["seq"]


def _after(trek: Trek, slug: str, head: int) -> list[dict[str, Any]]:
    """The log entries of `slug` past seq `head`: none read unless its newest seq moved."""
    from projections.logpages import LogFilter

    if trek.queries.last_seq(slug) <= head:
        return []
    selection = LogFilter(since=head + 1)
    return [cast(dict[str, Any], entry)
            for entry in trek.queries.log_stream(slug, selection).entries]
