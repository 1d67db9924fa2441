"""The keyword abilities of the Comprehensive Rules (702.2–702.190), as the scenario format spells them.

:class:`Keyword` is the one table: each member is the keyword's spelling (a ``str``: it equals, hashes and dumps as
that spelling), with the rule that defines it and its :class:`KeywordGroup`. A scenario's ``keywords`` take the CR's
keyword names in snake_case (``first_strike``, ``for_mirrodin``), so a board dumped from an engine loads as it is.
Only the keywords of :data:`DAMAGE_KEYWORDS` change what trample answers; every other one is accepted and carried
(dumped back unchanged) because it acts outside the combat damage step: on declarations (flying, menace, ...),
before damage (flanking, bushido, rampage: already in the power and toughness the board gives), after it
(poisonous, renown: triggers), or not in combat at all. docs/format.md, "Keywords", lists them.

Ask a creature about a keyword one way: ``creature.has(Keyword.TRAMPLE)`` (:meth:`trample.models.Creature.has`).
"""

from __future__ import annotations

from ._strenum import StrEnum


class KeywordGroup(StrEnum):
    """What trample does with a keyword."""

    DAMAGE = "damage"  # changes legality or what combat damage does
    NEEDS_FIELD = "needs_field"  # says too little alone: accepted only beside a field of its own
    CARRIED = "carried"  # accepted and carried, no effect on the answers


class Keyword(StrEnum):
    """A keyword ability of 702, as the format spells it; ``.rule`` is its rule, ``.group`` its :class:`KeywordGroup`.

    ``Keyword("first_strike") is Keyword.FIRST_STRIKE``; ``Keyword.FIRST_STRIKE == "first_strike"``.
    """

    _value_: str
    rule: str
    group: KeywordGroup

    def __new__(cls, spelling: str, rule: str = "", group: KeywordGroup = KeywordGroup.CARRIED) -> Keyword:
        member = str.__new__(cls, spelling)
        member._value_ = spelling
        member.rule = rule
        member.group = group
        return member

    # -- the keywords that change what trample answers (DAMAGE_KEYWORDS) --
    TRAMPLE = "trample", "702.19", KeywordGroup.DAMAGE
    TRAMPLE_OVER_PLANESWALKERS = "trample_over_planeswalkers", "702.19c", KeywordGroup.DAMAGE
    DEATHTOUCH = "deathtouch", "702.2", KeywordGroup.DAMAGE
    FIRST_STRIKE = "first_strike", "702.7", KeywordGroup.DAMAGE
    DOUBLE_STRIKE = "double_strike", "702.4", KeywordGroup.DAMAGE
    INDESTRUCTIBLE = "indestructible", "702.12", KeywordGroup.DAMAGE
    LIFELINK = "lifelink", "702.15", KeywordGroup.DAMAGE
    INFECT = "infect", "702.90", KeywordGroup.DAMAGE
    WITHER = "wither", "702.80", KeywordGroup.DAMAGE
    BANDING = "banding", "702.22", KeywordGroup.DAMAGE
    # -- accepted only beside a field of their own (NEEDS_FIELD) --
    TOXIC = "toxic", "702.164b", KeywordGroup.NEEDS_FIELD
    PROTECTION = "protection", "702.16a", KeywordGroup.NEEDS_FIELD
    # -- every other keyword ability of 702: accepted and carried (CARRIED_KEYWORDS) --
    DEFENDER = "defender", "702.3", KeywordGroup.CARRIED
    ENCHANT = "enchant", "702.5", KeywordGroup.CARRIED
    EQUIP = "equip", "702.6", KeywordGroup.CARRIED
    FLASH = "flash", "702.8", KeywordGroup.CARRIED
    FLYING = "flying", "702.9", KeywordGroup.CARRIED
    HASTE = "haste", "702.10", KeywordGroup.CARRIED
    HEXPROOF = "hexproof", "702.11", KeywordGroup.CARRIED
    INTIMIDATE = "intimidate", "702.13", KeywordGroup.CARRIED
    LANDWALK = "landwalk", "702.14", KeywordGroup.CARRIED
    PLAINSWALK = "plainswalk", "702.14", KeywordGroup.CARRIED
    ISLANDWALK = "islandwalk", "702.14", KeywordGroup.CARRIED
    SWAMPWALK = "swampwalk", "702.14", KeywordGroup.CARRIED
    MOUNTAINWALK = "mountainwalk", "702.14", KeywordGroup.CARRIED
    FORESTWALK = "forestwalk", "702.14", KeywordGroup.CARRIED
    DESERTWALK = "desertwalk", "702.14", KeywordGroup.CARRIED
    NONBASIC_LANDWALK = "nonbasic_landwalk", "702.14", KeywordGroup.CARRIED
    LEGENDARY_LANDWALK = "legendary_landwalk", "702.14", KeywordGroup.CARRIED
    SNOW_LANDWALK = "snow_landwalk", "702.14", KeywordGroup.CARRIED
    REACH = "reach", "702.17", KeywordGroup.CARRIED
    SHROUD = "shroud", "702.18", KeywordGroup.CARRIED
    VIGILANCE = "vigilance", "702.20", KeywordGroup.CARRIED
    WARD = "ward", "702.21", KeywordGroup.CARRIED
    BANDS_WITH_OTHER = "bands_with_other", "702.22c", KeywordGroup.CARRIED
    RAMPAGE = "rampage", "702.23", KeywordGroup.CARRIED
    CUMULATIVE_UPKEEP = "cumulative_upkeep", "702.24", KeywordGroup.CARRIED
    FLANKING = "flanking", "702.25", KeywordGroup.CARRIED
    PHASING = "phasing", "702.26", KeywordGroup.CARRIED
    BUYBACK = "buyback", "702.27", KeywordGroup.CARRIED
    SHADOW = "shadow", "702.28", KeywordGroup.CARRIED
    CYCLING = "cycling", "702.29", KeywordGroup.CARRIED
    ECHO = "echo", "702.30", KeywordGroup.CARRIED
    HORSEMANSHIP = "horsemanship", "702.31", KeywordGroup.CARRIED
    FADING = "fading", "702.32", KeywordGroup.CARRIED
    KICKER = "kicker", "702.33", KeywordGroup.CARRIED
    FLASHBACK = "flashback", "702.34", KeywordGroup.CARRIED
    MADNESS = "madness", "702.35", KeywordGroup.CARRIED
    FEAR = "fear", "702.36", KeywordGroup.CARRIED
    MORPH = "morph", "702.37", KeywordGroup.CARRIED
    AMPLIFY = "amplify", "702.38", KeywordGroup.CARRIED
    PROVOKE = "provoke", "702.39", KeywordGroup.CARRIED
    STORM = "storm", "702.40", KeywordGroup.CARRIED
    AFFINITY = "affinity", "702.41", KeywordGroup.CARRIED
    ENTWINE = "entwine", "702.42", KeywordGroup.CARRIED
    MODULAR = "modular", "702.43", KeywordGroup.CARRIED
    SUNBURST = "sunburst", "702.44", KeywordGroup.CARRIED
    BUSHIDO = "bushido", "702.45", KeywordGroup.CARRIED
    SOULSHIFT = "soulshift", "702.46", KeywordGroup.CARRIED
    SPLICE = "splice", "702.47", KeywordGroup.CARRIED
    OFFERING = "offering", "702.48", KeywordGroup.CARRIED
    NINJUTSU = "ninjutsu", "702.49", KeywordGroup.CARRIED
    EPIC = "epic", "702.50", KeywordGroup.CARRIED
    CONVOKE = "convoke", "702.51", KeywordGroup.CARRIED
    DREDGE = "dredge", "702.52", KeywordGroup.CARRIED
    TRANSMUTE = "transmute", "702.53", KeywordGroup.CARRIED
    BLOODTHIRST = "bloodthirst", "702.54", KeywordGroup.CARRIED
    HAUNT = "haunt", "702.55", KeywordGroup.CARRIED
    REPLICATE = "replicate", "702.56", KeywordGroup.CARRIED
    FORECAST = "forecast", "702.57", KeywordGroup.CARRIED
    GRAFT = "graft", "702.58", KeywordGroup.CARRIED
    RECOVER = "recover", "702.59", KeywordGroup.CARRIED
    RIPPLE = "ripple", "702.60", KeywordGroup.CARRIED
    SPLIT_SECOND = "split_second", "702.61", KeywordGroup.CARRIED
    SUSPEND = "suspend", "702.62", KeywordGroup.CARRIED
    VANISHING = "vanishing", "702.63", KeywordGroup.CARRIED
    ABSORB = "absorb", "702.64", KeywordGroup.CARRIED
    AURA_SWAP = "aura_swap", "702.65", KeywordGroup.CARRIED
    DELVE = "delve", "702.66", KeywordGroup.CARRIED
    FORTIFY = "fortify", "702.67", KeywordGroup.CARRIED
    FRENZY = "frenzy", "702.68", KeywordGroup.CARRIED
    GRAVESTORM = "gravestorm", "702.69", KeywordGroup.CARRIED
    POISONOUS = "poisonous", "702.70", KeywordGroup.CARRIED
    TRANSFIGURE = "transfigure", "702.71", KeywordGroup.CARRIED
    CHAMPION = "champion", "702.72", KeywordGroup.CARRIED
    CHANGELING = "changeling", "702.73", KeywordGroup.CARRIED
    EVOKE = "evoke", "702.74", KeywordGroup.CARRIED
    HIDEAWAY = "hideaway", "702.75", KeywordGroup.CARRIED
    PROWL = "prowl", "702.76", KeywordGroup.CARRIED
    REINFORCE = "reinforce", "702.77", KeywordGroup.CARRIED
    CONSPIRE = "conspire", "702.78", KeywordGroup.CARRIED
    PERSIST = "persist", "702.79", KeywordGroup.CARRIED
    RETRACE = "retrace", "702.81", KeywordGroup.CARRIED
    DEVOUR = "devour", "702.82", KeywordGroup.CARRIED
    EXALTED = "exalted", "702.83", KeywordGroup.CARRIED
    UNEARTH = "unearth", "702.84", KeywordGroup.CARRIED
    CASCADE = "cascade", "702.85", KeywordGroup.CARRIED
    ANNIHILATOR = "annihilator", "702.86", KeywordGroup.CARRIED
    LEVEL_UP = "level_up", "702.87", KeywordGroup.CARRIED
    REBOUND = "rebound", "702.88", KeywordGroup.CARRIED
    UMBRA_ARMOR = "umbra_armor", "702.89", KeywordGroup.CARRIED
    TOTEM_ARMOR = "totem_armor", "702.89", KeywordGroup.CARRIED
    BATTLE_CRY = "battle_cry", "702.91", KeywordGroup.CARRIED
    LIVING_WEAPON = "living_weapon", "702.92", KeywordGroup.CARRIED
    UNDYING = "undying", "702.93", KeywordGroup.CARRIED
    MIRACLE = "miracle", "702.94", KeywordGroup.CARRIED
    SOULBOND = "soulbond", "702.95", KeywordGroup.CARRIED
    OVERLOAD = "overload", "702.96", KeywordGroup.CARRIED
    SCAVENGE = "scavenge", "702.97", KeywordGroup.CARRIED
    UNLEASH = "unleash", "702.98", KeywordGroup.CARRIED
    CIPHER = "cipher", "702.99", KeywordGroup.CARRIED
    EVOLVE = "evolve", "702.100", KeywordGroup.CARRIED
    EXTORT = "extort", "702.101", KeywordGroup.CARRIED
    FUSE = "fuse", "702.102", KeywordGroup.CARRIED
    BESTOW = "bestow", "702.103", KeywordGroup.CARRIED
    TRIBUTE = "tribute", "702.104", KeywordGroup.CARRIED
    DETHRONE = "dethrone", "702.105", KeywordGroup.CARRIED
    HIDDEN_AGENDA = "hidden_agenda", "702.106", KeywordGroup.CARRIED
    OUTLAST = "outlast", "702.107", KeywordGroup.CARRIED
    PROWESS = "prowess", "702.108", KeywordGroup.CARRIED
    DASH = "dash", "702.109", KeywordGroup.CARRIED
    EXPLOIT = "exploit", "702.110", KeywordGroup.CARRIED
    MENACE = "menace", "702.111", KeywordGroup.CARRIED
    RENOWN = "renown", "702.112", KeywordGroup.CARRIED
    AWAKEN = "awaken", "702.113", KeywordGroup.CARRIED
    DEVOID = "devoid", "702.114", KeywordGroup.CARRIED
    INGEST = "ingest", "702.115", KeywordGroup.CARRIED
    MYRIAD = "myriad", "702.116", KeywordGroup.CARRIED
    SURGE = "surge", "702.117", KeywordGroup.CARRIED
    SKULK = "skulk", "702.118", KeywordGroup.CARRIED
    EMERGE = "emerge", "702.119", KeywordGroup.CARRIED
    ESCALATE = "escalate", "702.120", KeywordGroup.CARRIED
    MELEE = "melee", "702.121", KeywordGroup.CARRIED
    CREW = "crew", "702.122", KeywordGroup.CARRIED
    FABRICATE = "fabricate", "702.123", KeywordGroup.CARRIED
    PARTNER = "partner", "702.124", KeywordGroup.CARRIED
    UNDAUNTED = "undaunted", "702.125", KeywordGroup.CARRIED
    IMPROVISE = "improvise", "702.126", KeywordGroup.CARRIED
    AFTERMATH = "aftermath", "702.127", KeywordGroup.CARRIED
    EMBALM = "embalm", "702.128", KeywordGroup.CARRIED
    ETERNALIZE = "eternalize", "702.129", KeywordGroup.CARRIED
    AFFLICT = "afflict", "702.130", KeywordGroup.CARRIED
    ASCEND = "ascend", "702.131", KeywordGroup.CARRIED
    ASSIST = "assist", "702.132", KeywordGroup.CARRIED
    JUMP_START = "jump_start", "702.133", KeywordGroup.CARRIED
    MENTOR = "mentor", "702.134", KeywordGroup.CARRIED
    AFTERLIFE = "afterlife", "702.135", KeywordGroup.CARRIED
    RIOT = "riot", "702.136", KeywordGroup.CARRIED
    SPECTACLE = "spectacle", "702.137", KeywordGroup.CARRIED
    ESCAPE = "escape", "702.138", KeywordGroup.CARRIED
    COMPANION = "companion", "702.139", KeywordGroup.CARRIED
    MUTATE = "mutate", "702.140", KeywordGroup.CARRIED
    ENCORE = "encore", "702.141", KeywordGroup.CARRIED
    BOAST = "boast", "702.142", KeywordGroup.CARRIED
    FORETELL = "foretell", "702.143", KeywordGroup.CARRIED
    DEMONSTRATE = "demonstrate", "702.144", KeywordGroup.CARRIED
    DAYBOUND = "daybound", "702.145", KeywordGroup.CARRIED
    NIGHTBOUND = "nightbound", "702.145", KeywordGroup.CARRIED
    DISTURB = "disturb", "702.146", KeywordGroup.CARRIED
    DECAYED = "decayed", "702.147", KeywordGroup.CARRIED
    CLEAVE = "cleave", "702.148", KeywordGroup.CARRIED
    TRAINING = "training", "702.149", KeywordGroup.CARRIED
    COMPLEATED = "compleated", "702.150", KeywordGroup.CARRIED
    RECONFIGURE = "reconfigure", "702.151", KeywordGroup.CARRIED
    BLITZ = "blitz", "702.152", KeywordGroup.CARRIED
    CASUALTY = "casualty", "702.153", KeywordGroup.CARRIED
    ENLIST = "enlist", "702.154", KeywordGroup.CARRIED
    READ_AHEAD = "read_ahead", "702.155", KeywordGroup.CARRIED
    RAVENOUS = "ravenous", "702.156", KeywordGroup.CARRIED
    SQUAD = "squad", "702.157", KeywordGroup.CARRIED
    SPACE_SCULPTOR = "space_sculptor", "702.158", KeywordGroup.CARRIED
    VISIT = "visit", "702.159", KeywordGroup.CARRIED
    PROTOTYPE = "prototype", "702.160", KeywordGroup.CARRIED
    LIVING_METAL = "living_metal", "702.161", KeywordGroup.CARRIED
    MORE_THAN_MEETS_THE_EYE = "more_than_meets_the_eye", "702.162", KeywordGroup.CARRIED
    FOR_MIRRODIN = "for_mirrodin", "702.163", KeywordGroup.CARRIED
    BACKUP = "backup", "702.165", KeywordGroup.CARRIED
    BARGAIN = "bargain", "702.166", KeywordGroup.CARRIED
    CRAFT = "craft", "702.167", KeywordGroup.CARRIED
    DISGUISE = "disguise", "702.168", KeywordGroup.CARRIED
    SOLVED = "solved", "702.169", KeywordGroup.CARRIED
    PLOT = "plot", "702.170", KeywordGroup.CARRIED
    SADDLE = "saddle", "702.171", KeywordGroup.CARRIED
    SPREE = "spree", "702.172", KeywordGroup.CARRIED
    FREERUNNING = "freerunning", "702.173", KeywordGroup.CARRIED
    GIFT = "gift", "702.174", KeywordGroup.CARRIED
    OFFSPRING = "offspring", "702.175", KeywordGroup.CARRIED
    IMPENDING = "impending", "702.176", KeywordGroup.CARRIED
    EXHAUST = "exhaust", "702.177", KeywordGroup.CARRIED
    MAX_SPEED = "max_speed", "702.178", KeywordGroup.CARRIED
    START_YOUR_ENGINES = "start_your_engines", "702.179", KeywordGroup.CARRIED
    HARMONIZE = "harmonize", "702.180", KeywordGroup.CARRIED
    MOBILIZE = "mobilize", "702.181", KeywordGroup.CARRIED
    JOB_SELECT = "job_select", "702.182", KeywordGroup.CARRIED
    TIERED = "tiered", "702.183", KeywordGroup.CARRIED
    STATION = "station", "702.184", KeywordGroup.CARRIED
    WARP = "warp", "702.185", KeywordGroup.CARRIED
    INFINITY = "infinity", "702.186", KeywordGroup.CARRIED
    MAYHEM = "mayhem", "702.187", KeywordGroup.CARRIED
    WEB_SLINGING = "web_slinging", "702.188", KeywordGroup.CARRIED
    FIREBENDING = "firebending", "702.189", KeywordGroup.CARRIED
    SNEAK = "sneak", "702.190", KeywordGroup.CARRIED


#: Keywords whose number or quality is a field of its own: the keyword alone says too little to answer right,
#: so it is accepted only beside that field (``"toxic": N``, ``"protection": [...]``): the field and the message.
NEEDS_FIELD: dict[str, tuple[str, str]] = {
    "toxic": ("toxic", '702.164b: give the creature\'s total toxic value as "toxic": N'),
    "protection": ("protection", '702.16a: give the qualities as "protection": [...]'),
}

#: The keywords that change legality or what combat damage does, each with its rule.
DAMAGE_KEYWORDS: dict[str, str] = {k.value: k.rule for k in Keyword if k.group is KeywordGroup.DAMAGE}

#: Every other keyword ability of 702, with its rule: accepted and carried, no effect on the answers.
CARRIED_KEYWORDS: dict[str, str] = {k.value: k.rule for k in Keyword if k.group is KeywordGroup.CARRIED}

#: Every keyword a scenario accepts, with its rule (the order of :class:`Keyword`).
ALL_KEYWORDS: dict[str, str] = {k.value: k.rule for k in Keyword}


def spelled(text: str) -> str:
    """How the format spells a keyword written as printed: ``"First Strike"`` → ``"first_strike"``."""
    out = text.strip().lower().replace("∞", "infinity")
    for old, new in ((" ", "_"), ("-", "_"), ("!", ""), ("'", ""), ("’", "")):
        out = out.replace(old, new)
    return out.strip("_")


def suggestion(text: str) -> str | None:
    """The accepted keyword a misspelt one (``"First Strike"``, ``"lifelink "``) most likely means."""
    guess = spelled(text)
    return guess if guess in ALL_KEYWORDS and guess != text else None
