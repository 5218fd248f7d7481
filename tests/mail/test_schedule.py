"""Deadlines, reminders and missed orders through `referee run`, with real mail servers."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from referee.game.attendance import absent_players
from referee.game.journal import GameDir
from referee.game.status import status
from referee.letters.kept import read_kept

from mailworld import ALERTS, MailWorld, add_game

ROLL = "rolls: [{label: scout, dice: 2d6, purpose: scouting}]"


def scheduled(world: MailWorld, policy: str, extra: str = "") -> tuple[str, datetime]:
    schedule = f"deadline: 72h\ngrace: 1h\nreminders: [24h]\nmissed_orders: {policy}\n{extra}"
    game_dir = add_game(world, "sched", world.players, schedule=schedule)
    world.run()  # the notices
    world.smtp.clear()
    opened = GameDir(game_dir).open_phase()
    assert opened is not None
    return "sched", datetime.fromisoformat(opened.opened_at)


def send(world: MailWorld, player: str, turn: int = 1) -> None:
    world.deliver(world.orders_mail(player, world.order(player, turn, ROLL, game="sched")))


def subjects(world: MailWorld, address: str) -> list[str]:
    return [x["Subject"] for x in world.smtp.letters_to(address)]


def test_reminders_then_default_orders_at_the_deadline(mail_world: MailWorld) -> None:
    game, opened = scheduled(mail_world, "default")
    send(mail_world, "alice")
    send(mail_world, "bob")

    mail_world.run(now=opened + timedelta(hours=49))
    mail_world.run(now=opened + timedelta(hours=50))
    reminders = [s for s in subjects(mail_world, "carol@example.org") if "reminder" in s]
    assert len(reminders) == 1 and "turn 1 'round' are due" in reminders[0]
    assert not any("reminder" in s for s in subjects(mail_world, "alice@example.org"))

    in_grace = mail_world.run(now=opened + timedelta(hours=72, minutes=30))
    assert in_grace.games == []
    late = mail_world.run(now=opened + timedelta(hours=73, minutes=1))

    assert any("default orders for carol" in line for line in late.games), late.games
    assert status(mail_world.game_dirs[game])["turn"] == 2
    (report,) = [x for x in mail_world.letters("carol") if "turn 1 round: report" in x["Subject"]]
    assert "No orders came from carol" in report.get_body(("plain",)).get_content()


def test_the_wait_policy_alerts_the_referee_once(mail_world: MailWorld) -> None:
    game, opened = scheduled(mail_world, "wait")
    send(mail_world, "alice")
    send(mail_world, "bob")

    for hours in (74, 75, 80):
        mail_world.run(now=opened + timedelta(hours=hours))

    alerts = subjects(mail_world, ALERTS)
    assert len(alerts) == 1 and "waits for you" in alerts[0]
    assert status(mail_world.game_dirs[game])["turn"] == 1


def test_most_orders_missing_holds_the_phase(mail_world: MailWorld) -> None:
    game, opened = scheduled(mail_world, "default")

    mail_world.run(now=opened + timedelta(hours=74))
    mail_world.run(now=opened + timedelta(hours=75))

    alerts = subjects(mail_world, ALERTS)
    assert len(alerts) == 1 and "HELD" in alerts[0]
    assert status(mail_world.game_dirs[game])["turn"] == 1


def test_a_declared_absence_lets_the_phase_go_on_without_the_player(mail_world: MailWorld) -> None:
    game, _ = scheduled(mail_world, "default")
    until = (date.today() + timedelta(days=10)).isoformat()
    absent = mail_world.command_file("carol", f"absent until {until}", game="sched")
    mail_world.deliver(mail_world.command_mail("carol", absent))
    mail_world.run()
    assert any("absence recorded" in s for s in subjects(mail_world, "carol@example.org"))

    send(mail_world, "alice")
    send(mail_world, "bob")
    report = mail_world.run()

    assert any("adjudicated turn 1 round (complete, default orders for carol)" in line for line in report.games)

    mail_world.deliver(mail_world.command_mail("carol", mail_world.command_file("carol", "back", game="sched")))
    mail_world.run()
    send(mail_world, "alice", turn=2)
    send(mail_world, "bob", turn=2)
    waiting = mail_world.run()
    assert waiting.games == [] and status(mail_world.game_dirs[game])["awaited"] == ["carol"]


def test_the_absent_policy_stops_waiting_after_missed_phases(mail_world: MailWorld) -> None:
    game, _ = scheduled(mail_world, "absent", "absent_after: 2\n")
    for turn in (1, 2):
        send(mail_world, "alice", turn)
        send(mail_world, "bob", turn)
        mail_world.run()
        phase = GameDir(mail_world.game_dirs[game]).open_phase()
        assert phase is not None
        report = mail_world.run(now=datetime.fromisoformat(phase.opened_at) + timedelta(hours=74))
        assert any(f"adjudicated turn {turn} round" in line for line in report.games), report.games
    assert any("carol marked absent" in line for line in report.games)

    send(mail_world, "alice", 3)
    send(mail_world, "bob", 3)
    third = mail_world.run()
    assert any("adjudicated turn 3 round (complete, default orders for carol)" in line for line in third.games)

    assert absent_players(GameDir(mail_world.game_dirs[game]), date.today()) == {"carol"}
    send(mail_world, "carol", 4)  # carol's orders bring her back
    mail_world.run()
    assert absent_players(GameDir(mail_world.game_dirs[game]), date.today()) == set()


def test_the_notice_states_the_deadline_rule(mail_world: MailWorld) -> None:
    scheduled(mail_world, "default")
    notice = read_kept(mail_world.game_dirs["sched"] / "mail" / "0001-t1-round" / "alice.notice.txt").decode()
    assert "Deadline: 72h after this notice was sent; late orders are still taken for 1h;" in notice
    assert "the game's default orders stand for missing ones" in notice


def test_a_weekday_rule() -> None:
    from referee.game.deadlines import parse_schedule

    schedule = parse_schedule({"deadline": "sun 20:00", "timezone": "Europe/London"}, "test")
    assert schedule.rule("round") == (
        "the next Sunday at 20:00 (Europe/London) after this notice; "
        "then the referee decides what stands for missing orders"
    )
