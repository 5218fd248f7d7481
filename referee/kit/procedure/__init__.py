"""The procedure journal: what a game run through the referee's tables and seals is made of.

Roll requests with modifiers and follow-ups (`rolls`), hidden notes with their reveals
(`hidden_notes`), public lists to pick from (`lists`), tracks (`tracks`), a sequence of play
with its calendar (`sequence`), rolls the sequence makes by itself (`scheduled`), and the
orders a phase of such a game takes (`procedure`). The moderator game is these parts alone;
a game module whose rulebook leaves its series procedures to the players' own tables builds
on them too. Each imports only `referee.kit`.
"""
