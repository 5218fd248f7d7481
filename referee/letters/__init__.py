"""The letters: what leaves for the players.

The Jinja2 environment (`render`), a text letter's lines (`wrapping`), a report's dice
lines (`dice_lines`), posting a letter (`post`: render, sign, keep under
GAMEDIR/mail/, put in the outbox), the letters kept there, a file each or packed
(`kept`), what letters show made from plain values (`content`),
order forms with a comment on each field (`forms`), encryption to a player's SSH key
(`encryption`), battlefield pictures as SVG and PNG (`pictures`), boards drawn alike
(`board_pictures`), the outbox maildir (`outbox`) and a letter's MIME written by bytes
(`mime`). Letters are
made from plain values handed to them (a `Letterhead`, a template context), never from the
engine's objects. It may import the kit, the protocol and the ground (`referee.errors`,
`referee.files`), never the game directory's life or the mail.
"""
