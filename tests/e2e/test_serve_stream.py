"""`trek serve`'s live stream under load, on real server processes: eight writers through two
servers on one PostgreSQL store, and a `trek shell` writing to an SQLite store served by a
third. Every stream gets every event exactly once, in order, each message's `id:` its seq; a
client that drops and reconnects with Last-Event-ID (or `?last_event_id=`) gets the gap once.

The sample campaign (tests/served.py) has 21 events; every event here is `supplies add ammo=1`
(bounded far above what is added), so the log after is 22 to 21 + the events recorded."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from conftest import trek_command, trek_env
from served import GM_KEY, PLAYER_KEY, Served, sample_campaign, serve

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

WRITERS = 8
# Each writer's commands: 8 x 5 = 40 events through the two servers.
EACH = 5
# The shell's commands on the SQLite store.
SHELL_EVENTS = 15
# How long the writing and reading may take, once the servers are up, before the test gives up
# (a loaded machine included).
BOUND = 60.0


@dataclass
class Listening:
    """One SSE client, read in a thread: the (id, seq) of every message, in order; it hangs up
    by itself after `stop_after` messages, if given."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    stop_after: int | None = None
    got: list[tuple[int, int]] = field(default_factory=list)
    opened: threading.Event = field(default_factory=threading.Event)
    ended: threading.Event = field(default_factory=threading.Event)
    problems: list[str] = field(default_factory=list)

    def start(self) -> Listening:
        threading.Thread(target=self._read, daemon=True).start()
        assert self.opened.wait(10), f"the stream {self.url} did not open"
        return self

    def _read(self) -> None:
        try:
            with httpx.stream("GET", self.url, headers=self.headers,
                              timeout=httpx.Timeout(10, read=None)) as response:
                if response.status_code != 200:
                    self.problems.append(f"{self.url}: {response.status_code}")
                    return
                seq_id: int | None = None
                for line in response.iter_lines():
                    if line.startswith(":"):
                        self.opened.set()
                    elif line.startswith("id: "):
                        seq_id = int(line[len("id: "):])
                    elif line.startswith("data: "):
                        seq = json.loads(line[len("data: "):])["seq"]
                        if seq_id is None:
                            self.problems.append(f"event {seq} came without an id")
                        self.got.append((seq_id if seq_id is not None else -1, seq))
                        seq_id = None
                        if self.stop_after is not None and len(self.got) >= self.stop_after:
                            return
        except httpx.HTTPError as error:
            # The server stopping at the end of the test ends the stream.
            self.problems.append(f"{self.url}: {type(error).__name__}")
        finally:
            self.opened.set()
            self.ended.set()

    def seqs(self) -> list[int]:
        return [seq for _, seq in self.got]

    def ids(self) -> list[int]:
        return [event_id for event_id, _ in self.got]

    def until(self, last: int, deadline: float) -> list[int]:
        """The seqs got, once the one `last` has come (or the deadline has passed)."""
        while time.monotonic() < deadline and not self.ended.is_set():
            if self.got and self.got[-1][1] >= last:
                break
            time.sleep(0.05)
        return self.seqs()


def stream_url(server: Served, key: str = GM_KEY, query: str = "") -> str:
    return server.api(f"events?key={key}{query}")


def newest(server: Served) -> int:
    return int(server.get("status").json()["events"])


def write(server: Served, times: int, refused: list[str]) -> None:
    """One writer: `times` commands through `server`, one after another (each sent again, a
    few times at most, while the refusal says the campaign changed meanwhile and to)."""
    for _ in range(times):
        for _attempt in range(5):
            answer = server.command(["supplies", "add", "ammo=1"])
            if answer.status_code != 422 or "run the command again" not in answer.text:
                break
        if answer.status_code != 200:
            refused.append(answer.text)


def wait_for(condition: Callable[[], bool], deadline: float) -> None:
    while not condition():
        assert time.monotonic() < deadline, "the test ran out of time"
        time.sleep(0.05)


def test_every_stream_gets_every_event_once_in_order_and_a_reconnect_gets_the_gap_once(
        tmp_path: Path, pg_url: str) -> None:
    sample_campaign(pg_url)
    lite = str(tmp_path / "trek.db")
    sample_campaign(lite)
    with serve(tmp_path, pg_url) as one, serve(tmp_path, pg_url) as two, \
            serve(tmp_path, lite) as third:
        deadline = time.monotonic() + BOUND
        streams = [Listening(stream_url(server, key)).start()
                   for server in (one, two) for key in (GM_KEY, PLAYER_KEY)]
        lite_stream = Listening(stream_url(third)).start()
        # Two clients that hang up partway and come back.
        dropping = Listening(stream_url(one), stop_after=12).start()
        lite_dropping = Listening(stream_url(third, PLAYER_KEY), stop_after=4).start()

        refused: list[str] = []
        writers = [threading.Thread(target=write, args=(one if n % 2 else two, EACH, refused))
                   for n in range(WRITERS)]
        shell = subprocess.Popen(trek_command("shell"), cwd=tmp_path, env=trek_env(lite),
                                 stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)
        assert shell.stdin is not None
        for writer in writers:
            writer.start()
        try:
            for _ in range(SHELL_EVENTS):
                shell.stdin.write("supplies add ammo=1\n")
                shell.stdin.flush()
                time.sleep(0.02)
            shell.stdin.close()
            # While the others write on, the dropped clients come back: one with the
            # header a browser sends, one with the query an EventSource can be given.
            wait_for(dropping.ended.is_set, deadline)
            # Not back before more was recorded: there is a gap to fill.
            wait_for(lambda: newest(one) >= dropping.ids()[-1] + 3, deadline)
            back = Listening(stream_url(one), headers={
                "Last-Event-ID": str(dropping.ids()[-1])}).start()
            wait_for(lite_dropping.ended.is_set, deadline)
            wait_for(lambda: newest(third) >= lite_dropping.ids()[-1] + 3, deadline)
            lite_back = Listening(stream_url(
                third, PLAYER_KEY, f"&last_event_id={lite_dropping.ids()[-1]}")).start()
        finally:
            for writer in writers:
                writer.join(timeout=max(deadline - time.monotonic(), 1))
            if not shell.stdin.closed:
                shell.stdin.close()
            try:
                shell.wait(timeout=max(deadline - time.monotonic(), 1))
            finally:
                if shell.poll() is None:
                    shell.kill()
                    shell.wait()
            assert shell.stderr is not None
            shell_errors = shell.stderr.read()
        assert not any(writer.is_alive() for writer in writers), "a writer did not finish"
        assert shell.returncode == 0, shell_errors

        last = newest(one)
        # Every command recorded one event (a refusal would say why).
        assert (refused, last, newest(two)) == ([], 21 + WRITERS * EACH, last)
        lite_last = newest(third)
        assert lite_last == 21 + SHELL_EVENTS
        everything = list(range(22, last + 1))
        for stream in streams:
            assert stream.until(last, deadline) == everything, stream.url
            assert stream.ids() == everything
        assert lite_stream.until(lite_last, deadline) == list(range(22, lite_last + 1))
        assert lite_stream.ids() == lite_stream.seqs()
        # The gap and the rest, once: before the drop and after it, every event once.
        assert last >= 22 + 12
        assert dropping.seqs() + back.until(last, deadline) == everything
        assert back.ids() == back.seqs()
        assert (lite_dropping.seqs() + lite_back.until(lite_last, deadline)
                == list(range(22, lite_last + 1)))
        assert not [problem for stream in (*streams, lite_stream, back, lite_back)
                    for problem in stream.problems]
