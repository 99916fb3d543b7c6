"""Token labels (RULES §13): short, unique in the encounter, from the name's letters and
digits, given in order of entry and kept."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from domain.labels import label_for, labels_of


def test_names_that_share_a_first_letter_get_distinct_labels_from_their_letters() -> None:
    names = ["Bandit", "Bandit 2", "<b>Thug</b>", "[bold red]Boss[/]", "Bandit Chief"]
    assert labels_of({}, names) == {
        "Bandit": "B",                  # the first letter
        "Bandit 2": "B2",               # its number
        "<b>Thug</b>": "T",             # markup is not part of the name's letters
        "[bold red]Boss[/]": "Bo",      # B is taken: the first letter and the next
        "Bandit Chief": "BC",           # the initials
    }


def test_a_label_given_is_kept_whoever_comes_later_or_leaves() -> None:
    given_labels = labels_of({}, ["Boss", "Bandit"])
    assert given_labels == {"Boss": "B", "Bandit": "Ba"}
    # Boss left the fight: Bandit keeps Ba, and a newcomer does not take Boss's B.
    later = labels_of(given_labels, ["Boss", "Bandit", "Brute"])
    assert later == {"Boss": "B", "Bandit": "Ba", "Brute": "Br"}


def test_letter_case_never_tells_two_labels_apart() -> None:
    assert label_for("bo", ["B", "BO"]) == "B2"
    assert label_for("x", ["X"]) == "X2"


def test_a_name_without_letters_or_digits_still_gets_one() -> None:
    assert labels_of({}, ["<>", "---"]) == {"<>": "X1", "---": "X2"}


@given(st.lists(st.text(min_size=1, max_size=20), unique=True, max_size=40))
def test_labels_are_short_letters_and_digits_and_unique(names: list[str]) -> None:
    labels = labels_of({}, names)
    assert list(labels) == names
    assert len({label.casefold() for label in labels.values()}) == len(names)
    for label in labels.values():
        assert 1 <= len(label) <= 3
        assert label.isalnum()
    # Deterministic, and each label depends only on who came before.
    assert labels_of({}, names) == labels
    assert labels_of({}, names[:len(names) // 2]) == {
        name: labels[name] for name in names[:len(names) // 2]}
