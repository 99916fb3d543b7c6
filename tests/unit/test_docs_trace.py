"""docs/rules.md traces each rule to a function and a test: every one it names must exist."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType

import pytest

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


@pytest.mark.parametrize("dotted", FUNCTIONS)
def test_each_function_named_in_the_rules_doc_exists(dotted: str) -> None:
    found = resolve(dotted)
    assert callable(found) or isinstance(found, ModuleType | type | property), dotted


@pytest.mark.parametrize(("path", "name"), TESTS)
def test_each_test_named_in_the_rules_doc_exists(path: str, name: str) -> None:
    assert f"def {name}(" in (ROOT / path).read_text(encoding="utf-8"), f"{path}::{name}"
