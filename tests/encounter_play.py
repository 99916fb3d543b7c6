"""The scaffold every ruleset's encounter properties share: named steps played on a campaign,
refusals that must change nothing, and an undo then redo that must restore the state."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from weakref import WeakKeyDictionary

from domain.campaign import Campaign
from domain.errors import RuleViolation
from domain.events import EventsCancelled, TrekEvent
from domain.history import fold_live

Action = Callable[[Campaign], TrekEvent]
Check = Callable[[Campaign, TrekEvent], None]


@dataclass
class Step:
    """One command, named so hypothesis prints a failing sequence readably."""

    label: str
    run: Action

    def __repr__(self) -> str:
        return self.label


@dataclass
class Play:
    campaign: Campaign
    events: list[TrekEvent] = field(default_factory=list)


def play_steps(result: Play, steps: list[Step], check: Check | None = None) -> Play:
    """Play each step on the campaign; a refused one must leave it exactly as it was, and
    `check` looks at the campaign after each event recorded."""
    for step in steps:
        before = (result.campaign.version, result.campaign.game.dump())
        try:
            step.run(result.campaign)
        except RuleViolation:
            assert (result.campaign.version, result.campaign.game.dump()) == before, step
            continue
        new = result.campaign.collect_events()
        result.events.extend(new)
        if check is not None:
            for event in new:
                check(result.campaign, event)
    return result


def assert_refolds_the_same(result: Play) -> None:
    """Folding every recorded event afresh gives the game the campaign holds."""
    assert fold_live(result.events, lambda seq: True).dump() == result.campaign.game.dump()


def undo_then_redo(result: Play, seq: int, *, check_undone: bool = True) -> None:
    """Undo event `seq` (with --cascade), then redo the reversal: the state must be back.

    `check_undone`: also check that after the undo the state is the fold of the live events.
    """
    campaign = result.campaign
    state = campaign.game.dump()
    before = fold_live(result.events[:seq - 1], campaign.is_live)
    reversal = campaign.cancel([seq], before=before, later=result.events[seq - 1:],
                               cascade=True, reason=None)
    result.events.extend(campaign.collect_events())
    if check_undone:
        assert isinstance(reversal, EventsCancelled)
        # What remains is the fold of the live events, and the record keeps everything.
        assert fold_live(result.events, campaign.is_live).dump() == campaign.game.dump()
    # Redo the reversal (`trek redo` of its seq: everything it cancelled).
    assert isinstance(reversal, EventsCancelled)
    k = min(reversal.cancels)
    earlier = fold_live(result.events[:k - 1], campaign.is_live)
    campaign.restore(list(reversal.cancels), before=earlier, later=result.events[k - 1:],
                     reason=None)
    result.events.extend(campaign.collect_events())
    assert campaign.game.dump() == state


def cancel_cascade(campaign: Campaign, seq: int) -> list[int]:
    """`trek undo SEQ --cascade` on a campaign played in memory: the seqs the reversal
    cancels. Folding the live events afterwards must still give the campaign's game."""
    events = _LOGS.setdefault(campaign, [])
    events.extend(campaign.collect_events())
    before = fold_live(events[:seq - 1], campaign.is_live)
    campaign.cancel([seq], before=before, later=events[seq - 1:], cascade=True, reason=None)
    events.extend(campaign.collect_events())
    reversal = events[-1]
    assert isinstance(reversal, EventsCancelled)
    assert fold_live(events, campaign.is_live).dump() == campaign.game.dump()
    return list(reversal.cancels)


# Each campaign's events collected so far (collecting takes them out of the campaign).
_LOGS: WeakKeyDictionary[Campaign, list[TrekEvent]] = WeakKeyDictionary()
