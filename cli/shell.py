"""`trek shell`: one process for a session at the table, a command a line.

Each line holds the words that follow `trek` on the command line (`move E E`, `undo`,
`encounter move Kira --to 3,4`, `status --json`), read as a POSIX shell reads them (quotes and
backslashes), and runs through the same click group with the shell's own --db, --campaign, --gm
and --json, so it prints what the command prints and ends with the exit code the command would
(0, 1 for a refusal, 2 for a usage mistake). The store is opened once, the first time a line
needs it, and stays open until the shell ends (cli.context.KeptStores).

With a terminal on stdin the prompt (cli.prompt, on prompt_toolkit) keeps a history and
completes command and option names and the campaign's names; a refused line never ends it.
Without one, the lines are run one after another with no prompt: blank lines and `#` comments
are skipped, and the first refused line ends the run with its exit code unless --keep-going.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

from cli.options import Settings, TrekCommand, store_options

if TYPE_CHECKING:
    from cli.context import KeptStores
    from tracker.app import Trek

ENDING = ("exit", "quit")
# How many of the newest log entries `undo` and `redo` offer to complete.
RECENT_EVENTS = 20


class LineError(Exception):
    """A line that cannot be read as words (an unclosed quotation)."""


def words_of(line: str) -> list[str] | None:
    """The words of one line, or None for a blank line or a `#` comment."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    if any("\udc80" <= ch <= "\udcff" for ch in text):
        # Bytes that were not text where the script was read (surrogateescape).
        raise LineError("the line holds bytes that are not text; save the script as UTF-8")
    try:
        words = shlex.split(text)
    except ValueError as error:
        if "quotation" in str(error):
            raise LineError("a quotation mark is not closed; close it, or put a backslash "
                            "before it to keep it as it is") from None
        raise LineError("the line ends in a lone backslash; remove it, or double it to keep "
                        "it") from None
    if words and words[0] == "trek":
        # Typed from habit, or a line pasted from a script: the words after it are the same.
        words = words[1:]
    if words and words[0] == "help":
        # `help` is `--help`; `help move` is `move --help`.
        words = [*words[1:], "--help"]
    return words


@dataclass
class Names:
    """What the campaign offers to complete, as the read models tell it after the last line."""

    campaign: str | None = None
    day: int | None = None
    # The roster's names -> what each is: character, mount, vehicle.
    names: dict[str, str] = field(default_factory=dict)
    # Who is in the open encounter, and on what grid (square or hex).
    combatants: list[str] = field(default_factory=list)
    grid: str = "square"
    # The newest events, newest first: (seq, type, cancelled).
    events: list[tuple[int, str, bool]] = field(default_factory=list)
    count: int = -1
    # Every campaign in the store (for --campaign).
    campaigns: list[str] = field(default_factory=list)


class Shell:
    """Runs lines as `trek` commands with the shell's settings, on stores kept open."""

    def __init__(self, settings: Settings) -> None:
        from cli.bootstrap import root_of
        from cli.context import KeptStores

        self.settings = settings
        # Every line plays with the shell's composition root (its rulesets, its commands).
        self.root = root_of(settings)
        self.kept: KeptStores = KeptStores(root=self.root)
        self.names = Names()

    def __enter__(self) -> Shell:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kept.close()

    def run(self, words: list[str]) -> int:
        """Run one command's words in this process; its exit code."""
        from cli.main import trek

        s = self.settings
        # The shell's settings hold for every line, as if given before the command's name
        # (a line's own --db, --campaign or --gm still overrides them for that line).
        given = {name for name in ("db", "campaign", "gm") if getattr(s, name) is not None}
        line = Settings(db=s.db, campaign=s.campaign, gm=s.gm, json=s.json,
                        explicit=s.explicit | given, kept=self.kept, root=self.root)
        try:
            trek.main(args=words, prog_name="trek", obj=line, standalone_mode=True)
        except SystemExit as end:
            return exit_code(end.code)
        finally:
            # Each line's answer is out before the next line is read (a pipe is buffered).
            sys.stdout.flush()
            sys.stderr.flush()
        return 0

    def run_line(self, line: str) -> int | None:
        """Run one line as typed: its exit code, or None for nothing to run."""
        try:
            words = words_of(line)
        except LineError as error:
            from cli.main import _sentence

            click.echo(f"Error: {_sentence(str(error), self.root)}", err=True)
            return 2
        if words is None:
            return None
        return self.run(words)

    # -- what completion and the prompt read ----------------------------------------------------

    def refresh(self) -> Names:
        """Read the campaign's names, day and newest events again (after a recorded line):
        nothing when the store or the campaign is not there yet."""
        try:
            trek = self._reader()
            counts = {str(c["slug"]): int(c["events"]) for c in trek.campaigns()}
        except Exception:
            # Completion is a help, never a failure: no store yet.
            self.names = Names()
            return self.names
        try:
            slug = trek.resolve(self.settings.campaign)
            if slug not in counts:
                raise LookupError(slug)
            # Nothing recorded since the last look (a read, a refusal): nothing to read again.
            if (slug, counts[slug]) == (self.names.campaign, self.names.count):
                self.names.campaigns = list(counts)
                return self.names
            status = trek.queries.status(slug)
            events = _recent(trek, slug)
        except Exception:
            # No campaign chosen among several, or none by that name.
            self.names = Names(campaigns=list(counts))
            return self.names
        names: dict[str, str] = {}
        for name in status.get("characters") or {}:
            names[name] = "character"
        for name, conveyance in (status.get("conveyances") or {}).items():
            names[name] = str(conveyance.get("kind", "conveyance"))
        encounter: Mapping[str, Any] = status.get("encounter") or {}
        self.names = Names(campaign=slug, day=int(status["day"]), names=names,
                           combatants=list(encounter.get("combatants") or {}),
                           grid=str(encounter.get("grid") or "square"), events=events,
                           count=int(status["events"]), campaigns=list(counts))
        return self.names

    def _reader(self) -> Trek:
        from tracker.app import gm_from_env

        return self.kept.open(self.settings.db, create=False, writes=False,
                              gm=gm_from_env(self.settings.gm))

    def prompt_text(self) -> str:
        names = self.names
        if names.campaign is None:
            return "trek> "
        day = f" day {names.day}" if names.day else ""
        return f"{names.campaign}{day}> "


def _recent(trek: Trek, slug: str) -> list[tuple[int, str, bool]]:
    from projections.logpages import LogFilter

    stream = trek.queries.log_stream(slug, LogFilter(last=RECENT_EVENTS))
    entries = [(int(e["seq"]), str(e["type"]), e["cancelled_by"] is not None)
               for e in stream.entries]
    return entries[::-1]


def exit_code(code: Any) -> int:
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def piped(shell: Shell, lines: Iterable[str], *, keep_going: bool) -> int:
    """Run lines from a script: stop at the first refused one with its exit code, or with
    `keep_going` run them all and end with 1 if any was refused."""
    refused = False
    for line in lines:
        if line.strip() in ENDING:
            break
        code = shell.run_line(line)
        if not code:
            continue
        if not keep_going:
            return code
        refused = True
    return 1 if refused else 0


def _stdin_lines() -> Iterator[str]:
    """The lines of stdin, read one at a time as they come (a script may be typed or piped
    slowly); bytes that are not text are kept apart (surrogateescape) for `words_of` to refuse
    that line alone."""
    if sys.stdin is None:   # started with stdin closed: an empty script
        return
    encoding = getattr(sys.stdin, "encoding", None) or "utf-8"
    stream = getattr(sys.stdin, "buffer", None)
    while True:
        raw: bytes | str = stream.readline() if stream is not None else sys.stdin.readline()
        if not raw:
            return
        yield raw.decode(encoding, "surrogateescape") if isinstance(raw, bytes) else raw


@contextmanager
def _no_colour() -> Iterator[None]:
    """A script's output is plain text even on a terminal, as it would be into a file: rich
    reads these as it prints (TTY_COMPATIBLE=0: no styles, no terminal width; NO_COLOR for
    anything else that follows the convention), for as long as the script runs."""
    plain = {"TTY_COMPATIBLE": "0", "NO_COLOR": "1"}
    before = {name: os.environ.get(name) for name in plain}
    os.environ.update(plain)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@click.command(cls=TrekCommand, name="shell")
@click.option("--keep-going", is_flag=True,
              help="With lines piped in: run every line even after a refusal, and exit 1 if "
                   "any was refused.")
@store_options
def shell(keep_going: bool) -> None:
    """A prompt for a session at the table: each line is a trek command without `trek`.

    `move E E`, `undo`, `encounter move Kira --to 3,4`, `status --json`: the same output and
    the same meaning of each exit code as on the command line, the store opened once. A
    refused or mistyped line never ends the shell; `exit`, `quit` or Ctrl-D does. Tab
    completes commands, options and the campaign's names; the history is kept beside the store.

    With lines piped in (`trek shell < session.txt`) they run one after another with no
    prompt, skipping blank lines and # comments, and the first refused line ends the run with
    its exit code (1 or 2) unless --keep-going.
    """
    ctx = click.get_current_context()
    settings = ctx.ensure_object(Settings)
    if settings.kept is not None:
        raise click.ClickException("This is the shell already; type a command, or exit.")
    with Shell(settings) as session:
        if sys.stdin is not None and sys.stdin.isatty():
            from cli.prompt import interactive

            code = interactive(session)
        else:
            with _no_colour():
                code = piped(session, _stdin_lines(), keep_going=keep_going)
    sys.stdout.flush()
    ctx.exit(code)
