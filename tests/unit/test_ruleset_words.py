"""The shared output asks the campaign's ruleset for its words (cli/render.py, from its
`CommandLine` as the composition root hands it over), and the audit's own sections are named by
the rulesets."""

from __future__ import annotations

from rulesets import RULESETS

from cli import render


def test_a_day_of_the_same_name_is_worded_by_the_campaigns_own_ruleset() -> None:
    # BESM and Cypher each record a DayStarted and a DayEnded, of different shapes.
    started = {"type": "DayStarted", "number": 2, "base": 3, "budget": 3}
    assert render.summary(started, "besm") == "day 2 starts with 3 square(s)"
    assert render.summary({"type": "DayStarted", "number": 2}, "cypher") == "day 2 starts"
    ended = {"type": "DayEnded", "number": 2, "hours": 8,
             "strain": {"Dusty": {"lost": 1, "level": 0, "state": "ok"}},
             "recovery": {}, "upkeep": {}}
    assert render.summary(ended, "besm") == "day 2 ended; Dusty lost 1 level(s) to strain"
    assert render.summary({"type": "DayEnded", "number": 2, "hours": 8}, "cypher") == (
        "day 2 ended")


def test_shared_events_read_the_same_under_every_ruleset_and_unknown_ones_by_type() -> None:
    doc = {"type": "SessionEnded", "number": 4}
    assert {render.summary(doc, name) for name in RULESETS.names} == {"session 4 ends"}
    assert render.summary({"type": "Foraged"}, "cypher") == "Foraged"


def test_every_campaign_audit_keeps_the_sections_the_release_names() -> None:
    assert RULESETS.audit_sections == ("strain", "deaths", "repairs")
    assert [name for name, _ in render.ruleset_sections(
        {"session": 1, "supplies": {}, "strain": [], "deaths": [], "repairs": [],
         "undos": []})] == ["strain", "deaths", "repairs"]


def test_an_audit_section_no_module_words_is_shown_as_its_fields() -> None:
    row = render.audit_row("omens", {"seq": 7, "day": 2, "sign": "raven"})
    assert row == {"seq": 7, "day": 2, "line": "omens", "detail": "sign raven"}
