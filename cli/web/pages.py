"""The GM's and the players' pages, drawn from the documents the commands print.

The map is the route picture of `trek map show --svg` (cli/route.py), whose squares carry
their coordinates, so the page's script makes each one a target. The players see no undo
reasons, and, unless the GM serves with `--no-fog`, only the squares the party has been
within one square of.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

if TYPE_CHECKING:
    from tracker.queries import Queries

HERE = Path(__file__).parent
LOG_ROWS = 200
# How many cells of an open plain the fight shows beyond its combatants and their paths.
PLAIN_MARGIN = 6
FOG_TERRAIN = "unexplored"
# What only the GM sees of a log entry: the notes given with an undo or a redo.
GM_NOTES = ("reason",)
REVERSALS = ("EventsCancelled", "EventsRestored")
# What the players' log keeps of an overland map.
PLAYERS_MAP_KEYS = ("name", "width", "height", "square_miles")


@cache
def environment() -> Environment:
    return Environment(loader=FileSystemLoader(HERE / "templates"),
                       autoescape=select_autoescape(default=True, default_for_string=True),
                       trim_blocks=True, lstrip_blocks=True)


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def for_players(entry: dict[str, Any]) -> dict[str, Any]:
    """A log entry as the players (and the seats) see it: an undo or a redo without the GM's
    notes, and an overland map without what the fog hides (its rows, its legend's names, its
    named paths): the map is theirs only as the fogged page draws it."""
    if isinstance(entry.get("map"), dict):
        entry = {**entry, "map": {key: entry["map"][key] for key in PLAYERS_MAP_KEYS
                                  if key in entry["map"]}}
    if entry.get("type") not in REVERSALS:
        return entry
    return {key: value for key, value in entry.items() if key not in GM_NOTES}


def seen_squares(route: dict[str, Any]) -> set[tuple[int, int]]:
    """Every square within one square of where a party stood or walked (undone moves not):
    every party's sight lifts the fog."""
    stood = [_xy(route["start"]), _xy(route["position"])]
    stood += [_xy(party["position"]) for party in (route.get("parties") or {}).values()]
    stood += [_xy(square) for segment in route["segments"] if segment["cancelled_by"] is None
              for square in segment["path"]]
    return {(x + dx, y + dy) for x, y in stood for dx in (-1, 0, 1) for dy in (-1, 0, 1)}


def _xy(square: Any) -> tuple[int, int]:
    if isinstance(square, dict):
        return int(square["x"]), int(square["y"])
    return int(square[0]), int(square[1])


def fogged(route: dict[str, Any]) -> dict[str, Any]:
    """The route document with every square the party has not been near drawn unexplored, the
    map's named paths left out, and undone moves and marks dropped."""
    game_map = route["map"]
    seen = seen_squares(route)
    fog = next(ch for ch in "?~#*%&@" + "".join(map(chr, range(0x2500, 0x2600)))
               if ch not in game_map["legend"])
    rows = ["".join(key if (x, y) in seen else fog for x, key in enumerate(row))
            for y, row in enumerate(game_map["rows"])]
    used = {key for row in rows for key in row}
    legend = {key: cell for key, cell in game_map["legend"].items() if key in used}
    legend[fog] = {"terrain": FOG_TERRAIN, "name": None, "penalty": 0, "road": False}
    # The picture stays: the unexplored squares over it are drawn opaque.
    shown_map = {key: game_map[key] for key in ("name", "width", "height", "square_miles",
                                                "image")
                 if key in game_map}
    return {**route, "map": {**shown_map, "rows": rows, "legend": legend},
            "segments": [s for s in route["segments"] if s["cancelled_by"] is None],
            "marks": [m for m in route["marks"] if m["cancelled_by"] is None]}


def day_actions(ruleset: str) -> list[dict[str, Any]]:
    """The buttons of the GM's page: the day's start and end, and between them each of the
    ruleset's own commands that takes no word."""
    from cli.bootstrap import current

    line = current().line(ruleset)
    own = line.commands if line is not None else ()
    actions = [{"label": "Start day", "argv": ["day", "start"]}]
    for command in own:
        if command.name and not any(p.required for p in command.params):
            actions.append({"label": command.name.replace("-", " ").capitalize(),
                            "argv": [command.name]})
    actions.append({"label": "End day", "argv": ["day", "end"]})
    for action in actions:
        action["json"] = json.dumps(action["argv"])
    return actions


def fight_actions(ruleset: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The GM's buttons while an encounter runs: the next round, each of the ruleset's own
    encounter commands that takes no word (a pass), and the end; and the acts offered on each
    combatant's row (its commands whose one word is the combatant's name: stand up, sprint)."""
    from cli.bootstrap import current

    line = current().line(ruleset)
    own = line.encounter_commands if line is not None else ()
    actions = [{"label": "Next round", "argv": ["encounter", "round"]}]
    acts: list[dict[str, Any]] = []
    for command in own:
        if not command.name:
            continue
        required = [p for p in command.params if p.required]
        label = command.name.replace("-", " ").capitalize()
        if not required:
            actions.append({"label": label, "argv": ["encounter", command.name]})
        elif [p.name for p in required] == ["name"]:
            acts.append({"label": label, "argv": ["encounter", command.name]})
    actions.append({"label": "End encounter", "argv": ["encounter", "end"]})
    for action in actions:
        action["json"] = json.dumps(action["argv"])
    return actions, acts


def round_panel(encounter: dict[str, Any], acts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A row for each combatant: its label, name, side, square, what it moved and has left,
    what its ruleset keeps of it, and the GM's acts on it (each its command as JSON)."""
    from cli import render as words

    rows = []
    for name, c in encounter["combatants"].items():
        rows.append({
            "label": c.get("label", ""), "name": name, "side": c["side"],
            "at": f"{c['position']['x']},{c['position']['y']}",
            "moved": words.encounter_value(c["moved"]),
            "left": words.encounter_value(c["remaining"]),
            "state": ", ".join(words.combatant_state(c)),
            "acts": [{"label": act["label"], "json": json.dumps([*act["argv"], name])}
                     for act in acts],
        })
    return rows


def picture_url(sha256: str) -> str:
    """Where the server answers a map's picture: at its hash, so it is cached for good."""
    return f"/pictures/{sha256}"


@dataclass(frozen=True)
class PageDocuments:
    """What a page is drawn from, read through the server's queries in one go."""

    status: dict[str, Any]
    route: dict[str, Any]
    battle: dict[str, Any] | None
    entries: list[dict[str, Any]]
    ruleset: str


def documents(queries: Queries, slug: str,
              characters: Sequence[str] = ()) -> PageDocuments:
    """The documents of a campaign's page: its status, route, the open fight's picture and
    the newest log entries. A seat's page (its `characters`) is told from the side of the
    party they travel in, when they all travel in one (RULES.md §15): the day and the movement
    its move spends."""
    from projections.logpages import LogFilter

    status = queries.status(slug)
    own = {status["characters"][name]["party"] for name in characters
           if name in status["characters"]}
    party = own.pop() if len(own) == 1 else None
    if party is not None and party != status["party"]:
        status = queries.status(slug, party=party)
    battle = queries.encounter_picture(slug) if status.get("encounter") else None
    stream = queries.log_stream(slug, LogFilter(last=LOG_ROWS))
    return PageDocuments(status=dict(status), route=dict(queries.route(slug, party=party)),
                         battle=dict(battle) if battle is not None else None,
                         entries=[dict(entry) for entry in stream.entries],
                         ruleset=stream.ruleset)


def page_key(read: PageDocuments, slug: str, view: str, fog: bool, part: bool,
             seat: dict[str, Any] | None) -> str:
    """What a page is drawn from, as one digest: two requests with the same key get the same
    page."""
    import hashlib

    given = [slug, view, fog, part, seat, read.status, read.route, read.battle, read.entries,
             read.ruleset]
    return hashlib.sha256(json.dumps(given, sort_keys=True, default=str).encode()).hexdigest()


def seat_cards(seat: dict[str, Any], status: dict[str, Any],
               encounter: dict[str, Any] | None) -> list[dict[str, Any]]:
    """A card for each of a seat's characters: Health/Energy, and the movement it has left
    this round (in a fight it is in) or its party's today (RULES.md §15: the party it
    travels in, whichever party is in use)."""
    from cli import render as words

    cards = []
    for name in seat["characters"]:
        held = status.get("characters", {}).get(name, {})
        fighting = (encounter or {}).get("combatants", {}).get(name)
        party = (status.get("parties") or {}).get(held.get("party"))
        moving = {**status, "movement": party["movement"]} if party else status
        if fighting is not None:
            left = f"{words.encounter_value(fighting['remaining'])} left this round"
        elif moving.get("movement") and held.get("with_party", True):
            left = words.movement_text(moving)
        else:
            left = ""
        cards.append({"name": name, "health": held.get("health"),
                      "health_max": held.get("health_max"), "energy": held.get("energy"),
                      "energy_max": held.get("energy_max"), "left": left,
                      "label": fighting.get("label", "") if fighting else "",
                      "party": str(held.get("party") or "") if party else ""})
    return cards


def page(read: PageDocuments, slug: str, *, view: str, fog: bool, part: bool = False,
         seat: dict[str, Any] | None = None,
         picture_href: Callable[[str], str] = picture_url,
         fogged_href: Callable[[str], str] | None = None) -> str:
    """The GM's page (`view` "gm"), the players' ("player") or a seat's ("seat", with the
    seat's document), whole or its live part. A map's picture is drawn from `picture_href`
    (its hash → its address); under the fog the overland picture is the fogged copy
    `fogged_href` names (the fog's digest → its address), never the whole one, and none at
    all without `fogged_href`."""
    from cli import render as words
    from cli.route import key_html, route_svg

    status, route, battle, entries, ruleset = (read.status, read.route, read.battle,
                                               read.entries, read.ruleset)
    gm = view == "gm"
    rows = []
    for entry in reversed(entries):
        shown = entry if gm else for_players(entry)
        rows.append({"seq": entry["seq"], "day": entry.get("day"), "type": entry["type"],
                     "summary": words.summary(shown, ruleset),
                     "cancelled_by": entry.get("cancelled_by"),
                     "reversal": "cancels" in entry,
                     # The seat that asked for it (RULES §14), named on every page.
                     "asked_by": entry.get("requested_by")})
    picture = key = None
    if route["map"] is not None:
        shown = fogged(route) if fog else route
        overland_href = picture_href
        if fog and "image" in shown["map"]:
            from cli.web.pictures import fog_digest

            game_map = route["map"]
            digest = fog_digest(seen_squares(route), game_map["width"], game_map["height"])
            # The fogged copy is named by its fog, never by the whole picture's hash.
            shown = {**shown, "map": {**shown["map"],
                                      "image": {**game_map["image"], "sha256": digest}}}
            overland_href = fogged_href or (lambda name: "")
        # route_svg and key_html escape every text a GM typed.
        picture = Markup(route_svg(shown, picture_href=overland_href, with_key=False))
        key = Markup(key_html(shown))
    fight = fight_key = None
    if battle is not None:
        from cli.svg import encounter_key_html, encounter_svg

        # encounter_svg and encounter_key_html escape every name they draw.
        # An open plain has room around everyone for the ruler to point at; the key goes
        # under the map, where zooming the map on a phone leaves it on the screen.
        fight = Markup(encounter_svg(battle, margin=PLAIN_MARGIN,
                                    picture_href=picture_href, with_key=False))
        fight_key = Markup(encounter_key_html(battle))
    encounter = status.get("encounter")
    actions, acts = fight_actions(ruleset) if encounter else (day_actions(ruleset), [])
    context = {"view": view, "fight": fight, "fight_key": fight_key, "encounter": encounter,
               "gm": gm,
               "status": status, "rows": rows, "picture": picture, "key": key,
               "slug": slug, "fog": fog, "ruleset": ruleset,
               "actions": actions if gm else [],
               "clock": words.encounter_clock(encounter) if encounter else [],
               "panel": round_panel(encounter, acts if gm else []) if encounter else [],
               # A fight in a campaign without an overland map is all the page shows: no
               # day, square or day's movement beside it.
               "overland": words.has_overland(ruleset) and not (encounter and picture is None),
               "movement_text": (words.movement_text(status) if status.get("movement")
                                 else ""),
               # Health and Energy only where the ruleset keeps them for someone.
               "vitals": any(c.get("health_max") or c.get("energy_max")
                             for c in status.get("characters", {}).values()),
               "characters": status.get("characters", {}),
               "conveyances": status.get("conveyances", {}),
               "seat": seat,
               "seat_json": json.dumps(seat) if seat is not None else "",
               "cards": seat_cards(seat, status, encounter) if seat is not None else []}
    return render("part.html" if part else "page.html", **context)
