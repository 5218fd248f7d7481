"""The game directory defends itself (issue 14): a lost, emptied or cut journal is refused, never
made afresh; what defines the game in game.yaml is pinned at init; the referee's key must be
private and match referee.pub; the directory is private."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import kept_letters
import pytest

from referee.errors import StateError
from referee.game.audit import audit
from referee.game.status import status


@pytest.fixture
def game(make_game, tmp_path: Path):  # type: ignore[no-untyped-def]
    game = make_game(tmp_path)
    for player in game.players:
        game.submit(player, 1, "note: hi")
    return game


def without_journal_sidecars(path: Path) -> None:
    for sidecar in ("journal.sqlite-wal", "journal.sqlite-shm"):
        (path / sidecar).unlink(missing_ok=True)


def test_an_emptied_journal_is_refused_not_made_afresh(game) -> None:  # type: ignore[no-untyped-def]
    (game.dir / "journal.sqlite").write_bytes(b"")
    without_journal_sidecars(game.dir)
    with pytest.raises(StateError) as refused:
        audit(game.dir)
    assert "is empty" in refused.value.message and "state(s)" in refused.value.message
    assert any("from a backup" in hint for hint in refused.value.hints)
    assert (game.dir / "journal.sqlite").stat().st_size == 0  # not re-created


def test_a_missing_journal_beside_the_game_files_is_refused(game) -> None:  # type: ignore[no-untyped-def]
    (game.dir / "journal.sqlite").unlink()
    without_journal_sidecars(game.dir)
    with pytest.raises(StateError) as refused:
        status(game.dir)
    assert "is missing" in refused.value.message and "letters in mail/" in refused.value.message
    assert not (game.dir / "journal.sqlite").exists()


def test_a_truncated_journal_is_refused(game) -> None:  # type: ignore[no-untyped-def]
    from referee.game.journal import GameDir

    journal = GameDir(game.dir)
    journal.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    journal.close()
    path = game.dir / "journal.sqlite"
    os.truncate(path, path.stat().st_size // 2)
    with pytest.raises(StateError) as refused:
        status(game.dir)
    assert "is damaged" in refused.value.message and "header says" in refused.value.message


def test_a_journal_that_is_not_sqlite_is_refused(game) -> None:  # type: ignore[no-untyped-def]
    (game.dir / "journal.sqlite").write_bytes(b"not a database at all\n" * 10)
    without_journal_sidecars(game.dir)
    with pytest.raises(StateError, match="is damaged"):
        status(game.dir)


def test_a_journal_with_its_tables_dropped_is_refused(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import sqlite3

    shutil.copy(game.dir / "journal.sqlite", tmp_path / "keep.sqlite")
    db = sqlite3.connect(game.dir / "journal.sqlite")
    db.execute("DELETE FROM meta")
    db.commit()
    db.close()
    with pytest.raises(StateError, match="names no game"):
        status(game.dir)


def test_a_referee_key_others_can_read_is_refused_with_the_chmod(game) -> None:  # type: ignore[no-untyped-def]
    from referee.errors import KeyFileError
    from referee.game.engine import adjudicate

    key = game.dir / "referee.key"
    key.chmod(0o644)
    with pytest.raises(KeyFileError) as refused:
        adjudicate(game.dir)
    assert "mode 0644" in refused.value.message
    assert f"chmod 600 {key}" in refused.value.hints[0]
    assert status(game.dir)["turn"] == 1  # nothing was adjudicated
    key.chmod(0o600)
    adjudicate(game.dir)


def test_a_referee_key_that_does_not_match_referee_pub_is_refused(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from referee.errors import KeyFileError
    from referee.game.engine import adjudicate
    from referee.protocol.signatures import generate_keypair

    generate_keypair(tmp_path / "other", comment="someone else")
    shutil.copy(tmp_path / "other", game.dir / "referee.key")
    with pytest.raises(KeyFileError, match="does not match"):
        adjudicate(game.dir)
    assert status(game.dir)["turn"] == 1


def test_init_into_an_existing_open_folder_makes_it_private(make_game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "game").mkdir(mode=0o755)
    (tmp_path / "game").chmod(0o755)
    game = make_game(tmp_path)
    assert game.dir.stat().st_mode & 0o777 == 0o700


def edit_config(game_dir: Path, old: str, new: str) -> None:
    config = game_dir / "game.yaml"
    text = config.read_text(encoding="utf-8")
    assert old in text, text
    config.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("game: test-game", "game: other-game", "game was changed"),
        ("title: Test game", "title: Another game", "title was changed"),
        # `referee init` wrote moderator's option for new games (new_game_options) into game.yaml
        ("history: last-round", "history: last-round\n  rounds: 2", "options was changed"),
        ("name: carol", "name: dave", "players was changed"),
    ],
)
def test_a_defining_field_changed_mid_game_is_refused_naming_it(game, old: str, new: str, field: str) -> None:  # type: ignore[no-untyped-def]
    from referee.errors import ConfigError
    from referee.game.engine import adjudicate

    edit_config(game.dir, old, new)
    with pytest.raises(ConfigError) as refused:
        adjudicate(game.dir)
    assert field in refused.value.message and "pinned at init" in refused.value.message
    assert refused.value.hints[0].startswith("put back")
    edit_config(game.dir, new, old)  # undone as the hint says: the game goes on
    adjudicate(game.dir)
    assert audit(game.dir).ok


def test_a_changed_player_key_is_refused(game) -> None:  # type: ignore[no-untyped-def]
    from referee.errors import ConfigError
    from referee.game.opened import Game
    from referee.protocol.signatures import generate_keypair

    text = (game.dir / "game.yaml").read_text(encoding="utf-8")
    new_key = generate_keypair(game.dir.parent / "new", comment="").line()
    alice_key = [line for line in text.splitlines() if "ssh-ed25519" in line][0].split("key: ")[1].strip()
    edit_config(game.dir, alice_key, new_key)
    with pytest.raises(ConfigError, match=r"players\[0\]\.key \(alice\) was changed"):
        Game.open(game.dir)


def test_addresses_encrypt_and_schedule_stay_editable_and_audit_still_passes(game) -> None:  # type: ignore[no-untyped-def]
    from referee.game.engine import adjudicate

    edit_config(game.dir, "email: alice@example.org", "email: alice@elsewhere.example")
    config = game.dir / "game.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "schedule: {deadline: 48h, reminders: [12h]}\n")
    adjudicate(game.dir)
    notice = kept_letters.read_text(next(kept_letters.glob(game.dir / "mail", "0002-*/alice.notice.txt")))
    assert "48h after this notice" in notice  # the new schedule for phases to come
    config.write_text(config.read_text(encoding="utf-8").replace("deadline: 48h", "deadline: 24h"))
    report = audit(game.dir)
    assert report.ok, report.divergence  # the notices say what they said when they were sent


def test_a_game_made_before_the_pin_is_pinned_on_first_open(game) -> None:  # type: ignore[no-untyped-def]
    from referee.errors import ConfigError
    from referee.game.journal import GameDir
    from referee.game.opened import Game
    from referee.game.pinning import PINNED_META

    kept_letters.as_kept_before(game.dir)  # a game made before the pin kept a file for each letter
    journal = GameDir(game.dir)
    journal.db.execute("DELETE FROM meta WHERE key = ? OR key LIKE 'notice.deadline:%'", (PINNED_META,))
    journal.close()
    Game.open(game.dir).dir.close()
    assert GameDir(game.dir).get_meta(PINNED_META) is not None
    assert GameDir(game.dir).get_meta("notice.deadline:0001-t1-round") == "null"
    edit_config(game.dir, "title: Test game", "title: Renamed")
    with pytest.raises(ConfigError, match="title was changed"):
        Game.open(game.dir)
