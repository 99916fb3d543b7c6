"""A long, realistic BESM campaign on the Ashen Reach, played through the application layer.

The same day-by-day plan drives two players:

* `AppPlayer` calls one Trek use case per command, exactly as `trek` on the command line does
  (a load, a decision, a save, a catch-up each time). The small campaign is played this way.
* `MemoryPlayer` keeps one Campaign aggregate in memory, calls the same aggregate methods the
  use cases call, and saves the new events in batches through `Trek._save`, cutting a batch at
  every version the application snapshots. Read models are caught up from the log as the
  application does. The large campaign is played this way, for build speed.

Days are made of moves along the map's open top row, forages, forced marches (now and then one
that strains a mount, repaired the next day), night travel, harm, supplies, sessions, undos
of a wrong move (a fifth of them taken back with redo), and now and then an ambush: an encounter
on a small battle map, both riders joining, two raiders added, two to four rounds of moves (a
hit taken on the way, sometimes a raider fleeing), and the encounter ended before the day goes
on.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import tracker.app
from cli.bootstrap import bootstrap
from domain.besm.commands import Forage, ForcedMarch, Repair, TravelByNight
from domain.besm.state import remaining
from domain.campaign import Campaign, Stamp
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.encounter import (
    EndEncounter,
    EnterCombatant,
    MoveCombatant,
    RemoveCombatant,
    StartEncounter,
    StartRound,
)
from domain.commands.history import Redo, Undo
from domain.commands.roster import AddCharacter, AddMount, Harm
from domain.commands.sessions import EndSession, StartSession
from domain.commands.supplies import AddSupplies, SetSupplies
from domain.commands.travel import Move, MoveOptions
from domain.events import TrekEvent
from domain.geometry import Square
from domain.options import CharacterOptions
from domain.ruleset import Command as RulesetCommand
from domain.state import Game, Side
from tracker.app import Trek
from tracker.mapformats.tomlfile import load_battle_map

RULESETS = bootstrap().registry

ROOT = Path(__file__).resolve().parents[1]
MAP_TEXT = (ROOT / "docs" / "examples" / "ashen-reach.toml").read_text(encoding="utf-8")
NAME = "Long Road"
GM = "bench"
START = datetime(2024, 1, 1, 18, 0, tzinfo=UTC)
# The early event `undo_old` cancels: `supplies add wealth=1`; nothing later spends or forages
# wealth, so cancelling it is always legal and every later event is re-checked.
UNDO_OLD_TARGET = 7
SAVE_BATCH = 1000
# The battle map of every ambush: four open lanes, ten cells long. The riders start on the west
# edge (lanes 0 and 3), the raiders on the east edge (lanes 1 and 2); each keeps to its lane, so
# no two ever meet in a cell, and four rounds of at most two steps never leave the map.
ARENA = """\
[map]
name = "Ravine Road"
rows = [
  "..........",
  "..........",
  "..........",
  "..........",
]

[legend]
"." = { terrain = "open" }
"""
ARENA_MAP = load_battle_map(ARENA, RULESETS.named("besm").battle_legend)
FIGHTERS = (("Kira", 0, 0, "E"), ("Raider", 9, 1, "W"), ("Brute", 9, 2, "W"),
            ("Oren", 0, 3, "E"))
AMBUSH_CHANCE = 0.06


@dataclass(frozen=True)
class Command:
    kind: str
    args: dict[str, Any] = field(default_factory=dict)


def setup(trek: Trek) -> None:
    """Events 1 to 8: the campaign, two riders on two mounts, supplies and a session."""
    trek.init(NAME, map_text=MAP_TEXT, at=Square(1, 0), seed=42)
    trek.handle(None, AddCharacter(CharacterOptions(
        name="Kira", extra={"body": 6, "mind": 5, "soul": 4},
        skills={"ride": 2, "navigation": 2, "survival": 1})))
    trek.handle(None, AddCharacter(CharacterOptions(
        name="Oren", extra={"body": 5, "mind": 6, "soul": 5},
        skills={"medicine": 2, "survival": 2})))
    trek.handle(None, AddMount("Dusty", ("ground-speed", 1), "Kira"))
    trek.handle(None, AddMount("Bramble", ("ground-speed", 1), "Oren"))
    trek.handle(None, SetSupplies({"provisions": 6, "ammo": 2}))
    trek.handle(None, AddSupplies({"wealth": 1}))  # event 7: UNDO_OLD_TARGET
    trek.handle(None, StartSession("session 1"))


def plan(rng: random.Random, game: Callable[[], Game]) -> Iterator[Command]:
    """Commands one after another; `game()` is read between them, so each one is legal."""
    heading = 1
    day = 0
    session = 1
    while True:
        day += 1
        if day % 12 == 0:
            session += 1
            yield Command("session end")
            yield Command("session start", {"title": f"session {session}"})
        yield Command("day start")
        damaged = [c for c in game().conveyances.values()
                   if c.usable and c.level < c.base_level]
        if damaged:
            # A repair takes the whole day.
            yield Command("repair", {"conveyance": damaged[0].name, "roll": rng.randint(2, 6)})
            yield Command("day end", {"hours": 8})
            continue
        if rng.random() < AMBUSH_CHANCE:
            yield from ambush(rng, day)
        current = game()
        if rng.random() < 0.35 and current.supplies["provisions"] >= 2:
            fresh = all(c.level == c.base_level for c in current.conveyances.values())
            strain = fresh and rng.random() < 0.25
            yield Command("forced march", {"rolls": {"Kira": 12 if strain else 4, "Oren": 4}})
        night = False
        while True:
            current = game()
            if remaining(current) <= 0:
                if night or rng.random() >= 0.3:
                    break
                night = True
                yield Command("night travel", {"roll": rng.randint(3, 8)})
                continue
            roll = rng.random()
            if roll < 0.12:
                yield Command("forage", {"roll": rng.randint(3, 7)})
            elif roll < 0.2:
                yield Command("harm", {"health": rng.randint(0, 3), "energy": rng.randint(1, 4)})
            elif roll < 0.24:
                yield Command("supplies add", {"amounts": {rng.choice(["provisions", "ammo"]): 1}})
            else:
                x = current.position.x
                if not 0 <= x + heading <= 9:
                    heading = -heading
                room = 9 - x if heading > 0 else x
                steps = min(remaining(current), room, rng.choice((1, 1, 2)))
                yield Command("move", {"steps": ("E" if heading > 0 else "W",) * steps})
                if rng.random() < 0.05:
                    yield Command("undo", {"reason": "wrong fork"})
                    if rng.random() < 0.2:
                        yield Command("redo")
        yield Command("day end", {"hours": rng.choice((8, 8, 8, 6))})


def ambush(rng: random.Random, day: int) -> Iterator[Command]:
    """An encounter from start to end: 1 + 4 + rounds x (1 + 4 moves) + 1 events, give or take
    a hit taken and a raider fleeing."""
    yield Command("encounter start", {"name": f"Ambush on day {day}"})
    for name, x, y, _ in FIGHTERS:
        yield Command("encounter enter", {"name": name, "x": x, "y": y})
    fled = False
    for _ in range(rng.randint(2, 4)):
        yield Command("encounter round")
        for name, _, _, heading in FIGHTERS:
            if not (fled and name == "Brute"):
                yield Command("encounter move",
                              {"name": name, "steps": (heading,) * rng.choice((1, 1, 2))})
        if rng.random() < 0.3:
            yield Command("harm", {"health": rng.randint(1, 2), "energy": 0})
        if not fled and rng.random() < 0.15:
            fled = True
            yield Command("encounter remove", {"name": "Brute"})
    yield Command("encounter end")


class Clock:
    """A minute of table time per event, so timestamps are realistic and reproducible."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now


class AppPlayer:
    """Each command is one Trek use case, as one `trek` command line would run it."""

    def __init__(self, trek: Trek) -> None:
        self.trek = trek
        self.undone = 0

    def game(self) -> Game:
        return self.trek._load(self.trek.resolve(None)).game

    def version(self) -> int:
        return self.trek._load(self.trek.resolve(None)).version

    def play(self, command: Command) -> None:
        t, a = self.trek, command.args
        if command.kind == "undo":
            self.undone = int(t.handle(None, Undo(reason=a.get("reason")))[0]["cancels"][0])
        elif command.kind == "redo":
            t.handle(None, Redo(self.undone))
        else:
            ACTIONS[command.kind](_AppTarget(t), a)

    def finish(self) -> None:
        self.trek.catch_up()


class _AppTarget:
    """The application as `ACTIONS` addresses a campaign: one `handle`, the current campaign."""

    def __init__(self, trek: Trek) -> None:
        self.trek = trek

    def handle(self, command: RulesetCommand) -> Any:
        return self.trek.handle(None, command)


def _enter(target: Any, a: dict[str, Any]) -> Any:
    """`encounter join` for a rider, `encounter add` for a raider."""
    at = Square(a["x"], a["y"])
    if a["name"] in ("Kira", "Oren"):
        return target.handle(EnterCombatant(name=a["name"], at=at))
    return target.handle(EnterCombatant(
        name=a["name"], at=at, side=Side.ENEMY, from_roster=False,
        options=CharacterOptions(name=a["name"], extra={"body": 5, "mind": 3, "soul": 3})))


# One table for both players: the aggregate and the application both take commands.
ACTIONS: dict[str, Callable[[Any, dict[str, Any]], Any]] = {
    "day start": lambda c, a: c.handle(StartDay()),
    "day end": lambda c, a: c.handle(EndDay(DayEndOptions(hours=a["hours"]))),
    "move": lambda c, a: c.handle(Move(MoveOptions(steps=a["steps"]))),
    "forage": lambda c, a: c.handle(Forage(roll=a["roll"])),
    "forced march": lambda c, a: c.handle(ForcedMarch(rolls=a["rolls"])),
    "night travel": lambda c, a: c.handle(TravelByNight(roll=a["roll"])),
    "repair": lambda c, a: c.handle(Repair(conveyance=a["conveyance"], by="Oren", roll=a["roll"])),
    "harm": lambda c, a: c.handle(Harm("Kira", a["health"], a["energy"], "bandits")),
    "supplies add": lambda c, a: c.handle(AddSupplies(a["amounts"])),
    "session start": lambda c, a: c.handle(StartSession(a["title"])),
    "session end": lambda c, a: c.handle(EndSession()),
    "encounter start": lambda c, a: c.handle(StartEncounter(a["name"], ARENA_MAP)),
    "encounter enter": _enter,
    "encounter round": lambda c, a: c.handle(StartRound()),
    "encounter move": lambda c, a: c.handle(MoveCombatant(name=a["name"],
                                                                  steps=a["steps"])),
    "encounter remove": lambda c, a: c.handle(RemoveCombatant(a["name"])),
    "encounter end": lambda c, a: c.handle(EndEncounter()),
}


class MemoryPlayer:
    """One aggregate in memory; events saved in batches as the application would save them."""

    def __init__(self, trek: Trek, clock: Clock) -> None:
        self.trek = trek
        self.clock = clock
        self.campaign: Campaign = trek._load(trek.resolve(None))
        self.last: TrekEvent | None = None
        self.before_last: Game | None = None
        self.undone: tuple[TrekEvent, TrekEvent, Game] | None = None

    def game(self) -> Game:
        return self.campaign.game

    def version(self) -> int:
        return self.campaign.version

    def play(self, command: Command) -> None:
        campaign = self.campaign
        campaign.stamp = Stamp(gm=GM, at=self.clock())
        if command.kind == "undo":
            # What Trek.undo does for the latest event: the game before it, and the events
            # from it on (just itself).
            assert self.last is not None
            assert self.before_last is not None
            reversal = campaign.cancel([self.last.seq], before=self.before_last,
                                       later=[self.last], cascade=False,
                                       reason=command.args.get("reason"))
            self.undone = (self.last, reversal, self.before_last)
            self.last = self.before_last = None
        elif command.kind == "redo":
            assert self.undone is not None
            event, reversal, before = self.undone
            campaign.restore([event.seq], before=before, later=[event, reversal], reason=None)
            self.undone = None
        else:
            if command.kind == "move":
                self.before_last = campaign.game.model_copy(deep=True)
            self.last = ACTIONS[command.kind](campaign, command.args)
            if command.kind != "move":
                self.before_last = None
        if (campaign.version % tracker.app.SNAPSHOT_EVERY == 0
                or len(campaign._pending) >= SAVE_BATCH):
            self.trek._save(campaign)

    def finish(self) -> None:
        if self.campaign._pending:
            self.trek._save(self.campaign)
        self.trek.catch_up()


def play_to(player: AppPlayer | MemoryPlayer, events: int, seed: int,
            progress: Callable[[int], None] | None = None) -> None:
    """Play the plan until the campaign holds exactly `events` events."""
    commands = plan(random.Random(seed), player.game)
    version = player.version()
    while version < events:
        player.play(next(commands))
        version = player.version() if isinstance(player, AppPlayer) else player.campaign.version
        if progress is not None and version % 10_000 == 0:
            progress(version)
    player.finish()


def build(path: str, events: int, *, seed: int = 1, in_memory: bool,
          progress: Callable[[int], None] | None = None) -> None:
    """A new store at `path` holding one campaign of exactly `events` events."""
    clock = Clock()
    with Trek.open(path, rulesets=RULESETS, create=True, gm=GM) as trek:
        trek.clock = clock
        setup(trek)
        player: AppPlayer | MemoryPlayer = (MemoryPlayer(trek, clock) if in_memory
                                            else AppPlayer(trek))
        play_to(player, events, seed, progress)
