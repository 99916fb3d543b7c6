"""The registry the tests play, built the way every front-end's composition root builds it
(`cli.bootstrap.bootstrap`)."""

from __future__ import annotations

from cli.bootstrap import bootstrap

RULESETS = bootstrap().registry
