"""The API's door to the tracker: the very `trek` click commands, run in this process.

A request's words go through the same group as the command line (cli/main.py `trek`), with
the store and the campaign fixed by the server and `--json` added, so the API answers with the
documents `--json` prints and refuses with the CLI's own sentences. Click writes to the
process's stdout and stderr, so one command runs at a time (a lock); each takes milliseconds.
"""

from __future__ import annotations

import contextlib
import json
import threading
from dataclasses import dataclass
from typing import Any

# Bounds on what a request may ask for: a command line a GM could type, not a payload.
MAX_WORDS = 64
MAX_WORD = 400

# Options the server fixes (the store, the campaign, who records) or that would not answer with
# JSON (help, version, other outputs), and options that read or write a file on the server's
# disk: none has a place in a request.
FIXED_OPTIONS = ("--db", "--campaign", "--gm")
REFUSED_OPTIONS = ("--help", "-h", "--version", "--csv", "--jsonl", "--svg", "--html",
                   "--map", "--output")
# Commands that act on the store as a whole, run for ever, or make another front-end.
REFUSED_COMMANDS = {
    "init": "`init` creates a campaign; run it with the trek command line",
    "branch": "`branch` creates a campaign; run it with the trek command line",
    "demo": "`demo` plays into a store of its own; run it with the trek command line",
    "replay": "`replay` rebuilds the whole store; run it with the trek command line",
    "watch": "`watch` runs until stopped; run it with the trek command line",
    "serve": "`serve` starts a server; run it with the trek command line",
    "shell": "`shell` reads from a terminal; send one command per request instead",
    "campaigns": "`campaigns` acts on the whole store; run it with the trek command line",
}
REFUSED_SUBCOMMANDS = {("map", "import"): "`map import` reads and writes files on the "
                                          "server; run it with the trek command line"}


class Refused(Exception):
    """A request the API will not run, with the sentence that says why (HTTP 400)."""


@dataclass(frozen=True)
class Outcome:
    """What one command did: its exit code, what it printed, and the document it printed."""

    exit_code: int
    stdout: str
    stderr: str

    def document(self) -> Any:
        return json.loads(self.stdout)

    def sentence(self) -> str:
        """The command's one sentence, without click's `Error: ` in front."""
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        for line in reversed(lines):
            if line.startswith("Error: "):
                return line[len("Error: "):].strip()
        return lines[-1].strip() if lines else "The command failed."


def has_control(text: str) -> bool:
    """Whether `text` holds a control character (a terminal escape, a newline, DEL)."""
    return any(ord(ch) < 32 or ord(ch) == 127 for ch in text)


def check_words(argv: list[str]) -> None:
    """Refuse, with a sentence, the words no request may carry."""
    if not argv:
        raise Refused("Give the command's words in argv, for example [\"move\", \"E\"].")
    if len(argv) > MAX_WORDS:
        raise Refused(f"A command takes at most {MAX_WORDS} words, not {len(argv)}.")
    for word in argv:
        if len(word) > MAX_WORD:
            raise Refused(f"A word of a command is at most {MAX_WORD} characters long.")
        if has_control(word):
            raise Refused("A command's words may not hold control characters.")
        option = word.split("=", 1)[0]
        if option in FIXED_OPTIONS:
            raise Refused(f"{option} is fixed by the server; leave it out of argv.")
        if option in REFUSED_OPTIONS:
            raise Refused(f"{option} is not available through the API.")
    name = argv[0]
    if name in REFUSED_COMMANDS:
        raise Refused(REFUSED_COMMANDS[name] + ".")
    if tuple(argv[:2]) in REFUSED_SUBCOMMANDS:
        raise Refused(REFUSED_SUBCOMMANDS[(argv[0], argv[1])] + ".")


class Runner:
    """Runs `trek` commands in this process on one store, one at a time, through stores kept
    open between commands (one to record, one to preview): a warm server opens nothing per
    request. A command that could not finish has its stores opened afresh for the next."""

    def __init__(self, db: str) -> None:
        from cli.context import KeptStores

        self.db = db
        self.lock = threading.Lock()
        self.kept = KeptStores()

    def close(self) -> None:
        with self.lock:
            self._drop()

    def _drop(self) -> None:
        with contextlib.suppress(Exception):
            self.kept.close()

    def run(self, campaign: str, argv: list[str], *, preview: bool = False) -> Outcome:
        """`trek --db DB --campaign CAMPAIGN --json ARGV [--preview]`."""
        with self.lock:
            return self._run(campaign, argv, preview=preview)

    def preview_after(self, campaign: str, argv: list[str]) -> tuple[Outcome, Any]:
        """Preview ARGV; with it, the open encounter as the previewed event would leave it
        (None when the command was refused or is not an encounter's)."""
        with self.lock:
            outcome = self._run(campaign, argv, preview=True)
            if outcome.exit_code != 0:
                return outcome, None
            previewing = [trek for (_db, _writes, _gm, preview), trek in self.kept.treks.items()
                          if preview]
            return outcome, (previewing[0].previewed_encounter() if previewing else None)

    def _run(self, campaign: str, argv: list[str], *, preview: bool) -> Outcome:
        from click.testing import CliRunner

        from cli.main import trek
        from cli.options import Settings

        words = [word for word in argv if word != "--json"]
        if preview and "--preview" not in words:
            # Before a `--`, after which every word is an argument.
            at = words.index("--") if "--" in words else len(words)
            words[at:at] = ["--preview"]
        args = ["--db", self.db, "--campaign", campaign, "--json", *words]
        result = CliRunner().invoke(trek, args, prog_name="trek", catch_exceptions=True,
                                    obj=Settings(kept=self.kept))
        crashed = (result.exception is not None
                   and not isinstance(result.exception, SystemExit))
        if crashed or "Trek could not finish" in result.stderr:
            self._drop()
        if crashed:
            assert result.exception is not None
            return Outcome(70, "", f"Error: Trek could not finish "
                                   f"({type(result.exception).__name__}).")
        return Outcome(result.exit_code, result.stdout, result.stderr)
