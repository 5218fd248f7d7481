"""A player's own letters as evidence (`referee verify GAMEDIR --letters MAIL --player NAME`).

A real moderator game with a deck (so notices carry a hidden commit) is played through the
engine; the letters its outbox holds for alice are delivered into a Maildir and an mbox, as a
mail client keeps them. A cheating referee is a copy of the same game that re-signs its records
after the fact: one drops alice's acknowledged order, one swaps a phase's seed for another and
re-signs the record before it to match. Both copies verify on their own; alice's letters catch
them, naming the letter.
"""

from __future__ import annotations

import dataclasses
import email
import json
import mailbox
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from played import copy_game

from referee.game.engine import adjudicate, init_game
from referee.protocol.canonical import pretty_json
from referee.protocol.dice import commitment
from referee.protocol.evidence import check_letters, kept_letter, read_mailbox
from referee.protocol.signatures import generate_keypair, load_private_key, load_public_key_file, sign

from conftest import TABLES, TestGame

PLAYERS = ("alice", "bob")
DECKS = """\
    events:
      title: Event cards
      cards:
        - {id: rain, count: 2}
        - {id: fog, count: 2}
        - {id: courier}
      deal: 2
"""
ROLL = "rolls:\n  - {label: attack, dice: 2d6, purpose: the attack}\n"


def make(root: Path, encrypt_alice: bool = False) -> TestGame:
    setup = root / "setup"
    (setup / "keys").mkdir(parents=True)
    keys = {}
    lines = ["game: test-game", "module: moderator", "title: Test game", "tables: tables.yaml"]
    lines += ["options:", "  rounds: 3", "  decks:", DECKS.rstrip("\n")]
    lines += ["referee: {email: referee@example.org, name: Test Referee}", "players:"]
    for player in PLAYERS:
        keys[player] = setup / "keys" / player
        generate_keypair(keys[player], comment=f"{player}@example.org")
        sealed = ", encrypt: true" if encrypt_alice and player == "alice" else ""
        lines.append(f"  - {{name: {player}, email: {player}@example.org, key_file: keys/{player}.pub{sealed}}}")
    (setup / "tables.yaml").write_text(TABLES, encoding="utf-8")
    (setup / "game.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    init_game(root / "game", setup / "game.yaml")
    return TestGame(root / "game", keys, players=PLAYERS)


def play_turn(game: TestGame, turn: int, players: tuple[str, ...] = PLAYERS) -> None:
    for player in players:
        assert game.submit(player, turn, ROLL).accepted


@dataclass
class Played:
    honest: TestGame  # the game as it was played: its outbox holds alice's letters
    dropped: Path  # a copy whose turn-3 record lacks alice's acknowledged order
    reseeded: Path  # a copy whose turn-3 seed is not the one alice's notice committed to


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    root = tmp_path_factory.mktemp("letters")
    honest = make(root)
    for turn in (1, 2):
        play_turn(honest, turn)
        adjudicate(honest.dir, expect=f"{turn}/round")
    play_turn(honest, 3, ("bob",))
    dropped = copy_game(honest, root / "dropped")  # the referee will never have seen alice's file
    play_turn(honest, 3, ("alice",))
    reseeded = copy_game(honest, root / "reseeded")
    adjudicate(honest.dir, expect="3/round")

    adjudicate(dropped.dir, expect="3/round", force=True)

    # The referee picks another seed for turn 3, adjudicates with it, and re-signs turn 2's
    # record so that its next_commit announces the new seed: the records agree with each other.
    journal = sqlite3.connect(reseeded.dir / "journal.sqlite")
    with journal:
        journal.execute("UPDATE seeds SET server_seed = ? WHERE turn = 3", ("ab" * 32,))
        journal.execute("UPDATE phases SET commit_hex = ? WHERE turn = 3", (commitment(bytes.fromhex("ab" * 32)),))
    journal.close()
    adjudicate(reseeded.dir, expect="3/round")
    third = json.loads((reseeded.dir / "records" / "0003-t3-round.json").read_bytes())
    second_path = reseeded.dir / "records" / "0002-t2-round.json"
    second = json.loads(second_path.read_bytes())
    second["next_commit"] = third["commit"]
    data = pretty_json(second)
    second_path.write_bytes(data)
    key = load_private_key(reseeded.dir / "referee.key")
    second_path.with_name(second_path.name + ".sig").write_text(sign(data, key, "pbem-referee"))
    return Played(honest, dropped.dir, reseeded.dir)


def letters_to(game_dir: Path, player: str) -> list[bytes]:
    found = []
    for path in sorted((game_dir / "outbox" / "new").iterdir()):
        message = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        if message["To"] == f"{player}@example.org":
            found.append(path.read_bytes())
    return found


def into_maildir(folder: Path, messages: list[bytes]) -> Path:
    box = mailbox.Maildir(str(folder))
    for number, data in enumerate(messages):
        message = mailbox.MaildirMessage(data)
        if number % 2:
            message.set_subdir("cur")  # read mail moves to cur/, as a mail client does
            message.set_flags("S")
        box.add(message)
    return folder


def into_mbox(path: Path, messages: list[bytes]) -> Path:
    box = mailbox.mbox(str(path))
    for data in messages:
        box.add(data)
    box.flush()
    return path


def player_copy(game_dir: Path, target: Path) -> Path:
    """What a player holds of the game: the referee's key, the records, reveals and states."""
    target.mkdir()
    (target / "referee.pub").write_bytes((game_dir / "referee.pub").read_bytes())
    for folder in ("records", "states", "reveals"):
        if (game_dir / folder).is_dir():
            subprocess.run(["cp", "-r", str(game_dir / folder), str(target / folder)], check=True)
    return target


def run_verify(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", "verify", *args], capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("kept_as", ["maildir", "mbox"])
def test_an_honest_referee_s_records_agree_with_every_letter(played: Played, tmp_path: Path, kept_as: str) -> None:
    letters = letters_to(played.honest.dir, "alice")
    mail = into_maildir(tmp_path / "Mail", letters) if kept_as == "maildir" else into_mbox(tmp_path / "a.mbox", letters)
    result = run_verify(
        str(player_copy(played.honest.dir, tmp_path / "game")), "--letters", str(mail), "--player", "alice"
    )
    assert result.returncode == 0, result.stderr
    assert "letters: 9 letter(s) checked (3 acknowledgement(s), 3 notice(s), 3 report(s)" in result.stdout


def test_a_dropped_order_re_signed_after_the_fact_is_caught_by_the_ack_and_the_report(
    played: Played, tmp_path: Path
) -> None:
    game = player_copy(played.dropped, tmp_path / "game")
    assert run_verify(str(game)).returncode == 0  # the records alone hold together
    mail = into_mbox(tmp_path / "a.mbox", letters_to(played.honest.dir, "alice"))
    result = run_verify(str(game), "--letters", str(mail), "--player", "alice")
    assert result.returncode == 3, result.stdout
    ack = next(
        m for m in read_mailbox(mail) if "orders accepted" in str(m["Subject"]) and "0003-t3" in str(m["Message-ID"])
    )
    report = next(m for m in read_mailbox(mail) if "turn 3 round: report" in str(m["Subject"]))
    lines = result.stderr.splitlines()
    dropped = [line for line in lines if str(ack["Message-ID"]) in line]
    assert dropped and "the referee accepted your order file" in dropped[0]
    assert "0003-t3-round.json lists no order from you" in dropped[0]
    assert str(ack["Date"]) in dropped[0] and str(ack["Subject"]) in dropped[0]
    changed = [line for line in lines if str(report["Message-ID"]) in line]
    assert changed and "the referee changed it after the report" in changed[0]


def test_a_swapped_seed_re_signed_into_the_chain_is_caught_by_the_notice(played: Played, tmp_path: Path) -> None:
    game = player_copy(played.reseeded, tmp_path / "game")
    assert run_verify(str(game)).returncode == 0  # the records alone hold together
    mail = into_maildir(tmp_path / "Mail", letters_to(played.honest.dir, "alice"))
    result = run_verify(str(game), "--letters", str(mail), "--player", "alice")
    assert result.returncode == 3
    notice = next(m for m in read_mailbox(mail) if "turn 3 round: orders open" in str(m["Subject"]))
    caught = [line for line in result.stderr.splitlines() if str(notice["Message-ID"]) in line]
    assert caught and "the seed is not the one promised" in caught[0]
    # and turn 2's report named the record as it was before the referee re-signed it
    assert "0002-t2-round.json had SHA-256" in result.stderr


def test_a_letter_not_signed_by_the_referee_is_named(played: Played, tmp_path: Path) -> None:
    letters = [
        kept_letter(m) for m in read_mailbox(into_mbox(tmp_path / "a.mbox", letters_to(played.honest.dir, "alice")))
    ]
    forged = letters[0]
    letters[0] = dataclasses.replace(forged, text=(forged.text or b"").replace(b"accepted", b"acceptcd", 1))
    report = check_letters(played.honest.dir, letters, "alice", load_public_key_file(played.honest.dir / "referee.pub"))
    assert len(report.problems) == 1
    assert forged.message_id in report.problems[0] and "bad signature" in report.problems[0]


def test_an_earlier_file_replaced_by_the_player_s_own_later_seq_is_no_problem(tmp_path: Path) -> None:
    game = make(tmp_path)
    assert game.submit("alice", 1, ROLL, seq=1).accepted
    assert game.submit("alice", 1, ROLL.replace("the attack", "the second thought"), seq=2).accepted
    assert game.submit("bob", 1, ROLL).accepted
    adjudicate(game.dir, expect="1/round")
    mail = into_mbox(tmp_path / "a.mbox", letters_to(game.dir, "alice"))
    result = run_verify(str(game.dir), "--letters", str(mail), "--player", "alice")
    assert result.returncode == 0, result.stderr
    assert "1 earlier accepted file(s) replaced by your seq 2" in result.stdout
    assert "turn 2 'round': open, its commitment is the one the last record promised" in result.stdout


def test_sealed_letters_need_the_player_s_key(tmp_path: Path) -> None:
    game = make(tmp_path, encrypt_alice=True)
    play_turn(game, 1)
    adjudicate(game.dir, expect="1/round")
    mail = into_maildir(tmp_path / "Mail", letters_to(game.dir, "alice"))
    closed = run_verify(str(game.dir), "--letters", str(mail), "--player", "alice")
    assert closed.returncode == 3
    notice = "test-game-0001-t1-round-alice.notice"  # named after the game and the phase (issue 18)
    assert f"sealed to your key ({notice}.txt.age, {notice}.txt.sig.age" in closed.stderr
    assert "--identity" in closed.stderr
    opened = run_verify(
        str(game.dir), "--letters", str(mail), "--player", "alice", "--identity", str(game.keys["alice"])
    )
    assert opened.returncode == 0, opened.stderr
    assert "1 acknowledgement(s), 2 notice(s), 1 report(s)" in opened.stdout
    wrong = run_verify(str(game.dir), "--letters", str(mail), "--player", "alice", "--identity", str(game.keys["bob"]))
    assert wrong.returncode == 3 and "cannot open" in wrong.stderr


def test_a_mailbox_without_the_player_s_letters_is_not_a_pass(played: Played, tmp_path: Path) -> None:
    mail = into_mbox(tmp_path / "a.mbox", letters_to(played.honest.dir, "alice"))
    result = run_verify(str(played.honest.dir), "--letters", str(mail), "--player", "bob")
    assert result.returncode == 3
    assert "none of the 9 mail(s) is a letter of game test-game to bob" in result.stderr


def test_letters_and_player_go_together(played: Played) -> None:
    result = run_verify(str(played.honest.dir), "--player", "alice")
    assert result.returncode == 2 and "--letters and --player go together" in result.stderr


def test_a_letter_kept_inline_without_its_text_attachment_is_checked_from_its_body(
    played: Played, tmp_path: Path
) -> None:
    """Some mail clients keep the text a letter shows and drop the attached copy: the body is
    the signed text, and the signature still checks."""
    inline = []
    for data in letters_to(played.honest.dir, "alice"):
        message = email.message_from_bytes(data, policy=policy.default)
        assert isinstance(message, EmailMessage)
        kept = EmailMessage(policy=policy.default)
        for header in ("From", "To", "Subject", "Date", "Message-ID"):
            kept[header] = str(message[header])
        body = message.get_body(("plain",))
        assert isinstance(body, EmailMessage)
        kept.set_content(body.get_content())
        for part in message.iter_attachments():
            name = part.get_filename() or ""
            if not name.endswith(".txt"):
                kept.add_attachment(
                    part.get_payload(decode=True), maintype="application", subtype="octet-stream", filename=name
                )
        inline.append(bytes(kept))
    mail = into_mbox(tmp_path / "inline.mbox", inline)
    letters = [kept_letter(m) for m in read_mailbox(mail)]
    assert {letter.text_name for letter in letters} == {"the mail's text"}
    report = check_letters(played.honest.dir, letters, "alice", load_public_key_file(played.honest.dir / "referee.pub"))
    assert report.ok, report.problems
    assert report.acks == 3 and report.notices == 3 and report.reports == 3
