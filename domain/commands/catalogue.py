"""Every shared command class at once, for what names them all (the table's list of the
commands it takes); a command line or a campaign loads only the part of play it uses."""

from domain.commands.days import EndDay, StartDay
from domain.commands.encounter import (
    ChangeDoor,
    EndEncounter,
    EnterCombatant,
    RemoveCombatant,
    StartEncounter,
)
from domain.commands.history import Redo, Undo
from domain.commands.parties import MergeParties, SplitParty
from domain.commands.roster import (
    AddCharacter,
    AddMount,
    AddVehicle,
    Assign,
    Dismount,
    Harm,
    Leave,
    Rejoin,
    SetRule,
)
from domain.commands.rounds import Act, MoveCombatant, StartRound
from domain.commands.sessions import EndSession, StartSession
from domain.commands.supplies import AddSupplies, SetSupplies, SpendSupplies
from domain.commands.travel import Move
from domain.ruleset import Command

# The commands every ruleset's campaign takes (a ruleset's own are in its `commands`).
SHARED: tuple[type[Command], ...] = (
    AddCharacter, AddMount, AddVehicle, Assign, Dismount, Leave, Rejoin, Harm, SetRule,
    SetSupplies, AddSupplies, SpendSupplies,
    StartDay, Move, EndDay,
    SplitParty, MergeParties,
    StartEncounter, EnterCombatant, RemoveCombatant, StartRound, MoveCombatant, Act, ChangeDoor,
    EndEncounter,
    StartSession, EndSession,
    Undo, Redo,
)
