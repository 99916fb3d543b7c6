"""Which campaign plain commands use in a store of several (`trek campaigns use SLUG`), and what
`trek branch` says about the branch it made.

The choice is a setting of the store (its `trek_meta` table), never an event: no campaign's log
grows, its chain stays intact, and a rebuild of the read models keeps it. `--campaign` and
TREK_CAMPAIGN still win over it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cliruns import ok, recorded, refused
from conftest import OpenTrek, TrekRun

from domain.commands.supplies import AddSupplies
from domain.errors import NotFound, RuleViolation

Run = Callable[..., TrekRun]
MAP = Path(__file__).resolve().parents[2] / "docs" / "examples" / "ashen-reach.toml"


# -- the store setting, on memory, SQLite and PostgreSQL ----------------------------------------


def test_the_campaign_in_use_is_a_store_setting_and_no_event(store: str,
                                                             open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    trek.init("Ashes Road", seed=1)
    trek.handle(None, AddSupplies({"provisions": 2}))
    assert trek.campaign_in_use() is None
    trek.branch(None, "what-if", at=1)
    # The store's only campaign was in use unnamed; the branch names it, so it stays in use.
    assert trek.campaign_in_use() == "ashes-road"
    assert open_trek(store).resolve(None) == "ashes-road"

    assert trek.use_campaign("what-if") == {"campaign": "what-if", "previous": "ashes-road"}
    # Another process opening the store reads the same choice.
    again = open_trek(store)
    assert again.campaign_in_use() == "what-if"
    assert again.resolve(None) == "what-if"
    assert again.queries.status(None)["supplies"]["provisions"] == 0
    assert again.resolve("ashes-road") == "ashes-road"
    # Not an event: each campaign's log and chain are as they were, and a rebuild keeps it.
    events = {c["slug"]: c["events"] for c in again.campaigns()}
    assert events == {"ashes-road": 2, "what-if": 1}
    assert again.verify_chain()["verified"]
    again.replay()
    assert open_trek(store).resolve(None) == "what-if"

    assert again.use_campaign("ashes-road") == {"campaign": "ashes-road", "previous": "what-if"}
    assert open_trek(store).queries.status(None)["supplies"]["provisions"] == 2
    with pytest.raises(NotFound, match=r"no campaign called 'nope' \(the store has "
                                       r"ashes-road, what-if\)"):
        again.use_campaign("nope")
    assert open_trek(store).campaign_in_use() == "ashes-road"


# -- the command line -----------------------------------------------------------------------------


def _campaign_with_a_walk(trek_run: Run) -> None:
    """Ashes Road: the party walks from 0,0 to 1,0 (event 4) and on to 2,0 (event 5)."""
    ok(trek_run("init", "Ashes Road", "--map", str(MAP), "--seed", "1"))
    ok(trek_run("roster", "add-character", "Kira", "--body", "5", "--mind", "4", "--soul", "3",
                "--attribute", "speed=2"))
    ok(trek_run("day", "start"))
    recorded(trek_run("move", "E", "--json"), 4, "Moved")
    recorded(trek_run("move", "E", "--json"), 5, "Moved")


def test_a_branch_says_where_it_stands_and_how_to_play_it(trek_run: Run) -> None:
    _campaign_with_a_walk(trek_run)
    made = ok(trek_run("branch", "what-if", "--at", "4")).stdout
    lines = made.splitlines()
    assert lines[0] == ("Branched what-if from ashes-road after event 4: day 1 (open), the "
                        "party at 1,0 (4 events).")
    assert "starts at" not in made
    assert lines[1] == ("Commands that name no campaign still use ashes-road; `trek campaigns "
                        "use what-if` switches to the branch, or give --campaign what-if.")
    assert ok(trek_run("status", "--json", "--campaign", "what-if")).json()["position"] == {
        "x": 1, "y": 0}
    # `--json` is the event recorded, as every recording command prints it.
    [event] = ok(trek_run("branch", "other", "--at", "5", "--campaign", "ashes-road",
                          "--json")).json()
    assert (event["seq"], event["type"], event["slug"]) == (1, "CampaignStarted", "other")


def test_after_a_branch_plain_commands_go_on_with_the_campaign_they_used(
        trek_run: Run) -> None:
    _campaign_with_a_walk(trek_run)
    ok(trek_run("branch", "what-if", "--at", "4"))
    # ashes-road (party at 2,0, 5 events) stays in use; the branch stands at 1,0.
    status = ok(trek_run("status", "--json")).json()
    assert (status["campaign"], status["position"]) == ("ashes-road", {"x": 2, "y": 0})
    assert [(c["slug"], c["in_use"]) for c in ok(trek_run("campaigns", "--json")).json()] == [
        ("ashes-road", True), ("what-if", False)]
    recorded(trek_run("supplies", "add", "ammo=1", "--json"), 6, "SuppliesAdded")
    assert ok(trek_run("status", "--json", "--campaign", "what-if")).json()["events"] == 4


def test_with_several_campaigns_and_none_in_use_a_plain_command_says_how_to_choose(
        db: str, open_trek: OpenTrek) -> None:
    from projections.stored_status import read_status

    trek = open_trek(db, create=True)
    trek.init("Ashes Road", seed=1)
    trek.init("Other Road", seed=1)
    trek.branch("ashes-road", "what-if", at=1)
    # Plain commands could not choose before the branch; the branch chooses for nobody.
    assert trek.campaign_in_use() is None
    with pytest.raises(RuleViolation, match=r"3 campaigns \(ashes-road, other-road, what-if\)"
                                            r".*--campaign SLUG.*trek campaigns use SLUG"):
        trek.resolve(None)
    assert read_status(db, None) is None


def test_a_previewed_branch_names_no_campaign_in_use(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    trek.init("Ashes Road", seed=1)
    preview = open_trek(store, preview=True)
    [first] = preview.branch(None, "what-if", at=1)
    assert first["slug"] == "what-if"
    assert open_trek(store).campaign_in_use() is None
    assert [c["slug"] for c in open_trek(store).campaigns()] == ["ashes-road"]


def test_campaigns_use_chooses_what_plain_commands_use(trek_run: Run, tmp_path: Path) -> None:
    _campaign_with_a_walk(trek_run)
    ok(trek_run("branch", "what-if", "--at", "4"))
    db = tmp_path / "trek.db"

    used = ok(trek_run("campaigns", "use", "what-if"))
    assert used.stdout.strip() == ("Commands that name no campaign now use what-if; "
                                   "--campaign SLUG or TREK_CAMPAIGN still choose another.")
    status = ok(trek_run("status", "--json")).json()
    assert (status["campaign"], status["position"]) == ("what-if", {"x": 1, "y": 0})
    recorded(trek_run("supplies", "add", "ammo=1", "--json"), 5, "SuppliesAdded")
    # --campaign and TREK_CAMPAIGN still win.
    assert ok(trek_run("status", "--json", "--campaign", "ashes-road")).json()["position"] == {
        "x": 2, "y": 0}
    assert ok(trek_run("status", "--json", env={"TREK_CAMPAIGN": "ashes-road"})
              ).json()["campaign"] == "ashes-road"

    # The list marks the campaign in use; reading it changes nothing.
    before = db.read_bytes()
    listing = ok(trek_run("campaigns", "--json")).json()
    assert [(c["slug"], c["in_use"]) for c in listing] == [("ashes-road", False),
                                                          ("what-if", True)]
    assert ok(trek_run("campaigns")).stdout.splitlines() == [
        "ashes-road  Ashes Road (besm, 5 events)",
        "what-if  what-if (besm, 5 events)  (in use)",
    ]
    assert db.read_bytes() == before

    # A branch made now does not switch, and says what plain commands still use.
    made = ok(trek_run("branch", "other", "--at", "3")).stdout.splitlines()
    assert made[1] == ("Commands that name no campaign still use what-if; `trek campaigns use "
                       "other` switches to the branch, or give --campaign other.")
    assert ok(trek_run("status", "--json")).json()["campaign"] == "what-if"

    assert ok(trek_run("campaigns", "use", "ashes-road", "--json")).json() == {
        "campaign": "ashes-road", "previous": "what-if"}
    assert ok(trek_run("status", "--json")).json()["campaign"] == "ashes-road"
    # No campaign's log grew by any of this.
    events = {c["slug"]: c["events"] for c in ok(trek_run("campaigns", "--json")).json()}
    assert events == {"ashes-road": 5, "what-if": 5, "other": 3}


def test_campaigns_use_of_an_unknown_slug_is_refused_and_changes_nothing(
        trek_run: Run, tmp_path: Path) -> None:
    _campaign_with_a_walk(trek_run)
    ok(trek_run("branch", "what-if", "--at", "4"))
    before = (tmp_path / "trek.db").read_bytes()
    refused(trek_run("campaigns", "use", "nope"),
            "no campaign called 'nope' (the store has ashes-road, what-if)")
    assert (tmp_path / "trek.db").read_bytes() == before
    assert ok(trek_run("status", "--json")).json()["campaign"] == "ashes-road"


def test_the_kept_status_is_read_for_the_campaign_in_use(db: str, open_trek: OpenTrek) -> None:
    # `trek status`'s fast read serves the chosen campaign's kept document, as the tracker
    # would work it out, and none while the store holds several and none is chosen.
    from projections.stored_status import read_status

    trek = open_trek(db, create=True)
    trek.init("Ashes Road", seed=1)
    trek.handle(None, AddSupplies({"provisions": 2}))
    assert read_status(db, None) == trek.queries.status(None)
    trek.branch(None, "what-if", at=1)
    # The branch leaves ashes-road in use, now named in the store.
    assert read_status(db, None) == trek.queries.status("ashes-road")
    trek.init("Other Road", seed=1)
    trek.use_campaign("other-road")
    trek.use_campaign("what-if")
    kept = read_status(db, None)
    assert kept is not None
    assert kept == trek.queries.status(None) == trek.queries.status("what-if")
    assert kept["supplies"]["provisions"] == 0
    trek.use_campaign("ashes-road")
    assert read_status(db, None) == trek.queries.status("ashes-road")
