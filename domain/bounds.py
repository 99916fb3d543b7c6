"""How big any value a GM gives may be: far beyond any campaign, far inside every store's
integers. Plain numbers, read by the command line without loading the models."""

# Supplies and house-rule amounts: far beyond any campaign, far inside every store's integers.
MAX_AMOUNT = 10**9
# Skill, attribute and movement levels, and a ruleset's own stats.
MAX_LEVEL = 100
# Health and Energy maxima and harm.
MAX_POINTS = 10**6
# Miles a vehicle travels in a day.
MAX_MILES = 10_000
# Squares: an open plain is edgeless, but not endless.
MAX_COORDINATE = 10**6
# Names of characters, mounts, vehicles, campaigns and GMs; reasons and titles.
MAX_NAME = 40
MAX_CAMPAIGN_NAME = 80
MAX_TEXT = 200
MAX_SEED = 2**63 - 1
# Event numbers: a log never gets near this, and every store's integers hold it.
MAX_SEQ = 2**62
