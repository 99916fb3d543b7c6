"""Token labels: the short mark every picture draws for a combatant (RULES §13).

A label is 1 to 3 letters and digits taken from the combatant's name, unique in the
encounter, given in order of entry and kept for the rest of the encounter: the first letter
("B"), else the first letter and the name's number ("Bandit 2": "B2"), the initials ("Bandit
Chief": "BC"), the first letter and a later one ("Boss": "Bo"), the first letter and a count.
Markup a GM typed into a name (`<b>Thug</b>`, `[bold red]Boss[/]`) is not part of the name's
letters, and a label holds nothing but letters and digits, so no picture can read it as
markup.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping

MAX_LABEL = 3
# Tags in angle or square brackets, as HTML and rich write them.
_MARKUP = re.compile(r"<[^<>]*>|\[[^\[\]]*\]")
# A run of letters and digits (any script), no underscore.
_WORD = re.compile(r"[^\W_]+")


def _words(name: str) -> list[str]:
    words = _WORD.findall(_MARKUP.sub(" ", name))
    return words or _WORD.findall(name)


def candidates(name: str) -> Iterator[str]:
    """The labels a name may take, in the order they are tried."""
    words = _words(name)
    if not words:
        for count in range(1, 1000):
            yield f"X{count}"[:MAX_LABEL] if count < 100 else str(count)
        return
    first = words[0][0].upper()
    yield first
    last = words[-1]
    if len(words) > 1 and last.isdigit() and len(first + last) <= MAX_LABEL:
        yield first + last
    if len(words) > 1:
        yield "".join(word[0] for word in words[:MAX_LABEL]).upper()
    for later in "".join(words)[1:]:
        yield first + later.lower()
    for count in range(2, 100):
        yield first + str(count)
    for count in range(100, 1000):
        yield str(count)


def label_for(name: str, taken: Collection[str]) -> str:
    """The first of the name's labels no one else in the encounter has (letter case aside)."""
    used = {label.casefold() for label in taken}
    # A letter may change length with its case ("ß", "ﬃ"): only 1 to 3 letters and digits do.
    return next(label for label in candidates(name)
                if 1 <= len(label) <= MAX_LABEL and label.isalnum()
                and label.casefold() not in used)


def labels_of(given: Mapping[str, str], names: list[str]) -> dict[str, str]:
    """Each of `names` (in order of entry) with its label: the one it was given, else the
    next free one (a combatant of a campaign recorded before labels were kept)."""
    taken = dict(given)
    for name in names:
        if name not in taken:
            taken[name] = label_for(name, taken.values())
    return {name: taken[name] for name in names}
