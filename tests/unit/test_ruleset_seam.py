"""A ruleset is one package plus one registry line, and the core speaks none of their words.

The first test reads the product's import graph: no shared module imports a ruleset's
package or names one. The others play a small ruleset defined here, which no product module
knows, through the real application and a real SQLite store: it is given to `Trek.open` in a
registry, exactly as the composition root gives the five shipped ones, and everything a ruleset
package brings (its stat option, its event, its own state, its re-decision for undo) works.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import json
import os
from collections.abc import Iterator
from functools import singledispatchmethod
from pathlib import Path
from typing import Any, ClassVar

import click
import httpx
import pytest
from click.testing import CliRunner, Result
from pydantic import BaseModel
from rulesets import RULESETS

from cli.bootstrap import Root, bootstrap
from cli.main import trek
from cli.options import Settings
from cli.registry import ENTRIES, Entry
from cli.ruleset_line import CommandLine
from cli.ruleset_options import RulesetOptions
from cli.shell import Shell
from cli.web.app import ServeConfig, create_app
from domain.battlemap import LegendSpec
from domain.commands.days import StartDay
from domain.commands.encounter import (
    EndEncounter,
    EnterCombatant,
    MoveCombatant,
    StartEncounter,
    StartRound,
)
from domain.commands.history import Undo
from domain.commands.roster import AddCharacter
from domain.dice import Dice
from domain.encounter import (
    ENCOUNTER_EVENTS,
    CombatantChanged,
    RoundStarted,
    open_encounter,
)
from domain.encounter_changes import EVENTS as ENCOUNTER_CHANGES
from domain.errors import NotOffered, RuleViolation
from domain.events import CORE_EVENTS, TrekEvent
from domain.geometry import DIRECTIONS, Square
from domain.grid import SQUARES
from domain.options import CharacterOptions
from domain.partial import WithoutOverland
from domain.ruleset import (
    Command,
    Decision,
    NoHouseRules,
    NothingOnEntry,
    Registry,
    Situation,
    not_offered,
)
from domain.state import Character, Combatant, Side
from tracker.app import Trek

ROOT = Path(__file__).resolve().parents[2]

def shared_modules() -> list[Path]:
    """Every product module but the registry and the files named after a ruleset."""
    names = RULESETS.names
    found = []
    for package in ("tracker", "domain", "projections", "cli"):
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if relative == Path("cli/registry.py"):
                continue
            if any(part == name or part.startswith((f"{name}.", f"{name}_"))
                   for part in relative.parts for name in names):
                continue
            found.append(path)
    return found


def imported_modules(tree: ast.Module, package: str) -> Iterator[tuple[int, str]]:
    """Each module an AST imports (at the top or inside a function), by line, absolute."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            yield node.lineno, base
            # `from cli import besm` imports the module cli.besm.
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def test_no_shared_module_imports_or_names_a_ruleset() -> None:
    """The seam, read off the import graph: no shared module imports a ruleset's package or
    command-line module (directly, lazily, or as a string handed to importlib), and none
    compares anything with a ruleset's name. Only the registry names them."""
    modules = shared_modules()
    assert len(modules) > 40  # the walk found the product, not an empty folder
    # Each ruleset's package and its command-line modules (named after it, as the registry's
    # loaders import them: `cli.besm`, `cli.besm_lines`).
    packages = [name for entry in ENTRIES for name in (entry.package, f"cli.{entry.name}")]
    names = set(RULESETS.names)

    def a_ruleset(module: str) -> bool:
        return any(module == p or module.startswith((p + ".", p + "_")) for p in packages)

    offending = []
    for path in modules:
        relative = path.relative_to(ROOT)
        package = ".".join(relative.with_suffix("").parts[:-1])
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, module in imported_modules(tree, package):
            if a_ruleset(module):
                offending.append(f"{relative}:{line} imports {module}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                    node.value.lower() in names or a_ruleset(node.value)):
                offending.append(f"{relative}:{node.lineno} names {node.value!r}")
    assert offending == []


def test_only_the_composition_root_reads_the_registrys_entries() -> None:
    """`cli/bootstrap.py` is handed the registry's entries (by default) and builds the registry
    from them; no other product module imports `cli/registry.py` (tests/unit/test_structure.py
    checks that `bootstrap` alone calls its builder)."""
    reads = set()
    for package in ("tracker", "domain", "projections", "cli"):
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for _, module in imported_modules(tree, ".".join(Path(relative).parts[:-1])):
                if module == "cli.registry" or module.startswith("cli.registry."):
                    reads.add(relative)
    assert reads == {"cli/bootstrap.py"}


def test_each_entry_names_the_shared_event_lines_its_command_line_words() -> None:
    """A shared event's log line loads a ruleset's command-line part only where the entry
    says that part words it (`Entry.rewords`): the entry must say so for every one it does,
    and for no other."""
    from cli.render import _SUMMARIES

    reworded = {entry.name: set(entry.command_line().summaries) & set(_SUMMARIES)
                for entry in ENTRIES if entry.command_line is not None}
    assert reworded == {entry.name: set(entry.rewords) for entry in ENTRIES
                        if entry.command_line is not None}
    assert reworded["movepoints"] == {"CombatantEntered"}  # the check has something to find


def test_an_entrys_own_log_lines_are_its_command_lines() -> None:
    """Where an entry keeps its events' log lines apart (`Entry.log_lines`), they are the very
    lines its command line words (`CommandLine.summaries`), so the log reads the same whichever
    is loaded first."""
    apart = {entry.name: entry for entry in ENTRIES if entry.log_lines is not None}
    assert set(apart) == {entry.name for entry in ENTRIES}  # every ruleset: a move's line
    for entry in apart.values():
        assert entry.log_lines is not None
        assert entry.command_line is not None
        assert entry.log_lines() is entry.command_line().summaries, entry.name


def test_a_recorded_moves_line_is_the_same_from_either_part(tmp_path: Path) -> None:
    """A BESM move's line, worded before and after the ruleset's commands are loaded, reads as
    its rules say: from 0,0 two squares east, two squares spent."""
    from cli import bootstrap
    from cli.render import summary

    doc = {"type": "Moved", "path": [[0, 0], [1, 0], [2, 0]], "cost": 2}
    root = bootstrap.bootstrap(str(tmp_path / "store.db"))
    serving = list(bootstrap._SERVING)
    try:
        bootstrap.use(root)
        first = summary(doc, "besm")
        assert root.line("besm") is not None
        assert summary(doc, "besm") == first == "moved 0,0 → 2,0 (2 square(s))"
    finally:
        bootstrap._SERVING[:] = serving


def test_a_ruleset_words_its_own_line_of_a_shared_event() -> None:
    """Move-points words a combatant's entry itself (the progress others lose to it), and
    the log says it that way; a BESM entry gets the shared words."""
    from cli.render import summary

    doc = {"type": "CombatantEntered", "name": "Gus", "side": "party", "at": {"x": 2, "y": 3},
           "broken": [{"name": "Orc", "to": {"x": 1, "y": 1}}]}
    assert summary(doc, "besm") == "Gus (party) enters at 2,3"
    assert summary(doc, "movepoints") == ("Gus (party) enters at 2,3; Orc loses progress "
                                          "toward 1,1")


def test_the_structural_check_finds_a_ruleset_imported_anywhere() -> None:
    """The check above reads lazy and relative imports and importlib strings alike."""
    source = (
        "import importlib\n"
        "def f():\n"
        "    from domain.besm import rules\n"
        "    from ..gurps.movement import HexRules\n"
        "    importlib.import_module('cli.cypher')\n"
        "    return ruleset == 'Shadowrun'\n"
    )
    tree = ast.parse(source)
    found = {module for _, module in imported_modules(tree, "domain.x")}
    assert {"domain.besm", "domain.gurps.movement"} <= found
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
    assert {"cli.cypher", "Shadowrun"} <= strings


# -- a ruleset the product has never heard of --------------------------------------------------


class Strode(CombatantChanged):
    """Stride: a combatant walked `path`, one stride a square."""

    moves: ClassVar[bool] = True


class Stride(WithoutOverland, NothingOnEntry):
    """Each round a combatant walks up to its stride in squares, in as many moves as it likes."""

    name = "stride"
    commands: frozenset[type[Command]] = frozenset()
    events: tuple[type[TrekEvent], ...] = (Strode,)
    character_options: frozenset[str] = frozenset({"stride"})
    audit_sections: tuple[str, ...] = ()
    house_rules: type[BaseModel] = NoHouseRules
    grid = "square"
    encounters = True
    move_options: frozenset[str] = frozenset()
    battle_legend = LegendSpec(words=frozenset({"open"}))
    default_facing: str | None = None

    def character(self, situation: Situation, options: CharacterOptions) -> dict[str, Any]:
        stride = options.extra.get("stride")
        if not isinstance(stride, int) or not 1 <= stride <= 9:
            raise RuleViolation(f"stride is 1 to 9 for a stride character, not {stride}")
        return {"stats": {"stride": stride}, "health_max": 10, "energy_max": 10}

    def enter(self, situation: Situation, command: EnterCombatant,
              character: Character | None) -> tuple[dict[str, Any], dict[str, Any]]:
        if character is None:
            options = command.options or CharacterOptions(name=command.name)
            return dict(self.character(situation, options)["stats"]), {"walked": 0}
        return {}, {"walked": 0}

    def _stride(self, situation: Situation, combatant: Combatant) -> int:
        if combatant.from_roster:
            return int(situation.game.characters[combatant.name].stats["stride"])
        return int(combatant.stats["stride"])

    def start_round(self, situation: Situation, command: StartRound) -> Decision:
        encounter = open_encounter(situation.game)
        return RoundStarted(number=encounter.round + 1,
                            states={name: {"walked": 0} for name in encounter.combatants})

    def move_combatant(self, situation: Situation, command: MoveCombatant) -> Decision:
        encounter = open_encounter(situation.game)
        mover = encounter.combatant(command.name)
        walked = int(mover.state["walked"]) + len(command.steps)
        if walked > self._stride(situation, mover):
            raise RuleViolation(f"{mover.name} strides {self._stride(situation, mover)} "
                                f"squares a round and has walked {mover.state['walked']}")
        path = [mover.at]
        for direction in command.steps:
            path.append(SQUARES.step(path[-1], direction))
        return Strode(name=mover.name, path=path, state={"walked": walked})

    def combatant_status(self, situation: Situation, combatant: Combatant) -> dict[str, Any]:
        walked = int(combatant.state["walked"])
        return {"moved": walked, "remaining": self._stride(situation, combatant) - walked}

    def encounter_fields(self, situation: Situation) -> dict[str, Any]:
        return {}

    @singledispatchmethod
    def decide(self, command: Command, situation: Situation, dice: Dice) -> Decision:
        raise not_offered(self.name, command.what)

    def redecide(self, situation: Situation, event: TrekEvent) -> Decision | None:
        if isinstance(event, RoundStarted):
            return self.start_round(situation, StartRound())
        if isinstance(event, Strode):
            steps = tuple(direction(a, b) for a, b in zip(event.path, event.path[1:],
                                                            strict=False))
            return self.move_combatant(situation, MoveCombatant(name=event.name, steps=steps))
        return None


def direction(a: Square, b: Square) -> str:
    return next(d for d, (dx, dy) in DIRECTIONS.items() if (a.x + dx, a.y + dy) == (b.x, b.y))


PLAYED = Registry(shared=CORE_EVENTS + ENCOUNTER_EVENTS + ENCOUNTER_CHANGES,
                  rulesets=[*RULESETS, Stride()])


@pytest.fixture
def store(tmp_path: Path) -> str:
    return str(tmp_path / "stride.db")


def play(db: str) -> None:
    with Trek.open(db, rulesets=PLAYED, create=True, gm="gm") as trek:
        trek.init("Stride Test", ruleset="stride", seed=1)
        trek.handle(None, AddCharacter(CharacterOptions(name="Kira", extra={"stride": 2})))
        trek.handle(None, StartEncounter("Scuffle", None))
        trek.handle(None, EnterCombatant(name="Kira", at=Square(0, 0)))
        trek.handle(None, EnterCombatant(
            name="Rat", at=Square(5, 0), side=Side.ENEMY, from_roster=False,
            options=CharacterOptions(name="Rat", extra={"stride": 1})))
        trek.handle(None, StartRound())
        trek.handle(None, MoveCombatant(name="Kira", steps=("E",)))
        trek.handle(None, MoveCombatant(name="Kira", steps=("SE",)))


def test_a_new_ruleset_plays_through_the_application_and_its_store(store: str) -> None:
    play(store)

    # Read back in a new process's way: a fresh application over the same file.
    with Trek.open(store, rulesets=PLAYED) as trek:
        status = trek.queries.status(None)
        assert status["ruleset"] == "stride"
        kira = status["encounter"]["combatants"]["Kira"]
        # Two strides from 0,0: east to 1,0, then south-east to 2,1; Kira's stride is 2.
        assert (kira["position"], kira["moved"], kira["remaining"]) == ({"x": 2, "y": 1}, 2, 0)
        assert status["encounter"]["combatants"]["Rat"]["remaining"] == 1
        assert status["characters"]["Kira"]["health_max"] == 10
        assert [e["type"] for e in trek.queries.log(None)][-2:] == ["Strode", "Strode"]


def test_a_new_rulesets_own_refusals_record_nothing(store: str) -> None:
    play(store)
    with Trek.open(store, rulesets=PLAYED) as trek:
        before = trek.queries.status(None)["events"]
        with pytest.raises(RuleViolation, match="strides 2 squares a round"):
            trek.handle(None, MoveCombatant(name="Kira", steps=("E",)))
        with pytest.raises(NotOffered, match="--basic-move is another ruleset's option"):
            trek.handle(None, AddCharacter(CharacterOptions(name="Oren", extra={"basic_move": 5})))
        trek.handle(None, EndEncounter())
        with pytest.raises(NotOffered, match="no overland rules"):
            trek.handle(None, StartDay())
        before += 1
        assert trek.queries.status(None)["events"] == before


def test_undo_redecides_a_new_rulesets_events(store: str) -> None:
    play(store)
    with Trek.open(store, rulesets=PLAYED) as trek:
        # Undo the first stride with --cascade: the second one started from 1,0 and is
        # re-decided from 0,0, where its recorded path no longer begins, so it goes too.
        seq = next(e["seq"] for e in trek.queries.log(None) if e["type"] == "Strode")
        trek.handle(None, Undo(seq, cascade=True, reason="wrong square"))
        kira = trek.queries.status(None)["encounter"]["combatants"]["Kira"]
        assert (kira["position"], kira["moved"]) == ({"x": 0, "y": 0}, 0)
        trek.replay()
        assert trek.queries.status(None)["encounter"]["combatants"]["Kira"]["moved"] == 0


# -- the same ruleset through every front-end, handed to the composition root ----------------


def stride_rules() -> Stride:
    return Stride()


@click.command("stride-chart")
def stride_chart() -> None:
    """How far a character of each stride walks in a round."""
    click.echo(", ".join(f"stride {n}: {n} squares" for n in range(1, 4)))


def stride_line() -> CommandLine:
    """Stride's part of the front-ends: its event's line, the word its own refusals open
    with, and a command of its own."""
    return CommandLine(
        title="Stride",
        summaries={"Strode": lambda d: f"{d['name']} strides {len(d['path']) - 1} square(s)"},
        opening_words=frozenset({"stride"}),
        commands=[stride_chart],
    )


def stride_options() -> RulesetOptions:
    """Its stat option, on `roster add-character` and `encounter add`."""
    return RulesetOptions(character=[click.Option(["--stride"], type=int,
                                                  help="Squares a round (1 to 9).")])


STRIDE = Entry("stride", __name__, stride_rules, stride_line,
               commands=(("stride-chart", "How far a character of each stride walks in a "
                                          "round."),), options=stride_options)


@pytest.fixture
def stride_root() -> Root:
    """A program that plays the shipped rulesets and Stride: nothing shared was edited."""
    return bootstrap(rulesets=[*ENTRIES, STRIDE])


def cli(root: Root, folder: Path, db: str, *args: str) -> Result:
    env = {k: None for k in os.environ if k.startswith("TREK_")}
    env.update(COLUMNS="200", TREK_GM="gm", TREK_DB=db)
    with contextlib.chdir(folder):
        return CliRunner().invoke(trek, list(args), env=env, prog_name="trek",
                                  obj=Settings(root=root))


def test_a_ruleset_handed_to_the_root_plugs_into_the_command_line(
        stride_root: Root, tmp_path: Path) -> None:
    db = str(tmp_path / "stride.db")
    # The shipped program does not know it: `--ruleset` offers the registry's entries only.
    refused = cli(bootstrap(), tmp_path, db, "init", "Stride Test", "--ruleset", "stride")
    assert refused.exit_code == 2
    assert "'stride' is not one of" in refused.stderr
    for args in (("init", "Stride Test", "--ruleset", "stride", "--seed", "1"),
                 ("roster", "add-character", "Kira", "--stride", "2"),
                 ("encounter", "start", "Scuffle"),
                 ("encounter", "join", "Kira", "--at", "0,0"),
                 ("encounter", "add", "Rat", "--side", "enemy", "--at", "5,0", "--stride", "1"),
                 ("encounter", "round"),
                 ("encounter", "move", "Kira", "E")):
        result = cli(stride_root, tmp_path, db, *args)
        assert result.exit_code == 0, (args, result.output, result.stderr)
    # Its event is worded by its own line; its refusal opens with its own word, capitalised.
    log = cli(stride_root, tmp_path, db, "log")
    assert "Kira strides 1 square(s)" in log.stdout
    bad = cli(stride_root, tmp_path, db, "roster", "add-character", "Oren", "--stride", "12")
    assert (bad.exit_code, bad.stderr.strip()) == (
        1, "Error: Stride is 1 to 9 for a stride character, not 12.")
    # Its own command, listed by `trek --help` from its entry.
    assert cli(stride_root, tmp_path, db, "stride-chart").stdout.startswith("stride 1: 1 sq")
    assert "stride-chart" in cli(stride_root, tmp_path, db, "--help").stdout
    assert "--stride" in cli(stride_root, tmp_path, db, "encounter", "add", "--help").stdout
    status = json.loads(cli(stride_root, tmp_path, db, "status", "--json").stdout)
    kira = status["encounter"]["combatants"]["Kira"]
    assert (kira["position"], kira["moved"], kira["remaining"]) == ({"x": 1, "y": 0}, 1, 1)


def test_a_ruleset_handed_to_the_root_plugs_into_the_shell(
        stride_root: Root, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "stride.db")
    with contextlib.chdir(tmp_path), \
            Shell(Settings(db=db, gm="gm", explicit={"db", "gm"}, root=stride_root)) as shell:
        codes = [shell.run_line(line) for line in (
            "init 'Stride Test' --ruleset stride --seed 1",
            "roster add-character Kira --stride 2",
            "encounter start Scuffle",
            "encounter join Kira --at 0,0",
            "encounter round",
            "encounter move Kira E SE",
            "log --no-pager",
            "roster add-character Oren --stride 10")]
    out = capsys.readouterr()
    assert codes == [0, 0, 0, 0, 0, 0, 0, 1]
    assert "Kira strides 2 square(s)" in out.out
    assert "Error: Stride is 1 to 9 for a stride character, not 10." in out.err


def test_a_ruleset_handed_to_the_root_plugs_into_the_server(
        stride_root: Root, tmp_path: Path) -> None:
    db = str(tmp_path / "stride.db")
    play(db)
    app = create_app(ServeConfig(db=db, campaign="stride-test", gm_key="g" * 20,
                                 player_key="p" * 20), stride_root)
    assert app.state.root is stride_root
    # The root's queries read the server's store, played with the rulesets it was handed.
    assert stride_root.queries.status("stride-test")["ruleset"] == "stride"
    gm = {"Authorization": "Bearer " + "g" * 20}

    async def ask() -> tuple[httpx.Response, httpx.Response, httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://trek") as client:
            moved = await client.post("/api/campaigns/stride-test/commands", headers=gm,
                                      json={"argv": ["encounter", "round"]})
            assert moved.status_code == 200, moved.text
            moved = await client.post("/api/campaigns/stride-test/commands", headers=gm,
                                      json={"argv": ["encounter", "move", "Rat", "W"]})
            log = await client.get("/api/campaigns/stride-test/log", headers=gm)
            page = await client.get("/", params={"key": "g" * 20})
            return moved, log, page

    moved, log, page = asyncio.run(ask())
    assert moved.status_code == 200, moved.text
    assert moved.json()[0]["type"] == "Strode"
    assert [e["type"] for e in log.json()][-1] == "Strode"
    # The GM's page words the log in the ruleset's own lines.
    assert page.status_code == 200
    assert "Rat strides 1 square(s)" in page.text
    assert "Kira strides 1 square(s)" in page.text
    stride_root.close()
