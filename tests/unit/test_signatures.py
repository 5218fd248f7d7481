"""referee.protocol.signatures against the real ssh-keygen, plus malformed-input checks and a bounded fuzz."""

from __future__ import annotations

import base64
import functools
import hashlib
import os
import shutil
import stat
import struct
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import KeyFileError, RefereeError, SignatureError
from referee.protocol.signatures import (
    NAMESPACE_ORDERS,
    NAMESPACE_REFEREE,
    PrivateKey,
    PublicKey,
    Signature,
    generate_keypair,
    load_private_key,
    load_public_key_file,
    parse_public_key,
    parse_signature,
    public_key_of,
    sign,
    verify,
)

SSH_KEYGEN = shutil.which("ssh-keygen")
needs_ssh_keygen = pytest.mark.skipif(
    SSH_KEYGEN is None,
    reason="ssh-keygen (OpenSSH) is not installed; interop cannot be checked",
)
KINDS = {
    "ed25519": ["-t", "ed25519"],
    "ecdsa": ["-t", "ecdsa", "-b", "256"],
    "rsa": ["-t", "rsa", "-b", "2048"],
}
DATA = b"game: blenheim-1704\nturn: 3\nphase: tempo-bid\norders:\n  bid: 4\n"
FUZZ = settings(max_examples=300, deadline=None)


def keygen(*args: str, stdin: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    assert SSH_KEYGEN is not None
    return subprocess.run([SSH_KEYGEN, *args], input=stdin, capture_output=True, check=check)


def ssh_sign(key: Path, data: bytes, tmp_path: Path, namespace: str = NAMESPACE_ORDERS) -> str:
    target = tmp_path / "orders.yaml"
    target.write_bytes(data)
    keygen("-q", "-Y", "sign", "-f", str(key), "-n", namespace, str(target))
    return (tmp_path / "orders.yaml.sig").read_text()


def ssh_verify(
    public: PublicKey, data: bytes, armored: str, tmp_path: Path, namespace: str
) -> subprocess.CompletedProcess[bytes]:
    (tmp_path / "allowed_signers").write_text(f"someone {public.line()}\n")
    (tmp_path / "file.sig").write_text(armored)
    return keygen(
        "-Y", "verify", "-f", str(tmp_path / "allowed_signers"), "-I", "someone",
        "-n", namespace, "-s", str(tmp_path / "file.sig"), stdin=data, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def keydir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Keys made once by ssh-keygen (RSA keygen is slow): NAME and NAME.pub for each kind."""
    if SSH_KEYGEN is None:
        pytest.skip("ssh-keygen (OpenSSH) is not installed; interop cannot be checked")
    d = tmp_path_factory.mktemp("keys")
    for name, args in KINDS.items():
        keygen("-q", *args, "-N", "", "-C", f"{name} test key", "-f", str(d / name))
    return d


# --- wire helpers, written independently of the module under test ------------------------------


def wire(*parts: bytes | str) -> bytes:
    out = b""
    for p in parts:
        raw = p.encode() if isinstance(p, str) else p
        out += struct.pack(">I", len(raw)) + raw
    return out


def armor(blob: bytes) -> str:
    b64 = base64.b64encode(blob).decode()
    return (
        "-----BEGIN SSH SIGNATURE-----\n"
        + "\n".join(b64[i : i + 70] for i in range(0, len(b64), 70))
        + "\n-----END SSH SIGNATURE-----\n"
    )


def dearmor(text: str) -> bytes:
    return base64.b64decode("".join(text.strip().splitlines()[1:-1]))


def sshsig(
    key_blob: bytes,
    namespace: str,
    hash_alg: str,
    sig_type: str,
    sig: bytes,
    version: int = 1,
    reserved: bytes = b"",
) -> bytes:
    return b"SSHSIG" + struct.pack(">I", version) + wire(key_blob, namespace, reserved, hash_alg, wire(sig_type, sig))


def signed_data(namespace: str, hash_alg: str, data: bytes) -> bytes:
    return b"SSHSIG" + wire(namespace, b"", hash_alg, hashlib.new(hash_alg, data).digest())


@functools.cache
def valid_signatures() -> tuple[tuple[bytes, str], ...]:
    """One valid (data, armored) per key type, made in-process (no ssh-keygen inside hypothesis)."""
    keys: list[PrivateKey] = [
        ed25519.Ed25519PrivateKey.generate(),
        ec.generate_private_key(ec.SECP256R1()),
        rsa.generate_private_key(public_exponent=65537, key_size=2048),
    ]
    return tuple((DATA, sign(DATA, k, NAMESPACE_ORDERS)) for k in keys)


# --- interoperability with ssh-keygen ------------------------------------------------------------


@needs_ssh_keygen
@pytest.mark.parametrize("kind", KINDS)
def test_ssh_keygen_signature_verifies(keydir: Path, tmp_path: Path, kind: str) -> None:
    armored = ssh_sign(keydir / kind, DATA, tmp_path)
    key = verify(DATA, armored, NAMESPACE_ORDERS)
    expected = load_public_key_file(keydir / f"{kind}.pub")
    assert key == expected and key.fingerprint == expected.fingerprint
    assert expected.comment == f"{kind} test key"
    assert parse_signature(armored).hash_algorithm == "sha512"


@needs_ssh_keygen
@pytest.mark.parametrize("kind", [*KINDS, "generated"])
def test_sign_verifies_with_ssh_keygen(keydir: Path, tmp_path: Path, kind: str) -> None:
    path = keydir / kind
    if kind == "generated":
        path = tmp_path / "referee_key"
        generate_keypair(path, comment="referee@example")
    private = load_private_key(path)
    public = public_key_of(private)
    assert public == load_public_key_file(f"{path}.pub")
    armored = sign(DATA, private, NAMESPACE_REFEREE)
    body = armored.splitlines()
    assert body[0] == "-----BEGIN SSH SIGNATURE-----" and body[-1] == "-----END SSH SIGNATURE-----"
    assert all(len(line) == 70 for line in body[1:-2]) and 0 < len(body[-2]) <= 70
    result = ssh_verify(public, DATA, armored, tmp_path, NAMESPACE_REFEREE)
    assert result.returncode == 0, result.stderr
    assert b"Good" in result.stdout
    assert verify(DATA, armored, NAMESPACE_REFEREE) == public


@needs_ssh_keygen
def test_ssh_keygen_sha256_signature_verifies(keydir: Path, tmp_path: Path) -> None:
    target = tmp_path / "orders.yaml"
    target.write_bytes(DATA)
    key = str(keydir / "ed25519")
    keygen("-q", "-Y", "sign", "-O", "hashalg=sha256", "-f", key, "-n", NAMESPACE_ORDERS, str(target))
    armored = (tmp_path / "orders.yaml.sig").read_text()
    assert parse_signature(armored).hash_algorithm == "sha256"
    assert verify(DATA, armored, NAMESPACE_ORDERS) == load_public_key_file(f"{key}.pub")


@needs_ssh_keygen
def test_ed25519_signature_is_byte_identical_to_ssh_keygen(keydir: Path, tmp_path: Path) -> None:
    # Ed25519 is deterministic, so the whole armored text must match.
    assert sign(DATA, load_private_key(keydir / "ed25519"), NAMESPACE_ORDERS) == ssh_sign(
        keydir / "ed25519", DATA, tmp_path
    )


@needs_ssh_keygen
@pytest.mark.parametrize("kind", KINDS)
def test_fingerprint_matches_ssh_keygen(keydir: Path, kind: str) -> None:
    printed = keygen("-l", "-f", str(keydir / f"{kind}.pub")).stdout.decode().split()[1]
    assert load_public_key_file(keydir / f"{kind}.pub").fingerprint == printed


@needs_ssh_keygen
def test_rsa_sha256_signature_accepted_and_sha1_refused(keydir: Path, tmp_path: Path) -> None:
    private = load_private_key(keydir / "rsa")
    assert isinstance(private, rsa.RSAPrivateKey)
    blob = public_key_of(private).blob
    sig = private.sign(
        signed_data(NAMESPACE_ORDERS, "sha256", DATA),
        padding.PKCS1v15(),
        hashes.SHA256(),
    )
    armored = armor(sshsig(blob, NAMESPACE_ORDERS, "sha256", "rsa-sha2-256", sig))
    assert ssh_verify(public_key_of(private), DATA, armored, tmp_path, NAMESPACE_ORDERS).returncode == 0
    assert verify(DATA, armored, NAMESPACE_ORDERS) == public_key_of(private)
    sha1 = private.sign(signed_data(NAMESPACE_ORDERS, "sha512", DATA), padding.PKCS1v15(), hashes.SHA1())
    with pytest.raises(SignatureError, match="SHA-1"):
        verify(
            DATA,
            armor(sshsig(blob, NAMESPACE_ORDERS, "sha512", "ssh-rsa", sha1)),
            NAMESPACE_ORDERS,
        )


@needs_ssh_keygen
def test_reserved_field_is_ignored_like_ssh_keygen(keydir: Path, tmp_path: Path) -> None:
    # PROTOCOL.sshsig: the reserved field is ignored; what is signed always has it empty.
    private = load_private_key(keydir / "ed25519")
    sig = parse_signature(sign(DATA, private, NAMESPACE_ORDERS))
    blob = sig.public_key.blob
    armored = armor(sshsig(blob, NAMESPACE_ORDERS, "sha512", sig.signature_type, sig.signature, reserved=b"future"))
    assert ssh_verify(public_key_of(private), DATA, armored, tmp_path, NAMESPACE_ORDERS).returncode == 0
    assert verify(DATA, armored, NAMESPACE_ORDERS) == public_key_of(private)


# --- keys ----------------------------------------------------------------------------------------


@needs_ssh_keygen
def test_generate_keypair(tmp_path: Path) -> None:
    path = tmp_path / "key"
    public = generate_keypair(path, comment="referee@blenheim")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert path.read_text().startswith("-----BEGIN OPENSSH PRIVATE KEY-----")
    assert Path(f"{path}.pub").read_text() == public.line() + "\n"
    assert public.key_type == "ssh-ed25519" and public.line().endswith(" referee@blenheim")
    assert parse_public_key(keygen("-y", "-f", str(path)).stdout.decode()) == public
    with pytest.raises(KeyFileError, match="already exists"):
        generate_keypair(path)
    os.remove(path)  # only the .pub is left: still refused, and nothing is written
    with pytest.raises(KeyFileError, match="already exists"):
        generate_keypair(path)
    assert not path.exists()


def test_generate_keypair_creates_no_folders(tmp_path: Path) -> None:
    with pytest.raises(KeyFileError, match="cannot create"):
        generate_keypair(tmp_path / "missing" / "key")
    assert not (tmp_path / "missing").exists()
    public = generate_keypair(tmp_path / "bare")
    assert public.comment == "" and public.line().count(" ") == 1


@needs_ssh_keygen
@needs_ssh_keygen
@pytest.mark.parametrize("kind", KINDS)
def test_passphrase_protected_key(keydir: Path, tmp_path: Path, kind: str) -> None:
    locked = tmp_path / f"{kind}-locked"
    if kind == "ed25519":  # a key made with -N, as a player would
        keygen("-q", "-t", "ed25519", "-N", "secret", "-f", str(locked))
    else:  # the same key with a passphrase added: saves a slow RSA keygen
        shutil.copy(keydir / kind, locked)
        shutil.copy(keydir / f"{kind}.pub", f"{locked}.pub")
        keygen("-q", "-p", "-P", "", "-N", "secret", "-f", str(locked))
    with pytest.raises(KeyFileError, match="passphrase") as missing:
        load_private_key(locked)
    assert any("REFEREE_KEY_PASSPHRASE" in hint for hint in missing.value.hints)
    key = load_private_key(locked, passphrase=b"secret")
    assert public_key_of(key) == load_public_key_file(f"{locked}.pub")
    with pytest.raises(KeyFileError, match="wrong passphrase"):
        load_private_key(locked, passphrase=b"guess")


@needs_ssh_keygen
def test_passphrase_for_unencrypted_key_is_ignored(keydir: Path) -> None:
    # REFEREE_KEY_PASSPHRASE may be set for every key; an unencrypted one still loads.
    key = load_private_key(keydir / "ed25519", b"secret")
    assert public_key_of(key) == load_public_key_file(keydir / "ed25519.pub")


@needs_ssh_keygen
@pytest.mark.parametrize("kind", ["ecdsa", "rsa"])
@pytest.mark.parametrize("passphrase", ["", "secret"])
def test_pem_format_keys_load(keydir: Path, tmp_path: Path, kind: str, passphrase: str) -> None:
    pem = tmp_path / kind
    shutil.copy(keydir / kind, pem)
    keygen("-q", "-p", "-m", "PEM", "-P", "", "-N", passphrase, "-f", str(pem))
    assert pem.read_text().startswith(("-----BEGIN RSA", "-----BEGIN EC"))
    key = load_private_key(pem, passphrase.encode() or None)
    assert public_key_of(key) == load_public_key_file(keydir / f"{kind}.pub")


def test_load_private_key_refusals(tmp_path: Path) -> None:
    with pytest.raises(KeyFileError, match="not found"):
        load_private_key(tmp_path / "nope")
    generate_keypair(tmp_path / "k")
    with pytest.raises(KeyFileError, match="not a private key") as pub:
        load_private_key(tmp_path / "k.pub")
    assert "public key" in pub.value.hints[0]
    (tmp_path / "junk").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n")
    with pytest.raises(KeyFileError, match="damaged"):
        load_private_key(tmp_path / "junk")
    with pytest.raises(KeyFileError, match="not found"):
        load_public_key_file(tmp_path / "nope.pub")
    with pytest.raises(KeyFileError, match="private key"):
        load_public_key_file(tmp_path / "k")


def test_parse_public_key_forms(tmp_path: Path) -> None:
    public = generate_keypair(tmp_path / "k", comment="tallard at home")
    b64 = public.line().split()[1]
    assert parse_public_key(f"  {public.line()}\r\n\n") == public
    assert parse_public_key(f"  {public.line()}\n").comment == "tallard at home"
    assert parse_public_key(f"tallard@example ssh-ed25519 {b64}") == public  # allowed_signers
    assert parse_public_key(f'no-pty,command="echo ssh-rsa x" ssh-ed25519 {b64} c') == public  # authorized_keys
    assert PublicKey(public.key_type, public.blob, "other") == public
    assert hash(PublicKey(public.key_type, public.blob)) == hash(public)
    assert public.fingerprint.startswith("SHA256:") and not public.fingerprint.endswith("=")


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("hello world", "not an OpenSSH public key"),
        ("ssh-dss AAAAB3NzaC1kc3MAAACBAP", "unsupported key type"),
        ("ssh-ed25519 !!!notbase64", "damaged"),
        (
            "ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIBhKqG4xY1B3YnQ2Hn6w0V1f5H2h7P9cG6qj8v6xk8nR",
            "says ssh-rsa",
        ),
        ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAEBhKqG4xY1B3YnQ2Hn6w0V1f", "damaged"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----", "private key"),
    ],
)
def test_parse_public_key_refusals(text: str, message: str) -> None:
    with pytest.raises(KeyFileError, match=message) as err:
        parse_public_key(text)
    assert err.value.hints


def test_parse_public_key_refuses_two_lines(tmp_path: Path) -> None:
    line = generate_keypair(tmp_path / "k").line()
    with pytest.raises(KeyFileError, match="one public key line"):
        parse_public_key(f"{line}\n{line}\n")


# --- verification failures -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def signed() -> tuple[PublicKey, str]:
    key = ed25519.Ed25519PrivateKey.generate()
    return public_key_of(key), sign(DATA, key, NAMESPACE_ORDERS)


def test_tampered_data_refused(signed: tuple[PublicKey, str]) -> None:
    _, armored = signed
    tampered = DATA.replace(b"bid: 4", b"bid: 5")
    with pytest.raises(SignatureError, match="does not match the file") as err:
        verify(tampered, armored, NAMESPACE_ORDERS)
    assert any("exactly as signed" in hint for hint in err.value.hints)
    with pytest.raises(SignatureError, match="does not match"):
        verify(DATA.replace(b"\n", b"\r\n"), armored, NAMESPACE_ORDERS)


def test_wrong_namespace_refused(signed: tuple[PublicKey, str]) -> None:
    _, armored = signed
    with pytest.raises(SignatureError, match="pbem-orders.*pbem-referee") as err:
        verify(DATA, armored, NAMESPACE_REFEREE)
    assert err.value.hints == ("sign with: ssh-keygen -Y sign -f KEY -n pbem-referee FILE",)


def test_signature_by_another_key_is_reported_as_that_key(
    signed: tuple[PublicKey, str],
) -> None:
    expected, _ = signed
    other = ed25519.Ed25519PrivateKey.generate()
    found = verify(DATA, sign(DATA, other, NAMESPACE_ORDERS), NAMESPACE_ORDERS)
    assert found == public_key_of(other) and found != expected


def test_armor_tolerance(signed: tuple[PublicKey, str]) -> None:
    public, armored = signed
    assert verify(DATA, armored.replace("\n", "\r\n"), NAMESPACE_ORDERS) == public
    assert verify(DATA, "\n\n  " + armored + "  \n", NAMESPACE_ORDERS) == public
    assert verify(DATA, armored.encode(), NAMESPACE_ORDERS) == public
    indented = "\n".join("  " + line for line in armored.splitlines())
    assert verify(DATA, indented, NAMESPACE_ORDERS) == public


def test_parse_signature_fields(signed: tuple[PublicKey, str]) -> None:
    public, armored = signed
    assert parse_signature(armored) == Signature(
        public,
        NAMESPACE_ORDERS,
        "sha512",
        "ssh-ed25519",
        parse_signature(armored).signature,
    )
    assert len(parse_signature(armored).signature) == 64


def test_malformed_signatures(signed: tuple[PublicKey, str]) -> None:
    public, armored = signed
    lines = armored.splitlines()
    sig = parse_signature(armored).signature
    cases = {
        "not an armored": ["", "hello", "\n".join(lines[:-1]), "\n".join(lines[1:])],
        "base64 text is damaged": ["\n".join([lines[0], "AAA*", lines[-1]])],
        "cut short": ["\n".join(lines[:2] + lines[-1:])],
        "truncated": [armor(dearmor(armored)[:-1]), armor(dearmor(armored)[:30])],
        "magic": [armor(b"SSHSIX" + dearmor(armored)[6:])],
        "version 2": [
            armor(
                sshsig(
                    public.blob,
                    NAMESPACE_ORDERS,
                    "sha512",
                    "ssh-ed25519",
                    sig,
                    version=2,
                )
            )
        ],
        "trailing": [armor(dearmor(armored) + b"\0")],
        "hash 'md5'": [armor(sshsig(public.blob, NAMESPACE_ORDERS, "md5", "ssh-ed25519", sig))],
        "key type 'ssh-dss'": [armor(sshsig(wire("ssh-dss", b"x"), NAMESPACE_ORDERS, "sha512", "ssh-dss", sig))],
        "does not fit": [armor(sshsig(public.blob, NAMESPACE_ORDERS, "sha512", "rsa-sha2-512", sig))],
        "not 64": [armor(sshsig(public.blob, NAMESPACE_ORDERS, "sha512", "ssh-ed25519", sig[:-1]))],
        "empty": ["-----BEGIN SSH SIGNATURE-----\n-----END SSH SIGNATURE-----"],
    }
    for message, texts in cases.items():
        for text in texts:
            with pytest.raises(SignatureError, match=message):
                parse_signature(text)
            with pytest.raises(SignatureError, match=message):
                verify(DATA, text, NAMESPACE_ORDERS)
    with pytest.raises(SignatureError, match="not ASCII"):
        parse_signature(armored.encode() + "é".encode())


# --- fuzz: nothing but SignatureError / KeyFileError ever escapes ---------------------------------


def never_worse_than(error: type[RefereeError], call, *args) -> None:  # type: ignore[no-untyped-def]
    try:
        call(*args)
    except error:
        pass


@FUZZ
@given(
    st.one_of(
        st.binary(max_size=600),
        st.text(max_size=600),
        st.binary(max_size=600).map(armor),
    )
)
def test_fuzz_arbitrary_signature_input(value: bytes | str) -> None:
    never_worse_than(SignatureError, parse_signature, value)
    never_worse_than(SignatureError, verify, DATA, value, NAMESPACE_ORDERS)


@FUZZ
@given(which=st.integers(0, 2), data=st.data())
def test_fuzz_mutated_signature_is_refused(which: int, data: st.DataObject) -> None:
    message, armored = valid_signatures()[which]
    blob = dearmor(armored)
    op = data.draw(st.sampled_from(["flip", "truncate", "insert", "text"]))
    if op == "flip":
        i = data.draw(st.integers(0, len(blob) - 1))
        blob = blob[:i] + bytes([blob[i] ^ data.draw(st.integers(1, 255))]) + blob[i + 1 :]
    elif op == "truncate":
        blob = blob[: data.draw(st.integers(0, len(blob) - 1))]
    elif op == "insert":
        i = data.draw(st.integers(0, len(blob)))
        blob = blob[:i] + data.draw(st.binary(min_size=1, max_size=8)) + blob[i:]
    if op == "text":  # damage the armored text itself rather than the decoded blob
        i = data.draw(st.integers(0, len(armored) - 1))
        text = armored[:i] + data.draw(st.characters()) + armored[i + 1 :]
        never_worse_than(SignatureError, parse_signature, text)
        never_worse_than(SignatureError, verify, message, text, NAMESPACE_ORDERS)
        return
    never_worse_than(SignatureError, parse_signature, armor(blob))
    # Every change to the signed blob must be caught, not only survived.
    with pytest.raises(SignatureError):
        verify(message, armor(blob), NAMESPACE_ORDERS)


@FUZZ
@given(
    st.one_of(
        st.text(max_size=300),
        st.builds(
            lambda t, b, rest: f"{t} {base64.b64encode(b).decode()}{rest}",
            st.sampled_from(["ssh-ed25519", "ecdsa-sha2-nistp256", "ssh-rsa"]),
            st.binary(max_size=300),
            st.text(max_size=20),
        ),
        st.builds(
            lambda t, b: f"{t} {base64.b64encode(wire(t) + b).decode()}",
            st.sampled_from(["ssh-ed25519", "ecdsa-sha2-nistp256", "ssh-rsa"]),
            st.binary(max_size=300),
        ),
    )
)
def test_fuzz_parse_public_key(text: str) -> None:
    never_worse_than(KeyFileError, parse_public_key, text)
