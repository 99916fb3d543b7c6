"""The product's structure, read off its source: one composition root, no test runner in the
product, no ruleset part found by a module or attribute name, and model classes made cheaply.

A ruleset defined inside a test plugging into the command line, the shell and the server with
no shared file edited: tests/unit/test_ruleset_seam.py.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from pydantic import BaseModel

import domain

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("cli", "tracker", "domain", "projections")


def sources(*packages: str) -> Iterator[tuple[str, ast.Module]]:
    """Each Python file under `packages`, by its path from the project root, parsed."""
    for package in packages:
        yield from parsed(ROOT, package)


@cache
def parsed(root: Path, package: str) -> tuple[tuple[str, ast.Module], ...]:
    return tuple((path.relative_to(root).as_posix(),
                  ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
                 for path in sorted((root / package).rglob("*.py")))


def test_the_scan_reads_the_product() -> None:
    found = dict(sources(*PRODUCT))
    assert len(found) > 100
    assert {"cli/bootstrap.py", "cli/registry.py", "domain/deferred.py"} <= set(found)


# -- a test runner is not a front-end ---------------------------------------------------------


def runner_imports(tree: ast.Module) -> list[int]:
    """The lines importing click's test runner (`click.testing`, `CliRunner`)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            if any(a.name == "click.testing" or a.name.startswith("click.testing.")
                   for a in node.names):
                lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom):
            names = {a.name for a in node.names}
            if (node.module == "click.testing" or "CliRunner" in names
                    or (node.module == "click" and "testing" in names)):
                lines.append(node.lineno)
    return lines


def test_no_product_module_imports_clicks_test_runner() -> None:
    offending = [f"{path}:{line}" for path, tree in sources(*PRODUCT)
                 for line in runner_imports(tree)]
    assert offending == []


def test_the_runner_check_finds_every_spelling() -> None:
    for source in ("from click.testing import CliRunner\n", "import click.testing\n",
                   "from click import testing\n", "def f():\n    from x import CliRunner\n"):
        assert runner_imports(ast.parse(source)), source
    assert not runner_imports(ast.parse("import click\nfrom click import Context\n"))


# -- no part found by name ---------------------------------------------------------------------


def lookups_by_name(path: str, tree: ast.Module) -> list[str]:
    """Where `tree` finds product code by a name held as data: an import-machinery call
    (`import_module`, `__import__`, `find_spec`, ...) or a look into `sys.modules` given a
    product module's name or a name worked out at run time, a `getattr` on a module, or a
    string naming a command-line module (cli/...: a ruleset's part, a command's module).

    Asking for a third-party module by its literal name (is the PostgreSQL driver installed,
    is the event store's SQLite module loaded) finds no part of Trek, and is left alone.
    """
    modules = {name for name, _ in product_modules()}

    def by_name(args: list[ast.expr]) -> bool:
        """Whether the first argument names a product module, or is not a literal at all."""
        if not args:
            return True
        first = args[0]
        if not isinstance(first, ast.Constant) or not isinstance(first.value, str):
            return True
        return first.value.split(".")[0] in {m.split(".")[0] for m in modules}

    imported: set[str] = set()  # names bound to a module by an import statement
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.update(a.asname or a.name for a in node.names
                            if f"{node.module}.{a.name}" in modules)
    found = []
    for node in ast.walk(tree):
        where = f"{path}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Call):
            func = node.func
            name = (func.id if isinstance(func, ast.Name)
                    else func.attr if isinstance(func, ast.Attribute) else "")
            if name in {"import_module", "__import__", "find_spec", "spec_from_file_location",
                        "load_module", "exec_module"} and by_name(node.args):
                found.append(f"{where} calls {name}")
            if name == "getattr" and node.args:
                target = node.args[0]
                if (isinstance(target, ast.Name) and target.id in imported) or (
                        isinstance(target, ast.Call)):
                    found.append(f"{where} looks a name up in a module")
            if (name == "get" and isinstance(func, ast.Attribute)
                    and _sys_modules(func.value) and by_name(node.args)):
                found.append(f"{where} reads sys.modules")
        elif ((isinstance(node, ast.Subscript) and _sys_modules(node.value)
               and by_name([node.slice]))
              or (isinstance(node, ast.Compare)
                  and any(_sys_modules(c) for c in node.comparators))):
            found.append(f"{where} reads sys.modules")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                node.value in modules and node.value.startswith("cli.")):
            found.append(f"{where} names the module {node.value!r}")
    return found


def _sys_modules(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "modules"
            and isinstance(node.value, ast.Name) and node.value.id == "sys")


@cache
def product_modules() -> list[tuple[str, Path]]:
    """Every product module's dotted name (packages too), with its file."""
    found = []
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found.append((".".join(parts), path))
    return found


def test_no_product_module_finds_a_part_by_its_name() -> None:
    """A ruleset's rules and command-line part come from its registry entry's loaders (plain
    imports in a function), every command from a typed import: nothing in the product imports
    by a name held as data or looks an attribute up in a module."""
    offending = [found for path, tree in sources(*PRODUCT)
                 for found in lookups_by_name(path, tree)]
    assert offending == []


def test_the_name_check_finds_each_way_of_looking_up() -> None:
    source = (
        "import importlib\n"
        "import cli.besm as besm\n"
        "import sys\n"
        "from cli import commands\n"
        "def f(name):\n"
        "    line = importlib.import_module('cli.besm').COMMAND_LINE\n"
        "    rules = getattr(importlib.import_module(name), 'Besm')\n"
        "    part = getattr(besm, name)\n"
        "    more = getattr(commands, 'mounted')\n"
        "    loaded = sys.modules['cli.commands']\n"
        "    return __import__(name)\n"
        "if 'cli.commands' in sys.modules:\n"
        "    driver = importlib.util.find_spec('psycopg')\n"
    )
    found = lookups_by_name("x.py", ast.parse(source))
    assert [f.split(" ", 1)[1] for f in found if f.startswith("x.py:6 ")] == [
        "calls import_module", "names the module 'cli.besm'"]
    assert any(f.startswith("x.py:7 ") and "looks a name up" in f for f in found)
    assert "x.py:8 looks a name up in a module" in found
    assert "x.py:9 looks a name up in a module" in found
    assert "x.py:10 reads sys.modules" in found
    assert "x.py:11 calls __import__" in found
    assert "x.py:12 reads sys.modules" in found
    # A third-party module asked for by its literal name finds no part of Trek.
    assert not [f for f in found if f.startswith("x.py:13 ")]
    # A getattr on a value (an event's field, a class's upcaster) is not a module lookup.
    assert not lookups_by_name("y.py", ast.parse("def f(e, n):\n    return getattr(e, n)\n"))


# -- one composition root ----------------------------------------------------------------------


def builder_calls(tree: ast.Module) -> Iterator[tuple[int, str | None]]:
    """Each call of the registry's builder (`build_registry`) or of `Registry(...)`, by line,
    with the name of the top-level function it is made in (None: at module level)."""
    def walk(node: ast.AST, function: str | None) -> Iterator[tuple[int, str | None]]:
        for child in ast.iter_child_nodes(node):
            inner = function
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and function is None:
                inner = child.name
            if isinstance(child, ast.Call):
                func = child.func
                name = (func.id if isinstance(func, ast.Name)
                        else func.attr if isinstance(func, ast.Attribute) else "")
                if name in {"build_registry", "Registry"}:
                    yield child.lineno, inner
            yield from walk(child, inner)
    yield from walk(tree, None)


def test_bootstrap_alone_builds_the_registry() -> None:
    """In the product, the benchmarks and the tests: the registry's builder is called by
    `bootstrap` and by nothing else, and no product module makes a `Registry` but the builder
    (a test may make its own of rulesets it defines)."""
    calls = {(path, function) for path, tree in sources(*PRODUCT, "benchmarks", "tests", "docs")
             for _, function in builder_calls(tree)}
    product = {(path, function) for path, function in calls
               if path.split("/")[0] in PRODUCT}
    assert product == {("cli/bootstrap.py", "bootstrap"), ("cli/registry.py", "build_registry")}
    # Outside the product only a test builds a registry itself, and never with the builder.
    assert all(path.startswith("tests/") for path, _ in calls - product)
    with_builder = [(path, line) for path, tree in sources("benchmarks", "tests", "docs")
                    for line, _ in builder_calls(tree)
                    if "build_registry(" in (ROOT / path).read_text().splitlines()[line - 1]]
    assert with_builder == []


def test_the_builder_check_knows_where_a_call_is() -> None:
    source = ("def bootstrap():\n    return lambda: build_registry(entries)\n"
              "def other():\n    return reg.build_registry(x)\n"
              "R = Registry([])\n")
    assert list(builder_calls(ast.parse(source))) == [
        (2, "bootstrap"), (4, "other"), (5, None)]


# -- model classes cost what they must ---------------------------------------------------------


def _future_annotations(tree: ast.Module) -> bool:
    return any(isinstance(node, ast.ImportFrom) and node.module == "__future__"
               and any(a.name == "annotations" for a in node.names) for node in tree.body)


def _models() -> dict[str, list[type[BaseModel]]]:
    """Every pydantic model class of domain/, by the module it is defined in."""
    found: dict[str, list[type[BaseModel]]] = {}
    for module in pkgutil.walk_packages(domain.__path__, "domain."):
        loaded = importlib.import_module(module.name)
        for value in vars(loaded).values():
            if (isinstance(value, type) and issubclass(value, BaseModel)
                    and value.__module__ == module.name):
                found.setdefault(module.name, []).append(value)
    return found


def test_every_model_builds_its_validator_when_first_used() -> None:
    """A recording command's process makes every shared model and its ruleset's, and uses a
    handful: each builds its validator the first time it validates (`defer_build`)."""
    models = _models()
    assert sum(map(len, models.values())) > 60
    eager = [f"{m.__module__}.{m.__qualname__}" for found in models.values() for m in found
             if not m.model_config.get("defer_build")]
    assert eager == []


def test_a_module_of_models_reads_its_annotations_as_the_class_is_made() -> None:
    """Under `from __future__ import annotations` pydantic compiled each field's annotation
    from its string, again for every subclass (the envelope of every event): the modules that
    define models leave it out, and quote only what is named before it is defined."""
    with_models = {f"{name.replace('.', '/')}.py" for name in _models()}
    assert {"domain/events.py", "domain/state.py", "domain/besm/events.py"} <= with_models
    trees = dict(sources("domain"))
    assert [path for path in sorted(with_models) if _future_annotations(trees[path])] == []
    # The check reads the import where it is written.
    assert _future_annotations(ast.parse("from __future__ import annotations\n"))
    assert not _future_annotations(ast.parse("from __future__ import division\n"))
