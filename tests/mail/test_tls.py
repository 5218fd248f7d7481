"""A private CA (`ca_file`): Dovecot serving IMAPS and STARTTLS, aiosmtpd offering STARTTLS, both
with a certificate from a CA made here; trusted with ca_file, refused clearly without it."""

from __future__ import annotations

import datetime
import ipaddress
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from referee.errors import ConfigError
from referee.mail.home import Home, MailAccount
from referee.mail.imap import Mailbox, MailboxCertificateError
from referee.mail.replies import post_reply
from referee.mail.run import run_pass, watch

from mailservers import Dovecot, SmtpServer, dovecot_available
from mailworld import PASSWORD_ENV, REFEREE, MailWorld, write_home

USER = "referee-tls"


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def make_private_ca(folder: Path) -> tuple[Path, Path, Path]:
    """Write a CA certificate and a server certificate for 127.0.0.1 signed by it; return the
    paths of the CA's certificate, the server's certificate chain and the server's key (PEM)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("Referee Test Private CA"))
        .issuer_name(_name("Referee Test Private CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    server_key = ec.generate_private_key(ec.SECP256R1())
    server = (
        x509.CertificateBuilder()
        .subject_name(_name("127.0.0.1"))
        .issuer_name(ca.subject)
        .public_key(server_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    (folder / "ca.pem").write_bytes(ca.public_bytes(pem))
    (folder / "server.pem").write_bytes(server.public_bytes(pem) + ca.public_bytes(pem))
    (folder / "server.key").write_bytes(
        server_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    os.chmod(folder / "server.key", 0o600)
    return folder / "ca.pem", folder / "server.pem", folder / "server.key"


@pytest.fixture(scope="module")
def tls_servers() -> Iterator[tuple[Dovecot, SmtpServer, Path]]:
    """A Dovecot with IMAPS and STARTTLS and an aiosmtpd with STARTTLS, certified by a private CA."""
    if not dovecot_available():
        pytest.skip("Dovecot is not installed: scripts/test installs dovecot-imapd")
    root = Path(tempfile.mkdtemp(prefix="referee-dovecot-tls-"))
    root.chmod(0o755)
    ca, chain, key = make_private_ca(root)
    dovecot = Dovecot(root / "dovecot", tls=(chain, key)).start()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(chain, key)
    smtp = SmtpServer(dovecot, {REFEREE: USER}, tls_context=context).start()
    try:
        yield dovecot, smtp, ca
    finally:
        smtp.stop()
        dovecot.stop()
        shutil.rmtree(root, ignore_errors=True)


def tls_home(folder: Path, dovecot: Dovecot, smtp: SmtpServer, ca: Path | None, imap_security: str) -> Home:
    home = write_home(folder, dovecot.port, smtp.port, USER)
    port = dovecot.tls_port if imap_security == "ssl" else dovecot.port
    ca_line = f"  ca_file: {ca}\n" if ca else ""
    text = home.config_path.read_text()
    text = text.replace(
        f"  port: {dovecot.port}\n  security: none\n", f"  port: {port}\n  security: {imap_security}\n{ca_line}"
    )
    text = text.replace(
        f"  port: {smtp.port}\n  security: none\n", f"  port: {smtp.port}\n  security: starttls\n{ca_line}"
    )
    home.config_path.write_text(text)
    return home


@pytest.fixture(autouse=True)
def _system_trust_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)


@pytest.mark.parametrize("imap_security", ["ssl", "starttls"])
def test_with_ca_file_the_private_ca_is_trusted_for_imap_and_smtp(
    tls_servers: tuple[Dovecot, SmtpServer, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, imap_security: str
) -> None:
    dovecot, smtp, ca = tls_servers
    monkeypatch.setenv(PASSWORD_ENV, dovecot.password)
    home = tls_home(tmp_path / "home", dovecot, smtp, ca, imap_security)
    dovecot.deliver(USER, b"From: stranger@example.net\r\nTo: referee@example.org\r\nSubject: hi\r\n\r\nhello\r\n")
    smtp.clear()

    report = run_pass(home)

    assert report.ok, report.lines()
    assert report.intake.handled == 1
    assert report.send.sent == 1  # the reply to the stranger, through SMTP with STARTTLS
    assert len(smtp.letters_to("stranger@example.net")) == 1


def test_without_ca_file_the_certificate_is_refused_with_a_clear_message(
    tls_servers: tuple[Dovecot, SmtpServer, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dovecot, smtp, _ = tls_servers
    monkeypatch.setenv(PASSWORD_ENV, dovecot.password)
    home = tls_home(tmp_path / "home", dovecot, smtp, None, "ssl")
    config = home.load_config()
    assert config.imap is not None

    post_reply(home, config, "stranger@example.net", "a letter waiting", ["Hello."], "tls/waiting")
    with pytest.raises(MailboxCertificateError) as refused:
        Mailbox(config.imap).connect()
    assert "not trusted by the system's CAs" in refused.value.message
    assert "ca_file" in refused.value.hints[0] and "SSL_CERT_FILE" in refused.value.hints[0]

    result = subprocess.run(
        [sys.executable, "-m", "referee", "run", "--home", str(home.path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "REFEREE_HOME": str(home.path)},
    )
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "Traceback" not in output
    failed = [line for line in output.splitlines() if line.startswith("FAILED")]
    assert any("IMAP server 127.0.0.1" in line and "not trusted" in line for line in failed), output
    assert any("SMTP server 127.0.0.1" in line and "ca_file" in line for line in failed), output


def test_a_missing_or_unreadable_ca_file_is_refused_at_load(tmp_path: Path) -> None:
    not_pem = tmp_path / "key.pem"
    not_pem.write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    cases = {
        tmp_path / "nowhere.pem": "there is no file",
        not_pem: "holds no PEM certificate",
        tmp_path: "cannot read",  # a folder
    }
    for path, message in cases.items():
        home = write_home(tmp_path / f"home-{len(str(path))}-{path.name}", 143, 25, USER)
        text = home.config_path.read_text().replace("  security: none\n", f"  security: none\n  ca_file: {path}\n", 1)
        home.config_path.write_text(text)
        with pytest.raises(ConfigError, match=message) as refused:
            home.load_config()
        assert "imap.ca_file" in refused.value.message and refused.value.hints, refused.value.message


def test_a_watch_ends_on_an_untrusted_certificate_instead_of_retrying_forever(
    tls_servers: tuple[Dovecot, SmtpServer, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dovecot, smtp, _ = tls_servers
    monkeypatch.setenv(PASSWORD_ENV, dovecot.password)
    home = tls_home(tmp_path / "home", dovecot, smtp, None, "starttls")
    deadline = time.monotonic() + 30
    with pytest.raises(MailboxCertificateError, match="not trusted"):
        watch(home, tick_seconds=1, stop=lambda: time.monotonic() > deadline, backoff_first=0.1)


def test_a_pass_without_tls_builds_no_tls_context(mail_world: MailWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    """`security: none` (loopback) builds no TLS context on a pass that reads and sends mail:
    building one reads every system CA, a quarter of a one-mail `--watch` pass."""
    built: list[object] = []
    real = ssl.create_default_context
    monkeypatch.setattr(ssl, "create_default_context", lambda *a, **k: built.append(a) or real(*a, **k))
    mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, "note: hello")))
    report = mail_world.run()
    assert report.ok, report.lines()
    assert mail_world.letters("alice"), "the pass read the orders and sent an acknowledgement"
    assert built == []
    account = MailAccount("imap", "127.0.0.1", 993, "ssl", None)
    assert account.tls_context() is not None and len(built) == 1  # ssl and starttls still build theirs


@pytest.mark.parametrize("imap_security", ["ssl", "starttls"])
def test_the_idle_probe_speaks_tls_and_trusts_what_the_pass_trusts(
    tls_servers: tuple[Dovecot, SmtpServer, Path], imap_security: str
) -> None:
    from referee.mail.imap_probe import mail_past

    dovecot, _, ca = tls_servers
    port = dovecot.tls_port if imap_security == "ssl" else dovecot.port
    account = {"host": "127.0.0.1", "port": port, "security": imap_security, "timeout": 10.0, "inbox": "INBOX"}
    account |= {"username": f"probe-{imap_security}", "ca_file": str(ca)}
    assert mail_past(account, dovecot.password, None) is False
    dovecot.deliver(f"probe-{imap_security}", b"From: a@example.net\r\nTo: referee@example.org\r\n\r\nhello\r\n")
    assert mail_past(account, dovecot.password, None) is True
    assert mail_past({**account, "ca_file": None}, dovecot.password, None) is None  # untrusted: the pass says so


def test_the_idle_probe_finds_the_system_cas_in_their_hashed_folder(
    tls_servers: tuple[Dovecot, SmtpServer, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from referee.mail.imap_probe import mail_past

    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed: it names a CA's file in a hashed folder")
    dovecot, _, ca = tls_servers
    subject_hash = subprocess.run([openssl, "x509", "-hash", "-noout", "-in", str(ca)], capture_output=True, text=True)
    (tmp_path / f"{subject_hash.stdout.strip()}.0").write_bytes(ca.read_bytes())
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))  # the system's CAs, as a hashed folder
    account = {"host": "127.0.0.1", "port": dovecot.tls_port, "security": "ssl", "timeout": 10.0, "inbox": "INBOX"}
    account |= {"username": "probe-system", "ca_file": None}
    assert mail_past(account, dovecot.password, None) is False
