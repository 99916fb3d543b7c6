"""`trek encounter`: round-by-round movement on a battle map, every ruleset's shared commands.

A ruleset's own options for `encounter move`, `round`, `add` and `act` come from its options
module (`RulesetOptions`), its own subcommands from its `CommandLine`: `mounted` builds the
group for a composition root.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cli import render
from cli.context import open_store, record, settings
from cli.options import (
    TERRAIN_HELP,
    EventNumber,
    PointType,
    SquareType,
    TrekCommand,
    TrekSubgroup,
    WordTerrain,
    character_from,
    character_options,
    extended,
    given_extras,
    reads,
    recording_options,
    regrouped,
    store_options,
)
from domain.errors import MapError, TrackerError

if TYPE_CHECKING:
    from cli.bootstrap import Root
    from cli.reads import Query
    from domain.geometry import Square
    from tracker.app import Trek
    from tracker.points import Point

DIRECTIONS_HELP = "N NE E SE S SW W NW on squares; N NE SE S SW NW on hexes"


class ByRulesetHelp(TrekCommand):
    """A command whose `--help` lists the options every campaign has first, then each
    ruleset's own in a section of its own (`ruleset_options` gives a title and the options'
    names, in the registry's order, when the help is written). Nothing is read from a store,
    so the help is as quick as ever."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ruleset_options: Callable[[], Mapping[str, list[str]]] = dict

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        params = [p for p in self.get_params(ctx) if not isinstance(p, click.Argument)]
        named = {param.name: param for param in params}
        sections = self.ruleset_options()
        theirs = {name for names in sections.values() for name in names}
        shared = [record for param in params if param.name not in theirs
                  if (record := param.get_help_record(ctx)) is not None]
        with formatter.section("Options"):
            formatter.write_dl(shared)
        for title, names in sections.items():
            records = [record for name in names
                       if (record := named[name].get_help_record(ctx)) is not None]
            if records:
                with formatter.section(f"{title} options"):
                    formatter.write_dl(records)


@click.group(cls=TrekSubgroup)
def encounter() -> None:
    """Fights and scenes round by round on a battle map: who moved how far, what is left."""


@encounter.command("start")
@click.argument("name")
@click.option("--map", "map_file", type=click.Path(dir_okay=False, path_type=Path),
              help="A TOML battle map (grid, rows, legend, walls and doors), or one from Tiled "
                   "(.tmx, .tmj, .json), Text Mapper (.txt) or Universal VTT (.dd2vtt, "
                   ".df2vtt, .uvtt); without one, an open plain.")
@click.option("--terrain", "terrains", type=WordTerrain(), multiple=True,
              help=TERRAIN_HELP)
@recording_options
def start(name: str, map_file: Path | None, terrains: tuple[tuple[str, str], ...]) -> None:
    """Open an encounter NAME (one at a time)."""
    from domain.commands.encounter import StartEncounter
    from tracker.mapformats.tomlfile import load_battle_map

    if map_file is None:
        if terrains:
            raise TrackerError("--terrain goes with --map FILE, a map from another tool")
        record(StartEncounter(name))
        return
    from cli import mapimport

    map_text, note, picture = mapimport.map_text(map_file, _ruleset, battle=True,
                                                 terrains=terrains)

    def command(trek: Trek, campaign: str | None) -> StartEncounter:
        battle_map = load_battle_map(
            map_text, trek.rulesets.named(trek.queries.ruleset_of(campaign)).battle_legend)
        if picture is not None:
            battle_map["image"] = picture.image
        return StartEncounter(name, battle_map)

    try:
        record(command, picture)
    except MapError as error:
        raise TrackerError(f"the battle map {map_file} was refused at {error}") from None
    if note is not None and not settings().json:
        render.console.print(note, markup=False)


def _ruleset() -> str:
    """The campaign's ruleset, whose battle legend an imported map must use."""
    return open_store(writes=False).queries.ruleset_of(settings().campaign)


def _facing(value: str | None) -> str | None:
    return value.upper() if value is not None else None


@encounter.command("join")
@click.argument("character")
@click.option("--at", "at", type=SquareType(), required=True, help="The cell X,Y.")
@click.option("--facing", help=f"The direction it faces ({DIRECTIONS_HELP}).")
@recording_options
def join(character: str, at: Square, facing: str | None) -> None:
    """Bring a roster character into the encounter, on the party's side."""
    from domain.commands.encounter import EnterCombatant

    command = EnterCombatant(name=character, at=at, facing=_facing(facing))
    record(command)


@encounter.command("add")
@click.argument("name")
@click.option("--side", type=click.Choice(["ally", "enemy"]), required=True,
              help="Whose side it fights on.")
@click.option("--at", "at", type=SquareType(), required=True, help="The cell X,Y.")
@click.option("--facing", help=f"The direction it faces ({DIRECTIONS_HELP}).")
@character_options
@recording_options
def add(name: str, side: str, at: Square, facing: str | None, **given: Any) -> None:
    """Add someone who is not on the roster (an ally or an enemy) with the ruleset's stats."""
    from domain.commands.encounter import EnterCombatant
    from domain.state import Side

    options = character_from(name, given)
    command = EnterCombatant(name=name, at=at, side=Side(side), facing=_facing(facing),
                             from_roster=False, options=options)
    record(command)


@encounter.command("remove")
@click.argument("name")
@recording_options
def remove(name: str) -> None:
    """Take a combatant out of the fight (fled, fallen); its cell is free again."""
    from domain.commands.encounter import RemoveCombatant

    record(RemoveCombatant(name))


@encounter.command("door")
@click.argument("door", metavar="NAME|X,Y")
@click.argument("state", metavar="open|close", type=click.Choice(["open", "close"],
                                                                  case_sensitive=False))
@recording_options
def door(door: str, state: str) -> None:
    """Open or close a door of the battle map, named or by its grid point X,Y (free: it spends
    no movement)."""
    from domain.commands.encounter import ChangeDoor

    record(ChangeDoor(door=door, closed=state.lower() == "close"))


@encounter.command("round")
@recording_options
def round_(**options: Any) -> None:
    """Start the next round: every combatant's movement is fresh."""
    from domain.commands.rounds import StartRound

    given = {k: v for k, v in options.items() if v not in (None, False, ())}
    record(StartRound(options=given))


@encounter.command("move", cls=ByRulesetHelp)
@click.argument("name")
@click.argument("directions", nargs=-1)
@click.option("--to", "to", type=SquareType(), help="Go to X,Y by the cheapest legal path.")
@recording_options
def move(name: str, directions: tuple[str, ...], to: Square | None, **options: Any) -> None:
    """Move a combatant: steps (N NE E SE S SW W NW) or --to X,Y, all or nothing.

    Each ruleset's own options are listed under its name; a campaign refuses another
    ruleset's."""
    from domain.commands.rounds import MoveCombatant

    if directions and to is not None:
        raise click.UsageError("give directions or --to X,Y, not both")
    if not directions and to is None:
        raise click.UsageError(f"give directions ({DIRECTIONS_HELP}) or --to X,Y")
    given = {k: v for k, v in options.items() if v not in (None, False, ())}
    command = MoveCombatant(name=name, steps=tuple(d.upper() for d in directions), to=to,
                            options=given)
    record(command)


def _encounter_status() -> type[Query]:
    """`encounter status`'s query (cli/reads.py), loaded when one is first made."""
    from cli.reads import EncounterStatus

    return EncounterStatus


@encounter.command("status")
@store_options
@reads(_encounter_status)
def status() -> None:
    """The battle map with each combatant's initial, and who has moved, what remains and
    any penalties (`--json`: the document scripts read, null with no encounter)."""
    from cli.reads import EncounterStatus
    from projections.stored_status import read_status

    # The campaign's kept status document holds its encounter, when it is current.
    kept = read_status(settings().db, settings().campaign)
    doc = (kept["encounter"] if kept is not None
           else EncounterStatus().answer(open_store(writes=False), settings().campaign))
    if settings().json:
        render.emit_json(doc)
    elif doc is None:
        render.console.print("No encounter is open; `trek encounter start NAME` opens one.")
    else:
        render.print_encounter(doc)


@encounter.command("show")
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False, writable=True,
                                                   path_type=Path), required=True,
              help="Write the battle map as an SVG picture to this file.")
@click.option("--as-of", "as_of", type=PointType(),
              help="The encounter as it stood right after event SEQ (or at the end of day N).")
@click.option("--round", "round_number", type=EventNumber("the round number"),
              help="Draw only the paths moved in round N (default: every round's).")
@store_options
def show(svg_file: Path, as_of: Point | None, round_number: int | None) -> None:
    """Draw the encounter: grid, walls and terrain, combatants by side, and the paths of
    each round (the latest strongest)."""
    from cli.svg import encounter_svg

    trek_app = open_store(writes=False)
    campaign = settings().campaign
    seq = trek_app.queries.seq_of(campaign, as_of) if as_of is not None else None
    doc = trek_app.queries.encounter_picture(campaign, as_of=seq, round_number=round_number)
    if doc is None:
        when = f"at {as_of}" if as_of is not None else "now"
        raise TrackerError(f"no encounter is open {when}; `trek encounter start NAME` opens one")
    from cli.drawing import data_href

    def href(sha256: str) -> str:
        return data_href(trek_app.queries.picture(sha256))

    try:
        svg_file.write_text(encounter_svg(doc, picture_href=href), encoding="utf-8")
    except OSError as error:
        raise TrackerError(f"cannot write {svg_file}: {error.strerror}") from None
    if settings().json:
        render.emit_json({"svg": str(svg_file), "round": doc["round"],
                          "paths": len(doc["paths"])})
    else:
        render.console.print(f"Wrote {svg_file}.", markup=False)


@encounter.command("act")
@click.argument("name")
@click.argument("kind", required=False)
@recording_options
def act(name: str, kind: str | None, **given: Any) -> None:
    """Record a combatant's action, as the campaign's ruleset reads it; what each ruleset
    takes follows (a ruleset without actions refuses the command)."""
    from domain.commands.rounds import Act

    command = Act(name=name, kind=kind.lower() if kind is not None else None,
                  options=given_extras(given))
    record(command)


@encounter.command("end")
@recording_options
def end() -> None:
    """Close the encounter; overland travel may go on."""
    from domain.commands.encounter import EndEncounter

    record(EndEncounter())


def _sections(root: Root) -> dict[str, list[str]]:
    """`encounter move --help`'s section of each ruleset that adds move options: its title
    (its command line's, else its name) and the options' names."""
    titles = {name: line.title for name, line in root.lines()}
    return {titles.get(name, name): [option.name for option in options.encounter_move
                                     if option.name]
            for name, options in root.options if options.encounter_move}


def mounted(root: Root) -> click.Group:
    """`trek encounter` for `root`: `move`, `round`, `add` and `act` built anew with every
    ruleset's options the first time each is asked for (from the rulesets' options modules:
    no ruleset's command line is loaded to parse them), and each ruleset's own subcommands put
    beside them when a name the group does not hold is asked for, or its commands are listed
    (a campaign under another ruleset refuses them with a sentence)."""

    def taking(kind: str) -> list[click.Option]:
        """The options every ruleset adds to a command, in order; an option two rulesets
        share (--fly) once, as the first declares it."""
        seen: dict[str, click.Option] = {}
        for _, options in root.options:
            for option in getattr(options, kind):
                assert option.name is not None
                seen.setdefault(option.name, option)
        return list(seen.values())

    def moving() -> click.Command:
        made = extended(move, taking("encounter_move"))
        assert isinstance(made, ByRulesetHelp)
        made.ruleset_options = lambda: _sections(root)
        return made

    def acting() -> click.Command:
        made = extended(act, taking("encounter_act"))
        made.help = inspect.cleandoc(act.help or "") + "".join(
            f"\n\n{name}: {options.act_help}" for name, options in root.options
            if options.act_help is not None)
        return made

    def own() -> list[click.Command]:
        return [command for _, line in root.lines() for command in line.encounter_commands]

    return regrouped(encounter, later={
        "move": moving,
        "round": lambda: extended(round_, taking("encounter_round")),
        "add": lambda: extended(add, taking("character")),
        "act": acting,
    }, others=own)
