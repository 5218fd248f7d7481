"""Reports encrypted to a player's SSH key open with the real `age`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from referee.errors import ConfigError
from referee.letters.encryption import can_encrypt_to, encrypt_to
from referee.protocol.signatures import load_public_key_file


@pytest.fixture(scope="module")
def age() -> str:
    path = shutil.which("age")
    if path is None:
        pytest.skip("age is not installed: scripts/test installs it")
    return path


@pytest.mark.parametrize("kind", ["ed25519", "rsa"])
def test_age_opens_a_letter_encrypted_to_an_ssh_key(tmp_path: Path, ssh_keygen: str, age: str, kind: str) -> None:
    key = tmp_path / "id"
    subprocess.run([ssh_keygen, "-q", "-t", kind, "-N", "", "-f", str(key)], check=True)
    public = load_public_key_file(Path(f"{key}.pub"))

    sealed = encrypt_to([public], b"Your hand: Ace of Spades\n", "alice")

    assert sealed.startswith(b"-----BEGIN AGE ENCRYPTED FILE-----")
    opened = subprocess.run([age, "-d", "-i", str(key)], input=sealed, capture_output=True, check=True)
    assert opened.stdout == b"Your hand: Ace of Spades\n"


def test_an_ecdsa_key_is_refused_with_what_to_do(tmp_path: Path, ssh_keygen: str) -> None:
    key = tmp_path / "id"
    subprocess.run([ssh_keygen, "-q", "-t", "ecdsa", "-N", "", "-f", str(key)], check=True)
    public = load_public_key_file(Path(f"{key}.pub"))
    assert not can_encrypt_to(public)
    with pytest.raises(ConfigError, match="cannot receive age-encrypted letters") as refused:
        encrypt_to([public], b"x", "alice")
    assert "ssh-ed25519 and ssh-rsa" in refused.value.hints[0]


def test_a_letter_encrypted_to_several_keys_opens_with_any_one(tmp_path: Path, ssh_keygen: str, age: str) -> None:
    keys = {kind: tmp_path / f"id_{kind}" for kind in ("ed25519", "rsa")}
    for path in keys.values():
        subprocess.run([ssh_keygen, "-q", "-t", path.name[3:], "-N", "", "-f", str(path)], check=True)

    sealed = encrypt_to([load_public_key_file(Path(f"{path}.pub")) for path in keys.values()], b"orders\n", "alice")

    for path in keys.values():
        opened = subprocess.run([age, "-d", "-i", str(path)], input=sealed, capture_output=True, check=True)
        assert opened.stdout == b"orders\n"
