"""The `referee` command through the real console entry point, with the real OpenSSH ssh-keygen.

One game is set up and played once per module (subprocesses are slow); the tests then check
each step's outcome and the files it left. Tests that tamper with a game work on a copy.
"""

from __future__ import annotations

import email
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from pathlib import Path

import kept_letters
import pytest

from referee.letters.kept import read_kept
from referee.letters.post import read_kept_html

TABLES = """\
schema_version: 1
tables:
  morale:
    title: Morale check
    dice: 2d6
    modifiers: {elite: 2, shaken: -2}
    clamp: [2, 12]
    rows:
      - {range: "2-5", result: routs}
      - {range: "6-8", result: falls back}
      - {range: "9+", result: holds}
"""
SCRIPT_NOTE = '<script>alert("gotcha")</script> & more'


def referee(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run `python -m referee ARGS` and return the finished process (never raises on exit codes)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    return subprocess.run(
        [sys.executable, "-m", "referee", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


def run_ok(*args: str | Path) -> subprocess.CompletedProcess[str]:
    result = referee(*args)
    assert result.returncode == 0, (args, result.stdout, result.stderr)
    return result


def ssh_keygen_run(
    ssh_keygen: str, *args: str | Path, stdin: bytes | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [ssh_keygen, *map(str, args)], input=stdin, capture_output=True, cwd=cwd, timeout=60, check=False
    )


def ssh_verify(
    ssh_keygen: str, signers: Path, identity: str, namespace: str, path: Path
) -> subprocess.CompletedProcess[bytes]:
    """Check `path` against `path.sig` with `ssh-keygen -Y verify`, as a player would."""
    return ssh_keygen_run(
        ssh_keygen,
        "-Y",
        "verify",
        "-f",
        signers,
        "-I",
        identity,
        "-n",
        namespace,
        "-s",
        f"{path}.sig",
        stdin=path.read_bytes(),
    )


def order_text(player: str, turn: int, orders: str) -> str:
    body = "".join(f"  {line}\n" for line in orders.splitlines())
    return f"game: cli-game\nturn: {turn}\nphase: round\nplayer: {player}\norders:\n{body}"


@dataclass
class Played:
    """The module's game, and the outcome of every command run while playing its first round."""

    root: Path
    game: Path
    keys: dict[str, Path]
    runs: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def referee_signers(self) -> Path:
        """An allowed_signers file naming the referee's key (GAMEDIR/referee.pub) as `referee`."""
        path = self.root / "referee_signers"
        path.write_text("referee " + (self.game / "referee.pub").read_text().strip() + "\n")
        return path


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory, ssh_keygen: str) -> Played:
    """Set up a game (keys from ssh-keygen and `referee keygen`), submit orders and adjudicate round 1."""
    root = tmp_path_factory.mktemp("cli")
    keys = {name: root / name for name in ("alice", "bob", "carol")}
    assert (
        ssh_keygen_run(ssh_keygen, "-q", "-t", "ed25519", "-N", "", "-C", "alice", "-f", keys["alice"]).returncode == 0
    )
    assert (
        ssh_keygen_run(
            ssh_keygen, "-q", "-t", "ecdsa", "-b", "256", "-N", "", "-C", "bob", "-f", keys["bob"]
        ).returncode
        == 0
    )
    game = Played(root, root / "game", keys)
    game.runs["keygen"] = referee("keygen", keys["carol"], "--comment", "carol@example.org")
    (root / "tables.yaml").write_text(TABLES)
    players = "".join(f"  - {{name: {p}, email: {p}@example.org, key_file: {p}.pub}}\n" for p in keys)
    (root / "game.yaml").write_text(
        "game: cli-game\nmodule: moderator\ntitle: CLI game\ntables: tables.yaml\n"
        f"referee: {{email: referee@example.org, name: CLI Referee}}\nplayers:\n{players}"
    )
    run_ok("init", game.game, "--config", root / "game.yaml")

    # alice: signed by ssh-keygen itself (ed25519).
    alice = root / "alice-t1.yaml"
    alice.write_text(
        order_text("alice", 1, "rolls:\n  - {label: charge, table: morale, modifiers: [elite], purpose: the charge}")
    )
    assert ssh_keygen_run(ssh_keygen, "-Y", "sign", "-f", keys["alice"], "-n", "pbem-orders", alice).returncode == 0
    game.files["alice"] = alice
    game.runs["submit-alice"] = referee("submit", game.game, alice)
    game.runs["status-mid"] = referee("status", game.game, "--json")

    # A tampered file: signed, then changed.
    tampered = root / "tampered.yaml"
    tampered.write_text(order_text("bob", 1, "declaration: 3"))
    assert ssh_keygen_run(ssh_keygen, "-Y", "sign", "-f", keys["bob"], "-n", "pbem-orders", tampered).returncode == 0
    tampered.write_text(order_text("bob", 1, "declaration: 9"))
    game.files["tampered"] = tampered
    game.runs["submit-tampered"] = referee("submit", game.game, tampered)

    # bob: signed by ssh-keygen with an ECDSA P-256 key.
    bob = root / "bob-t1.yaml"
    bob.write_text(
        order_text("bob", 1, "declaration: {bid: 3}\nrolls:\n  - {label: scout, dice: 1d10z, purpose: scouting}")
    )
    assert ssh_keygen_run(ssh_keygen, "-Y", "sign", "-f", keys["bob"], "-n", "pbem-orders", bob).returncode == 0
    game.files["bob"] = bob
    game.runs["submit-bob"] = referee("submit", game.game, bob, "--sig", f"{bob}.sig")

    # carol: `referee sign` with the key `referee keygen` made; her note tries to inject HTML.
    carol = root / "carol-t1.yaml"
    carol.write_text(
        order_text("carol", 1, f"note: '{SCRIPT_NOTE}'\nrolls:\n  - {{label: volley, dice: 2d6, purpose: volley}}")
    )
    game.files["carol-unsigned"] = root / "carol-unsigned.yaml"
    shutil.copy(carol, game.files["carol-unsigned"])
    game.runs["sign-carol"] = referee("sign", carol, "--key", keys["carol"])
    game.files["carol"] = carol
    game.runs["submit-carol"] = referee("submit", game.game, carol)

    game.runs["adjudicate"] = referee("adjudicate", game.game, "--expect", "1/round")
    game.runs["status-after"] = referee("status", game.game, "--json")
    return game


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- keys and signing --------------------------------------------------------------------------


def test_keygen(played: Played, ssh_keygen: str) -> None:
    result = played.runs["keygen"]
    assert result.returncode == 0, result.stderr
    key = played.keys["carol"]
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    public = Path(f"{key}.pub").read_text()
    assert public.startswith("ssh-ed25519 ") and public.strip().endswith("carol@example.org")
    assert public.strip() in result.stdout and "SHA256:" in result.stdout
    # ssh-keygen reads the private key and derives the same public key.
    derived = ssh_keygen_run(ssh_keygen, "-y", "-f", key)
    assert derived.returncode == 0 and derived.stdout.decode().split()[:2] == public.split()[:2]


def test_keygen_refuses_to_overwrite(played: Played) -> None:
    result = referee("keygen", played.keys["carol"])
    assert result.returncode == 1 and "referee: error:" in result.stderr and "already exists" in result.stderr


@pytest.mark.parametrize("player", ["alice", "bob"])
def test_ssh_keygen_signed_orders_are_accepted(played: Played, player: str) -> None:
    result = played.runs[f"submit-{player}"]
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert "accepted" in result.stdout.splitlines()[0]
    assert sha256_of(played.files[player]) in result.stdout


def test_referee_sign_fills_entropy_and_verifies_with_ssh_keygen(played: Played, ssh_keygen: str) -> None:
    assert played.runs["sign-carol"].returncode == 0, played.runs["sign-carol"].stderr
    carol = played.files["carol"]
    text = carol.read_text()
    original = played.files["carol-unsigned"].read_text()
    entropy = [line for line in text.splitlines() if line.startswith("entropy: ")]
    assert len(entropy) == 1 and len(entropy[0].split()[1]) == 64
    assert text.replace(entropy[0] + "\n", "") == original
    signers = played.root / "carol_signers"
    signers.write_text("carol " + Path(f"{played.keys['carol']}.pub").read_text())
    result = ssh_verify(ssh_keygen, signers, "carol", "pbem-orders", carol)
    assert result.returncode == 0, result.stderr
    assert played.runs["submit-carol"].returncode == 0 and sha256_of(carol) in played.runs["submit-carol"].stdout


def test_referee_sign_and_verify_alice_style(tmp_path: Path, ssh_keygen: str, played: Played) -> None:
    """`referee sign` with an ssh-keygen ed25519 key; `ssh-keygen -Y verify -I alice` accepts it."""
    orders = tmp_path / "orders.yaml"
    orders.write_text(order_text("alice", 2, "note: hello"))
    run_ok("sign", orders, "--key", played.keys["alice"])
    signers = tmp_path / "allowed_signers"
    signers.write_text("alice " + Path(f"{played.keys['alice']}.pub").read_text())
    result = ssh_verify(ssh_keygen, signers, "alice", "pbem-orders", orders)
    assert result.returncode == 0, result.stderr
    # The wrong identity or namespace is refused by ssh-keygen too.
    assert ssh_verify(ssh_keygen, signers, "alice", "pbem-referee", orders).returncode != 0


def test_referee_sign_refuses_a_malformed_file(tmp_path: Path, played: Played) -> None:
    orders = tmp_path / "orders.yaml"
    orders.write_text("game: cli-game\nturn: one\n")
    result = referee("sign", orders, "--key", played.keys["alice"])
    assert result.returncode == 1 and "referee: error:" in result.stderr and "turn" in result.stderr
    assert not Path(f"{orders}.sig").exists()


def test_tampered_file_is_refused(played: Played) -> None:
    result = played.runs["submit-tampered"]
    assert result.returncode == 1
    assert "referee: error:" in result.stderr and "refused" in result.stderr
    assert "REFUSED" in result.stdout and "[refused.signature]" in result.stdout
    assert "does not match the file" in result.stdout
    assert sha256_of(played.files["tampered"]) in result.stdout


def test_status_json(played: Played) -> None:
    mid = played.runs["status-mid"]
    assert mid.returncode == 0, mid.stderr
    info = json.loads(mid.stdout)
    assert (info["game"], info["turn"], info["phase"], info["over"]) == ("cli-game", 1, "round", False)
    assert info["received"] == ["alice"] and info["awaited"] == ["bob", "carol"]
    after = json.loads(played.runs["status-after"].stdout)
    assert after["turn"] == 2 and after["awaited"] == ["alice", "bob", "carol"] and after["adjudicated"] == 1


def test_status_text(played: Played) -> None:
    result = run_ok("status", played.game)
    assert (
        "cli-game" in result.stdout
        and "turn 2 'round'" in result.stdout
        and "awaited   alice, bob, carol" in result.stdout
    )


# --- adjudication, records and reports ---------------------------------------------------------


def test_adjudicate(played: Played) -> None:
    result = played.runs["adjudicate"]
    assert result.returncode == 0, result.stderr
    assert "adjudicated turn 1 'round'" in result.stdout and "next: 2/round" in result.stdout
    record = json.loads((played.game / "records" / "0001-t1-round.json").read_text())
    assert [o["player"] for o in record["orders"]] == ["alice", "bob", "carol"]
    assert {o["player"]: o["sha256"] for o in record["orders"]} == {
        p: sha256_of(played.files[p]) for p in ("alice", "bob", "carol")
    }
    assert [r["label"] for r in record["rolls"]] == ["roll/alice/charge", "roll/bob/scout", "roll/carol/volley"]


def test_adjudicate_expect_mismatch(played: Played) -> None:
    result = referee("adjudicate", played.game, "--expect", "1/round")
    assert result.returncode == 1 and "referee: error:" in result.stderr and "2/round" in result.stderr


@pytest.mark.parametrize(
    "name", ["records/0001-t1-round.json", "mail/0001-t1-round/alice.report.txt", "mail/0002-t2-round/bob.notice.txt"]
)
def test_referee_signatures_verify_with_ssh_keygen(played: Played, ssh_keygen: str, name: str, tmp_path: Path) -> None:
    path = played.game / name
    if name.startswith("mail/"):  # a letter may be kept in a pack of letters: taken out, as a player has it
        path = tmp_path / path.name
        for suffix in ("", ".sig"):
            path.with_name(path.name + suffix).write_bytes(read_kept(played.game / (name + suffix)))
    result = ssh_verify(ssh_keygen, played.referee_signers, "referee", "pbem-referee", path)
    assert result.returncode == 0, result.stderr


def test_verify(played: Played) -> None:
    result = run_ok("verify", played.game)
    assert result.stdout.startswith("ok: 1 record(s), 3 roll(s), 3 order hash(es)")


def test_verify_finds_a_tampered_roll(played: Played, tmp_path: Path) -> None:
    copy = tmp_path / "game"
    shutil.copytree(played.game, copy)
    path = copy / "records" / "0001-t1-round.json"
    record = json.loads(path.read_text())
    roll = record["rolls"][2]
    roll["values"][0] = roll["values"][0] % 6 + 1
    path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    result = referee("verify", copy)
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert "referee: error:" in result.stderr and "roll/carol/volley" in result.stderr


def test_demo(tmp_path: Path) -> None:
    result = run_ok("demo", tmp_path / "demo")
    assert "verified: 3 records" in result.stdout
    assert run_ok("verify", tmp_path / "demo" / "game").stdout.startswith("ok: 3 record(s)")


def test_report_html_is_autoescaped(played: Played) -> None:
    folder = played.game / "mail" / "0001-t1-round"
    for player in ("alice", "carol"):
        html = read_kept_html(folder / f"{player}.report.html")
        text = kept_letters.read_text(folder / f"{player}.report.txt")
        assert "<script>" not in html
        assert "&lt;script&gt;alert(&#34;gotcha&#34;)&lt;/script&gt; &amp; more" in html
        assert SCRIPT_NOTE in text


# --- the outbox --------------------------------------------------------------------------------


def outbox(played: Played) -> dict[str, EmailMessage]:
    messages = {}
    for path in sorted((played.game / "outbox" / "new").glob("*.eml")):
        message = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        assert isinstance(message, EmailMessage)
        messages[path.name] = message
    return messages


def attachments(message: EmailMessage) -> dict[str, bytes]:
    return {part.get_filename(): part.get_payload(decode=True) for part in message.iter_attachments()}


def test_outbox_messages_are_well_formed(played: Played) -> None:
    messages = outbox(played)
    ids = [str(m["Message-ID"]).strip() for m in messages.values()]
    assert len(ids) == len(set(ids))
    # 3 notices of turn 1, 3 acks, 3 reports, 3 notices of turn 2
    subjects = [str(m["Subject"]) for m in messages.values()]
    assert sum("orders open" in s for s in subjects) == 6
    assert sum(": report" in s for s in subjects) == 3 and len(subjects) == 12
    for name, message in messages.items():
        raw = (played.game / "outbox" / "new" / name).read_bytes()
        assert b"\nMessage-ID: <" in raw, f"{name}: the Message-ID header is folded"
        assert ids and str(message["Message-ID"]).strip().startswith("<") and message["To"], name
        assert message["Auto-Submitted"] in ("auto-generated", "auto-replied"), name
        assert message.get_body(preferencelist=("plain",)) is not None, name
        assert message.get_body(preferencelist=("html",)) is not None, name


def test_report_mails_carry_view_record_and_signatures(played: Played, ssh_keygen: str, tmp_path: Path) -> None:
    record = (played.game / "records" / "0001-t1-round.json").read_bytes()
    reports = {str(m["To"]): m for m in outbox(played).values() if ": report" in str(m["Subject"])}
    assert sorted(reports) == ["alice@example.org", "bob@example.org", "carol@example.org"]
    for address, message in reports.items():
        player = address.partition("@")[0]
        files = attachments(message)
        own = f"cli-game-0001-t1-round-{player}"  # named after the game and the phase, to save beside others
        assert set(files) == {
            f"{own}.report.txt",
            f"{own}.report.txt.sig",
            f"{own}.view-after.yaml",
            "0001-t1-round.json",
            "0001-t1-round.json.sig",
        }
        assert files["0001-t1-round.json"] == record
        assert b"you: " + player.encode() in files[f"{own}.view-after.yaml"]
        assert message["Auto-Submitted"] == "auto-generated"
        # What the player received verifies on its own with ssh-keygen.
        for name in ("0001-t1-round.json", f"{own}.report.txt"):
            (tmp_path / name).write_bytes(files[name])
            (tmp_path / f"{name}.sig").write_bytes(files[f"{name}.sig"])
            result = ssh_verify(ssh_keygen, played.referee_signers, "referee", "pbem-referee", tmp_path / name)
            assert result.returncode == 0, (name, result.stderr)


def test_ack_mails(played: Played) -> None:
    acks = [m for m in outbox(played).values() if "] orders " in str(m["Subject"])]
    verdicts = sorted((str(m["To"]), "REFUSED" in str(m["Subject"])) for m in acks)
    # A file whose signature fails names no trustworthy sender: its acknowledgement is printed, not mailed.
    assert verdicts == [("alice@example.org", False), ("bob@example.org", False), ("carol@example.org", False)]
    for message in acks:
        assert message["Auto-Submitted"] == "auto-replied"
