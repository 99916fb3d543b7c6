"""`trek log --csv` and `trek audit --csv`: rows a spreadsheet opens as they are.

RFC 4180 through Python's csv module (a header row, fields with commas, quotes or line breaks
quoted, CRLF between rows). A text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage
return would be run as a formula by Excel, LibreOffice or Google Sheets, so it gets a leading
`'` (CSV injection). Numbers are written as numbers, negative ones too: only text is guarded.
The columns are listed here and in docs/recaps.md; new ones are only ever added at the
end.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from cli import render

# What a spreadsheet reads as the start of a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

LOG_COLUMNS = ("seq", "type", "day", "session", "gm", "recorded_at", "cancelled_by",
               "summary", "actor", "requested_by")
AUDIT_COLUMNS = ("session", "title", "line", "seq", "day", "subject", "amount", "roll",
                 "target", "success", "cancelled_by", "gm", "at", "detail")


def guard(text: str) -> str:
    """A text cell a spreadsheet shows as text, never runs as a formula."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def cell(value: Any) -> str | int:
    """Numbers stay numbers; None is an empty cell; booleans read true/false; text is guarded."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return value
    return guard(str(value))


def write(columns: tuple[str, ...], rows: Iterable[dict[str, Any]],
          out: TextIO | None = None) -> None:
    writer = csv.writer(out or sys.stdout, lineterminator="\r\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([cell(row.get(column)) for column in columns])


def log_rows(entries: Iterable[Mapping[str, Any]], ruleset: str) -> Iterable[dict[str, Any]]:
    """One row per log entry of a campaign played under `ruleset`, its summary the sentence
    `trek log` shows."""
    for entry in entries:
        yield {**{k: entry.get(k) for k in LOG_COLUMNS},
               "summary": render.summary(entry, ruleset)}


def audit_rows(result: Mapping[str, Any]) -> Iterable[dict[str, Any]]:
    """One row per line of the audit, session by session (its number empty outside any)."""
    for audit in result["sessions"]:
        about = {"session": audit["session"], "title": audit["title"]}
        days = ", ".join(map(str, audit["days"]))
        yield {**about, "line": "squares", "amount": audit["squares_moved"],
               "detail": f"days {days}" if days else None}
        if audit["miles"]:
            yield {**about, "line": "miles", "amount": audit["miles"]}
        for line in ("gained", "spent"):
            for kind, amount in audit["supplies"][line].items():
                yield {**about, "line": line, "subject": kind, "amount": amount}
        for roll in audit["rolls"]:
            yield {**about, "line": "roll", "seq": roll["seq"], "day": roll["day"],
                   "subject": roll["by"], "roll": roll["roll"], "target": roll["target"],
                   "success": roll["success"], "cancelled_by": roll["cancelled_by"],
                   "detail": roll["type"]}
        for name, entries in render.ruleset_sections(audit):
            for entry in entries:
                yield {**about, **render.audit_row(name, entry)}
        for undo in audit["undos"]:
            yield {**about, "line": undo["action"], "seq": undo["seq"],
                   "subject": ", ".join(f"#{e['seq']}" + (f" {e['type']}" if e["type"] else "")
                                       for e in undo["events"]),
                   "gm": undo["gm"], "at": undo["at"], "detail": undo["reason"]}
