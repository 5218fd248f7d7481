"""The protocol: everything a player needs to check the referee, and nothing else.

Canonical JSON and hashing (`canonical`), OpenSSH SSHSIG signatures (`signatures`), dice
commitments, transcripts and labelled streams (`dice`), hidden draws and their commitments
(`hidden`), the recording dice a game draws from (`draws`), the order-file envelope (`orders`,
`problems`), the public record (`records`), checking records (`verify`), proving revealed draws
(`reveals`), decks bound to their definitions (`cards`: what a shuffle states, how a card's move
is committed; `piles`: replaying the records' card moves), explaining one roll step by step
(`explain`), checking a public beacon's round (`beacon`) and holding the records to the letters
a player kept (`evidence`). docs/protocol.md specifies it.

It imports only the standard library, `cryptography` and `yaml` (and `drand_verify`, inside
`beacon.check_round`, only when a record has a beacon), never another part of `referee`: a
player's checker can be lifted out of it whole.
"""
