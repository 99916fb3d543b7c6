"""What changed between two status documents: position, supplies, levels, states, Health/Energy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

# Labels of the campaign rather than of its state: a branch differs from its original in these.
_LABELS = frozenset({"campaign", "name", "ruleset", "events"})


class Change(TypedDict):
    """One leaf that differs: its dotted path and its value on each side (None: absent)."""

    field: str
    a: Any
    b: Any


def _is_square(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"x", "y"}


def flatten(document: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Dotted paths to the leaves of a status document; a square {x, y} is one leaf.

    An empty mapping has no leaves, so a roster with no one in it adds nothing.
    """
    leaves: dict[str, Any] = {}
    for key, value in document.items():
        path = f"{prefix}{key}"
        if not prefix and key in _LABELS:
            continue
        if isinstance(value, dict) and not _is_square(value):
            leaves.update(flatten(value, f"{path}."))
        else:
            leaves[path] = value
    return leaves


def _without_followers(status: Mapping[str, Any]) -> dict[str, Any]:
    """The status without the squares of members travelling with the party, and without the
    party in use's entry in `parties`: they repeat it."""
    trimmed = dict(status)
    if "parties" in status:
        trimmed["parties"] = {name: entry for name, entry in status["parties"].items()
                              if name != status.get("party")}
    for group in ("characters", "conveyances"):
        trimmed[group] = {
            name: ({k: v for k, v in member.items() if k != "position"}
                   if member.get("with_party") else member)
            for name, member in status.get(group, {}).items()
        }
    return trimmed


def changes(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Change]:
    """Every leaf whose value differs between `a` and `b`, in the order status lists them.

    A leaf present on one side only (a member added later) shows null on the other. Members
    with the party stand where it stands, so only the party's own square is compared for them.
    """
    left, right = flatten(_without_followers(a)), flatten(_without_followers(b))
    order = list(left) + [path for path in right if path not in left]
    return [{"field": path, "a": left.get(path), "b": right.get(path)}
            for path in order if left.get(path) != right.get(path)]
