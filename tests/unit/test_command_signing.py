"""`referee sign` on a command file (docs/mail.md): its own namespace, and a nonce required."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.errors import OrderRefusedError, SignatureError
from referee.protocol.signatures import NAMESPACE_COMMANDS, NAMESPACE_ORDERS, generate_keypair, verify
from referee.signing import sign_order_file

COMMAND = b"game: blenheim\nplayer: marlborough\ncommand: absent until 2026-12-24\nnonce: 7f3a9c2e41d0b5a6\n"


def no_passphrase() -> bytes:
    raise AssertionError("the key has no passphrase")


def test_a_command_file_is_signed_in_the_command_namespace_and_left_as_it_is(tmp_path: Path) -> None:
    key = tmp_path / "id_ed25519"
    public = generate_keypair(key)
    path = tmp_path / "command.yaml"
    path.write_bytes(COMMAND)

    signature = sign_order_file(path, key, no_passphrase).read_bytes()

    assert path.read_bytes() == COMMAND  # no entropy line added: the referee sent this file to be signed as it is
    assert verify(COMMAND, signature, NAMESPACE_COMMANDS).fingerprint == public.fingerprint
    with pytest.raises(SignatureError):
        verify(COMMAND, signature, NAMESPACE_ORDERS)


def test_a_command_file_without_a_nonce_is_not_signed(tmp_path: Path) -> None:
    key = tmp_path / "id_ed25519"
    generate_keypair(key)
    path = tmp_path / "command.yaml"
    path.write_bytes(COMMAND.replace(b"nonce: 7f3a9c2e41d0b5a6\n", b""))

    with pytest.raises(OrderRefusedError, match="nonce"):
        sign_order_file(path, key, no_passphrase)
    assert not (tmp_path / "command.yaml.sig").exists()
