"""Private letters encrypted to a player's registered SSH key, in the age format (pyrage), so
that `age -d -i ~/.ssh/id_ed25519 report.txt.age` opens them. age takes ssh-ed25519 and
ssh-rsa keys; an ECDSA key cannot receive encrypted letters, and saying so is all we can do.

A sealed letter's body is a cover note that says only what its subject says; everything the
letter carries for one player travels as FILE.age, and files every player gets stay plain.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from referee.errors import ConfigError
from referee.letters.outbox import Attachment, Letter
from referee.letters.render import render
from referee.protocol.signatures import PublicKey

AGE_KEY_TYPES = ("ssh-ed25519", "ssh-rsa")
AGE_SUFFIX = ".age"
# Where ssh-keygen puts a new key of each type: the path the cover note gives to `age -i`.
DEFAULT_IDENTITIES = {"ssh-ed25519": "~/.ssh/id_ed25519", "ssh-rsa": "~/.ssh/id_rsa"}
UNSUPPORTED_KEY_HINT = (
    "age encrypts to ssh-ed25519 and ssh-rsa keys: register one of those for encrypted reports "
    "(ssh-keygen -t ed25519), or leave out 'encrypt: true'"
)


def can_encrypt_to(key: PublicKey) -> bool:
    """Return whether age can encrypt to this key (ssh-ed25519 or ssh-rsa)."""
    return key.key_type in AGE_KEY_TYPES


def encrypt_to(keys: Sequence[PublicKey], data: bytes, player: str) -> bytes:
    """Return `data` encrypted so that any one of `keys` opens it, ASCII-armored (it travels as a
    mail attachment)."""
    import pyrage  # deferred for start-up speed: only encrypted letters need it

    for key in keys:
        if not can_encrypt_to(key):
            raise ConfigError(
                f"{player}'s key ({key.key_type}) cannot receive age-encrypted letters", hints=(UNSUPPORTED_KEY_HINT,)
            )
    recipients = [pyrage.ssh.Recipient.from_str(key.line()) for key in keys]
    return bytes(pyrage.encrypt(data, recipients, armored=True))


def seal_letter(
    letter: Letter, keys: Sequence[PublicKey], player: str | None, referee_name: str, referee_email: str
) -> Letter:
    """Return `letter` as a player who asked for encryption gets it: a cover note for body, each
    private attachment encrypted to `keys` as FILE.age, the public ones as they were.

    The letter's own body is dropped: whatever it says must also be in an attachment (a game
    letter's signed text always is)."""
    attachments = [_sealed(item, keys, player or letter.to) for item in letter.attachments]
    context = _cover_context(letter.subject, attachments, keys, player, referee_name, referee_email)
    text, html = render("cover", context)
    return replace(letter, text=text, html=html, attachments=attachments)


def _sealed(item: Attachment, keys: Sequence[PublicKey], player: str) -> Attachment:
    if item.public:
        return item
    # Octet-stream, so that no mail client rewrites the armor's line ends on the way.
    return replace(
        item,
        filename=item.filename + AGE_SUFFIX,
        data=encrypt_to(keys, item.data, player),
        content_type="application/octet-stream",
    )


def _cover_context(
    subject: str,
    attachments: list[Attachment],
    keys: Sequence[PublicKey],
    player: str | None,
    referee_name: str,
    referee_email: str,
) -> dict[str, Any]:
    sealed = [(item.filename, item.filename.removesuffix(AGE_SUFFIX)) for item in attachments if not item.public]
    return {
        "subject": subject,
        "player": player,
        "sealed": sealed,
        # A game letter attaches its signed text first; the other private files are .yaml.
        "letter_file": next((plain for _, plain in sealed if plain.endswith(".txt")), None),
        "plain": [item.filename for item in attachments if item.public],
        "identity": DEFAULT_IDENTITIES[keys[0].key_type],
        "keys": [{"type": key.key_type, "fingerprint": key.fingerprint} for key in keys],
        "referee_name": referee_name,
        "referee_email": referee_email,
    }


def identity_decrypter(identity: Path) -> Callable[[bytes], bytes]:
    """Return a function that opens files sealed to the player's SSH key at `identity` (as
    `age -d -i` does), raising ValueError when it cannot: for a player checking their letters."""
    import pyrage  # deferred for start-up speed: only sealed letters need it

    try:
        key = pyrage.ssh.Identity.from_buffer(Path(identity).expanduser().read_bytes())
    except OSError as error:
        raise ConfigError(f"cannot read the identity {identity}: {error.strerror or error}") from error
    except pyrage.IdentityError as error:
        raise ConfigError(
            f"{identity} is not an SSH private key age can use ({error})",
            hints=("give the private key your letters are sealed to, e.g. --identity ~/.ssh/id_ed25519",),
        ) from error

    def decrypt(data: bytes) -> bytes:
        try:
            return bytes(pyrage.decrypt(data, [key]))
        except pyrage.DecryptError as error:
            raise ValueError(f"age could not open it ({error}): is it sealed to this key?") from error

    return decrypt
