"""The supplies every party counts, in the order screens list them (RULES §3)."""

SUPPLY_KINDS: tuple[str, ...] = ("provisions", "fuel", "ammo", "wealth")
