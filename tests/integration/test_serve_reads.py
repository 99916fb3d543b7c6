"""`trek serve` reads through one store it holds from start-up to shutdown: page views and API
reads open no store, yet show what another writer recorded meanwhile; and its live stream's
poller hands each event once, even one recorded between its two reads. On memory, SQLite and
PostgreSQL."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from cliruns import ok
from conftest import OpenTrek, TrekRun
from journeys import three_days as play

from cli.web.app import ServeConfig, create_app
from cli.web.live import Live
from cli.web.reads import Reads
from domain.commands.supplies import AddSupplies
from tracker.app import Trek
from tracker.stores import StoreError

SLUG = "ashes-road"
GM_KEY = "gm-secret-0123456789abcdef"
PLAYER_KEY = "players-secret-0123456789"
GM = {"Authorization": f"Bearer {GM_KEY}"}


class Opened:
    """Counts the stores opened (`Trek.open`) and the SQLite connections made while on."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.on = False
        self.stores = 0
        self.connections = 0
        trek_open = Trek.open.__func__  # type: ignore[attr-defined]
        connect = sqlite3.connect

        def counted_open(cls: type[Trek], *args: Any, **options: Any) -> Trek:
            self.stores += self.on
            return trek_open(cls, *args, **options)  # type: ignore[no-any-return]

        def counted_connect(*args: Any, **options: Any) -> sqlite3.Connection:
            self.connections += self.on
            return connect(*args, **options)

        monkeypatch.setattr(Trek, "open", classmethod(counted_open))
        monkeypatch.setattr(sqlite3, "connect", counted_connect)


@pytest.fixture
def sample(store: str, open_trek: OpenTrek) -> Trek:
    """The demo's 21 events (day 3 ended) in `store`, and the Trek that recorded them."""
    writer = open_trek(store, create=True)
    play(writer)
    return writer


def record_elsewhere(store: str, writer: Trek, trek_run: Callable[..., TrekRun]) -> None:
    """One event (supplies add ammo=1) recorded by another writer than the server: the
    command line on a store on disk; the writer's own Trek on a memory store, which only this
    process's Treks can reach."""
    if store.startswith("memory:"):
        writer.handle(SLUG, AddSupplies({"ammo": 1}))
    else:
        ok(trek_run("supplies", "add", "ammo=1", db=store))


def test_page_views_and_api_reads_open_no_store_and_see_other_writers(
        store: str, sample: Trek, open_trek: OpenTrek, trek_run: Callable[..., TrekRun],
        monkeypatch: pytest.MonkeyPatch) -> None:
    opened = Opened(monkeypatch)
    memory = store.startswith("memory:")
    app = create_app(ServeConfig(db=store, campaign=SLUG, gm_key=GM_KEY, player_key=PLAYER_KEY),
                     open_store=(lambda: open_trek(store, writable=False)) if memory else None)
    reads = ["/api/campaigns/ashes-road/status", "/api/campaigns/ashes-road/log?last=3",
             "/api/campaigns/ashes-road/encounter", f"/?key={GM_KEY}",
             f"/players?key={PLAYER_KEY}", f"/parts/gm?key={GM_KEY}"]

    async def serve() -> None:
        transport = httpx.ASGITransport(app=app)
        async with app.router.lifespan_context(app), httpx.AsyncClient(
                transport=transport, base_url="http://trek", headers=GM) as client:
            # Start-up opened the one store the server reads through.
            assert opened.stores == 0
            opened.on = True
            for _ in range(3):
                for path in reads:
                    assert (await client.get(path)).status_code == 200, path
            status = (await client.get(reads[0])).json()
            assert status["events"] == 21
            opened.on = False
            record_elsewhere(store, sample, trek_run)
            opened.on = True
            # The held store reads afresh: the event recorded elsewhere is on every read.
            status = (await client.get(reads[0])).json()
            assert (status["events"], status["supplies"]["ammo"]) == (22, 3)
            [newest] = (await client.get("/api/campaigns/ashes-road/log?last=1")).json()
            assert (newest["seq"], newest["type"]) == (22, "SuppliesAdded")
            part = (await client.get(f"/parts/gm?key={GM_KEY}")).text
            assert 'data-seq="22"' in part
            page = (await client.get(f"/players?key={PLAYER_KEY}")).text
            assert "22 events" in page
            assert 'data-seq="22"' in (await client.get(f"/?key={GM_KEY}")).text
            opened.on = False

    asyncio.run(serve())
    # Twenty-odd page views and API reads: not one store opened, not one SQLite connection.
    assert (opened.stores, opened.connections) == (0, 0)
    # Shutdown closed the held store: a read now is refused, nothing opened again.
    with pytest.raises(StoreError, match="stopping"):
        app.state.reads.run(lambda trek: trek.queries.last_seq(SLUG))


class Listening:
    """A Live poller on a store, with one listener, in an event loop of its own."""

    def __init__(self, live: Live, slug: str, head: int) -> None:
        self.live = live
        self.loop = asyncio.new_event_loop()

        async def listen() -> Any:
            return live.listen(slug, head)

        self.listener = self.loop.run_until_complete(listen())

    def poll(self) -> list[int]:
        """One poll; the seqs it handed the listener, in the order handed."""
        self.live.poll()
        self.loop.run_until_complete(asyncio.sleep(0))
        handed = []
        while not self.listener.queue.empty():
            handed.append(self.listener.queue.get_nowait()["seq"])
        return handed

    def close(self) -> None:
        self.loop.close()


@pytest.fixture
def listening(store: str, sample: Trek, open_trek: OpenTrek) -> Iterator[Listening]:
    reads = Reads(lambda: open_trek(store, writable=False))
    # Listening from event 21 on (its head: 20), as `?from=21` asks.
    watching = Listening(Live(reads), SLUG, 20)
    yield watching
    watching.close()
    reads.close()


def test_an_event_recorded_between_the_pollers_two_reads_is_handed_once(
        store: str, sample: Trek, listening: Listening, monkeypatch: pytest.MonkeyPatch) -> None:
    """The poller reads the newest seq (21), then the entries past its head: event 22,
    recorded in between, is among them. It is handed then, and not again at the next poll
    (the newest seq it read first, 21, is not how far the listener got)."""
    def hook(trek: Trek) -> None:
        newest_seq = trek.queries.last_seq

        def then_record(slug: str) -> int:
            seq = newest_seq(slug)
            if seq == 21:
                sample.handle(SLUG, AddSupplies({"ammo": 1}))
            return seq

        monkeypatch.setattr(trek.queries, "last_seq", then_record)

    listening.live.reads.run(hook)
    assert listening.poll() == [21, 22]
    assert listening.poll() == []
    sample.handle(SLUG, AddSupplies({"ammo": 1}))
    assert listening.poll() == [23]
    assert listening.poll() == []


def test_listeners_at_different_heads_each_get_what_follows_theirs_once(
        store: str, sample: Trek, listening: Listening) -> None:
    assert listening.poll() == [21]
    behind = Listening(listening.live, SLUG, 18)
    try:
        assert (behind.poll(), listening.poll()) == ([19, 20, 21], [])
        sample.handle(SLUG, AddSupplies({"ammo": 1}))
        sample.handle(SLUG, AddSupplies({"ammo": 2}))
        assert (behind.poll(), listening.poll()) == ([22, 23], [22, 23])
    finally:
        behind.close()


def test_a_page_is_drawn_once_for_the_same_documents(
        store: str, sample: Trek, open_trek: OpenTrek, trek_run: Callable[..., TrekRun],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Twenty loads of the GM's page with nothing recorded between them draw it once (the same
    HTML each time); the players' page is drawn on its own; a recorded event draws both anew."""
    from cli.web import pages

    drawn: list[str] = []
    page = pages.page

    def counted(*args: Any, **options: Any) -> str:
        drawn.append(str(options["view"]))
        return page(*args, **options)

    monkeypatch.setattr(pages, "page", counted)
    memory = store.startswith("memory:")
    app = create_app(ServeConfig(db=store, campaign=SLUG, gm_key=GM_KEY, player_key=PLAYER_KEY),
                     open_store=(lambda: open_trek(store, writable=False)) if memory else None)

    async def serve() -> None:
        transport = httpx.ASGITransport(app=app)
        async with app.router.lifespan_context(app), httpx.AsyncClient(
                transport=transport, base_url="http://trek", headers=GM) as client:
            gm_pages = {(await client.get(f"/?key={GM_KEY}")).text for _ in range(20)}
            players = (await client.get(f"/players?key={PLAYER_KEY}")).text
            assert len(gm_pages) == 1
            assert drawn == ["gm", "player"]
            record_elsewhere(store, sample, trek_run)
            again = (await client.get(f"/?key={GM_KEY}")).text
            assert 'data-seq="22"' in again
            assert again not in gm_pages
            assert "22 events" in (await client.get(f"/players?key={PLAYER_KEY}")).text
            assert players != again
            assert drawn == ["gm", "player", "gm", "player"]

    asyncio.run(serve())


def test_a_nudge_hands_what_this_server_recorded_without_waiting_for_the_poll(
        store: str, sample: Trek, open_trek: OpenTrek) -> None:
    """The server nudges the poller after it records: with a poll only every minute, event 22
    still reaches the listener at once, after the word that the table changed (NUDGE)."""
    from cli.web.live import NUDGE

    reads = Reads(lambda: open_trek(store, writable=False))
    live = Live(reads, interval=60.0)
    watching = Listening(live, SLUG, 21)
    polled = threading.Event()
    poll = live.poll

    def counted() -> None:
        poll()
        polled.set()

    live.poll = counted  # type: ignore[method-assign]
    live.start()
    try:
        # The first poll (at start) finds nothing past 21; the next would be a minute away.
        assert polled.wait(10)
        deadline = asyncio.wait_for(watching.listener.queue.get(), 10)
        sample.handle(SLUG, AddSupplies({"ammo": 1}))
        live.nudge()
        first = watching.loop.run_until_complete(deadline)
        assert first is NUDGE
        entry = watching.loop.run_until_complete(
            asyncio.wait_for(watching.listener.queue.get(), 10))
        assert entry["seq"] == 22
    finally:
        live.stop()
        watching.close()
        reads.close()
