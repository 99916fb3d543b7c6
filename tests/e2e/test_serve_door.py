"""A real `trek serve` process asked for a command that runs until stopped, or that acts on
files or on the whole store (issue 41): it answers at once with a refusal, records nothing,
and SIGTERM still stops it with exit 0; on SQLite and PostgreSQL."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from served import sample_campaign, serve

pytestmark = pytest.mark.slow

LONG_RUNNING = [
    ["--json", "watch"],
    ["watch", "--json"],
    ["--", "watch"],
    ["shell"],
    ["serve", "--port", "0", "--no-open"],
    ["--json", "replay", "--accept-tampering"],
    ["--json", "demo", "--keep", "kept.db"],
]


def test_a_long_running_command_is_refused_at_once_and_sigterm_still_stops_the_server(
        tmp_path: Path, db: str) -> None:
    sample_campaign(db)
    with serve(tmp_path, db) as server:
        before = server.get("log").json()
        for argv in LONG_RUNNING:
            started = time.monotonic()
            response = server.command(argv)
            assert time.monotonic() - started < 5, argv
            assert response.status_code == 403, (argv, response.text)
            error = response.json()["error"]
            assert "trek command line" in error
            assert error.endswith(".")
        # the server still answers, and nothing was recorded or written
        assert server.get("log").json() == before
        assert server.command(["day", "start"]).status_code == 200
        assert not (tmp_path / "kept.db").exists()
        assert server.stop() == 0
