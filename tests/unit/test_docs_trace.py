"""docs/rules.md traces each rule to a function and a test: every one it names must exist."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
RULES_DOC = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
FUNCTIONS = sorted(set(re.findall(r"`(domain\.[A-Za-z_.]+)`", RULES_DOC)))
TESTS = sorted(set(re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", RULES_DOC)))


def resolve(dotted: str) -> object:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name)
        return found
    raise ImportError(dotted)


def test_the_doc_names_functions_and_tests() -> None:
    assert len(FUNCTIONS) > 50
    assert len(TESTS) > 50


def missing_function(dotted: str) -> str | None:
    """Why `dotted` names no function, class, property or module, or None when it does."""
    try:
        found = resolve(dotted)
    except (ImportError, AttributeError) as error:
        return f"{dotted}: {error}"
    if callable(found) or isinstance(found, ModuleType | type | property):
        return None
    return f"{dotted}: a {type(found).__name__}"


def test_each_function_named_in_the_rules_doc_exists() -> None:
    assert [problem for d in FUNCTIONS if (problem := missing_function(d))] == []


def test_each_test_named_in_the_rules_doc_exists() -> None:
    missing = [f"{path}::{name}" for path, name in TESTS
               if f"def {name}(" not in (ROOT / path).read_text(encoding="utf-8")]
    assert missing == []


def test_the_checks_find_a_name_that_is_not_there() -> None:
    assert missing_function("domain.campaign.Campaign.handle") is None
    assert missing_function("domain.campaign.Campaign.no_such_method") is not None
    assert missing_function("domain.no_such_module.thing") is not None
