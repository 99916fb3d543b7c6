"""MkDocs hooks: the README is the site's home page and CHANGELOG.md its changelog page.

Both live at the top of the checkout, where GitHub and PyPI show them; their links point into
docs/, so they are rewritten to the site's own pages as they are brought in.
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
    return files
