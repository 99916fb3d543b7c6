"""Every write shared by all rulesets, as data: one frozen command per use case, in a module
for each part of play (`roster`, `supplies`, the day's clock in `days`, `travel`, `parties`,
`encounter` and its `rounds`, `sessions`, `history`), so a command loads its own part and no
other; `catalogue` names them all. What a character's, a move's or a night's options hand the
ruleset is declared beside the commands that hold them (`domain.options` for a character's).

A front-end (the command line, the table's API, the shell) builds one of these from what the
GM typed and hands it to `Trek.handle`; the campaign decides it in `Campaign.handle`, where the
command names the campaign's method that decides it (`decide_in`). A ruleset's own commands
subclass `domain.ruleset.Command` in its own package and reach the ruleset through the same
door.

`what` names each in the campaign's refusals; `overland` ones are refused while an encounter
is open. Each field carries its bounds (see `Command`): a name, a text or a number out of them
is refused as the command is made, with the sentence the GM reads, and the rules decide only
what depends on the campaign (who exists, the ruleset's stats, the house rules' bounds).
"""

from typing import Annotated

from domain.values import texted

# Why a change was made (`harm --reason`, `undo --reason`): a bounded text, or none.
Reason = Annotated[str, texted("reason")] | None
