"""OpenSSH SSHSIG signatures (protocol §1): the format of `ssh-keygen -Y sign` and `-Y verify`.

The format is PROTOCOL.sshsig in openssh-portable. Everything here is done with `cryptography`,
so the referee signs and verifies without running ssh-keygen, and stays interoperable with it.
"""

from __future__ import annotations

import base64
import hashlib
import os
import struct
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

from referee.protocol.errors import KeyFileError, RefereeError, SignatureError

NAMESPACE_ORDERS = "pbem-orders"
NAMESPACE_REFEREE = "pbem-referee"
NAMESPACE_COMMANDS = "pbem-command"  # a player's command file (absent, back, dispute) sent by mail

KEY_TYPES = ("ssh-ed25519", "ecdsa-sha2-nistp256", "ssh-rsa")
# "ssh-rsa" as a *signature* type means SHA-1, which OpenSSH itself refuses for SSHSIG.
_SIGNATURE_TYPES = {
    "ssh-ed25519": ("ssh-ed25519",),
    "ecdsa-sha2-nistp256": ("ecdsa-sha2-nistp256",),
    "ssh-rsa": ("rsa-sha2-512", "rsa-sha2-256"),
}
_HASHES = {"sha512": hashlib.sha512, "sha256": hashlib.sha256}
_MAGIC = b"SSHSIG"
_VERSION = 1
_BEGIN = "-----BEGIN SSH SIGNATURE-----"
_END = "-----END SSH SIGNATURE-----"
_RSA_BITS = (1024, 16384)  # OpenSSH's own limits
_SIGN_HINT = "sign with: ssh-keygen -Y sign -f KEY -n {namespace} FILE"
_PUB_HINT = "paste the whole line of your id_ed25519.pub (it starts with ssh-ed25519)"
# Said to players whose mail was read every way a mail client may have changed it (line ends,
# encodings, final newline): what is left to check is the file and its .sig themselves.
_MAIL_HINT = (
    "send the order file exactly as signed with the .sig made from it (attached as files, "
    "or pasted whole above the armored signature)"
)
_NEW_KEY_HINT = "make a supported key with: ssh-keygen -t ed25519"

_PRIVATE_TYPES = (ed25519.Ed25519PrivateKey, ec.EllipticCurvePrivateKey, rsa.RSAPrivateKey)
PrivateKey = ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey
_CryptoKey = ed25519.Ed25519PublicKey | ec.EllipticCurvePublicKey | rsa.RSAPublicKey


class _Malformed(ValueError):
    """Internal: SSH wire data that cannot be read; turned into a RefereeError at the boundary."""


@dataclass(frozen=True)
class PublicKey:
    """An OpenSSH public key; two keys are equal when type and blob are, whatever the comment."""

    key_type: str
    blob: bytes
    comment: str = field(default="", compare=False)

    def line(self) -> str:
        """Return the OpenSSH public key line, `type base64 [comment]`, without a newline."""
        text = f"{self.key_type} {base64.b64encode(self.blob).decode('ascii')}"
        return f"{text} {self.comment}" if self.comment else text

    @property
    def fingerprint(self) -> str:
        """Return the fingerprint as `ssh-keygen -l` prints it: `SHA256:` + unpadded base64."""
        digest = base64.b64encode(hashlib.sha256(self.blob).digest()).decode("ascii")
        return "SHA256:" + digest.rstrip("=")


@dataclass(frozen=True)
class Signature:
    """The fields of a parsed SSHSIG signature."""

    public_key: PublicKey
    namespace: str
    hash_algorithm: str
    signature_type: str
    signature: bytes


# --- SSH wire format -------------------------------------------------------------------------


def _string(data: bytes | str) -> bytes:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return struct.pack(">I", len(raw)) + raw


def _mpint(value: int) -> bytes:
    # Two's complement, big-endian: a positive number whose top bit is set gets a 0x00 in front.
    return _string(value.to_bytes((value.bit_length() + 8) // 8, "big") if value else b"")


def _show(raw: bytes | str) -> str:
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return repr(text if len(text) <= 40 else text[:40] + "...")


class _Reader:
    """Reads SSH wire values from a byte string, raising _Malformed past its end."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, n: int) -> bytes:
        if n > len(self.data) - self.pos:
            raise _Malformed("it is truncated")
        self.pos += n
        return self.data[self.pos - n : self.pos]

    def uint32(self) -> int:
        return int(struct.unpack(">I", self.take(4))[0])

    def string(self) -> bytes:
        return self.take(self.uint32())

    def text(self, what: str) -> str:
        raw = self.string()
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise _Malformed(f"its {what} is not text") from None

    def mpint(self) -> int:
        raw = self.string()
        if raw and raw[0] & 0x80:
            raise _Malformed("it holds a negative number")
        if len(raw) > _RSA_BITS[1] // 8 + 1:
            raise _Malformed("it holds a number too large for any supported key")
        return int.from_bytes(raw, "big")

    def end(self) -> None:
        if self.pos != len(self.data):
            raise _Malformed(f"it has {len(self.data) - self.pos} trailing bytes after its end")


def _decode_key_blob(blob: bytes) -> tuple[str, _CryptoKey]:
    """Return the key type and key held in an SSH public key blob, or raise _Malformed."""
    r = _Reader(blob)
    key_type = r.text("key type")
    if key_type == "ssh-ed25519":
        raw = r.string()
        r.end()
        if len(raw) != 32:
            raise _Malformed(f"its ed25519 key is {len(raw)} bytes, not 32")
        return key_type, ed25519.Ed25519PublicKey.from_public_bytes(raw)
    if key_type == "ecdsa-sha2-nistp256":
        curve, point = r.text("curve name"), r.string()
        r.end()
        if curve != "nistp256" or len(point) != 65 or point[0] != 4:
            raise _Malformed("its ECDSA key is not an uncompressed nistp256 point")
        try:
            return key_type, ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
        except ValueError:
            raise _Malformed("its ECDSA point is not on the P-256 curve") from None
    if key_type == "ssh-rsa":
        e, n = r.mpint(), r.mpint()
        r.end()
        if not _RSA_BITS[0] <= n.bit_length() <= _RSA_BITS[1]:
            raise _Malformed(f"its RSA key has {n.bit_length()} bits (1024 to 16384 work)")
        if e.bit_length() > 64:  # OpenSSL refuses these only when used; ssh-keygen uses 65537
            raise _Malformed("its RSA public exponent is too large")
        try:
            return key_type, rsa.RSAPublicNumbers(e, n).public_key()
        except ValueError:
            raise _Malformed("its RSA numbers are not a valid key") from None
    raise _Malformed(f"its key type {_show(key_type)} is not supported ({', '.join(KEY_TYPES)})")


def _ecdsa_rs(raw: bytes) -> tuple[int, int]:
    r = _Reader(raw)
    values = r.mpint(), r.mpint()
    r.end()
    return values


def _check_signature_shape(key: _CryptoKey, raw: bytes) -> None:
    if isinstance(key, ed25519.Ed25519PublicKey) and len(raw) != 64:
        raise _Malformed(f"its ed25519 signature is {len(raw)} bytes, not 64")
    if isinstance(key, ec.EllipticCurvePublicKey):
        _ecdsa_rs(raw)
    if isinstance(key, rsa.RSAPublicKey) and len(raw) > (key.key_size + 7) // 8:
        raise _Malformed("its RSA signature is longer than the key's modulus")


# --- public keys ------------------------------------------------------------------------------


def parse_public_key(text: str) -> PublicKey:
    """Return the key on one OpenSSH public key line (options or a principal may come first)."""
    lines = [s.strip() for s in text.splitlines() if s.strip() and s.strip()[0] != "#"]
    if not lines:
        raise KeyFileError("no public key found: the text is empty", (_PUB_HINT,))
    if "PRIVATE KEY" in lines[0]:
        raise KeyFileError(
            "this is a private key, not a public key: keep it secret",
            ("give the .pub file next to it instead",),
        )
    if len(lines) > 1:
        raise KeyFileError(f"expected one public key line, found {len(lines)}", (_PUB_HINT,))
    tokens, problem = lines[0].split(), ""
    for i, token in enumerate(tokens[:-1]):
        if token not in KEY_TYPES:
            continue
        try:
            blob = base64.b64decode(tokens[i + 1], validate=True)
            inner_type, _ = _decode_key_blob(blob)
        except _Malformed as exc:
            problem = str(exc)
            continue
        except ValueError:  # binascii.Error, or non-ASCII text
            problem = "its base64 text is damaged"
            continue
        if inner_type != token:
            problem = f"the line says {token} but the key inside is {inner_type}"
            continue
        return PublicKey(token, blob, " ".join(tokens[i + 2 :]))
    if problem:
        raise KeyFileError(f"the public key is damaged: {problem}", (_PUB_HINT,))
    other = next((t for t in tokens if t.startswith(("ssh-", "ecdsa-", "sk-"))), None)
    if other:
        raise KeyFileError(
            f"unsupported key type {_show(other)} (supported: {', '.join(KEY_TYPES)})",
            (_NEW_KEY_HINT,),
        )
    raise KeyFileError("this is not an OpenSSH public key line", (_PUB_HINT,))


def load_public_key_file(path: str | os.PathLike[str]) -> PublicKey:
    """Return the public key in an OpenSSH `.pub` file."""
    name = os.fspath(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise KeyFileError(f"public key file not found: {name}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyFileError(f"cannot read public key file {name}: {exc}") from None
    try:
        return parse_public_key(text)
    except KeyFileError as exc:
        raise KeyFileError(f"{name}: {exc.message}", exc.hints) from None


def public_key_of(private_key: PrivateKey) -> PublicKey:
    """Return the OpenSSH public key of a private key (with an empty comment)."""
    if not isinstance(private_key, _PRIVATE_TYPES):
        name = type(private_key).__name__
        raise KeyFileError(f"unsupported private key type {name}", (_NEW_KEY_HINT,))
    line = private_key.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    return parse_public_key(line.decode("ascii"))


def _write_new(path: str, data: bytes, mode: int) -> None:
    # O_EXCL: never replace a key; the mode is set at creation, so there is no readable moment.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        raise KeyFileError(f"{path} already exists; refusing to overwrite a key") from None
    except OSError as exc:
        hints = ("the folder must exist",)
        raise KeyFileError(f"cannot create {path}: {exc.strerror}", hints) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    except OSError as exc:
        os.unlink(path)
        raise KeyFileError(f"cannot write {path}: {exc.strerror}") from None


def generate_keypair(path: str | os.PathLike[str], comment: str = "") -> PublicKey:
    """Write a new ed25519 key to `path` (mode 0600) and `path.pub`; return its public key."""
    private_path = os.fspath(path)
    public_path = private_path + ".pub"
    if "\n" in comment or "\r" in comment:
        raise KeyFileError("a key comment must be a single line")
    for existing in (private_path, public_path):
        if os.path.lexists(existing):
            raise KeyFileError(
                f"{existing} already exists; refusing to overwrite a key",
                ("choose another path, or move the old key away yourself",),
            )
    key = ed25519.Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.OpenSSH,
        serialization.NoEncryption(),
    )
    public = replace(public_key_of(key), comment=comment)
    _write_new(private_path, pem, 0o600)
    try:
        _write_new(public_path, (public.line() + "\n").encode("utf-8"), 0o644)
    except KeyFileError:
        os.unlink(private_path)
        raise
    return public


def _load_private(name: str, data: bytes, passphrase: bytes | None) -> Any:
    head = data.lstrip()[:64]
    if head.startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----"):
        loader: Any = serialization.load_ssh_private_key
    elif head.startswith(b"-----BEGIN ") and b"PRIVATE KEY-----" in head:
        loader = serialization.load_pem_private_key
    else:
        public = head.startswith((b"ssh-", b"ecdsa-"))
        hint = ("this is a public key: give the file without .pub",) if public else ()
        raise KeyFileError(f"{name} is not a private key file", hint)
    try:
        return loader(data, None)
    except TypeError:  # cryptography's way of saying "encrypted, and no password given"
        if passphrase is None:
            raise KeyFileError(
                f"{name} is protected by a passphrase, and none was given",
                ("set REFEREE_KEY_PASSPHRASE or answer the prompt",),
            ) from None
    try:
        return loader(data, passphrase)
    except ValueError:
        raise KeyFileError(
            f"wrong passphrase for {name} (or the key file is damaged)",
            (f"check it with: ssh-keygen -y -f {name}",),
        ) from None


def load_private_key(path: str | os.PathLike[str], passphrase: bytes | None = None) -> PrivateKey:
    """Return the private key in an OpenSSH (or PEM) key file, decrypted with `passphrase`."""
    name = os.fspath(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        hint = f"make one with: ssh-keygen -t ed25519 -f {name}"
        raise KeyFileError(f"private key file not found: {name}", (hint,)) from None
    except OSError as exc:
        raise KeyFileError(f"cannot read private key file {name}: {exc.strerror}") from None
    try:
        key = _load_private(name, data, passphrase)
    except UnsupportedAlgorithm as exc:
        hint = "encrypted OpenSSH keys need bcrypt: pip install 'cryptography[ssh]'"
        raise KeyFileError(f"cannot load {name}: {exc}", (hint,)) from None
    except ValueError as exc:
        raise KeyFileError(f"{name} is damaged or not a private key: {exc}") from None
    try:
        public_key_of(key)  # refuses key types that cannot sign here
    except KeyFileError as exc:
        raise KeyFileError(f"{name}: {exc.message}", exc.hints) from None
    return key  # type: ignore[no-any-return]


# --- signatures -------------------------------------------------------------------------------


def _signed_data(namespace: str, hash_algorithm: str, data: bytes) -> bytes:
    digest = _HASHES[hash_algorithm](data).digest()
    # The reserved field is always empty in what is signed, as OpenSSH does.
    fields: list[bytes | str] = [namespace, b"", hash_algorithm, digest]
    return _MAGIC + b"".join(map(_string, fields))


def sign(data: bytes, private_key: PrivateKey, namespace: str, public: PublicKey | None = None) -> str:
    """Return the armored SSHSIG signature of `data` that `ssh-keygen -Y sign` would make.
    `public`: the key's public half, known to match (a signer of many letters derives it once)."""
    if not namespace:
        raise SignatureError("a signature needs a namespace")
    public = public if public is not None else public_key_of(private_key)
    message = _signed_data(namespace, "sha512", data)
    if isinstance(private_key, ed25519.Ed25519PrivateKey):
        sig_type, raw = "ssh-ed25519", private_key.sign(message)
    elif isinstance(private_key, ec.EllipticCurvePrivateKey):
        r, s = decode_dss_signature(private_key.sign(message, ec.ECDSA(hashes.SHA256())))
        sig_type, raw = "ecdsa-sha2-nistp256", _mpint(r) + _mpint(s)
    else:
        sig_type = "rsa-sha2-512"
        raw = private_key.sign(message, padding.PKCS1v15(), hashes.SHA512())
    fields: list[bytes | str] = [
        public.blob,
        namespace,
        b"",
        "sha512",
        _string(sig_type) + _string(raw),
    ]
    blob = _MAGIC + struct.pack(">I", _VERSION) + b"".join(map(_string, fields))
    b64 = base64.b64encode(blob).decode("ascii")
    body = "\n".join(b64[i : i + 70] for i in range(0, len(b64), 70))
    return f"{_BEGIN}\n{body}\n{_END}\n"


def _dearmor(armored: str | bytes) -> bytes:
    if isinstance(armored, (bytes, bytearray, memoryview)):
        try:
            armored = bytes(armored).decode("ascii")
        except UnicodeDecodeError:
            raise SignatureError("this is not an armored SSH signature: not ASCII") from None
    if not isinstance(armored, str):
        raise SignatureError(f"expected signature text, got {type(armored).__name__}")
    lines = [s.strip() for s in armored.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    lines = [s for s in lines if s]
    if len(lines) < 2 or lines[0] != _BEGIN or lines[-1] != _END:
        raise SignatureError(
            f"this is not an armored SSH signature: it must start with {_BEGIN} and end with {_END}",
            ("send the .sig file exactly as ssh-keygen wrote it",),
        )
    body = "".join(lines[1:-1])
    try:
        blob = base64.b64decode(body, validate=True)
    except ValueError:  # binascii.Error, or non-ASCII text
        raise SignatureError(
            "the SSH signature's base64 text is damaged or cut short",
            (_MAIL_HINT,),
        ) from None
    if not blob:
        raise SignatureError("the armored SSH signature is empty")
    return blob


def parse_signature(armored: str | bytes) -> Signature:
    """Return the fields of an armored SSHSIG signature; SignatureError if it is malformed."""
    blob = _dearmor(armored)
    try:
        if blob[:6] != _MAGIC:
            raise _Malformed("it does not start with the SSHSIG magic")
        r = _Reader(blob[6:])
        version = r.uint32()
        if version != _VERSION:
            raise _Malformed(f"its version {version} is not supported (only {_VERSION})")
        key_blob, namespace = r.string(), r.text("namespace")
        r.string()  # reserved: ignored, as PROTOCOL.sshsig says
        hash_algorithm, inner = r.text("hash algorithm"), r.string()
        r.end()
        key_type, key = _decode_key_blob(key_blob)
        if hash_algorithm not in _HASHES:
            raise _Malformed(f"its hash {_show(hash_algorithm)} is not supported (sha512, sha256)")
        s = _Reader(inner)
        sig_type, raw = s.text("signature type"), s.string()
        s.end()
        if sig_type == "ssh-rsa" and key_type == "ssh-rsa":
            raise _Malformed("it is an SHA-1 RSA signature (ssh-rsa), which is refused")
        if sig_type not in _SIGNATURE_TYPES[key_type]:
            raise _Malformed(f"its signature type {_show(sig_type)} does not fit a {key_type} key")
        _check_signature_shape(key, raw)
    except _Malformed as exc:
        raise SignatureError(
            f"cannot read the SSH signature: {exc}",
            ("sign again with a current ssh-keygen and send the .sig file unchanged",),
        ) from None
    return Signature(PublicKey(key_type, key_blob), namespace, hash_algorithm, sig_type, raw)


def verify(data: bytes, armored: str | bytes, namespace: str) -> PublicKey:
    """Check an armored signature of `data` in `namespace`; return the key that made it."""
    sig = parse_signature(armored)
    if sig.namespace != namespace:
        raise SignatureError(
            f"the signature was made for namespace {_show(sig.namespace)}, but {_show(namespace)} is expected here",
            (_SIGN_HINT.format(namespace=namespace),),
        )
    _, key = _decode_key_blob(sig.public_key.blob)  # parse_signature has validated it
    message = _signed_data(namespace, sig.hash_algorithm, data)
    try:
        if isinstance(key, ed25519.Ed25519PublicKey):
            key.verify(sig.signature, message)
        elif isinstance(key, ec.EllipticCurvePublicKey):
            der = encode_dss_signature(*_ecdsa_rs(sig.signature))
            key.verify(der, message, ec.ECDSA(hashes.SHA256()))
        else:
            # Some signers drop leading zero bytes; OpenSSH pads them back, and so do we.
            raw = sig.signature.rjust((key.key_size + 7) // 8, b"\0")
            sha2 = hashes.SHA512() if sig.signature_type == "rsa-sha2-512" else hashes.SHA256()
            key.verify(raw, message, padding.PKCS1v15(), sha2)
    except InvalidSignature:
        raise SignatureError(
            "the signature does not match the file: the file was changed after it was signed, "
            f"or the signature is for another file (signing key {sig.public_key.fingerprint})",
            (_MAIL_HINT, "sign the final version of the file, and change nothing after signing"),
        ) from None
    return sig.public_key


def check_signature(
    record_bytes: bytes,
    signature: str | bytes | None,
    referee_key: PublicKey | None,
    name: str,
) -> list[str]:
    """Return the problems with the referee's signature of a file `name` (none when it holds)."""
    if signature is None:
        return [f"{name}: no signature ({name}.sig is missing)"]
    try:
        signer = verify(record_bytes, signature, NAMESPACE_REFEREE)
    except RefereeError as error:
        return [f"{name}: bad signature: {error.message}"]
    except ValueError as error:  # a malformed armor the signature module did not wrap
        return [f"{name}: bad signature: {error}"]
    if referee_key is not None and signer != referee_key:
        return [f"{name}: signed by {signer.fingerprint}, which is not the referee key {referee_key.fingerprint}"]
    return []
