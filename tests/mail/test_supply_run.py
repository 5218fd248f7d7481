"""A game waiting on its referee, through `referee run` with real mail servers and the real
command line (issue 15): held, the referee alerted once with the exact commands, each player
told once; supplied with `referee supply` in a subprocess; the next run adjudicates."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import supplygame

from referee.game.engine import init_game, submit
from referee.game.journal import GameDir

from mailworld import ALERTS, REFEREE, MailWorld

SUPPLYGAME = Path(supplygame.__file__)


@pytest.fixture(autouse=True)
def installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    import games

    monkeypatch.setattr(games, "GAMES", (*games.GAMES, supplygame.GAME))
    yield


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the `referee` command line with the supply-test game installed, in a subprocess."""
    return subprocess.run(
        [sys.executable, str(SUPPLYGAME), *args], capture_output=True, text=True, env=os.environ.copy(), check=False
    )


def add_supply_game(world: MailWorld) -> Path:
    setup = world.home.path.parent / "setup-sup"
    setup.mkdir()
    lines = ["game: sup", "module: supply-test", "title: Supplied", f"referee: {{email: {REFEREE}}}", "players:"]
    for player in supplygame.PLAYERS:
        key = world.keys[player].with_suffix(".pub").read_text().strip()
        lines.append(f"  - {{name: {player}, email: {player}@example.org, key: '{key}'}}")
    (setup / "game.yaml").write_text("\n".join(lines) + "\n")
    game_dir = world.home.games_dir / "sup"
    init_game(game_dir, setup / "game.yaml")
    world.game_dirs["sup"] = game_dir
    return game_dir


def send_round(world: MailWorld, turn: int) -> None:
    for player in supplygame.PLAYERS:
        world.deliver(world.orders_mail(player, world.order(player, turn, "move: 3", game="sup")))


def subjects(world: MailWorld, address: str) -> list[str]:
    return [letter["Subject"] for letter in world.smtp.letters_to(address)]


def test_a_held_game_alerts_once_is_supplied_from_the_command_line_and_goes_on(
    mail_world: MailWorld, tmp_path: Path
) -> None:
    game_dir = add_supply_game(mail_world)
    mail_world.run()
    send_round(mail_world, 1)
    mail_world.run()
    send_round(mail_world, 2)
    mail_world.smtp.clear()

    first = mail_world.run()
    again = mail_world.run()

    assert any("sup: turn 2 round held: turn 2 'round' waits on its referee" in line for line in first.games)
    assert any("held: waits on the referee for morale" in line for line in again.games), again.games
    assert first.ok and again.ok
    (alert,) = [x for x in mail_world.smtp.letters_to(ALERTS) if "waits on you" in x["Subject"]]
    body = alert.get_body(("plain",)).get_content()
    assert f"referee supply --template morale {game_dir} > morale.yaml" in body
    assert f"referee supply {game_dir} morale.yaml --reason" in body
    for player in supplygame.PLAYERS:
        waiting = [s for s in subjects(mail_world, f"{player}@example.org") if "waiting" in s]
        assert waiting == ["[sup] turn 2 round: waiting on the referee"]
    status = referee("status", str(game_dir))
    assert "HELD      waits on the referee for: morale" in status.stdout, status

    template = referee("supply", "--template", "morale", str(game_dir))
    assert template.returncode == 0 and "supplies: morale\ndata:\n" in template.stdout
    filled = tmp_path / "morale.yaml"
    filled.write_text(template.stdout.replace("alice:   # 1..9", "alice: 5").replace("bob:     # 1..9", "bob: x"))
    refused = referee("supply", str(game_dir), str(filled), "--reason", "my copy")
    assert refused.returncode == 1
    assert "was refused: nothing changed" in refused.stderr
    assert "referee:   - data.factors.bob: " in refused.stderr, refused.stderr
    assert GameDir(game_dir).overrides() == []

    filled.write_text(filled.read_text().replace("bob: x", "bob: 4"))
    supplied = referee("supply", str(game_dir), str(filled), "--reason", "Morale, p. 12 of my copy")
    assert supplied.returncode == 0, supplied.stderr
    assert "override #1 (supply) of turn 2/round, signed" in supplied.stdout
    after = mail_world.run()

    assert any("sup: adjudicated turn 2 round" in line for line in after.games), after.games
    (report,) = [x for x in mail_world.letters("alice") if "turn 2 round: report" in x["Subject"]]
    text = report.get_body(("plain",)).get_content()
    assert "the referee supplied the morale factor of each side (Morale, p. 12)" in " ".join(text.split())
    assert "reason: Morale, p. 12 of my copy" in text
    assert len([x for x in mail_world.smtp.letters_to(ALERTS) if "waits on you" in x["Subject"]]) == 1


def test_a_hold_made_at_the_terminal_is_mailed_to_the_referee_once_by_the_next_runs(mail_world: MailWorld) -> None:
    """Also what a run killed between the hold and its alert leaves: the alert goes next time."""
    game_dir = add_supply_game(mail_world)
    mail_world.run()
    send_round(mail_world, 1)
    mail_world.run()
    for player in supplygame.PLAYERS:  # by hand, so that no run sees the phase before the referee does
        raw = mail_world.order(player, 2, "move: 3", game="sup")
        assert submit(game_dir, raw, mail_world.signature(player, raw)).accepted
    held_by_hand = referee("adjudicate", str(game_dir))
    assert held_by_hand.returncode == 4 and "waits on its referee" in held_by_hand.stderr
    assert not [x for x in mail_world.smtp.letters_to(ALERTS) if "waits on you" in x["Subject"]]

    for _ in range(3):
        mail_world.run()

    alerts = [x for x in mail_world.smtp.letters_to(ALERTS) if "waits on you" in x["Subject"]]
    assert len(alerts) == 1
    for player in supplygame.PLAYERS:
        assert len([s for s in subjects(mail_world, f"{player}@example.org") if "waiting" in s]) == 1
