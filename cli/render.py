"""Human output with rich, and JSON output for scripts."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache
from itertools import islice
from typing import TYPE_CHECKING, Any, NamedTuple

from cli.output import json_text as json_text
from domain.grid import GRIDS

if TYPE_CHECKING:
    from rich.console import Console
    from rich.segment import Segment

    from cli.bootstrap import Root
    from cli.ruleset_line import CommandLine
    from cli.tables import Table


class _Console:
    """A rich console made the first time it is used: a command whose answer is one plain
    line (every recording command's, off a terminal) never loads rich."""

    def __init__(self, make: Callable[[], Console]) -> None:
        object.__setattr__(self, "_make", make)
        object.__setattr__(self, "_made", None)

    def _console(self) -> Console:
        made: Console | None = object.__getattribute__(self, "_made")
        if made is None:
            made = object.__getattribute__(self, "_make")()
            object.__setattr__(self, "_made", made)
        return made

    def __getattr__(self, name: str) -> Any:
        made = self._console()
        return getattr(made, name)

    def __setattr__(self, name: str, value: Any) -> None:
        made = self._console()
        setattr(made, name, value)


def _pipe_console() -> Console:
    from cli.paging import PipeConsole

    return PipeConsole(highlight=False)


def _error_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


# A reader that leaves early (`trek status | head -1`) is the command group's to handle.
console: Console = _Console(_pipe_console)  # type: ignore[assignment]
errors: Console = _Console(_error_console)  # type: ignore[assignment]


def __getattr__(name: str) -> Any:
    # `render.Table` for the commands that draw tables; rich is loaded only then.
    if name == "Table":
        from cli.tables import Table

        return Table
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def plain(value: object) -> str:
    """Anything a GM typed, shown as the text it is: never read as rich markup."""
    from rich.markup import escape

    return escape(str(value))


def emit_json(value: Any) -> None:
    sys.stdout.write(json_text(value))


def emit_json_list(values: Iterable[Any]) -> None:
    """A JSON list written item by item as `values` yields them (never held as a whole), in
    the very layout `emit_json` gives the whole list."""
    write = sys.stdout.write
    opening = "[\n  "
    for value in values:
        write(opening + json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  "))
        opening = ",\n  "
    write("[]\n" if opening == "[\n  " else "\n]\n")


def emit_json_lines(values: Iterable[Any]) -> None:
    """One JSON document per line (JSON Lines), written as `values` yields them."""
    write = sys.stdout.write
    for value in values:
        write(json.dumps(value, ensure_ascii=False) + "\n")


def square_text(value: Any) -> str:
    """A cell or square as X,Y, from a document's dict or [x, y] list."""
    return _sq(value)


def _sq(value: Any) -> str:
    if isinstance(value, dict):
        return f"{value['x']},{value['y']}"
    if isinstance(value, list | tuple) and len(value) == 2:
        return f"{value[0]},{value[1]}"
    return str(value)


def _amounts(values: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


# A log line, a status cell or an audit entry's text, from the document it describes.
Describe = Callable[[dict[str, Any]], str]

# The log lines of the events every ruleset shares; a ruleset's own come from its module.
_SUMMARIES: dict[str, Describe] = {
    "CampaignStarted": lambda d: f"campaign {d['name']} ({d['ruleset']}) starts at "
                                 f"{_sq(d['start'])}"
                                 + (f", branched from {d['branched_from']['campaign']} after "
                                    f"event {d['branched_from']['seq']}"
                                    if d.get("branched_from") else ""),
    "HouseRuleChanged": lambda d: f"house rule {d['key']} = {d['value']} (was {d['previous']})",
    "CharacterAdded": lambda d: f"{d['name']} joins"
                                + (f" (Health {d['health_max']}, Energy {d['energy_max']})"
                                   if d["health_max"] else ""),
    "MountAdded": lambda d: f"mount {d['name']} joins"
                            + (f", ridden by {d['rider']}" if d.get("rider") else ""),
    "VehicleAdded": lambda d: f"vehicle {d['name']} joins"
                              + (f", driven by {d['driver']}" if d.get("driver") else ""),
    "MemberAssigned": lambda d: f"{d['character']} boards {d['conveyance']} as {d['role']}",
    "MemberDismounted": lambda d: f"{d['character']} leaves {d['conveyance']}, on foot",
    "MemberLeftBehind": lambda d: f"{d['name']} is left behind at {_sq(d['at'])}",
    "MemberRejoined": lambda d: f"{d['name']} rejoins the party",
    "Harmed": lambda d: f"{d['character']} loses {d['health']} Health, {d['energy']} Energy"
                        + (f" ({d['reason']})" if d.get("reason") else ""),
    "SuppliesSet": lambda d: f"supplies set: {_amounts(d['values'])}",
    "SuppliesAdded": lambda d: f"supplies added: {_amounts(d['amounts'])}",
    "SuppliesSpent": lambda d: f"supplies spent: {_amounts(d['amounts'])}",
    "SessionStarted": lambda d: f"session {d['number']} starts"
                                + (f": {d['title']}" if d.get("title") else ""),
    "SessionEnded": lambda d: f"session {d['number']} ends",
    "EventsCancelled": lambda d: _reversal("undo", d, "cancels"),
    "EventsRestored": lambda d: _reversal("redo", d, "restores"),
    "PartySplit": lambda d: f"{', '.join(d['members'])} split from party {d['party']} as party "
                            f"{d['name']} at {_sq(d['at'])}"
                            + (f", taking {_amounts(d['supplies'])}" if d["supplies"] else ""),
    "PartiesMerged": lambda d: f"party {d['name']} merges into party {d['party']} at "
                               f"{_sq(d['at'])} on day {d['day']}"
                               + (f" ({d['waited']} days waited)" if d["waited"] else ""),
}


def _reversal(word: str, d: dict[str, Any], key: str) -> str:
    """An undo's or redo's line: each event it names with that event's own line (given its
    `targets`, see `summary`), else their seqs."""
    lines = d.get("target_lines")
    named = ("; ".join(f"#{seq} {line}" for seq, line in zip(d[key], lines, strict=True))
             if lines else ", ".join(map(str, d[key])))
    return f"{word} of {named}" + (f" ({d['reason']})" if d.get("reason") else "")


_SUMMARIES.update({
    "EncounterStarted": lambda d: f"encounter {d['name']} starts"
                                  + (f" on {d['map']['name']}" if d.get("map") else
                                     " on an open plain"),
    "CombatantEntered": lambda d: f"{d['name']} ({d['side']}) enters at {_sq(d['at'])}",
    "CombatantRemoved": lambda d: f"{d['name']} leaves the fight",
    "DoorChanged": lambda d: f"the {d['door']} is {'closed' if d['closed'] else 'opened'}",
    "RoundStarted": lambda d: f"round {d['number']} starts",
    "EncounterEnded": lambda d: f"encounter {d['name']} ends after {d['rounds']} round(s)",
})


class AuditSection(NamedTuple):
    """How one audit section a ruleset names is shown: its label in `trek audit`, an entry's
    text there (after its #seq), and an entry's cells in `trek audit --csv` (its `line`,
    `subject`, `amount`, ...; the seq and day are added)."""

    label: str
    text: Describe
    row: Callable[[dict[str, Any]], dict[str, Any]]
    # In a session recap: the heading it is listed under, and an entry's words there, given the
    # recap's escape for names and its way to make words strong (Markdown or HTML).
    heading: str | None = None
    recap: Callable[[dict[str, Any], Callable[[str], str], Callable[[str], str]], str] | None = None


@cache
def _nothing_added() -> CommandLine:
    """The part of a ruleset that adds nothing (or of one the root does not have)."""
    from cli.ruleset_line import CommandLine

    return CommandLine(title="")


def _root() -> Root:
    """The composition root whose rulesets' words are shown: the running command's, else the
    server's (cli/bootstrap.py hands it over; nothing here finds a ruleset by name)."""
    from cli.bootstrap import current

    return current()


def route_marks() -> Mapping[str, Any]:
    """The route-picture marker styles the rulesets add, by kind."""
    return _root().route_marks


def _line(ruleset: str) -> CommandLine:
    return _root().line(ruleset) or _nothing_added()


def movement_text(status: Mapping[str, Any]) -> str:
    """The party's movement as `trek status` words it: the plain fields as "name value", then
    those the ruleset words itself."""
    own = _line(status["ruleset"])
    movement = status["movement"]
    parts = [f"{k} {v}" for k, v in movement.items() if k not in own.status_movement]
    parts += [text for key, describe in own.status_movement.items()
              if (text := describe(movement.get(key)))]
    return ", ".join(parts)


def has_overland(ruleset: str) -> bool:
    """Whether `ruleset` travels overland (a day's movement, mounts), or only fights."""
    return _line(ruleset).status_overland


def token_marks(ruleset: str, combatant: dict[str, Any]) -> list[str]:
    """The words `ruleset` has a combatant's token wear on a battle map (none by default)."""
    marks = _line(ruleset).token_marks
    return marks(combatant) if marks is not None else []


def declared_ruler(ruleset: str) -> Any:
    """The `ruler` the ruleset's command line declares, or None."""
    return _line(ruleset).ruler


def battle_map_words(ruleset: str) -> tuple[str, str]:
    """What a battle map's key calls a phase of a round and a move cut short, in `ruleset`."""
    own = _line(ruleset)
    return own.phase_word, own.stop_word


def battle_map_layers(ruleset: str) -> Sequence[Callable[[Any, Mapping[str, Any]], list[str]]]:
    """The SVG layers a ruleset adds to its battle maps (see `CommandLine.battle_map_layers`)."""
    return _line(ruleset).battle_map_layers


def summary(doc: Mapping[str, Any], ruleset: str) -> str:
    """The log line of an event of a campaign played under `ruleset`.

    Two rulesets may each have an event of the same name and another shape (a day's start and
    end), so the campaign's ruleset's own lines are looked up before the shared ones.
    """
    if doc.get("targets"):
        # A reversal names each event it acts on by that event's own line.
        doc = {**doc, "target_lines": [summary(t, ruleset) for t in doc["targets"]]}
    elif not isinstance(doc, dict):
        doc = dict(doc)
    kind = doc["type"]
    shared = _SUMMARIES.get(kind)
    # A shared event's line loads the ruleset's command-line part only where it words it.
    describe = (_root().log_lines(ruleset).get(kind) if shared is None
                or _root().rewords(ruleset, kind) else None) or shared
    return describe(doc) if describe else kind


def print_events(docs: list[dict[str, Any]], ruleset: str, *, preview: bool = False) -> None:
    """A line each for recorded events; a preview's line says it was not recorded."""
    before, after = ("Preview: ", " (nothing recorded)") if preview else ("", "")
    for doc in docs:
        words = summary(doc, ruleset)
        line = f"{before}#{doc['seq']} {words}{after}"
        if _printed_as_is(line):
            sys.stdout.write(line + "\n")
        else:
            console.print(f"{before}[bold]#{doc['seq']}[/bold] {plain(words)}{after}")


# The characters beyond ASCII that Trek's own words use, each one cell wide (as rich counts).
ONE_CELL = frozenset("§×→←↑↓↖↗↘↙·÷±…—–≈«»½°")
# What rich would read as an emoji code (`:smile:`).
_EMOJI_CODE = re.compile(r":\S*?:")


def _printed_as_is(line: str) -> bool:
    """Whether rich would print `line` exactly as it is: off a terminal (as rich decides that),
    printable, of one-cell characters, with nothing rich reads as markup or an emoji code, no
    wider than the width rich would wrap at. Such a line is written without loading rich."""
    if not line.isprintable() or "[" in line or "\\" in line or _EMOJI_CODE.search(line) \
            or not all(char.isascii() or char in ONE_CELL for char in line):
        return False
    environ = os.environ
    compatible = environ.get("TTY_COMPATIBLE", "")
    if compatible == "1" or (compatible != "0" and environ.get("FORCE_COLOR", "") != ""):
        return False
    if compatible != "0" and "FORCE_COLOR" not in environ:
        isatty = getattr(sys.stdout, "isatty", None)
        try:
            if isatty is None or isatty():
                return False
        except ValueError:
            return False
    return len(line) <= _width()


def _width() -> int:
    """The width rich gives a console of no fixed size: a standard stream's terminal's, or
    COLUMNS, else 80."""
    width: int | None = None
    for descriptor in (0, 1, 2):
        try:
            width = os.get_terminal_size(descriptor).columns
        except (AttributeError, ValueError, OSError):
            continue
        break
    columns = os.environ.get("COLUMNS")
    if columns is not None and columns.isdigit():
        width = int(columns)
    return width or 80


def _where(status: Mapping[str, Any], member: Mapping[str, Any]) -> str:
    """Where a member of the roster is: with its party (named when there are several), or
    left behind on a square."""
    if not member["with_party"]:
        return f"left at {_sq(member['position'])}"
    if len(status.get("parties") or {}) > 1:
        return f"with party {member.get('party')} at {_sq(member['position'])}"
    return "with party"


def print_status(status: Mapping[str, Any]) -> None:
    """`trek status` in words: the measures the campaign's ruleset keeps, and only those."""
    from cli.tables import Table

    own = _line(status["ruleset"])
    day = status["day"]
    day_text = f"day {day} ({'open' if status['day_open'] else 'closed'})" if day else "no day yet"
    # Once the party has split, the line says which party it tells.
    parties = status.get("parties") or {}
    which = f"party {plain(str(status['party']))}: " if len(parties) > 1 else ""
    where = (f" — {which}{day_text}, at {_sq(status['position'])}"
             + (", flying" if status["flying"] else "")) if own.status_overland else ""
    console.print(f"[bold]{plain(status['name'])}[/bold] ({plain(status['campaign'])}, "
                  f"{status['ruleset']}){where}, {status['events']} events")
    if own.status_overland:
        console.print("movement: " + movement_text(status), markup=False)
        others = [f"{name} at {_sq(p['position'])}, "
                  + (f"day {p['day']} ({'open' if p['day_open'] else 'closed'})" if p["day"]
                     else "no day yet")
                  for name, p in parties.items() if name != status["party"]]
        if others:
            console.print("other parties: " + "; ".join(others), markup=False)
    console.print("supplies: " + _amounts(status["supplies"]), markup=False)
    if status["characters"]:
        measures = own.status_character_columns
        aboard = ("aboard",) if own.status_overland else ()
        table = Table("character", *(h for h, _ in measures), *aboard, "where")
        for name, c in status["characters"].items():
            on = (f"{c['conveyance']} ({c['role']})" if c["conveyance"] else "on foot",)
            where = _where(status, c)
            table.add_row(name, *(cell(c) for _, cell in measures),
                          *(on if own.status_overland else ()), where)
        console.print(table)
    if status["conveyances"]:
        columns = own.status_conveyance_columns
        table = Table("conveyance", "kind", *(h for h, _ in columns), "state", "where")
        for name, c in status["conveyances"].items():
            where = _where(status, c)
            table.add_row(name, c["kind"], *(cell(c) for _, cell in columns), c["state"],
                          where)
        console.print(table)


def print_branch(started: dict[str, Any], status: Mapping[str, Any], in_use: str | None,
                 campaigns: Sequence[str]) -> None:
    """What `trek branch` made: where the branch stands as of the event it was cut at, and how
    to play on in it."""
    origin = started["branched_from"]
    slug = started["slug"]
    stands = []
    if _line(status["ruleset"]).status_overland:
        day = status["day"]
        stands.append(f"day {day} ({'open' if status['day_open'] else 'closed'})" if day
                      else "no day yet")
        stands.append(f"the party at {_sq(status['position'])}")
    encounter = status.get("encounter")
    if encounter:
        stands.append(f"encounter {encounter['name']} in round {encounter['round']}")
    where = f": {', '.join(stands)}" if stands else ""
    console.print(f"Branched {slug} from {origin['campaign']} after event {origin['seq']}"
                  f"{where} ({status['events']} events).", markup=False)
    if in_use in campaigns and in_use != slug:
        how = f"Commands that name no campaign still use {in_use}"
    else:
        how = f"The store now holds {len(campaigns)} campaigns"
    console.print(f"{how}; `trek campaigns use {slug}` switches to the branch, or give "
                  f"--campaign {slug}.", markup=False)


LOG_HEADERS = ("seq", "day", "event", "what happened", "note")
# Rows rendered at a time when a log is longer than this: each chunk is a table of the same
# fixed column widths whose borders join the one before, so a long log reads as one table.
LOG_CHUNK = 200
_CANCELLED_NOTE = "cancelled by #"


def _log_table(widths: Sequence[int] | None = None) -> Table:
    from cli.tables import Table

    if widths is None:
        return Table(*LOG_HEADERS)
    table = Table()
    for name, width in zip(LOG_HEADERS, widths, strict=True):
        table.add_column(name, width=width)
    return table


def _log_cells(entry: Mapping[str, Any], ruleset: str, gm: str | None
               ) -> tuple[list[str], str | None]:
    """A log row's five cells and its style (cancelled events are dimmed and struck out).

    The note says who the event was recorded for when that is not `gm`, the campaign's own
    GM: `by Bob` for another GM's command, `asked by SEAT` for a player's request (`, approved
    by Bob` when another GM approved it)."""
    cancelled = entry["cancelled_by"]
    return ([str(entry["seq"]), str(entry["day"]), entry["type"], summary(entry, ruleset),
             _log_note(entry, gm)], "dim strike" if cancelled else None)


def _log_note(entry: Mapping[str, Any], gm: str | None) -> str:
    """A log row's note: the reversal that cancelled the event, and for whom it was recorded
    when that is not `gm` (None: nobody's actor is named, only a seat that asked)."""
    cancelled = entry["cancelled_by"]
    notes = [f"{_CANCELLED_NOTE}{cancelled}"] if cancelled else []
    actor, seat = entry.get("actor"), entry.get("requested_by")
    other = gm is not None and actor is not None and actor != gm
    if seat is not None:
        notes.append(f"asked by {seat}" + (f", approved by {actor}" if other else ""))
    elif other:
        notes.append(f"by {actor}")
    return "; ".join(notes)


def print_log(entries: Iterable[Mapping[str, Any]], ruleset: str, *, out: Console | None = None,
              last_seq: int = 0, last_day: int = 0, event_types: Iterable[str] = (),
              chunk: int = LOG_CHUNK, empty: str | None = None, gm: str | None = None) -> None:
    """The log as a table, printed as the entries come; an event recorded for anyone but `gm`
    (the campaign's own GM) says for whom in its note (`_log_cells`).

    A log of at most `chunk` rows is one table sized to what it holds. A longer one is printed
    `chunk` rows at a time without ever holding more: its columns are sized before the rest is
    read, from the largest seq and day it can hold (`last_seq`, `last_day`), the longest event
    name (`event_types`, and the first rows') and the first rows' longest line; a longer line
    further down wraps within its column. No entries at all and an `empty` sentence: the
    sentence instead of an empty table.
    """
    from rich.segment import Segments

    out = out or console
    rows = iter(entries)
    first = list(islice(rows, chunk + 1))
    if not first and empty is not None:
        out.print(empty, markup=False, highlight=False, soft_wrap=True)
        return
    if len(first) <= chunk:
        table = _log_table()
        for entry in first:
            cells, style = _log_cells(entry, ruleset, gm)
            table.add_row(*cells, style=style)
        out.print(table)
        return
    widths = _log_widths(first, ruleset, out.width, last_seq=last_seq, last_day=last_day,
                         event_types=event_types, gm=gm)
    # The borders and header are rich's own (a table with no rows); the rows are laid out
    # here, in those widths, so a long log is not measured again chunk after chunk.
    frame = out.render_lines(_log_table(widths), out.options, pad=False, new_lines=True)
    head, bottom = frame[:-1], frame[-1]
    out.print(Segments(segment for line in head for segment in line), end="", soft_wrap=True)
    page = first
    while page:
        out.print(Segments(segment for entry in page
                           for segment in _log_row(out, widths,
                                                   *_log_cells(entry, ruleset, gm))),
                  end="", soft_wrap=True)
        page = list(islice(rows, chunk))
    out.print(Segments(bottom), end="", soft_wrap=True)


def _log_row(out: Console, widths: Sequence[int], cells: list[str], style: str | None
             ) -> Iterator[Segment]:
    """The lines of one row of fixed-width cells, each wrapped within its column as rich
    wraps a table cell (at spaces, a longer word folded)."""
    from rich.cells import cell_len
    from rich.segment import Segment
    from rich.style import Style

    cell_style = Style.parse(style) if style else None
    columns = [_wrapped(out, text, width) for text, width in zip(cells, widths, strict=True)]
    border, new_line = Segment("\u2502"), Segment.line()
    for index in range(max(map(len, columns))):
        yield border
        for lines, width in zip(columns, widths, strict=True):
            text = lines[index] if index < len(lines) else ""
            yield Segment(f" {text}{' ' * (width - cell_len(text))} ", cell_style)
            yield border
        yield new_line


def _wrapped(out: Console, text: str, width: int) -> list[str]:
    from rich.cells import cell_len
    from rich.control import strip_control_codes
    from rich.text import Text

    plain_text = strip_control_codes(text).expandtabs(8)
    if "\n" not in plain_text and cell_len(plain_text) <= width:
        return [plain_text]
    return [line.plain.rstrip() for line in Text(plain_text).wrap(out, width)]


def _log_widths(first: list[Mapping[str, Any]], ruleset: str, width: int, *, last_seq: int,
                last_day: int, event_types: Iterable[str], gm: str | None) -> tuple[int, ...]:
    """The content width of each log column, from what is known before the rest is read."""
    from rich.cells import cell_len

    seq = max(len(LOG_HEADERS[0]), len(str(max(last_seq, *(e["seq"] for e in first)))))
    day = max(len(LOG_HEADERS[1]), len(str(max(last_day, *(e["day"] for e in first)))))
    event = max(len(LOG_HEADERS[2]), *map(len, event_types), *(len(e["type"]) for e in first))
    # Two spaces of padding in each of five columns and six borders.
    room = width - (seq + day + event) - 5 * 2 - 6
    # "cancelled by #N" on one line when that leaves the summary room, else on two.
    note = len(_CANCELLED_NOTE) + seq
    if room - note < 40:
        note = len(_CANCELLED_NOTE.rstrip(" #"))
    # A note that names who asked, in the first rows, as wide as it is while that leaves the
    # summary room (a longer one further down wraps).
    said = max(cell_len(_log_note(e, gm)) for e in first)
    note = max(note, min(said, room - 40))
    room -= note
    longest = max(cell_len(summary(e, ruleset)) for e in first)
    what = max(len(LOG_HEADERS[3]), min(longest, room))
    return (seq, day, event, what, note)


def encounter_clock(doc: Mapping[str, Any]) -> list[str]:
    """The ruleset's own plain values of an encounter (`pass 2`, `passes 3`), in words."""
    return [f"{_words(key)} {_value(value)}" for key, value in doc.items()
            if key not in _ENCOUNTER_KEYS and not isinstance(value, (dict, list))]


def combatant_state(combatant: dict[str, Any]) -> list[str]:
    """What a combatant's ruleset keeps besides where it is and what it moved and has left,
    in words, only what is set (`defence penalty 2`, `gait run`, `tn modifier 4`)."""
    shown = []
    for key, value in combatant.items():
        if key in ("label", "side", "position", "facing", "moved", "remaining") or value in (
                None, False, 0, "", {}):
            continue
        words = _words(key)
        shown.append(words if value is True else f"{words} {_value(value)}")
    return shown


def _words(key: str) -> str:
    """A document's key as words (`defense_penalty`: `defence penalty`): the keys keep their
    recorded spelling, the words Trek's British one."""
    return key.replace("_", " ").replace("defense", "defence")


def encounter_value(value: Any) -> str:
    """A combatant's figure as the encounter table shows it (`-` for none)."""
    return _value(value)


def _value(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, dict) and set(value) == {"x", "y"}:
        return _sq(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{_words(key)} {_value(item)}"
                         for key, item in value.items())
    return str(value)


def print_diff(result: Mapping[str, Any]) -> None:
    from cli.tables import Table

    def label(end: Mapping[str, Any]) -> str:
        return f"{end['campaign']} #{end['seq']} (day {end['day']})"

    a, b = result["a"], result["b"]
    if not result["changes"]:
        console.print(f"Nothing differs between {label(a)} and {label(b)}.", markup=False)
        return
    table = Table("what", label(a), label(b))
    for change in result["changes"]:
        table.add_row(change["field"], _value(change["a"]), _value(change["b"]))
    console.print(table)


# What every session's audit holds; any other key is a section a ruleset named.
_AUDIT_KEYS = frozenset({"session", "title", "started_at", "ended_at", "gms", "events", "days",
                         "squares_moved", "miles", "rolls", "supplies", "undos", "requests"})


def ruleset_sections(audit: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The sections the rulesets named in one session's audit, in its order."""
    return [(key, entries) for key, entries in audit.items() if key not in _AUDIT_KEYS]


def _entry_text(entry: dict[str, Any]) -> str:
    """An entry of a section no mounted module words: its fields as they are."""
    return _value({k: v for k, v in entry.items() if k not in ("seq", "day")})


def _section_fact(name: str, entries: list[dict[str, Any]]) -> tuple[str, str]:
    shown = _root().audit_sections.get(name)
    text = shown.text if shown else _entry_text
    return (shown.label if shown else name,
            "; ".join(f"#{e['seq']} {text(e)}" for e in entries) or "-")


def recap_groups(sections: Mapping[str, list[dict[str, Any]]], escape: Callable[[str], str],
                 strong: Callable[[str], str]) -> list[tuple[str, list[dict[str, Any]]]]:
    """A recap's audit-section entries grouped under their sections' headings, in the order
    the sections are named, each entry with its words (`text`) in the recap's markup."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for name, entries in sections.items():
        shown = _root().audit_sections.get(name)
        heading = (shown.heading if shown else None) or (shown.label if shown else name)
        for entry in entries:
            if shown is not None and shown.recap is not None:
                words = shown.recap(entry, escape, strong)
            else:
                words = escape(f"{shown.label if shown else name}: "
                               f"{(shown.text if shown else _entry_text)(entry)}")
            groups.setdefault(heading, []).append({**entry, "text": words})
    return list(groups.items())


def audit_row(name: str, entry: dict[str, Any]) -> dict[str, Any]:
    """The `trek audit --csv` cells of an entry of section `name` (seq and day included)."""
    shown = _root().audit_sections.get(name)
    cells = shown.row(entry) if shown else {"line": name, "detail": _entry_text(entry)}
    return {"seq": entry["seq"], "day": entry["day"], **cells}


def _dice(roll: dict[str, Any]) -> str:
    return "+".join(map(str, roll["dice"])) if roll["dice"] else "given"


def requests_text(counts: Mapping[str, Mapping[str, int]],
                  escape: Callable[[str], str] = str) -> list[str]:
    """A line per seat (its name through `escape`): how many requests it asked and what
    became of them (only what some did)."""
    lines = []
    for seat, counted in counts.items():
        parts = [f"{n} {status}" for status, n in counted.items() if status != "asked" and n]
        lines.append(f"{escape(seat)}: {counted['asked']} "
                     f"request{'s' if counted['asked'] != 1 else ''}"
                     + (f" ({', '.join(parts)})" if parts else ""))
    return lines


def print_audit(result: Mapping[str, Any]) -> None:
    from cli.tables import Table

    for audit in result["sessions"]:
        number = audit["session"]
        title = (f"Session {number}" + (f": {audit['title']}" if audit["title"] else "")
                 if number is not None else "Outside any session")
        span = audit["events"]
        console.print(f"[bold]{plain(title)}[/bold]"
                      + plain((f" — events {span['first']} to {span['last']}" if span else "")
                              + (f", GM {', '.join(audit['gms'])}" if audit["gms"] else "")))
        days = audit["days"]
        supplies = audit["supplies"]
        facts = [
            ("days", f"{days[0]} to {days[-1]}" if len(days) > 1 else
             (str(days[0]) if days else "-")),
            ("squares moved", str(audit["squares_moved"])
             + (f" ({audit['miles']} miles)" if audit["miles"] else "")),
            ("supplies gained", _amounts(supplies["gained"]) or "-"),
            ("supplies spent", _amounts(supplies["spent"]) or "-"),
            *(_section_fact(name, entries) for name, entries in ruleset_sections(audit)),
        ]
        table = Table(show_header=False, box=None, pad_edge=False)
        for key, value in facts:
            table.add_row(key, value)
        console.print(table)
        # What the seats asked for while this session was open.
        for line in requests_text(audit.get("requests", {})):
            console.print(f"Seat {plain(line)}")
        if audit["rolls"]:
            rolls = Table("seq", "day", "roll", "by", "dice", "total", "target", "result")
            for roll in audit["rolls"]:
                result_text = "success" if roll["success"] else "failure"
                if roll["cancelled_by"]:
                    result_text += f" (cancelled by #{roll['cancelled_by']})"
                rolls.add_row(str(roll["seq"]), str(roll["day"]), roll["type"],
                              roll["by"] or "", _dice(roll), str(roll["roll"]),
                              str(roll["target"]), result_text)
            console.print(rolls)
        if audit["undos"]:
            undos = Table("seq", "action", "events", "when", "GM", "why")
            for undo in audit["undos"]:
                undos.add_row(str(undo["seq"]), undo["action"],
                              ", ".join(f"#{e['seq']} {e['type']}" for e in undo["events"]),
                              undo["at"][:16].replace("T", " "), undo["gm"],
                              undo["reason"] or "")
            console.print(undos)


def print_chain(result: dict[str, Any]) -> None:
    if not result["campaigns"]:
        console.print("The store holds no campaign, so there is no chain to check.")
    for report in result["campaigns"]:
        if report["intact"]:
            console.print(f"{report['campaign']}: the hash chain of {report['events']} events "
                          "is intact.", markup=False)
            for problem in report.get("pictures") or ():
                errors.print(f"{report['campaign']}: {problem}", markup=False)
            for difference in report.get("read_models") or ():
                errors.print(f"{report['campaign']}: read models differ from the log: "
                             f"{difference}", markup=False)
        else:
            errors.print(f"{report['campaign']}: broken at event {report['broken_at']}: "
                         f"{report['problem']}", markup=False)


# -- encounters ----------------------------------------------------------------------------------

_SIDE_STYLE = {"party": "bold green", "ally": "bold cyan", "enemy": "bold red"}
# One mark per kind of ground, each its own. A legend entry that says more than its terrain
# (a name, a cost, a footing) is a kind of its own: it keeps the map's own character when that
# is free and reads as no label or other mark, else takes the first free of SPARE_MARKS.
_TERRAIN_MARK = {"open": ".", "wall": "#", "difficult": ":", "rough": ",", "water": "~",
                 "deep-water": "≈", "shallow-water": "-", "treacherous": ";", "stairs": "=",
                 "high-gravity": "+", "low-gravity": "o", "zero-gravity": "0"}
SPARE_MARKS = "^*%&$!?@'\"|/<>"
_FACING_ARROW = {"N": "↑", "NE": "↗", "E": "→", "SE": "↘", "S": "↓", "SW": "↙", "W": "←",
                 "NW": "↖"}


def _cell_width(doc: Mapping[str, Any]) -> int:
    """How many characters a cell of the terminal picture takes: the longest token label."""
    from cli.drawing import token_labels

    return max([1, *(len(label) for label in token_labels(doc["combatants"]).values())])


def encounter_lines(doc: Mapping[str, Any]) -> list[list[tuple[str, str | None]]]:
    """The terminal picture's lines. Squares: one line per row. Hexes: two lines per row, the
    even columns on the first and the odd columns (half a hex lower) on the second."""

    rows = encounter_grid(doc)
    if not GRIDS[doc["grid"]].staggered:
        return rows
    battle_map = doc["map"]
    first_x = 0 if battle_map is not None else _plain_extent(doc)[0].start
    blank: tuple[str, str | None] = (" " * _cell_width(doc), None)
    lines: list[list[tuple[str, str | None]]] = []
    for row in rows:
        for parity in (0, 1):
            lines.append([cell if (first_x + i) % 2 == parity else blank
                          for i, cell in enumerate(row)])
    return lines


def encounter_axes(doc: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The coordinates around the terminal picture: the lines of x numbers over it (one line
    while every x is a single digit, else the tens (or a minus) over the units) and the y
    number before each of its lines (a hex row's two lines both carry the row's y)."""

    battle_map = doc["map"]
    if battle_map is not None:
        xs, ys = range(battle_map["width"]), range(battle_map["height"])
    else:
        xs, ys = _plain_extent(doc)
    width = max(len(str(y)) for y in ys)
    pad = " " * (width + 1)
    cell = _cell_width(doc)
    if all(0 <= x <= 9 for x in xs):
        header = [pad + " ".join(str(x).ljust(cell) for x in xs)]
    else:
        def tens(x: int) -> str:
            if x < 0:
                return "-" if x > -10 else str(-x // 10)
            return str(x // 10) if x >= 10 else " "
        header = [pad + " ".join(tens(x).ljust(cell) for x in xs),
                  pad + " ".join(str(abs(x) % 10).ljust(cell) for x in xs)]
    per_row = 2 if GRIDS[doc["grid"]].staggered else 1
    labels = [f"{y:>{width}} " for y in ys for _ in range(per_row)]
    return [line.rstrip() for line in header], labels


def _plain_extent(doc: Mapping[str, Any]) -> tuple[range, range]:
    points = [(c["position"]["x"], c["position"]["y"]) for c in doc["combatants"].values()]
    points = points or [(0, 0)]
    return (range(min(x for x, _ in points) - 1, max(x for x, _ in points) + 2),
            range(min(y for _, y in points) - 1, max(y for _, y in points) + 2))


def encounter_grid(doc: Mapping[str, Any]) -> list[list[tuple[str, str | None]]]:
    """The cells to draw, row by row, each a character and a rich style (None: plain)."""
    from cli.drawing import token_labels

    combatants = doc["combatants"]
    marks = token_labels(combatants)
    cell = _cell_width(doc)
    at = {(c["position"]["x"], c["position"]["y"]): name for name, c in combatants.items()}
    battle_map = doc["map"]
    if battle_map is not None:
        xs, ys = range(battle_map["width"]), range(battle_map["height"])
        marks_of = map_marks(battle_map)
    else:
        xs, ys = _plain_extent(doc)
    grid: list[list[tuple[str, str | None]]] = []
    for y in ys:
        row: list[tuple[str, str | None]] = []
        for x in xs:
            if (x, y) in at:
                name = at[(x, y)]
                row.append((marks[name].ljust(cell), _SIDE_STYLE[combatants[name]["side"]]))
                continue
            if battle_map is None:
                row.append((".".ljust(cell), "dim"))
                continue
            char = battle_map["rows"][y][x]
            row.append((marks_of[char].ljust(cell),
                        "dim" if marks_of[char] == _TERRAIN_MARK["open"] else None))
        grid.append(row)
    return grid


def map_marks(battle_map: dict[str, Any]) -> dict[str, str]:
    """The mark the terminal picture draws for each legend character the map's rows use."""
    used = list(dict.fromkeys(char for row in battle_map["rows"] for char in row))
    legend = battle_map["legend"]
    plain_kinds = {char: legend[char]["terrain"] for char in used
                   if not says_more(legend[char])}
    taken = {_TERRAIN_MARK.get(terrain, char) for char, terrain in plain_kinds.items()}
    marks: dict[str, str] = {}
    for char in used:
        if char in plain_kinds:
            marks[char] = plain_mark(plain_kinds[char], char)
            continue
        mine = char if drawable(char) and char not in taken else next(
            (spare for spare in SPARE_MARKS if spare not in taken), char)
        taken.add(mine)
        marks[char] = mine
    return marks


def plain_mark(terrain: str, char: str) -> str:
    """The mark a plain entry of `terrain` (legend character `char`) is drawn with."""
    return _TERRAIN_MARK.get(terrain, char)


def says_more(entry: dict[str, Any], *, besides: tuple[str, ...] = ()) -> bool:
    """Whether a legend entry says more than its terrain (a name, a cost, a footing, a road;
    a key left at nothing, false or 0 says nothing), `besides` those keys."""
    return any(key != "terrain" and key not in besides and value not in (None, False)
               for key, value in entry.items())


def drawable(char: str) -> bool:
    """A map character the picture can show as itself: one column wide, not a letter or digit
    (those read as token labels), not a control or combining character."""
    import unicodedata

    return (len(char) == 1 and char.isprintable() and not char.isalnum() and not char.isspace()
            and unicodedata.east_asian_width(char) not in ("W", "F")
            and not unicodedata.combining(char))


def map_key(battle_map: dict[str, Any]) -> list[tuple[str, str]]:
    """The terminal picture's key: each mark drawn, once, with what it stands for (a named or
    costed entry in full: `scree (open, cost 8, poor footing)`), in the order the rows use them."""
    key: dict[str, str] = {}
    for char, mark in map_marks(battle_map).items():
        key.setdefault(mark, legend_words(battle_map["legend"][char]))
    return list(key.items())


def legend_words(entry: dict[str, Any], *, besides: tuple[str, ...] = ()) -> str:
    """A legend entry in words: its terrain and what else it says (`besides` those keys), after
    its name when it has one: `scree (open, cost 8, poor footing)`, `open, road`."""
    extras = [field.replace("_", " ") + ("" if value is True else f" {value}")
              for field, value in sorted(entry.items())
              if field not in ("terrain", "name", *besides) and value not in (None, False)]
    terrain = ", ".join([str(entry["terrain"]), *extras])
    return f"{entry['name']} ({terrain})" if entry.get("name") else terrain


# The keys every encounter document has; any other plain value is the ruleset's (e.g. a pass).
_ENCOUNTER_KEYS = frozenset({"name", "ruleset", "grid", "round", "map", "combatants", "paths"})


def _table_width(headers: list[str], rows: list[list[str]]) -> int:
    """The width a boxed table of these cells takes: each column its widest cell, plus borders
    and padding."""
    widths = [max([len(h), *(len(row[i]) for row in rows)]) for i, h in enumerate(headers)]
    return sum(widths) + 3 * len(widths) + 1


def print_encounter(doc: Mapping[str, Any]) -> None:
    from rich.text import Text

    from cli.drawing import token_labels
    from cli.tables import Table

    battle_map = doc["map"]
    where = plain(battle_map["name"]) if battle_map else "an open plain"
    own = encounter_clock(doc)
    console.print(f"[bold]{plain(doc['name'])}[/bold] ({doc['ruleset']}, "
                  f"{GRIDS[doc['grid']].cells}) on "
                  f"{where}, round {doc['round']}" + "".join(f", {plain(o)}" for o in own))
    header, labels = encounter_axes(doc)
    for text in header:
        console.print(text, style="dim", markup=False, highlight=False)
    for label, row in zip(labels, encounter_lines(doc), strict=True):
        line = Text(label, style="dim")
        for char, style in row:
            line.append(char + " ", style=style or "")
        console.print(line)
    if battle_map is not None:
        key = Text("key: ", style="dim")
        for i, (mark, words) in enumerate(map_key(battle_map)):
            key.append(("  " if i else "") + f"{mark} {words}")
        console.print(key)
        # Walls and doors lie between the squares, where a grid of characters has no room:
        # the doors are told here, and `encounter show --svg` draws both.
        if battle_map.get("walls") or doc.get("doors"):
            doors = "; ".join(
                f"{d['name']} ({'closed' if d['closed'] else 'open'}) {_sq(d['from'])}"
                f"–{_sq(d['to'])}" for d in doc.get("doors", []))
            console.print(Text(f"walls between squares: {len(battle_map.get('walls', []))}"
                               + (f"; doors: {doors}" if doors else "")
                               + " (`trek encounter show --svg` draws them)", style="dim"))
    marks = token_labels(doc["combatants"])
    if not doc["combatants"]:
        console.print("Nobody has joined yet: `trek encounter join CHAR --at X,Y`.")
        return
    # Fields holding a document (not a cell) go on a line of their own under the table.
    nested = sorted({k for c in doc["combatants"].values() for k, v in c.items()
                     if isinstance(v, dict) and set(v) != {"x", "y"}})
    extra = sorted({k for c in doc["combatants"].values() for k in c}
                   - {"label", "side", "position", "facing", "moved", "remaining", *nested})
    headers = [_words(k.removesuffix("_penalty")) for k in extra]
    faces = any(c.get("facing") for c in doc["combatants"].values())
    core_headers = ["", "combatant", "side", "at", *(["facing"] if faces else []), "moved",
                    "left"]
    core_rows: list[list[str]] = []
    own_rows: list[list[str]] = []
    for name, c in doc["combatants"].items():
        facing = ([f"{_FACING_ARROW.get(c['facing'], '')} {c['facing']}" if c.get("facing")
                   else "-"] if faces else [])
        core_rows.append([marks[name], name, c["side"], _sq(c["position"]), *facing,
                          _value(c["moved"]), _value(c["remaining"])])
        own_rows.append([_value(c.get(k)) for k in extra])
    # One table when it fits the terminal; else the ruleset's own fields in a second table,
    # so no name or number is cut short on a narrow screen.
    if _table_width([*core_headers, *headers], [a + b for a, b in zip(core_rows, own_rows,
                                                                      strict=True)]) \
            <= console.width or not extra:
        table = Table(*core_headers, *headers)
        for core, mine in zip(core_rows, own_rows, strict=True):
            table.add_row(*core, *mine)
        console.print(table)
    else:
        table = Table(*core_headers)
        for core in core_rows:
            table.add_row(*core)
        console.print(table)
        fields = Table("", "combatant", *headers)
        for core, mine in zip(core_rows, own_rows, strict=True):
            fields.add_row(core[0], core[1], *mine)
        console.print(fields)
    for name, c in doc["combatants"].items():
        details = [f"{_words(key)}: {_value(c[key])}" for key in nested
                   if isinstance(c.get(key), dict)]
        if details:
            console.print(f"{name}: " + "; ".join(details), markup=False)


def _column_header(width: int, indent: int) -> list[str]:
    """Column numbers over the map rows: one line up to 10 columns, else tens over units."""
    pad = " " * indent
    if width <= 10:
        return [pad + "".join(str(x) for x in range(width))]
    tens = "".join(str(x // 10) if x % 10 == 0 else " " for x in range(width))
    return [pad + tens.rstrip(), pad + "".join(str(x % 10) for x in range(width))]


def print_map(game_map: dict[str, Any] | None, pos: dict[str, int], *,
              others: Mapping[str, dict[str, int]] | None = None,
              party: str | None = None) -> None:
    """The map as its rows with coordinates on the edges, the party's square marked @ (every
    other party's &), and a key of every character shown."""
    from cli.drawing import named_paths

    others = others or {}
    if game_map is None:
        console.print(f"No map: an open plain. The party stands at {pos['x']},{pos['y']}.",
                      markup=False)
        for name, at in others.items():
            console.print(f"Party {name} stands at {at['x']},{at['y']}.", markup=False)
        return
    elsewhere = {(at["x"], at["y"]) for at in others.values()}
    console.print(f"[bold]{plain(game_map['name'])}[/bold] {game_map['width']}×"
                  f"{game_map['height']}, {game_map['square_miles']} miles a square")
    indent = len(str(game_map["height"] - 1)) + 1
    for line in _column_header(game_map["width"], indent):
        console.print(line, markup=False)
    for y, row in enumerate(game_map["rows"]):
        line = "".join("@" if (x, y) == (pos["x"], pos["y"])
                       else "&" if (x, y) in elsewhere else ch for x, ch in enumerate(row))
        console.print(f"{y:>{indent - 1}} {line}", markup=False)
    console.print("Key (x across the top, y down the left):", markup=False)
    for key, cell in game_map["legend"].items():
        extras = [f"{k}={v}" for k, v in cell.items() if k != "terrain" and v not in (None, False)]
        console.print(f"  {key!r}: {cell['terrain']} {' '.join(extras)}".rstrip(), markup=False)
    if others:
        console.print(f"  '@': party {party}, at {pos['x']},{pos['y']}",
                      markup=False)
        for name, at in others.items():
            console.print(f"  '&': party {name}, at {at['x']},{at['y']}", markup=False)
    else:
        console.print(f"  '@': the party, at {pos['x']},{pos['y']}", markup=False)
    for path in named_paths(game_map):
        console.print(f"  {path.listing}", markup=False)
