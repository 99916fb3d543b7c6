"""MkDocs hooks: the README is the site's home page, CHANGELOG.md its changelog page, and the
API page is the OpenAPI description `trek serve` publishes, rendered.

The README and the changelog live at the top of the checkout, where GitHub and PyPI show them;
their links point into docs/, so they are rewritten to the site's own pages as they are brought
in. The API page is made from the server's own description, so it cannot drift from it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]


def site_links(markdown: str) -> str:
    """Links written from the top of the checkout (`docs/x.md`) as links within the site."""
    markdown = re.sub(r"\]\(docs/", "](", markdown)
    return markdown.replace("](CHANGELOG.md)", "](changelog.md)")


def on_files(files: Files, config: Any) -> Files:
    for name, source in (("index.md", "README.md"), ("changelog.md", "CHANGELOG.md")):
        text = (ROOT / source).read_text(encoding="utf-8")
        files.append(File.generated(config, name, content=site_links(text)))
    files.append(File.generated(config, "api.md", content=api_page(openapi())))
    return files


def openapi() -> dict[str, Any]:
    """The description `trek serve` publishes at /api/openapi.json."""
    import sys

    sys.path.insert(0, str(ROOT))
    from cli.web.app import ServeConfig, create_app

    config = ServeConfig(db="unused.db", campaign="unused", gm_key="g" * 16,
                         player_key="p" * 16)
    return create_app(config).openapi()


def api_page(api: dict[str, Any]) -> str:
    """The OpenAPI description as a page: each operation with its parameters, body and
    answers, and the schemas they name."""
    lines = [
        "# The API",
        "",
        "What `trek serve` answers, for scripts and other front-ends; the server publishes the "
        "same description at `/api/openapi.json` and as a page at `/api/docs` (both for either "
        "secret). Every address "
        "takes the secret as `Authorization: Bearer SECRET`: the players' reads, the GM's reads "
        "and records. How the server is started and what its pages do: "
        "[the table in a browser](serve.md).",
        "",
    ]
    for path, methods in api.get("paths", {}).items():
        for method, operation in methods.items():
            lines += [f"## `{method.upper()} {path}`", ""]
            if operation.get("summary"):
                lines += [operation["summary"], ""]
            if operation.get("description"):
                lines += [operation["description"], ""]
            parameters = operation.get("parameters", [])
            if parameters:
                lines += ["| parameter | in | required | what |", "| --- | --- | --- | --- |"]
                for parameter in parameters:
                    lines.append(f"| `{parameter['name']}` | {parameter.get('in', '')} | "
                                 f"{'yes' if parameter.get('required') else 'no'} | "
                                 f"{_cell(parameter.get('description', ''))} |")
                lines.append("")
            body = operation.get("requestBody", {}).get("content", {})
            for media, content in body.items():
                lines += [f"Body ({media}): {_schema_name(content.get('schema', {}))}", ""]
            answers = operation.get("responses", {})
            if answers:
                lines += ["| answer | what |", "| --- | --- |"]
                for code, answer in answers.items():
                    lines.append(f"| {code} | {_cell(answer.get('description', ''))} |")
                lines.append("")
    schemas = api.get("components", {}).get("schemas", {})
    if schemas:
        lines += ["## Schemas", ""]
        for name, schema in schemas.items():
            lines += [f"### {name}", ""]
            if schema.get("description"):
                lines += [schema["description"], ""]
            properties = schema.get("properties", {})
            if properties:
                required = set(schema.get("required", []))
                lines += ["| field | type | required | what |", "| --- | --- | --- | --- |"]
                for field, spec in properties.items():
                    lines.append(f"| `{field}` | {_schema_name(spec)} | "
                                 f"{'yes' if field in required else 'no'} | "
                                 f"{_cell(spec.get('description', ''))} |")
                lines.append("")
    return "\n".join(lines) + "\n"


def _schema_name(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return "[" + schema["$ref"].rsplit("/", 1)[-1] + "](#" + \
            schema["$ref"].rsplit("/", 1)[-1].lower() + ")"
    if "anyOf" in schema:
        return " or ".join(_schema_name(part) for part in schema["anyOf"])
    if schema.get("type") == "array":
        return "list of " + _schema_name(schema.get("items", {}))
    return str(schema.get("type", "any"))


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")
