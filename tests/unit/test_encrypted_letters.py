"""Letters to players who asked for encryption (`encrypt: true`): sealed to their SSH key in the
age format, opened with the real `age`, while the referee's kept copies and the public files
stay plain and players who did not ask get the letters they always got.

One game is played once for the module (alice: ed25519, encrypted; bob: RSA, encrypted; carol:
plain) and copied for the tests that change it.
"""

from __future__ import annotations

import email
import re
import shutil
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from pathlib import Path

import kept_letters
import pytest
import yaml
from played import copy_game

from referee.errors import ConfigError
from referee.game.engine import adjudicate, init_game
from referee.letters.kept import read_kept
from referee.mail.commands import run_command
from referee.mail.directory import Directory
from referee.mail.home import Home
from referee.mail.ledger import Ledger
from referee.mail.message import read_message
from referee.protocol.signatures import NAMESPACE_REFEREE, load_public_key_file, verify

from conftest import GAME_ID, TABLES, TestGame
from mailworld import REFEREE, write_home

KEY_TYPES = {"alice": "ed25519", "bob": "rsa", "carol": "ed25519"}
ENCRYPTED = {"alice": "~/.ssh/id_ed25519", "bob": "~/.ssh/id_rsa"}
ROLL = "rolls:\n  - {label: charge, table: morale, modifiers: [elite], purpose: the Gendarmerie charge}\n"
RECORD = "0001-t1-round.json"
ROUND_1 = f"{GAME_ID}-0001-t1-round-"  # how the first round's letters name their own files in the mail
SECRET = "march on Blindheim at dawn"  # bob's hidden note: his view and report show it, no one else's


@pytest.fixture(scope="module")
def age() -> str:
    path = shutil.which("age")
    if path is None:
        pytest.skip("age is not installed: scripts/test installs it")
    return path


def write_setup(root: Path, ssh_keygen: str, key_types: dict[str, str], encrypted: set[str]) -> Path:
    """Write game.yaml and the players' keys (made by ssh-keygen) under root/setup; return game.yaml."""
    setup = root / "setup"
    (setup / "keys").mkdir(parents=True)
    lines = [f"game: {GAME_ID}", "module: moderator", "title: Test game", "options: {}", "tables: tables.yaml"]
    lines += [f"referee: {{email: {REFEREE}, name: Test Referee}}", "players:"]
    for player, kind in key_types.items():
        key = setup / "keys" / player
        subprocess.run([ssh_keygen, "-q", "-t", kind, "-N", "", "-C", player, "-f", str(key)], check=True)
        encrypt = ", encrypt: true" if player in encrypted else ""
        lines.append(f"  - {{name: {player}, email: {player}@example.org, key_file: keys/{player}.pub{encrypt}}}")
    (setup / "tables.yaml").write_text(TABLES, encoding="utf-8")
    (setup / "game.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return setup / "game.yaml"


def play_round(game: TestGame, turn: int, orders: dict[str, str] | None = None) -> None:
    for player in game.players:
        assert game.submit(player, turn, (orders or {}).get(player, ROLL)).accepted
    adjudicate(game.dir, expect=f"{turn}/round")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory, ssh_keygen: str) -> TestGame:
    """A game whose first round is played: notices, acknowledgements, reports, the next notices."""
    root = tmp_path_factory.mktemp("encrypted")
    config = write_setup(root, ssh_keygen, KEY_TYPES, set(ENCRYPTED))
    init_game(root / "game", config)
    keys = {player: root / "setup" / "keys" / player for player in KEY_TYPES}
    game = TestGame(root / "game", keys, players=tuple(KEY_TYPES))
    play_round(game, 1, {"bob": ROLL + f"hidden_note: {{id: plan, text: {SECRET}}}\n"})
    return game


def letters_in(outbox: Path, player: str) -> list[EmailMessage]:
    found = []
    for path in sorted((outbox / "new").glob("*.eml")):
        message = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        assert isinstance(message, EmailMessage)
        if message["To"] == f"{player}@example.org":
            found.append(message)
    return found


def attachments(message: EmailMessage) -> dict[str, bytes]:
    return {part.get_filename() or "": part.get_payload(decode=True) for part in message.iter_attachments()}


def bodies(message: EmailMessage) -> str:
    return "\n".join(message.get_body((kind,)).get_content() for kind in ("plain", "html"))  # type: ignore[union-attr]


def open_with_age(age: str, identity: Path, sealed: bytes) -> bytes:
    return subprocess.run([age, "-d", "-i", str(identity)], input=sealed, capture_output=True, check=True).stdout


def telling_lines(data: bytes) -> set[str]:
    """Return the lines of a plaintext long and particular enough that seeing one would leak it;
    a line naming one of the letter's own files is not (the cover note names them too)."""
    lines = (line.strip() for line in data.decode("utf-8").splitlines())
    return {
        line
        for line in lines
        if len(line) >= 16 and any(c.isalnum() for c in line) and not line.startswith(f"{GAME_ID}-")
    }


def kept_name(name: str) -> str:
    """Return the name under GAMEDIR/mail/FOLDER/ of a file a letter attaches as GAME-FOLDER-NAME."""
    return re.sub(rf"^{GAME_ID}-.*?-(?=(alice|bob|carol)\.)", "", name)


def kept_copies(game: TestGame, sealed_name: str) -> list[Path]:
    """Return the copies kept under GAMEDIR/mail/ of a file sent sealed (every phase's, by name)."""
    return sorted(kept_letters.glob(game.dir / "mail", "*/" + kept_name(sealed_name.removesuffix(".age"))))


def kept_file(game: TestGame, name: str, data: bytes) -> Path:
    """Return the copy kept under GAMEDIR/mail/ with this name and these bytes."""
    matches = [path for path in kept_letters.glob(game.dir / "mail", "*/" + kept_name(name)) if read_kept(path) == data]
    assert matches, f"no kept copy of {name} has these bytes"
    return matches[0]


# --- the encrypted players ------------------------------------------------------------------------


@pytest.mark.parametrize("player", sorted(ENCRYPTED))
def test_every_private_file_is_sealed_and_age_opens_it_to_the_kept_copy(
    played: TestGame, age: str, player: str
) -> None:
    letters = letters_in(played.dir / "outbox", player)
    kinds = {message["Message-ID"].split(".")[2] for message in letters}
    assert {"notice", "ack", "report"} <= kinds
    for message in letters:
        files = attachments(message)
        sealed = {name: data for name, data in files.items() if name.endswith(".age")}
        assert sealed, message["Subject"]
        assert set(files) - set(sealed) <= {RECORD, RECORD + ".sig"}, "only the public record goes plain"
        for name, data in sealed.items():
            assert data.startswith(b"-----BEGIN AGE ENCRYPTED FILE-----")
            kept_file(played, name.removesuffix(".age"), open_with_age(age, played.keys[player], data))


@pytest.mark.parametrize("player", sorted(ENCRYPTED))
def test_nothing_private_shows_in_the_body_the_subject_or_a_plain_file(played: TestGame, player: str) -> None:
    for message in letters_in(played.dir / "outbox", player):
        files = attachments(message)
        kept = [path for name in files if name.endswith(".age") for path in kept_copies(played, name)]
        # A signature's lines start alike for every letter the referee signs: it is checked whole.
        private = {line for path in kept if path.suffix != ".sig" for line in telling_lines(read_kept(path))}
        signatures = {read_kept(path).decode() for path in kept if path.suffix == ".sig"}
        assert private and signatures
        seen = bodies(message) + message["Subject"]
        seen += "".join(data.decode() for name, data in files.items() if not name.endswith(".age"))
        leaked = [line for line in private | signatures if line in seen]
        assert not leaked, (message["Subject"], leaked)


@pytest.mark.parametrize("player", sorted(ENCRYPTED))
def test_the_cover_note_says_what_the_letter_is_and_how_to_open_it(played: TestGame, player: str) -> None:
    (report,) = [m for m in letters_in(played.dir / "outbox", player) if m["Subject"].endswith("1 round: report")]
    assert report["Subject"] == f"[{GAME_ID}] turn 1 round: report"  # as every player's
    text = report.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    identity = ENCRYPTED[player]
    assert f"age -d -i {identity} {ROUND_1}{player}.report.txt.age > {ROUND_1}{player}.report.txt" in text
    assert f"age -d -i {identity} {ROUND_1}{player}.view-after.yaml.age > {ROUND_1}{player}.view-after.yaml" in text
    assert f"every player gets the same files: {RECORD}, {RECORD}.sig" in " ".join(text.split())
    public = load_public_key_file(played.keys[player].with_suffix(".pub"))
    assert public.fingerprint in text
    html = report.get_body(("html",)).get_content()  # type: ignore[union-attr]
    assert f"{ROUND_1}{player}.report.txt.age &gt; {ROUND_1}{player}.report.txt" in html


def test_the_opened_letter_carries_the_referees_signature(played: TestGame, age: str) -> None:
    (report,) = [m for m in letters_in(played.dir / "outbox", "alice") if m["Subject"].endswith("report")]
    files = attachments(report)
    text = open_with_age(age, played.keys["alice"], files[f"{ROUND_1}alice.report.txt.age"])
    signature = open_with_age(age, played.keys["alice"], files[f"{ROUND_1}alice.report.txt.sig.age"])
    referee_key = load_public_key_file(played.dir / "referee.pub")
    assert verify(text, signature, NAMESPACE_REFEREE) == referee_key


def test_a_hidden_note_shows_only_once_opened_by_its_writer(played: TestGame, age: str) -> None:
    (report,) = [m for m in letters_in(played.dir / "outbox", "bob") if m["Subject"].endswith("report")]
    files = attachments(report)
    assert SECRET in open_with_age(age, played.keys["bob"], files[f"{ROUND_1}bob.view-after.yaml.age"]).decode()
    for player in KEY_TYPES:
        for message in letters_in(played.dir / "outbox", player):
            shown = bodies(message) + "".join(
                data.decode() for name, data in attachments(message).items() if not name.endswith(".age")
            )
            assert SECRET not in shown, (player, message["Subject"])


def test_the_public_record_goes_plain(played: TestGame) -> None:
    (report,) = [m for m in letters_in(played.dir / "outbox", "bob") if m["Subject"].endswith("report")]
    files = attachments(report)
    assert files[RECORD] == (played.dir / "records" / RECORD).read_bytes()
    assert files[RECORD + ".sig"] == (played.dir / "records" / (RECORD + ".sig")).read_bytes()


# --- the plain player and the configuration -------------------------------------------------------


def test_a_player_who_did_not_ask_gets_plain_letters(played: TestGame) -> None:
    letters = letters_in(played.dir / "outbox", "carol")
    assert letters
    for message in letters:
        files = attachments(message)
        assert not any(name.endswith(".age") for name in files)
        (signed,) = [name for name in files if name.endswith(".txt")]
        assert message.get_body(("plain",)).get_content() == files[signed].decode()  # type: ignore[union-attr]
        assert signed + ".sig" in files
    (report,) = [m for m in letters if m["Subject"].endswith("report")]
    assert {f"{ROUND_1}carol.view-after.yaml", RECORD} <= set(attachments(report))


def test_an_ecdsa_key_with_encrypt_is_refused_at_init_with_what_to_do(tmp_path: Path, ssh_keygen: str) -> None:
    config = write_setup(tmp_path, ssh_keygen, {"alice": "ed25519", "dora": "ecdsa"}, {"dora"})
    with pytest.raises(ConfigError, match=r"players\[1\] \(dora\): 'encrypt: true'.*ecdsa") as refused:
        init_game(tmp_path / "game", config)
    assert "register one of those" in refused.value.hints[0] and "ssh-keygen -t ed25519" in refused.value.hints[0]
    assert not (tmp_path / "game").exists()


def test_encrypt_must_be_true_or_false(tmp_path: Path, ssh_keygen: str) -> None:
    config = write_setup(tmp_path, ssh_keygen, {"alice": "ed25519"}, set())
    config.write_text(config.read_text().replace("alice.pub}", "alice.pub, encrypt: yes please}"))
    with pytest.raises(ConfigError, match="'encrypt' must be true or false"):
        init_game(tmp_path / "game", config)


def test_encryption_asked_for_in_a_running_game_applies_from_the_next_letter(
    played: TestGame, tmp_path: Path, age: str
) -> None:
    game = copy_game(played, tmp_path / "game")
    shutil.rmtree(game.dir / "outbox")
    config_path = game.dir / "game.yaml"
    config = yaml.safe_load(config_path.read_text())
    assert "encrypt" not in config["players"][2] and config["players"][0]["encrypt"] is True
    config["players"][2]["encrypt"] = True
    config_path.write_text(yaml.safe_dump(config))

    play_round(game, 2)

    letters = letters_in(game.dir / "outbox", "carol")
    assert {m["Subject"] for m in letters} >= {f"[{GAME_ID}] turn 2 round: report"}
    for message in letters:
        sealed = [data for name, data in attachments(message).items() if name.endswith(".txt.age")]
        assert len(sealed) == 1, message["Subject"]
        assert b"Test game" in open_with_age(age, game.keys["carol"], sealed[0])


# --- the `report` command by mail ------------------------------------------------------------------


@pytest.fixture
def home(played: TestGame, tmp_path: Path) -> Iterator[Home]:
    """A referee home holding a copy of the played game, its outbox empty (no server is needed)."""
    home = write_home(tmp_path / "home", imap_port=1, smtp_port=1, user="referee")
    copy_game(played, home.games_dir / GAME_ID)
    yield home


def command_mail(sender: str, body: str) -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, REFEREE, "a command"
    message["Message-ID"] = f"<{body}.{sender}>"
    message.set_content(body)
    return bytes(message)


def ask_for_report(home: Home, player: str) -> EmailMessage:
    incoming = read_message(command_mail(f"{player}@example.org", "report"), REFEREE)
    ledger = Ledger(home.ledger_path)
    try:
        answer = run_command(home, home.load_config(), Directory.load(home), incoming, datetime.now(UTC), ledger)
    finally:
        ledger.close()
    assert answer.destination == "processed", answer
    (letter,) = letters_in(home.outbox, player)
    return letter


def test_a_report_sent_again_by_mail_is_sealed_for_an_encrypted_player(home: Home, played: TestGame, age: str) -> None:
    letter = ask_for_report(home, "alice")

    files = attachments(letter)
    assert f"{ROUND_1}alice.report.txt.age" in files and f"{ROUND_1}alice.report.txt" not in files
    kept = home.games_dir / GAME_ID / "mail" / "0001-t1-round" / "alice.report.txt"
    assert open_with_age(age, played.keys["alice"], files[f"{ROUND_1}alice.report.txt.age"]) == read_kept(kept)
    seen = bodies(letter) + "".join(data.decode() for name, data in files.items() if not name.endswith(".age"))
    assert not [line for line in telling_lines(read_kept(kept)) if line in seen]
    assert f"age -d -i ~/.ssh/id_ed25519 {ROUND_1}alice.report.txt.age > {ROUND_1}alice.report.txt" in bodies(letter)


def test_a_report_sent_again_by_mail_stays_plain_for_a_plain_player(home: Home) -> None:
    letter = ask_for_report(home, "carol")

    files = attachments(letter)
    assert f"{ROUND_1}carol.report.txt" in files and not any(name.endswith(".age") for name in files)
    assert "report of turn 1, phase 'round'" in bodies(letter)
