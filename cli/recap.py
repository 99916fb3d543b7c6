"""`trek recap`: a session's story as Markdown for a forum or wiki, or one printable HTML page.

Both are drawn from the recap document (`Trek.queries.recap`), which `--json` prints as it is. Every
text a GM typed goes through `md_escape` or `html.escape` before it is placed, so a name with
`*`, `|` or `<script>` reads as the name it is. Sentences that belong to one ruleset come
inside the document (its events' own recap lines); this module speaks only of what every
campaign has.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click

from cli import render
from cli.context import open_store, settings
from cli.options import EventNumber, TrekCommand, store_options
from domain.errors import TrackerError
from tracker.app import Trek

# CommonMark lets a backslash escape any ASCII punctuation; GFM tables also honour `\|`. These
# are the ones that mean something to CommonMark, GFM or a common forum or wiki ($ maths,
# @ mentions, :emoji:, ==marks==, ^superscript^); the others (, ; ? / ' " %) stay as typed.
_MARKUP = re.compile(r"([!#$&()*+\-.:<=>@\[\\\]^_`{|}~])")


def md_escape(text: object) -> str:
    """User text as literal inline Markdown: one line, every markup character backslashed.

    Runs of whitespace (newlines included) become one space, since a newline would end a list
    item or a table row, and control characters are dropped, since renderers replace them.
    """
    visible = "".join(ch for ch in str(text) if ch.isprintable() or ch.isspace())
    return _MARKUP.sub(r"\\\1", " ".join(visible.split()))


def _plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


def _days(days: list[int]) -> str:
    """How many days the recap covers, and which: "1 (day 4)", "3 (days 2 to 4)"."""
    if not days:
        return "none"
    if len(days) == 1:
        return f"1 (day {days[0]})"
    if days == list(range(days[0], days[-1] + 1)) and len(days) > 2:
        return f"{len(days)} (days {days[0]} to {days[-1]})"
    return f"{len(days)} (days {', '.join(map(str, days))})"


def title(doc: Mapping[str, Any], escape: Callable[[str], str] = str) -> str:
    """The recap's heading, the GM's words in it escaped for the format it goes into."""
    if doc["whole_campaign"]:
        return f"{escape(doc['name'])}: the whole campaign (no sessions yet)"
    heading = f"Session {doc['session']}"
    return heading + (f": {escape(doc['title'])}" if doc["title"] else "")


def distance_text(doc: Mapping[str, Any]) -> str:
    distance = doc["distance"]
    text = _plural(distance["squares"], "square")
    if distance["miles"]:
        text += f", {_plural(distance['miles'], 'mile')}"
    if distance["square_miles"]:
        text += f" ({distance['square_miles']} miles a square)"
    return text


def _fight_text(fight: dict[str, Any]) -> str:
    rounds = fight["rounds"]
    played = ("no rounds" if not rounds else f"round {rounds[0]}" if len(rounds) == 1
              else f"rounds {rounds[0]} to {rounds[-1]}")
    state = "ended" if fight["ended"] else "still going"
    begun = "" if fight["started"] else "continued, "
    return f"{begun}{played}, {state}"


def _correction_text(fix: dict[str, Any]) -> str:
    named = ", ".join(f"#{e['seq']} {e['type'] or ''}".rstrip() for e in fix["events"])
    return f"#{fix['seq']} {fix['action']} of {named}"


def _by_day(item: dict[str, Any]) -> str:
    return f"Day {item['day']}" if item.get("day") else "Before the first day"


# -- Markdown ----------------------------------------------------------------------------------


def markdown(doc: Mapping[str, Any]) -> str:
    """CommonMark with one GFM table, for a forum post or a wiki page."""
    e = md_escape
    lines = [f"# {title(doc, e)}", ""]
    about = [f"*{e(doc['name'])}*", e(doc["ruleset"])]
    if doc["map"]:
        about.append(e(doc["map"]))
    if doc["gms"]:
        about.append("GM " + e(", ".join(doc["gms"])))
    lines += [" · ".join(about), ""]
    lines += ["## Travel", "",
              f"- Days travelled: {_days(doc['days'])}",
              f"- Distance: {distance_text(doc)}", ""]
    supplies = doc["supplies"]
    kinds = list(dict.fromkeys([*supplies["gained"], *supplies["spent"]]))
    lines += ["## Supplies", ""]
    if kinds:
        lines += ["| Supply | Gained | Spent |", "| --- | ---: | ---: |"]
        lines += [f"| {e(kind)} | {supplies['gained'].get(kind, 0)} | "
                  f"{supplies['spent'].get(kind, 0)} |" for kind in kinds]
    else:
        lines.append("Nothing gained or spent.")
    lines.append("")

    def section(heading: str, items: list[str]) -> None:
        if items:
            lines.extend([f"## {heading}", "", *(f"- {item}" for item in items), ""])

    section("On the road", [f"{_by_day(n)}: {e(n['text'])} (#{n['seq']})"
                              for n in doc["notes"]])
    section("Requests from the seats", render.requests_text(doc.get("requests", {}), e))
    for heading, entries in render.recap_groups(doc["sections"], e, lambda w: f"**{w}**"):
        section(heading, [f"{_by_day(x)}: {x['text']} (#{x['seq']})" for x in entries])
    if doc["rests"]:
        lines += ["## Health and Energy regained", "",
                  "| Day | Character | Health | Energy |", "| ---: | --- | ---: | ---: |"]
        lines += [f"| {r['day']} | {e(r['character'])} | +{r['health']} | +{r['energy']} |"
                  for r in doc["rests"]]
        lines.append("")
    section("Fights", [f"{e(f['name'])}: {_fight_text(f)} (#{f['seq']})"
                       for f in doc["fights"]])
    section("Corrections", [
        _correction_text(c) + f" by {e(c['gm'] or 'unknown GM')}"
        + (f": {e(c['reason'])}" if c["reason"] else "") for c in doc["corrections"]])
    return "\n".join(lines).rstrip("\n") + "\n"


# -- HTML --------------------------------------------------------------------------------------

_STYLE = """
@page { margin: 12mm; }
* { box-sizing: border-box; }
html { font: 10.5pt/1.35 Georgia, 'DejaVu Serif', serif; color: #222; background: #fff; }
body { margin: 0 auto; padding: 1rem; max-width: 190mm; }
h1 { font-size: 18pt; margin: 0 0 2pt; overflow-wrap: anywhere; }
h2 { font-size: 11.5pt; margin: 0 0 3pt; border-bottom: 1px solid #bbb; }
.about { color: #555; margin: 0 0 6pt; overflow-wrap: anywhere; }
.columns { columns: 2 80mm; column-gap: 8mm; }
section { break-inside: avoid; margin-bottom: 9pt; }
ul { margin: 0; padding-left: 14pt; }
li, td { overflow-wrap: anywhere; }
th, td.n { white-space: nowrap; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 1pt 4pt; border-bottom: 1px solid #ddd; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.route { margin: 4pt 0; text-align: center; }
.route svg { max-width: 100%; max-height: 95mm; height: auto; }
.seq { color: #888; font-size: 85%; }
@media print {
  html { font-size: 9.5pt; }
  body { padding: 0; max-width: none; }
  .route svg { max-height: 85mm; }
}
"""


def _html_list(items: list[str]) -> str:
    return "<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>"


def _seq(seq: int) -> str:
    return f' <span class="seq">#{seq}</span>'


def html_page(doc: Mapping[str, Any], route: str | None = None) -> str:
    """One self-contained page (no scripts, no outside files) that prints on one sheet."""
    h = html.escape
    about = [f"<em>{h(doc['name'])}</em>", h(doc["ruleset"])]
    if doc["map"]:
        about.append(h(doc["map"]))
    if doc["gms"]:
        about.append("GM " + h(", ".join(doc["gms"])))
    parts = [f"<h1>{title(doc, h)}</h1>", f'<p class="about">{" · ".join(about)}</p>']
    if route:
        parts.append(f'<figure class="route" aria-label="the route">{route}</figure>')
    sections: list[str] = []

    def section(heading: str, body: str) -> None:
        sections.append(f"<section><h2>{h(heading)}</h2>{body}</section>")

    section("Travel", _html_list([f"Days travelled: {_days(doc['days'])}",
                                  f"Distance: {h(distance_text(doc))}"]))
    supplies = doc["supplies"]
    kinds = list(dict.fromkeys([*supplies["gained"], *supplies["spent"]]))
    section("Supplies", (
        '<table><thead><tr><th>Supply</th><th class="n">Gained</th><th class="n">Spent</th>'
        "</tr></thead><tbody>"
        + "".join(f'<tr><td>{h(kind)}</td><td class="n">{supplies["gained"].get(kind, 0)}'
                  f'</td><td class="n">{supplies["spent"].get(kind, 0)}</td></tr>'
                  for kind in kinds)
        + "</tbody></table>") if kinds else "<p>Nothing gained or spent.</p>")
    if doc["notes"]:
        section("On the road", _html_list([f"{_by_day(n)}: {h(n['text'])}{_seq(n['seq'])}"
                                             for n in doc["notes"]]))
    for heading, entries in render.recap_groups(doc["sections"], h,
                                                lambda w: f"<strong>{w}</strong>"):
        section(heading, _html_list([f"{_by_day(x)}: {x['text']}{_seq(x['seq'])}"
                                     for x in entries]))
    if doc["rests"]:
        section("Health and Energy regained", (
            '<table><thead><tr><th class="n">Day</th><th>Character</th><th class="n">Health'
            '</th><th class="n">Energy</th></tr></thead><tbody>'
            + "".join(f'<tr><td class="n">{r["day"]}</td><td>{h(r["character"])}</td>'
                      f'<td class="n">+{r["health"]}</td><td class="n">+{r["energy"]}</td></tr>'
                      for r in doc["rests"])
            + "</tbody></table>"))
    if doc["fights"]:
        section("Fights", _html_list([f"{h(f['name'])}: {_fight_text(f)}{_seq(f['seq'])}"
                                      for f in doc["fights"]]))
    if doc["corrections"]:
        section("Corrections", _html_list([
            h(_correction_text(c)) + f" by {h(c['gm'] or 'unknown GM')}"
            + (f": {h(c['reason'])}" if c["reason"] else "") for c in doc["corrections"]]))
    parts.append(f'<div class="columns">{"".join(sections)}</div>')
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{title(doc, h)}</title><style>{_STYLE}</style></head>"
            f"<body>{''.join(parts)}</body></html>\n")


# -- the command -------------------------------------------------------------------------------


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise TrackerError(f"cannot write the recap to {path}: {reason}") from None


def _route_picture(trek: Trek, doc: Mapping[str, Any]) -> str | None:
    """The route as it stood at the session's last event, that session's travel drawn strong;
    None for a campaign without a map, which has nothing to draw on."""
    if doc["map"] is None:
        return None
    from cli.route import route_svg

    span = doc["events"]
    route = trek.queries.route(doc["campaign"], session=doc["session"],
                       as_of=span["last"] if span else None)
    return route_svg(route)


@click.command(cls=TrekCommand)
@click.option("--session", type=EventNumber("the session number"),
              help="Session N (default: the latest, open or ended; a campaign without "
                   "sessions is recapped whole).")
@click.option("--format", "fmt", type=click.Choice(["markdown", "html"]), default="markdown",
              show_default=True,
              help="Markdown for a forum or wiki, or one self-contained HTML page that prints "
                   "on one sheet.")
@click.option("--output", type=click.Path(path_type=Path),
              help="Write to FILE instead of printing.")
@store_options
def recap(session: int | None, fmt: str, output: Path | None) -> None:
    """What to hand the players after a session: days, distance, supplies, mounts and vehicles,
    rests, fights and the corrections made.

    With --json, the recap document the Markdown and HTML are made from.
    """
    chosen = click.get_current_context().get_parameter_source("fmt")
    if settings().json and chosen is click.core.ParameterSource.COMMANDLINE:
        raise click.UsageError("--format and --json each choose the output; give one of them.")
    trek = open_store(writes=False)
    doc = trek.queries.recap(settings().campaign, session)
    if settings().json:
        text = render.json_text(doc)
    elif fmt == "html":
        text = html_page(doc, _route_picture(trek, doc))
    else:
        text = markdown(doc)
    if output is None:
        click.echo(text, nl=False)
        return
    _write(output, text)
    if not settings().json:
        render.console.print(f"Wrote the recap ({fmt}) to {render.plain(output)}.")
