"""A game with a public beacon under `referee run`, with real mail servers and a loopback drand
server: the pass waits for the round without alerting anyone, then adjudicates with it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import referee.game.beacons
from referee.game.status import status

from beaconserver import BeaconServer, Clock, beacon_yaml, round_time
from mailworld import ALERTS, MailWorld, add_game

ROLL = "rolls: [{label: scout, dice: 2d6, purpose: scouting}]"
ROUND = 657413  # a real quicknet round


@pytest.fixture
def beacon() -> Iterator[BeaconServer]:
    server = BeaconServer()
    yield server
    server.stop()


def test_run_waits_for_the_beacon_round_then_adjudicates_with_it(
    mail_world: MailWorld, beacon: BeaconServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock()
    monkeypatch.setattr(referee.game.beacons, "now", lambda: clock.now)
    clock.at(round_time("quicknet", ROUND) - 61)
    add_game(mail_world, "lit", mail_world.players, extra=beacon_yaml("quicknet", beacon.url))
    mail_world.run(now=clock.now)
    for player in mail_world.players:
        mail_world.deliver(mail_world.orders_mail(player, mail_world.order(player, 1, ROLL, game="lit")))

    waiting = mail_world.run(now=clock.now)
    assert [line for line in waiting.games if "lit" in line] == [
        f"lit: waits: the beacon round {ROUND} is due at 2023-09-15 11:00:03 UTC: "
        "turn 1 'round' is adjudicated with it, so it waits"
    ], waiting.games
    assert status(mail_world.game_dirs["lit"])["turn"] == 1
    assert not [x for x in mail_world.smtp.letters_to(ALERTS) if "lit" in x["Subject"]]

    beacon.serve("quicknet", ROUND)
    clock.at(round_time("quicknet", ROUND) + 1)
    done = mail_world.run(now=clock.now)
    assert any(line.startswith("lit: adjudicated turn 1 round") for line in done.games), done.games
    assert status(mail_world.game_dirs["lit"])["turn"] == 2
    assert beacon.requests == [f"/52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971/public/{ROUND}"]
