"""A phase costs the same late in a game as early (issue 23): a moderator state holds the game,
not its history, and the idle pass reads only the log entries written since the last pass.
Counted in bytes and rows, never timed."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml

from games.moderator import rules
from referee.game import attendance
from referee.game.attendance import absent_players, missed_in_a_row, phase_facts
from referee.game.audit import audit
from referee.game.engine import adjudicate
from referee.game.journal import GameDir
from referee.protocol.canonical import canonical_json
from referee.protocol.draws import Dice

from conftest import MakeGame, TestGame

PLAYERS = ["alice", "bob", "carol"]


def _orders(turn: int) -> dict[str, Any]:
    return {
        player: {"declaration": {"bid": turn, "plan": f"{player} holds at {turn}"}, "note": f"{player}, round {turn}"}
        for player in PLAYERS
    }


def _play(state: dict[str, Any], rounds: int) -> dict[str, Any]:
    for _ in range(rounds):
        state, _events = rules.resolve(state, _orders(state["round"]), Dice(bytes(32)))
    return state


def test_a_new_games_state_keeps_only_the_last_rounds_declarations_and_notes() -> None:
    start = rules.setup("open", PLAYERS, {"rounds": None, **rules.NEW_GAME_OPTIONS})
    at_10, at_100 = _play(start, 10), _play(start, 100)
    assert at_100["declarations"] == [{"round": 100, "by": {p: _orders(100)[p]["declaration"] for p in PLAYERS}}]
    assert [entry["round"] for entry in at_100["notes"]] == [100]
    assert len(canonical_json(at_100)) - len(canonical_json(at_10)) <= 16  # a digit more in each round number
    assert rules.view(at_100, "alice")["declarations"] == at_100["declarations"]


def test_a_game_begun_before_keeps_every_round_as_it_did() -> None:
    """A game whose configuration lacks the option (begun before it existed) replays byte for byte."""
    start = rules.setup("open", PLAYERS, {"rounds": None})
    assert "history" not in start  # the state before round 1 is the one such games stored
    state = _play(start, 5)
    assert [entry["round"] for entry in state["declarations"]] == [1, 2, 3, 4, 5]
    assert [entry["round"] for entry in state["notes"]] == [1, 2, 3, 4, 5]


def test_setup_refuses_an_unknown_history() -> None:
    with pytest.raises(Exception, match="history"):
        rules.setup("open", PLAYERS, {"history": "some"})


def _play_rounds(game: TestGame, first: int, last: int) -> None:
    for turn in range(first, last + 1):
        for player in game.players:
            receipt = game.submit(player, turn, f"declaration: {{bid: {turn}}}\nnote: round {turn} from {player}")
            assert receipt.accepted, receipt.problems
        adjudicate(game.dir)


def test_init_writes_the_new_game_option_and_states_stay_the_same_size(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    assert yaml.safe_load((game.dir / "game.yaml").read_text())["options"] == rules.NEW_GAME_OPTIONS
    game_dir = GameDir(game.dir)
    sizes = []
    for turn in range(1, 7):
        _play_rounds(game, turn, turn)
        sizes.append((game_dir.states / f"{game_dir.current_state_hash()}.json").stat().st_size)
    assert max(sizes[1:]) - min(sizes[1:]) <= 4, sizes  # round 2 on: a digit here and there
    game_dir.close()
    report = audit(game.dir)
    assert report.ok, report.divergence


@contextmanager
def without_new_game_options() -> Iterator[None]:
    """`referee init` as it was before the module had options for new games.

    The module's dict is emptied and filled again in its own order: monkeypatch's delitem puts
    keys back in reverse order, and every game made later in the same process would write its
    game.yaml's options in that order (the golden games' bytes depend on it)."""
    kept = dict(rules.NEW_GAME_OPTIONS)
    rules.NEW_GAME_OPTIONS.clear()
    try:
        yield
    finally:
        rules.NEW_GAME_OPTIONS.clear()
        rules.NEW_GAME_OPTIONS.update(kept)


def test_a_game_begun_before_the_option_still_audits_and_plays_on(tmp_path: Path, make_game: MakeGame) -> None:
    with without_new_game_options():
        game = make_game(tmp_path)
        assert yaml.safe_load((game.dir / "game.yaml").read_text())["options"] == {}
        _play_rounds(game, 1, 2)
    _play_rounds(game, 3, 3)  # today's code plays on
    report = audit(game.dir)
    assert report.ok, report.divergence
    game_dir = GameDir(game.dir)
    state = game_dir.load_state(game_dir.current_state_hash())["state"]
    assert [entry["round"] for entry in state["declarations"]] == [1, 2, 3]
    game_dir.close()


# -- the idle pass reads absences incrementally -------------------------------------------


def _log_phases(game_dir: GameDir, players: list[str], first: int, last: int, rng: random.Random) -> None:
    """Write the log entries `phases` adjudicated phases leave (orders, defaults, absences)."""
    with game_dir.transaction():
        for turn in range(first, last + 1):
            game_dir.log("phase.open", {"commit": "c", "seq": turn, "replay": None}, turn, "round")
            if rng.random() < 0.3:
                game_dir.log("schedule.remind", {"player": players[0], "index": 0, "deadline": "d"}, turn, "round")
            defaulted = []
            for player in players:
                if rng.random() < 0.7:
                    game_dir.log("order.accepted", {"seq": 1}, turn, "round", player)
                else:
                    defaulted.append(player)
            game_dir.log("phase.adjudicated", {"defaulted": defaulted}, turn, "round")
            if rng.random() < 0.1:
                until = rng.choice([None, "2026-01-01", "2099-01-01"])
                why = rng.choice(["declared", "missed"])
                player = rng.choice(players)
                game_dir.log(
                    "player.absent", {"player": player, "until": until, "why": why, "source": "s"}, player=player
                )
            if rng.random() < 0.05:
                player = rng.choice(players)
                game_dir.log("player.back", {"player": player, "why": "w"}, player=player)


def _whole_log_answer(game_dir: GameDir, today: date) -> tuple[set[str], dict[str, int]]:
    """The answers as the idle pass computed them before: decoding the whole log each time."""
    state: dict[str, Any] = {}
    streak: dict[str, int] = {}
    for entry in game_dir.log_entries(("player.absent", "player.back", "order.accepted", "phase.adjudicated")):
        data = entry["data"]
        if entry["kind"] == "player.absent":
            state[data["player"]] = data
        elif entry["kind"] == "player.back":
            state[data["player"]] = None
        elif entry["kind"] == "order.accepted" and entry.get("player"):
            streak[entry["player"]] = 0
            current = state.get(entry["player"])
            if current is not None and current.get("why") == "missed":
                state[entry["player"]] = None
        elif entry["kind"] == "phase.adjudicated":
            for player in data.get("defaulted", []):
                streak[player] = streak.get(player, 0) + 1
    absent = {
        p for p, d in state.items() if d is not None and (d["until"] is None or date.fromisoformat(d["until"]) >= today)
    }
    return absent, streak


class _Counting:
    """Counts the log rows the attendance functions decode."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.rows = 0
        original = GameDir.log_entries

        def counted(game_dir: GameDir, kinds: tuple[str, ...], since_id: int = 0) -> list[dict[str, Any]]:
            entries = original(game_dir, kinds, since_id)
            self.rows += len(entries)
            return entries

        monkeypatch.setattr(GameDir, "log_entries", counted)


@pytest.mark.parametrize("seed", range(4))
def test_the_fold_gives_what_reading_the_whole_log_gave(tmp_path: Path, make_game: MakeGame, seed: int) -> None:
    game = make_game(tmp_path)
    game_dir = GameDir(game.dir)
    rng = random.Random(seed)
    today = date(2026, 6, 1)
    for first in range(1, 200, 20):
        _log_phases(game_dir, list(game.players), first, first + 19, rng)
        assert (absent_players(game_dir, today), missed_in_a_row(game_dir)) == _whole_log_answer(game_dir, today)
    game_dir.close()


def test_the_idle_pass_reads_the_same_rows_at_phase_100_and_1000(
    tmp_path: Path, make_game: MakeGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    counting = _Counting(monkeypatch)
    read = {}
    for phases in (100, 1000):
        game = make_game(tmp_path / str(phases))
        game_dir = GameDir(game.dir)
        _log_phases(game_dir, list(game.players), 2, phases, random.Random(1))
        phase = game_dir.open_phase()
        assert phase is not None
        phase_facts(game_dir, phase, date(2026, 6, 1))  # a journal from before: folded from the log once
        counting.rows = 0
        for _ in range(3):  # idle passes
            phase_facts(game_dir, phase, date(2026, 6, 1))
        idle = counting.rows
        _log_phases(game_dir, list(game.players), phases + 1, phases + 1, random.Random(2))
        counting.rows = 0
        phase_facts(game_dir, phase, date(2026, 6, 1))  # the pass after one more phase
        read[phases] = (idle, counting.rows)
        game_dir.close()
    assert read[100] == read[1000]
    assert read[100][0] == 0 and 0 < read[100][1] <= 8


def test_reminders_are_those_of_the_open_phase(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    game_dir = GameDir(game.dir)
    phase = game_dir.open_phase()
    assert phase is not None
    with game_dir.transaction():
        game_dir.log("schedule.remind", {"player": "bob", "index": 1, "deadline": "d"}, phase.turn, phase.phase, "bob")
        game_dir.log("schedule.alert", {"reason": "hold", "missing": ["bob"]}, phase.turn, phase.phase)
    facts = phase_facts(game_dir, phase, date(2026, 6, 1))
    assert facts.reminded == {("bob", 1)} and facts.alerted
    assert json.loads(game_dir.get_meta(attendance.ATTENDANCE_META) or "{}")["phase"] == [phase.turn, phase.phase]
    _play_rounds(game, 1, 1)
    phase = game_dir.open_phase()
    assert phase is not None
    facts = phase_facts(game_dir, phase, date(2026, 6, 1))
    assert facts.reminded == frozenset() and not facts.alerted
    game_dir.close()


# -- bytes on disk a round ----------------------------------------------------------------


def _bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def test_a_round_adds_the_same_bytes_at_round_2_and_8_and_sent_letters_keep_their_headers(
    tmp_path: Path, make_game: MakeGame
) -> None:
    from referee.letters.outbox import SENT_INDEX, keep_sent, post, sent_copy
    from referee.mail.smtp import pending

    game = make_game(tmp_path)
    outbox = game.dir / "outbox"

    def send_all() -> None:
        for path in pending(outbox):
            keep_sent(outbox, path)

    send_all()
    added = {}
    for turn in range(1, 9):
        before = {name: _bytes(game.dir / name) for name in ("states", "records", "outbox")}
        _play_rounds(game, turn, turn)
        send_all()
        added[turn] = {name: _bytes(game.dir / name) - size for name, size in before.items()}
    for name in ("states", "records"):
        assert abs(added[8][name] - added[2][name]) <= 64, (name, added[2], added[8])
    # The sent letters' headers are rows of sent.sqlite, which grows by whole 4 KiB pages.
    assert abs(added[8]["outbox"] - added[2]["outbox"]) <= 2 * 4096, (added[2], added[8])
    with closing(sqlite3.connect(outbox / SENT_INDEX)) as db:
        kept = dict(db.execute("SELECT name, headers FROM sent ORDER BY name").fetchall())
    assert kept and not list((outbox / "new").glob("*.eml")) and not list((outbox / "cur").glob("*.eml"))
    for name, headers in kept.items():
        text = headers.decode("utf-8")
        assert "X-Referee-Kept: headers" in text and "Message-ID: <" in text and "To: " in text
        assert len(text) < 1500 and sent_copy(outbox, name) == headers  # the letter itself is under mail/
    # A letter written again after a crash is not posted a second time.
    from email import message_from_bytes, policy

    name, headers = next(iter(kept.items()))
    first = message_from_bytes(headers, policy=policy.default)
    again = post(outbox, _letter_like(first), "referee@example.org", "Referee")
    assert again == outbox / "cur" / name and not list((outbox / "new").glob("*.eml"))
    # An outbox kept before holds a file in cur/ for each letter sent, whole or cut: read the same way.
    (outbox / "cur" / "old.eml").write_bytes(headers)
    assert sent_copy(outbox, "old.eml") == headers and keep_sent(outbox, outbox / "cur" / "old.eml")


def _letter_like(message: Any) -> Any:
    from referee.letters.outbox import Letter

    return Letter(
        to=str(message["To"]), subject=str(message["Subject"]), text="t", html="", message_id=str(message["Message-ID"])
    )


def test_the_fold_is_not_stored_while_another_process_writes_the_journal(tmp_path: Path, make_game: MakeGame) -> None:
    import sqlite3

    game = make_game(tmp_path)
    game_dir = GameDir(game.dir)
    with game_dir.transaction():
        game_dir.log("player.absent", {"player": "bob", "until": None, "why": "declared", "source": "s"}, player="bob")
    writer = sqlite3.connect(game.dir / "journal.sqlite", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        assert absent_players(game_dir, date(2026, 6, 1)) == {"bob"}  # answered from the log
        assert game_dir.get_meta(attendance.ATTENDANCE_META) is None  # not kept: the journal was busy
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert absent_players(game_dir, date(2026, 6, 1)) == {"bob"}
    assert json.loads(game_dir.get_meta(attendance.ATTENDANCE_META) or "{}")["absent"]["bob"]["why"] == "declared"
    assert game_dir.db.execute("PRAGMA busy_timeout").fetchone()[0] > 0  # the journal's own wait is back
    game_dir.close()
