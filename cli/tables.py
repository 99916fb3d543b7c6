"""The tables human output draws: rich tables whose headers and cells are plain text."""

from __future__ import annotations

from typing import Any

from rich.table import Table as RichTable

from cli.render import plain


class Table(RichTable):
    """A rich table whose headers and cells are always plain text."""

    def __init__(self, *headers: str, **options: Any) -> None:
        super().__init__(*(plain(h) for h in headers), **options)

    def add_row(self, *cells: Any, **options: Any) -> None:
        super().add_row(*(plain(c) if isinstance(c, str) else c for c in cells), **options)
