"""`referee audit --public` (issue 13, item 5; protocol section 16): a player replays a finished
game from the files the letters attached (records, reveals, replay.json, the referee's key),
with no journal, no states and no orders folder, and a re-signed record is caught."""

from __future__ import annotations

import email
import json
import re
import shutil
import sys
from email import policy
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_guessing import play

from referee.cli import cli
from referee.errors import VerificationError
from referee.game.journal import GameDir
from referee.game.public_audit import public_audit
from referee.protocol.canonical import pretty_json, sha256_hex
from referee.protocol.signatures import NAMESPACE_REFEREE, PrivateKey, load_private_key, sign
from referee.protocol.verify import RECORD_NAME, verify_game_dir

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


# A letter's file in the outbox: GAME.FOLDER[-gGENERATION].KIND.PLAYER.TOKEN_at_DOMAIN.eml
LETTER = re.compile(r"^[^.]+\.(?P<folder>[^.]+?)(?:-g(?P<generation>[0-9]+))?\.(?P<kind>[^.]+)\.(?P<player>[^.]+)\.")


def player_folder(game_dir: Path, folder: Path, player: str) -> Path:
    """Build, in `folder`, what `player` keeps from the letters they were mailed (the outbox's
    messages to them) and nothing else: each record as the latest report attached it, one a
    rollback withdrew under records/superseded/N/ (N the generation of the report that replaced
    it), each reveal, the final reveal's replay.json; and the referee's public key, which the
    game's first letters name."""
    generations: dict[str, set[int]] = {}
    attached: list[tuple[int, str, bytes]] = []
    for path in sorted((game_dir / "outbox" / "new").glob("*.eml")):
        match = LETTER.match(path.name)
        if match is None or match["player"] != player:
            continue
        generation = int(match["generation"] or 0)
        message = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        for part in message.walk():
            name = part.get_filename()
            if name and not name.startswith(f"{player}."):
                attached.append((generation, name, part.get_payload(decode=True)))
                if RECORD_NAME.match(name):
                    generations.setdefault(name, set()).add(generation)
    for generation, name, data in attached:
        stem = name.removesuffix(".sig")
        if RECORD_NAME.match(stem):
            later = sorted(g for g in generations[stem] if g > generation)
            where = Path("records", *(("superseded", str(later[0])) if later else ()))
        elif stem.startswith("replay"):
            where = Path()
        else:
            where = Path("reveals")
        (folder / where).mkdir(parents=True, exist_ok=True)
        (folder / where / name).write_bytes(data)
    shutil.copy(game_dir / "referee.pub", folder / "referee.pub")
    return folder


@pytest.fixture(scope="module")
def moderator_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The golden moderator game: refusals, entered orders, overrides, a rollback, decks, reveals."""
    sys.path.insert(0, str(GOLDEN))
    try:
        import golden  # tests/golden/golden.py: plays a scripted game with fixed randomness
    finally:
        sys.path.remove(str(GOLDEN))
    work = tmp_path_factory.mktemp("golden")
    golden.play("moderator-referee", work)
    return work / "game"


def test_a_moderator_game_is_confirmed_from_what_the_players_received(moderator_game: Path, tmp_path: Path) -> None:
    folder = player_folder(moderator_game, tmp_path / "alice", "alice")
    report = public_audit(folder)
    assert report.ok, report.problems
    assert report.records == 3 and report.states >= 6 and report.hidden >= 1
    result = CliRunner().invoke(cli, ["audit", "--public", str(folder)])
    assert result.exit_code == 0 and result.output.startswith("ok: 3 record(s) replayed"), result.output


def test_a_re_signed_record_is_caught_with_its_field(moderator_game: Path, tmp_path: Path) -> None:
    """A cheating referee changes the state a phase led to and re-signs the chain and the
    reveals: `verify --final` cannot see it (the commitments still link), the public replay
    names the record and field."""
    folder = player_folder(moderator_game, tmp_path / "bob", "bob")
    key = load_private_key(moderator_game / "referee.key")
    forged = "f" * 64
    new_hashes = {}
    for name, field in (("0001-t1-round.json", "state_after"), ("0002-t2-round.json", "state_before")):
        record = json.loads((folder / "records" / name).read_bytes())
        record[field] = forged
        new_hashes[name] = sha256_hex(_signed(folder / "records" / name, pretty_json(record), key))
    for path in (folder / "reveals").glob("*.json"):
        reveal = json.loads(path.read_bytes())
        for draw in reveal["draws"]:
            draw["record_sha256"] = new_hashes.get(draw["record"], draw["record_sha256"])
        _signed(path, pretty_json(reveal), key)
    assert verify_game_dir(folder, final=True).ok
    report = public_audit(folder)
    assert report.problems == [
        f"0001-t1-round.json: state_after: the replay gives '{_state_after(moderator_game)}', "
        f"the record says '{forged}'"
    ]
    result = CliRunner().invoke(cli, ["audit", "--public", str(folder)])
    assert isinstance(result.exception, VerificationError)  # `referee` exits 3 with it
    assert result.exception.problems == report.problems


def _signed(path: Path, data: bytes, key: PrivateKey) -> bytes:
    path.write_bytes(data)
    path.with_name(path.name + ".sig").write_text(sign(data, key, NAMESPACE_REFEREE), encoding="utf-8")
    return data


def _state_after(game_dir: Path) -> str:
    return json.loads((game_dir / "records" / "0001-t1-round.json").read_bytes())["state_after"]


def test_a_changed_order_file_is_caught(moderator_game: Path, tmp_path: Path) -> None:
    folder = player_folder(moderator_game, tmp_path / "carol", "carol")
    replay = json.loads((folder / "replay.json").read_bytes())
    digest = next(iter(replay["orders"]))
    replay["orders"][digest] += "# changed\n"
    data = pretty_json(replay)
    (folder / "replay.json").write_bytes(data)
    key = load_private_key(moderator_game / "referee.key")
    (folder / "replay.json.sig").write_text(sign(data, key, NAMESPACE_REFEREE), encoding="utf-8")
    assert public_audit(folder).problems == [f"replay.json: the order file listed as {digest[:16]}... hashes otherwise"]


def test_without_the_final_reveal_there_is_nothing_to_replay(moderator_game: Path, tmp_path: Path) -> None:
    folder = player_folder(moderator_game, tmp_path / "dave", "alice")
    (folder / "replay.json").unlink()
    problems = public_audit(folder).problems
    assert any(p.startswith("replay.json: missing") for p in problems)


def test_a_polemos_game_is_confirmed_from_what_the_players_received(tmp_path: Path) -> None:
    """Polemos with its test bot's private standing orders, played to its end and revealed."""
    game_dir = play("polemos-obb", tmp_path / "play", phases=40, options={"rounds": 2})  # pace folds idle steps
    assert GameDir(game_dir).open_phase() is None, "the game did not end"
    result = CliRunner().invoke(cli, ["reveal", str(game_dir), "--final"])
    assert result.exit_code == 0, result.output
    report = public_audit(player_folder(game_dir, tmp_path / "dutch", "dutch"))
    assert report.ok, report.problems
    assert report.records >= 5 and report.rolls > 0
