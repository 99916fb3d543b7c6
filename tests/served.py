"""A real `trek serve` process on a free port, for the API and browser tests."""

from __future__ import annotations

import contextlib
import json
import queue
import re
import signal
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from conftest import trek_command, trek_env
from rulesets import RULESETS

from tracker.app import Trek

GM_KEY = "gm-secret-0123456789abcdef"
PLAYER_KEY = "players-secret-0123456789"
SLUG = "ashes-road"
LINES = re.compile(r"GM: (http://127\.0\.0\.1:(\d+))/\?key=(\S+)\n"
                   r"Players: http://127\.0\.0\.1:\2/players\?key=(\S+)\n")


def sample_campaign(db: str) -> None:
    """Three days on the Ashen Reach, recorded into `db` (21 events, day 3 ended; the
    journeys.three_days the tests worked out, not the demo's)."""
    from journeys import three_days

    with Trek.open(db, rulesets=RULESETS, create=True, gm="demo") as trek:
        three_days(trek)


@dataclass
class Served:
    """A running server: its base URL and process."""

    base: str
    process: subprocess.Popen[str]
    db: str
    stdout: str
    stopped: bool = False

    def api(self, tail: str) -> str:
        return f"{self.base}/api/campaigns/{SLUG}/{tail}"

    def get(self, tail: str, key: str | None = GM_KEY, **options: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.get(self.api(tail), headers=headers, timeout=30, **options)

    def command(self, argv: list[str], *, preview: bool = False,
                key: str | None = GM_KEY) -> httpx.Response:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.post(self.api("commands"), json={"argv": argv, "preview": preview},
                          headers=headers, timeout=30)

    def stop(self) -> int:
        if not self.stopped:
            self.stopped = True
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise
        return int(self.process.returncode)


@contextlib.contextmanager
def serve(folder: Path, db: str, *args: str) -> Iterator[Served]:
    """`trek serve --port 0 --no-open ARGS` on `db`, stopped (SIGTERM) at the end."""
    process = subprocess.Popen(
        [*trek_command("serve", "--port", "0", "--no-open", *args)], cwd=folder,
        env=trek_env(db, TREK_GM_KEY=GM_KEY, TREK_PLAYER_KEY=PLAYER_KEY),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    printed = process.stdout.readline() + process.stdout.readline()
    match = LINES.fullmatch(printed)
    if match is None:
        process.kill()
        _, err = process.communicate()
        raise AssertionError(f"trek serve printed {printed!r}; stderr: {err[-2000:]}")
    served = Served(match.group(1), process, db, printed)
    try:
        yield served
    finally:
        served.stop()


@dataclass
class Stream:
    """A Server-Sent Events stream read in a thread: each `data:` message, parsed."""

    url: str
    messages: queue.Queue[dict[str, Any]] = field(default_factory=queue.Queue)
    opened: threading.Event = field(default_factory=threading.Event)
    closing: threading.Event = field(default_factory=threading.Event)

    def start(self) -> Stream:
        threading.Thread(target=self._read, daemon=True).start()
        assert self.opened.wait(10), f"the stream {self.url} did not open"
        return self

    def _read(self) -> None:
        with contextlib.suppress(httpx.HTTPError), httpx.stream(
                "GET", self.url, timeout=httpx.Timeout(30, read=None)) as response:
            assert response.status_code == 200
            for line in response.iter_lines():
                if line.startswith(":"):
                    self.opened.set()
                if line.startswith("data: "):
                    self.messages.put(json.loads(line[len("data: "):]))
                if self.closing.is_set():
                    return

    def next(self, timeout: float) -> dict[str, Any]:
        return self.messages.get(timeout=timeout)
