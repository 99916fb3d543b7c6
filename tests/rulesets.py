"""The registry the tests play, built the way the command line's composition root builds it
(`cli.context.rulesets`)."""

from __future__ import annotations

from tracker.registry import build_registry

RULESETS = build_registry()
