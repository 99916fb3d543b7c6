"""The `trek` commands that work on a store through the tracker (every one but `status`'s
fast read): parse, call one tracker use case, render a table or JSON.

`cli.main` loads this module the first time one of them runs (or shows its own help) and asks
`mounted` for them, built for the command's composition root: each command a ruleset extends
is made anew from the rulesets' `CommandLine`s (the ones below are never edited)."""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cli import render
from cli.context import open_store, record, recorded, root, rulesets, settings
from cli.main import OWN_COMMANDS, trek
from cli.options import (
    CSV_HELP,
    SEQ,
    TERRAIN_HELP,
    EventNumber,
    KeyValue,
    PointType,
    SquareType,
    Whole,
    WordTerrain,
    _merge,
    character_from,
    character_options,
    csv_or_json,
    party_option,
    party_read_option,
    reads,
    recording_options,
    store_options,
    store_recording_options,
)
from domain.bounds import MAX_POINTS
from domain.errors import MapError, TrackerError

if TYPE_CHECKING:
    from cli.bootstrap import Root
    from cli.reads import Query
    from domain.geometry import Square
    from tracker.app import Trek
    from tracker.mapformats import Grid
    from tracker.points import Point

# The queries of the read commands below (cli/reads.py), loaded when one is first made: a
# recording command makes none.


def _map_show() -> type[Query]:
    from cli.reads import MapShow

    return MapShow


def _rules_show() -> type[Query]:
    from cli.reads import RulesShow

    return RulesShow


def _diff() -> type[Query]:
    from cli.reads import Diff

    return Diff


def _audit() -> type[Query]:
    from cli.reads import Audit

    return Audit


# `--ruleset` of `init` and `map import`: the root's rulesets, the first the default (`mounted`).
NO_RULESETS: click.Choice[str] = click.Choice(())

# -- the campaign -----------------------------------------------------------------------------


@trek.command()
@click.argument("name")
@click.option("--ruleset", type=NO_RULESETS, show_default=True,
              help="The travel rules the campaign is played under.")
@click.option("--map", "map_file", type=click.Path(dir_okay=False, path_type=Path),
              help="A TOML map file (see docs/rules.md), or a map from Tiled (.tmx, .tmj, "
                   ".json) or Text Mapper (.txt), imported for the ruleset.")
@click.option("--terrain", "terrains", type=WordTerrain(), multiple=True,
              help=TERRAIN_HELP)
@click.option("--at", type=SquareType(), help="Starting square X,Y (default 0,0).")
@click.option("--seed", type=Whole(0, 2**63 - 1, what="the seed"),
              help="Seed for the dice Trek rolls (default: random, recorded).")
# Taken only to be refused with a sentence (a script may add it to every line); not offered.
@click.option("--preview", is_flag=True, default=False, expose_value=False, hidden=True,
              callback=_merge("preview"), help="Refused: init has no preview.")
@store_options
def init(name: str, ruleset: str, map_file: Path | None, terrains: tuple[tuple[str, str], ...],
         at: Square | None, seed: int | None) -> None:
    """Create a campaign NAME in the store (creating the store if needed).

    It has no preview: --preview is refused, and nothing is made.
    """
    from domain.campaign import Stamp
    from tracker.app import INIT_HAS_NO_PREVIEW, gm_from_env, new_campaign

    if settings().preview:
        raise TrackerError(INIT_HAS_NO_PREVIEW)
    map_text, note, picture = None, None, None
    if map_file is not None:
        from cli import mapimport

        map_text, note, picture = mapimport.map_text(map_file, ruleset, battle=False,
                                                     terrains=terrains)
    elif terrains:
        raise TrackerError("--terrain goes with --map FILE, a map from another tool")
    try:
        # Everything that needs no store is checked before the store file is made.
        new_campaign(rulesets(), Stamp(gm=gm_from_env(settings().gm), at=datetime.now(UTC)),
                     name, ruleset=ruleset, map_text=map_text, at=at, seed=seed,
                     picture=picture)
        with _made_by_this_init():
            docs = open_store(create=True).init(name, ruleset=ruleset, map_text=map_text,
                                                at=at, seed=seed, picture=picture)
    except MapError as error:
        raise TrackerError(f"the map {map_file} was refused at {error}") from None
    recorded(docs, lambda: ruleset)
    if note is not None and not settings().json:
        render.console.print(note, markup=False)


@contextmanager
def _made_by_this_init() -> Iterator[None]:
    """An init that fails before it records anything takes away the store files it made (an
    SQLite file and the files SQLite put beside it); a store that was there stays as it was."""
    from tracker.opening import NewFiles
    from tracker.stores import Location

    try:
        made = NewFiles.before_opening(Location.parse(settings().db))
    except TrackerError:
        made = NewFiles(None)
    try:
        yield
    except BaseException:
        opened: list[Trek] = settings().opened
        if not any(trek_app.appended for trek_app in opened):
            for trek_app in opened:
                trek_app.close()
            made.remove()
        raise


@trek.group("campaigns", invoke_without_command=True)
@store_options
@click.pass_context
def campaigns_cmd(ctx: click.Context) -> None:
    """List the campaigns in the store; the one commands use when they name none is marked.

    That is the one --campaign or TREK_CAMPAIGN names, else the one `trek campaigns use SLUG`
    chose, else the store's only campaign.
    """
    if ctx.invoked_subcommand is not None:
        return
    trek_app = open_store(writes=False)
    listing = trek_app.campaigns()
    slugs = [c["slug"] for c in listing]
    in_use = settings().campaign or trek_app.campaign_in_use()
    if in_use not in slugs:
        in_use = slugs[0] if len(slugs) == 1 else None
    for c in listing:
        c["in_use"] = c["slug"] == in_use
    if settings().json:
        render.emit_json(listing)
        return
    for c in listing:
        mark = "  (in use)" if c["in_use"] else ""
        render.console.print(f"{c['slug']}  {c['name']} ({c['ruleset']}, {c['events']} events)"
                             f"{mark}", markup=False)


@campaigns_cmd.command("use")
@click.argument("slug")
@store_options
def campaigns_use(slug: str) -> None:
    """Make SLUG the campaign that commands use when they name none (kept in the store; not
    an event). --campaign and TREK_CAMPAIGN still choose another for one command."""
    result = open_store().use_campaign(slug)
    if settings().json:
        render.emit_json(result)
        return
    render.console.print(f"Commands that name no campaign now use {result['campaign']}; "
                         "--campaign SLUG or TREK_CAMPAIGN still choose another.", markup=False)


@trek.group("map")
def map_group() -> None:
    """The campaign's map."""


@map_group.command("show")
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the map with the party's route as an SVG picture to this file.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Write one self-contained HTML page (title, picture, key) that prints.")
@click.option("--as-of", "as_of", type=PointType(),
              help="The route up to event SEQ, or to the end of day N (day:N).")
@click.option("--session", type=EventNumber("the session number"),
              help="Draw session N's moves strong and the rest of the route faint.")
@party_read_option
@store_options
@reads(_map_show)
def map_show(svg_file: Path | None, html_file: Path | None, as_of: Point | None,
             session: int | None, party: str | None) -> None:
    """Show the map with coordinates and a key, the party's square marked @.

    With --svg or --html, draw it as a picture instead: terrain, named paths, the route day by
    day, markers for what happened along the way, cancelled moves faint and dashed, and a key.
    --json adds the route document (every walked path and marker, with its day).
    """
    if svg_file is not None and html_file is not None:
        raise click.UsageError("give --svg FILE or --html FILE, not both")
    trek_app = open_store(writes=False)
    campaign = settings().campaign
    seq = None
    if as_of is not None and as_of.kind != "now":
        seq = trek_app.queries.seq_of(campaign, as_of)
    route = trek_app.queries.route(campaign, as_of=seq, session=session, party=party)
    target = svg_file or html_file
    if target is not None:
        _write_route_picture(route, target, html=html_file is not None)
        return
    if settings().json:
        from cli.reads import route_document

        render.emit_json(route_document(route))
        return
    others = {name: entry["position"] for name, entry in route["parties"].items()
              if name != route["party"]}
    render.print_map(route["map"], route["position"], others=others, party=route["party"])


def _write_route_picture(route: Mapping[str, Any], target: Path, *, html: bool) -> None:
    """Draw the route into `target` and say so in one line (or a small JSON document)."""
    from cli.route import route_html, route_svg

    if route["map"] is None:
        raise TrackerError(f"the campaign {route['campaign']} has no map to draw; it gets one with "
                           "`trek init NAME --map FILE`")
    from cli.drawing import data_href

    title = f"{route['map']['name']}: {route['name']}"
    href = None
    if route["map"].get("image"):
        queries = open_store(writes=False).queries

        def href(sha256: str) -> str:
            return data_href(queries.picture(sha256))
    picture = (route_html(route, title, picture_href=href) if html
               else route_svg(route, picture_href=href))
    try:
        target.write_text(picture, encoding="utf-8")
    except OSError as error:
        raise TrackerError(f"cannot write {target}: {error.strerror or error}") from None
    kind = "html" if html else "svg"
    if settings().json:
        render.emit_json({kind: str(target), "days": len(route["days"]),
                          "segments": len(route["segments"]), "marks": len(route["marks"])})
    else:
        render.console.print(f"Wrote the route map of {route['campaign']} to {target}.",
                             markup=False)


@map_group.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--to", "out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The Trek TOML map file to write.")
@click.option("--ruleset", type=NO_RULESETS, show_default=True,
              help="The ruleset whose terrain words the map uses.")
@click.option("--battle", is_flag=True,
              help="Write a battle map (for `encounter start --map`) instead of an overland "
                   "map (for `init --map`).")
@click.option("--grid", type=click.Choice(["hex", "square"]),
              help="Text Mapper only: hexes (the default) or squares.")
@click.option("--terrain", "terrains", type=WordTerrain(), multiple=True,
              help="What one of the file's words is in Trek, e.g. woods=difficult "
                   "(repeatable).")
@click.option("--force", is_flag=True, help="Replace the --to file if it exists.")
@store_options
def map_import(file: Path, out: Path, ruleset: str, battle: bool, grid: Grid | None,
               terrains: tuple[tuple[str, str], ...], force: bool) -> None:
    """Convert a map from Tiled (.tmx, .tmj, .json), Text Mapper (.txt, .textmapper) or
    Universal VTT (.dd2vtt, .df2vtt, .uvtt) into a Trek TOML map, and say what was read and
    what was ignored.

    Each word of the file (a Tiled tile's terrain property, class, property set true or
    terrain from its terrain set; a Text Mapper type) becomes a terrain the ruleset's map
    allows; the word stays the legend entry's name. Words Trek cannot place are all asked for
    at once. Nothing is recorded.
    """
    from cli import mapimport

    imported = mapimport.import_file(file, ruleset, battle=battle, terrains=terrains,
                                     grid=grid)
    picture = mapimport.imported_picture(file, imported)
    report = {**imported.report, "wrote": str(out)}
    if picture is None:
        mapimport.write_map(out, imported.toml, force=force)
    else:
        report["picture"] = str(mapimport.write_map_and_picture(out, imported.toml, picture,
                                                                force=force))
    if settings().json:
        render.emit_json(report)
    else:
        mapimport.show_report(report)


# -- the roster -------------------------------------------------------------------------------


@trek.group()
def roster() -> None:
    """Characters, mounts and vehicles, and who travels on what."""


@roster.command("add-character")
@click.argument("name")
@character_options
@click.option("--health-max", type=int,
              help="Maximum Health (left out: the ruleset works it out from the stats).")
@click.option("--energy-max", type=int,
              help="Maximum Energy (left out: the ruleset works it out from the stats).")
@recording_options
def add_character(name: str, **given: Any) -> None:
    """Add a character to the party (each ruleset's stat options are listed below)."""
    from domain.commands.roster import AddCharacter

    record(AddCharacter(character_from(name, given)))


# The --move help of a mount and a vehicle; each ruleset's way of giving it is added on mounting.
MOVE_HELP = "How it moves, as the campaign's ruleset takes it"


@roster.command("add-mount")
@click.argument("name")
@click.option("--move", type=KeyValue(), help=MOVE_HELP)
@click.option("--rider", help="The character riding it.")
@recording_options
def add_mount(name: str, move: tuple[str, int] | None, rider: str | None) -> None:
    """Add a mount to the party."""
    from domain.commands.roster import AddMount

    record(AddMount(name, move, rider))


@roster.command("add-vehicle")
@click.argument("name")
@click.option("--move", type=KeyValue(), help=MOVE_HELP)
@click.option("--driver", help="The character driving it.")
@click.option("--passenger", "passengers", multiple=True, help="A passenger (repeatable).")
@recording_options
def add_vehicle(name: str, move: tuple[str, int] | None, driver: str | None,
                passengers: tuple[str, ...]) -> None:
    """Add a vehicle to the party."""
    from domain.commands.roster import AddVehicle

    record(AddVehicle(name, move, driver, tuple(passengers)))


@roster.command()
@click.argument("character")
@click.option("--to", "conveyance", required=True, help="The mount or vehicle.")
@click.option("--as", "role", type=click.Choice(["rider", "driver", "passenger"]),
              required=True, help="Rider of a mount; driver or passenger of a vehicle.")
@recording_options
def assign(character: str, conveyance: str, role: str) -> None:
    """Put a character on a mount or in a vehicle."""
    from domain.commands.roster import Assign
    from domain.state import Role

    record(Assign(character, conveyance, Role(role)))


@roster.command()
@click.argument("character")
@recording_options
def dismount(character: str) -> None:
    """Take a character off its mount or vehicle; it goes on foot."""
    from domain.commands.roster import Dismount

    record(Dismount(character))


@roster.command()
@click.argument("name")
@party_option
@recording_options
def leave(name: str) -> None:
    """Leave a character, mount or vehicle behind where the party stands now."""
    from domain.commands.roster import Leave

    record(Leave(name))


@roster.command()
@click.argument("name")
@party_option
@recording_options
def rejoin(name: str) -> None:
    """Take a member back into the party; only on the square it was left on."""
    from domain.commands.roster import Rejoin

    record(Rejoin(name))


# -- supplies and harm ------------------------------------------------------------------------


@trek.command()
@click.argument("character")
@click.option("--health", type=Whole(0, MAX_POINTS, what="the Health taken"), default=0,
              help="Health to take away.")
@click.option("--energy", type=Whole(0, MAX_POINTS, what="the Energy taken"), default=0,
              help="Energy to take away.")
@click.option("--reason", help="Why, for the log.")
@recording_options
def harm(character: str, health: int, energy: int, reason: str | None) -> None:
    """Take Health and/or Energy from a character (never below 0)."""
    from domain.commands.roster import Harm

    record(Harm(character, health, energy, reason))


@trek.group()
def rules() -> None:
    """House rules of the campaign."""


@rules.command("show")
@store_options
@reads(_rules_show)
def rules_show() -> None:
    """Show the campaign's house rules."""
    from cli.reads import RulesShow

    values = RulesShow().answer(open_store(writes=False), settings().campaign)
    if settings().json:
        render.emit_json(values)
        return
    for key, value in values.items():
        render.console.print(f"{key} = {value}", markup=False)


@rules.command("set")
@click.argument("setting", type=KeyValue())
@recording_options
def rules_set(setting: tuple[str, int]) -> None:
    """Change a house rule, KEY=VALUE (recorded as an event)."""
    from domain.commands.roster import SetRule

    key, value = setting
    record(SetRule(key, value))


# -- the day ----------------------------------------------------------------------------------


# -- reading ----------------------------------------------------------------------------------

def show_status(as_of: Point | None, document: Mapping[str, Any] | None = None,
                party: str | None = None) -> None:
    """`trek status`: the given document (a kept one, read without the tracker), else the
    campaign's status worked out by the tracker, as JSON or a table."""
    if document is None:
        from cli.reads import Status

        document = Status(as_of, party).answer(open_store(writes=False), settings().campaign)
    if settings().json:
        render.emit_json(document)
    else:
        render.print_status(document)


# -- history ----------------------------------------------------------------------------------


@trek.command()
@click.argument("a", type=PointType(with_campaign=True))
@click.argument("b", type=PointType(with_campaign=True), default="now")
@store_options
@reads(_diff)
def diff(a: Point, b: Point) -> None:
    """What changed between two points: position, supplies, levels, states, Health/Energy.

    A and B are each SEQ (right after that event), day:N (the end of day N) or now (B's
    default). Put SLUG@ before a point to read it from another campaign in the store, e.g. to
    compare a branch with its original: `trek diff ashes-road@now what-if@now`.
    """
    from cli.reads import Diff

    result = Diff(a, b).answer(open_store(writes=False), settings().campaign)
    if settings().json:
        render.emit_json(result)
    else:
        render.print_diff(result)


@trek.command()
@click.option("--session", type=EventNumber("the session number"), help="Only session N.")
@click.option("--csv", "as_csv", is_flag=True, help=CSV_HELP)
@store_options
@reads(_audit)
def audit(session: int | None, as_csv: bool) -> None:
    """Per play session: days, squares, every roll, supplies, the ruleset's own lines, undos.

    With --csv: one row per audit line, columns session, title, line (squares, miles, gained,
    spent, roll, undo, redo, or one of the ruleset's own), seq, day, subject, amount, roll,
    target, success, cancelled_by, gm, at, detail.
    """
    csv_or_json(as_csv)
    from cli.reads import Audit

    result = Audit(session).answer(open_store(writes=False), settings().campaign)
    if as_csv:
        from cli import spreadsheet

        spreadsheet.write(spreadsheet.AUDIT_COLUMNS, spreadsheet.audit_rows(result))
    elif settings().json:
        render.emit_json(result)
    else:
        render.print_audit(result)


@trek.command()
@click.argument("name", metavar="NEW-SLUG")
@click.option("--at", "at", type=SEQ,
              help="Copy the history up to event SEQ (default: all of it).")
@store_recording_options
def branch(name: str, at: int | None) -> None:
    """Start a what-if campaign in this store whose history is this one's up to SEQ.

    The branch records where it came from; play a plan out there with --campaign NEW-SLUG (or
    make it the campaign plain commands use with `trek campaigns use NEW-SLUG`) and compare
    with `trek diff SLUG@now NEW-SLUG@now`. Rolls Trek makes in the branch come from the same
    seed, so the branch meets the same luck at the same event numbers.
    """
    previewing = settings().preview
    trek_app = open_store(preview=previewing)
    docs = trek_app.branch(settings().campaign, name, at)
    if settings().json or previewing:
        recorded(docs, lambda: trek_app.queries.ruleset_of(settings().campaign))
        return
    [started] = docs
    slug = started["slug"]
    render.print_branch(started, trek_app.queries.status(slug), trek_app.campaign_in_use(),
                        [c["slug"] for c in trek_app.campaigns()])


@trek.command()
@store_options
def verify() -> None:
    """Check each campaign's hash chain and name the first broken link, and compare its read
    models with the log as loading it gives (changes nothing; `replay --verify` compares every
    read model with a fold of the whole log)."""
    result = open_store(writes=False).verify(settings().campaign)
    if settings().json:
        render.emit_json(result)
    else:
        render.print_chain(result)
    broken = [r for r in result["campaigns"] if not r["intact"]]
    if broken:
        first = broken[0]
        raise TrackerError(f"the log of {first['campaign']} is damaged at event "
                           f"{first['broken_at']} ({first['problem']}); restore the store from "
                           "a backup, or take the log as it now stands with `trek replay "
                           "--accept-tampering`")
    pictured = [r for r in result["campaigns"] if r.get("pictures")]
    if pictured:
        first = pictured[0]
        raise TrackerError(f"{first['campaign']}: {first['pictures'][0]}; restore the store "
                           "from a backup")
    differing = [r for r in result["campaigns"] if r["read_models"]]
    if differing:
        first = differing[0]
        raise TrackerError(f"the read models of {first['campaign']} differ from its log "
                           f"({first['read_models'][0]}); `trek replay` rebuilds them")


@trek.group()
def session() -> None:
    """Play sessions: every event is stamped with the open one."""


@session.command("start")
@click.argument("title", required=False)
@recording_options
def session_start(title: str | None) -> None:
    """Open a play session."""
    from domain.commands.sessions import StartSession

    record(StartSession(title))


@session.command("end")
@recording_options
def session_end() -> None:
    """Close the open play session."""
    from domain.commands.sessions import EndSession

    record(EndSession())


@trek.command()
@click.option("--keep", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Play into a new SQLite store FILE and keep it (to open it with "
                   "`trek serve --db FILE` or any other command) instead of a temporary one.")
@store_options
def demo(keep: Path | None) -> None:
    """Play a short sample campaign into a temporary store and show its status and log."""
    demos = [line.demo for _, line in root().lines() if line.demo is not None]
    if not demos:
        raise TrackerError("no ruleset of this release has a sample campaign")
    if keep is not None and (keep.exists() or keep.is_symlink()):
        raise TrackerError(f"{keep} already exists; give --keep a file that does not, and the "
                           f"demo's store is made there")
    play = demos[0]
    with (tempfile.TemporaryDirectory(prefix="trek-demo-") as folder,
          root().open(str(keep or Path(folder) / "demo.db"), create=True,
                      gm="demo") as trek_app):
        play(trek_app)
        result = trek_app.queries.status(None)
        entries = trek_app.queries.log(None)
    if settings().json:
        render.emit_json({"status": result, "log": entries})
        return
    render.print_status(result)
    render.print_log(entries, result["ruleset"])


# The commands of this module `mounted` builds anew with the rulesets' parts.
EXTENDED = frozenset({"init", "map", "roster"})


def as_defined(root: Root, name: str) -> click.Command | None:
    """Command `name` of this module when it is found without loading the rulesets'
    command-line parts: one no ruleset extends and none adds a command of that name (read off
    the registry's entries, nothing loaded). None otherwise: the caller mounts them all
    (`mounted`)."""
    if name in EXTENDED or name in OWN_COMMANDS:
        return None
    if any(own == name for own, _ in root.command_summaries()):
        return None
    return trek.commands.get(name)


def mounted(root: Root) -> dict[str, click.Command]:
    """The commands of this module (as the group holds them) for `root`: those a ruleset
    extends built anew from its `CommandLine`, and each ruleset's own commands beside them (a
    campaign under another ruleset refuses them with a sentence)."""
    from cli.options import extended, regrouped

    lines = root.lines()
    commands = {name: command for name, command in trek.commands.items()
                if name not in OWN_COMMANDS}

    def rulesets_choice(param: click.Parameter) -> click.Parameter:
        made = copy.copy(param)
        made.type = click.Choice(root.names)
        made.default = root.names[0]
        return made

    commands["init"] = extended(init, changed={"ruleset": rulesets_choice})
    commands["map"] = regrouped(map_group, [
        extended(map_import, changed={"ruleset": rulesets_choice})])
    seen_options: set[str] = set()
    character: list[click.Option] = []
    moves: dict[str, list[str]] = {"mount": [], "vehicle": []}
    for _, options in root.options:
        for option in options.character:
            if option.name not in seen_options:
                assert option.name is not None
                seen_options.add(option.name)
                character.append(option)
    for ruleset_name, line in lines:
        for kind, words in (("mount", line.mount_move), ("vehicle", line.vehicle_move)):
            if words is not None:
                moves[kind].append(f"{ruleset_name}: {words}")
    commands["roster"] = regrouped(roster, [
        extended(add_character, character),
        extended(add_mount, changed={"move": _move_help(moves["mount"])}),
        extended(add_vehicle, changed={"move": _move_help(moves["vehicle"])})])
    seen: set[str] = set()
    for _, line in lines:
        for command in line.commands:
            if command.name is not None and command.name not in seen:
                seen.add(command.name)
                commands[command.name] = command
    return commands


def _move_help(offers: list[str]) -> Callable[[click.Parameter], click.Parameter]:
    """--move of a mount or a vehicle, with each ruleset's way of giving it in its help, as
    "RULESET: how"."""
    def change(param: click.Parameter) -> click.Parameter:
        made = copy.copy(param)
        assert isinstance(made, click.Option)
        made.help = f"{MOVE_HELP}" + (f" ({'; '.join(offers)})" if offers else "") + "."
        return made
    return change
