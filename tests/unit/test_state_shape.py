"""Game states and corrections stored by release 0.2 and earlier read into today's shape.

Those releases kept BESM's and Cypher's fields beside the core's: on the day, on the game, on
each character and conveyance. Snapshots, read models and the corrections a reversal carries
hold that shape, so reading them must gather those fields into the ruleset's documents.
"""

from __future__ import annotations

from typing import Any

from domain.besm.state import pending_strain, remaining, stat, today
from domain.cypher.state import journey
from domain.patch import Correction, apply
from domain.state import Game


def old_besm_state() -> dict[str, Any]:
    """A BESM game as release 0.2 dumped it, mid-day (the Cypher fields at their defaults)."""
    return {
        "position": {"x": 3, "y": 1},
        "day": {"number": 2, "open": True, "budget": 4, "used": 3, "shortcuts_tried": ["Gap"],
                "opened": [{"x": 2, "y": 1}], "forages": 1, "repaired": False,
                "night_travelled": False, "night_roles": None, "spent": "0", "miles": 0},
        "supplies": {"provisions": 2, "fuel": 0, "ammo": 0, "wealth": 0},
        "characters": {"Kira": {"name": "Kira", "body": 6, "mind": 5, "soul": 4, "pools": {},
                                "skills": {"ride": 2}, "attributes": {}, "stats": {},
                                "health": 40, "health_max": 50, "energy": 45,
                                "energy_max": 45, "with_party": True, "left_at": None,
                                "conveyance": "Dusty", "role": "rider"}},
        "conveyances": {"Dusty": {"name": "Dusty", "kind": "mount", "attribute": "ground-speed",
                                  "base_level": 1, "level": 1, "miles": None,
                                  "pending_strain": 1, "state": "ok", "with_party": True,
                                  "left_at": None}},
        "rules": {"camp_health_modifier": 0, "camp_energy_modifier": 0,
                  "upkeep_provisions": 0, "upkeep_fuel": 0},
        "transit": None,
        "encounter": None,
    }


def test_an_old_besm_state_reads_with_its_fields_in_the_rulesets_documents() -> None:
    game = Game.model_validate(old_besm_state())

    day = today(game)
    assert (game.day.number, game.day.open) == (2, True)
    assert (day.budget, day.used, day.forages, day.shortcuts_tried) == (4, 3, 1, ["Gap"])
    assert remaining(game) == 1
    assert stat(game.characters["Kira"], "body") == 6
    assert game.characters["Kira"].stats == {"body": 6, "mind": 5, "soul": 4}
    assert pending_strain(game.conveyances["Dusty"]) == 1
    # Fields left at the old defaults (Cypher's, on a BESM game) said nothing: none is kept.
    assert "spent" not in game.travel
    assert "transit" not in game.travel


def test_a_new_state_reads_back_as_it_was_dumped() -> None:
    game = Game.model_validate(old_besm_state())

    assert Game.model_validate(game.dump()).dump() == game.dump()


def test_an_old_correction_lands_in_the_rulesets_document() -> None:
    # A reversal recorded by release 0.2 that took the day's forage back: its paths are the old
    # ones, applied to a state of today's shape.
    now = Game.model_validate(old_besm_state()).dump()
    corrections = [Correction(path=("day", "used"), value=2),
                   Correction(path=("day", "forages"), value=0),
                   Correction(path=("conveyances", "Dusty", "pending_strain"), value=0)]

    game = Game.model_validate(apply(now, corrections))

    # A correction's value wins even where it is an old default (0).
    assert (today(game).used, today(game).forages) == (2, 0)
    assert pending_strain(game.conveyances["Dusty"]) == 0
    assert today(game).budget == 4


def test_an_old_correction_of_part_of_a_transit_keeps_the_rest() -> None:
    now = Game.model_validate({
        **old_besm_state(), "day": {"number": 1, "open": True, "spent": "1/2", "miles": 6},
        "characters": {}, "conveyances": {},
        "transit": {"to": {"x": 4, "y": 0}, "remaining": "1/3"},
    }).dump()
    assert journey(Game.model_validate(now)).transit is not None

    game = Game.model_validate(apply(now, [Correction(path=("transit", "remaining"),
                                                      value="1/6")]))

    transit = journey(game).transit
    assert transit is not None
    assert (transit.to.x, transit.to.y, transit.remaining) == (4, 0, "1/6")
    assert journey(game).spent == "1/2"


def test_an_old_correction_that_adds_a_whole_character_gathers_its_stats() -> None:
    state = old_besm_state()
    kira = state["characters"].pop("Kira")
    now = Game.model_validate(state).dump()

    game = Game.model_validate(apply(now, [Correction(path=("characters", "Kira"), value=kira)]))

    assert game.characters["Kira"].stats == {"body": 6, "mind": 5, "soul": 4}
