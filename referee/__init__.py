"""pbem-referee: a neutral, verifiable play-by-email referee for wargames."""

__version__ = "0.1.0"
