"""The rulesets this release plays, one line each: the only module that names them all."""

from __future__ import annotations

from domain.besm import Besm
from domain.cypher import Cypher
from domain.encounter import ENCOUNTER_EVENTS
from domain.events import CORE_EVENTS
from domain.gurps import Gurps
from domain.movepoints import Movepoints
from domain.ruleset import Registry
from domain.shadowrun import Shadowrun

# The first is the default of `trek init --ruleset` and `trek map import --ruleset`.
RULESETS = Registry(shared=CORE_EVENTS + ENCOUNTER_EVENTS, rulesets=[
    Besm(),
    Cypher(),
    Gurps(),
    Shadowrun(),
    Movepoints(),
])
