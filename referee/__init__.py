"""pbem-referee: a neutral, verifiable play-by-email referee for wargames."""

__version__ = "0.1.0"
PROTOCOL = "pbem-referee/1"
# A record carrying the referee's overrides (docs/protocol.md, section 11); others stay version 1.
PROTOCOL_WITH_OVERRIDES = "pbem-referee/2"
# A record with hidden draws or openings of them (section 8); it may list overrides too.
PROTOCOL_WITH_HIDDEN = "pbem-referee/3"
