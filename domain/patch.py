"""Exact differences between two JSON documents, as the corrections a reversal carries."""

import copy
from typing import Any

from pydantic import BaseModel, ConfigDict

_MISSING = object()


class Correction(BaseModel):
    """Set the value at `path`, or remove the key there when `delete` is true."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    path: tuple[str, ...]
    value: Any = None
    delete: bool = False


def diff(before: Any, after: Any, path: tuple[str, ...] = ()) -> list[Correction]:
    """The corrections that turn `before` into `after` (objects recurse, the rest is replaced)."""
    if isinstance(before, dict) and isinstance(after, dict):
        out: list[Correction] = []
        for key in before:
            if key not in after:
                out.append(Correction(path=(*path, key), delete=True))
        for key, value in after.items():
            old = before.get(key, _MISSING)
            if old is _MISSING:
                out.append(Correction(path=(*path, key), value=copy.deepcopy(value)))
            else:
                out.extend(diff(old, value, (*path, key)))
        return out
    if before == after and type(before) is type(after):
        return []
    return [Correction(path=path, value=copy.deepcopy(after))]


def apply(document: dict[str, Any], corrections: list[Correction]) -> dict[str, Any]:
    """Apply corrections to a copy of `document` and return it."""
    return patched(copy.deepcopy(document), corrections)


def patched(document: dict[str, Any], corrections: list[Correction]) -> dict[str, Any]:
    """Apply corrections to `document` itself, a fresh dump nothing else holds, and return it
    (a whole-document correction replaces it). Each value set is a copy of the correction's."""
    doc = document
    for correction in corrections:
        if not correction.path:
            if not isinstance(correction.value, dict):
                raise ValueError("a whole-document correction must be an object")
            doc = copy.deepcopy(correction.value)
            continue
        parent: Any = doc
        for key in correction.path[:-1]:
            parent = parent.setdefault(key, {})
        last = correction.path[-1]
        if correction.delete:
            parent.pop(last, None)
        else:
            parent[last] = copy.deepcopy(correction.value)
    return doc
