"""A read-only or full disk ends a command with one line and a hint, never a traceback, and the
command run again once the disk is fixed finishes the job (issue 14). Real disks: a tmpfs
mounted read-only or filled up (when the tests may mount, as root), and a file-size limit
(RLIMIT_FSIZE, anywhere)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.game.audit import audit
from referee.game.status import status


def referee(*args: str | Path, file_size_limit: int | None = None) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        if file_size_limit is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    return subprocess.run(
        [sys.executable, "-m", "referee", *map(str, args)],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        timeout=120,
    )


def assert_one_clear_line(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    assert lines[0].startswith("referee: error: "), result.stderr
    assert any(line.startswith("referee: hint: ") for line in lines), result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount_point)], capture_output=True)
    if made.returncode != 0:
        pytest.skip("these tests mount a tmpfs, which needs root")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def ready_game(make_game, where: Path):  # type: ignore[no-untyped-def]
    game = make_game(where)
    for player in game.players:
        game.submit(player, 1, "note: hi")
    return game


def test_a_file_size_limit_ends_adjudicate_with_a_line_and_the_rerun_finishes(make_game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    game = ready_game(make_game, tmp_path)
    assert_one_clear_line(referee("adjudicate", game.dir, file_size_limit=600), "full")
    assert status(game.dir)["turn"] == 1
    finished = referee("adjudicate", game.dir)
    assert finished.returncode == 0, finished.stderr
    assert status(game.dir)["turn"] == 2 and audit(game.dir).ok


def test_a_read_only_disk_ends_adjudicate_with_a_line_and_the_rerun_finishes(make_game, tmpfs: Path) -> None:  # type: ignore[no-untyped-def]
    game = ready_game(make_game, tmpfs / "rw")
    read_only = tmpfs.parent / "ro"
    read_only.mkdir()
    subprocess.run(["mount", "--bind", str(tmpfs / "rw"), str(read_only)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(read_only)], check=True)
        assert_one_clear_line(referee("adjudicate", read_only / "game"), "read-only")
    finally:
        subprocess.run(["umount", "-l", str(read_only)], check=False)
    finished = referee("adjudicate", game.dir)
    assert finished.returncode == 0, finished.stderr
    assert status(game.dir)["turn"] == 2 and audit(game.dir).ok


def test_a_full_disk_ends_adjudicate_with_a_line_and_the_rerun_finishes(make_game, tmpfs: Path) -> None:  # type: ignore[no-untyped-def]
    game = ready_game(make_game, tmpfs)
    filler = tmpfs / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"\0" * 4096):  # fill the disk to the last block
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    assert_one_clear_line(referee("adjudicate", game.dir), "full")
    filler.unlink()
    finished = referee("adjudicate", game.dir)
    assert finished.returncode == 0, finished.stderr
    assert status(game.dir)["turn"] == 2 and audit(game.dir).ok


def test_a_yaml_error_in_game_yaml_names_the_file_line_and_column(make_game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    game = make_game(tmp_path)
    config = game.dir / "game.yaml"
    config.write_text(config.read_text() + "players: [unclosed\n")
    result = referee("audit", game.dir)
    assert_one_clear_line(result, "game.yaml", "line ", "column ")


def test_a_read_only_game_in_a_pass_is_one_failed_line_and_the_next_pass_finishes(make_game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from referee.mail.home import Home

    home = Home(tmp_path / "home")
    home.create()
    game = ready_game(make_game, tmp_path / "made")
    folder = home.games_dir / "test-game"
    game.dir.rename(folder)
    if subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True).returncode != 0:
        pytest.skip("this test mounts the game folder read-only, which needs root")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], check=True)
        passed = referee("run", "--home", home.path, "--no-mail")
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
    assert passed.returncode == 1 and "Traceback" not in passed.stderr + passed.stdout, passed
    (failed,) = [line for line in passed.stdout.splitlines() if line.startswith("FAILED")]
    assert "test-game:" in failed and "read-only" in failed and "hint:" in failed, failed
    again = referee("run", "--home", home.path, "--no-mail")
    assert again.returncode == 0, again
    assert status(folder)["turn"] == 2 and audit(folder).ok  # the home's defaults changed its schedule


def test_a_game_that_lost_its_journal_fails_the_pass_with_how_to_restore_it(make_game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from referee.mail.home import Home

    home = Home(tmp_path / "home")
    home.create()
    game = ready_game(make_game, tmp_path / "made")
    game.dir.rename(home.games_dir / "test-game")
    for name in ("journal.sqlite", "journal.sqlite-wal", "journal.sqlite-shm"):
        (home.games_dir / "test-game" / name).unlink(missing_ok=True)
    passed = referee("run", "--home", home.path, "--no-mail")
    assert passed.returncode == 1 and "Traceback" not in passed.stderr, passed
    assert "journal" in passed.stdout and "from a backup" in passed.stdout, passed.stdout
    assert not (home.games_dir / "test-game" / "journal.sqlite").exists()


def test_player_text_reaches_the_terminal_with_its_escapes_spelled_out(make_game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    game = make_game(tmp_path)
    purpose = '"\\e[2J\\e]0;pwned\\a\\u202eevil\\r"'  # YAML escapes: ESC, BEL, a bidi override, CR
    for player in game.players:
        game.submit(player, 1, "rolls:\n  - {label: charge, table: morale, purpose: " + purpose + "}\n")
    shown = referee("preview", game.dir)
    assert shown.returncode == 0, shown.stderr
    assert "\\x1b[2J" in shown.stdout and "\\u202eevil\\r" in shown.stdout
    assert not any(char in shown.stdout for char in "\x1b\x07\u202e\r")
    explained = referee("dispute", "list", game.dir)
    assert explained.returncode == 0
