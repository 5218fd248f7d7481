"""Private letters encrypted to a player's registered SSH key, in the age format (pyrage), so
that `age -d -i ~/.ssh/id_ed25519 report.txt.age` opens them. age takes ssh-ed25519 and
ssh-rsa keys; an ECDSA key cannot receive encrypted letters, and saying so is all we can do.
"""

from __future__ import annotations

from referee.errors import ConfigError
from referee.signatures import PublicKey

AGE_KEY_TYPES = ("ssh-ed25519", "ssh-rsa")


def can_encrypt_to(key: PublicKey) -> bool:
    return key.key_type in AGE_KEY_TYPES


def encrypt_to(key: PublicKey, data: bytes, player: str) -> bytes:
    """Return `data` encrypted to `key`, ASCII-armored (it travels as a mail attachment)."""
    import pyrage

    if not can_encrypt_to(key):
        raise ConfigError(
            f"{player}'s key ({key.key_type}) cannot receive age-encrypted letters",
            hints=("age encrypts to ssh-ed25519 and ssh-rsa keys: register one of those for encrypted reports",),
        )
    recipient = pyrage.ssh.Recipient.from_str(key.line())
    return bytes(pyrage.encrypt(data, [recipient], armored=True))
