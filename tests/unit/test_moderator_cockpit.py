"""The worked example shipped with `moderator` (games/moderator/data/examples/cockpit-of-europe):
Cockpit of Europe's Grand Campaign played for several years through signed orders, with its
alternating sequence (French, then Allied Administrative Phase, then Operations), its calendar,
the Peace Index that ends the game at 14 (moved by orders and by the tables' structured
results), scheduled rolls (King's Ennui every French Admin Phase, a Pox recovery roll per sick
leader, the Russian entry roll while the Corps waits), the flood's recession roll with its
variable modifier and its conditional new request (the sample orders shipped with the example),
a referee's override of a Prestige track, and then `verify` and `audit`.

Every reading of the rulebook's d10 checks is compared with the thresholds the rulebook prints
(quoted below from the OCR text of the exclusive rules), not with the example's tables file.
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import kept_letters
import pytest
import yaml

from referee.errors import GameDataError
from referee.game.audit import audit
from referee.game.engine import adjudicate, init_game
from referee.game.opened import Game
from referee.game.override import make_override
from referee.game.public_audit import public_audit
from referee.game.reveal import reveal
from referee.letters.post import read_kept_html
from referee.protocol.signatures import generate_keypair
from referee.protocol.verify import verify_game_dir

from conftest import TestGame

EXAMPLE = Path(__file__).resolve().parents[2] / "games" / "moderator" / "data" / "examples" / "cockpit-of-europe"
CONTRACT = Path(__file__).resolve().parents[1] / "contract"
PLAYERS = ("allies", "france")
SEQUENCE = ("french-admin", "allied-admin", "operations")
SEASONS = ("winter", "spring", "summer", "autumn")

# The thresholds as the exclusive rules print them: (lowest, highest, the words the row says).
PRINTED = {
    # 3.15: 'If he rolls a "9" on one (1) die, Louis has become Bored.' 3.16: 'If the French
    # player's Ennui Check (3.15) produces a "1" or less ... Royal Whim'
    "kings-ennui": [(0, 1, "Royal Whim"), (2, 8, "no effect"), (9, 9, "Bored")],
    # 7.02, The Pox: 'by rolling a die: 0-2 Recovers, 3-7 No Effect, 8-9 Dies.'
    "pox-recovery": [(0, 2, "recovers"), (3, 7, "no effect"), (8, 9, "dies")],
    # 6.432: 'On a "2" or less the Russian Corps may enter the map'
    "russian-entry": [(0, 2, "enters"), (3, 9, "does not enter")],
    # 1.251 (extraction R1): voluntary flooding, '3 or less' approved
    "voluntary-flooding": [(0, 3, "approved"), (4, 9, "refused")],
    # 3.132: 'On any result other than an "8" or "9" he is merely wounded'
    "le-roi-killed": [(0, 7, "wounded"), (8, 9, "dead")],
    # 1.253: 'Flood effects are ended on a die roll of "3" or less. The die roll is modified by
    # "-1" for each roll after the first.' (read on the modified total)
    "flood-recession": [(-99, 3, "the floodwaters recede"), (4, 9, "the flood goes on")],
}
# What the tables' structured results move, as the book prints it: 1.254 'each act of Voluntary
# Flooding shifts the Peace Index one (1) box to the right'; 3.132, dead in the campaign: +4.
PRINTED_MOVES = {("voluntary-flooding", "approved"): {"peace": 1}, ("le-roi-killed", "dead"): {"peace": 4}}


# Which table each roll of the played game reads, by its label (a scheduled roll for a listed
# name has the name after its label).
TABLE_OF = {
    "scheduled/french-admin/kings-ennui": "kings-ennui",
    "scheduled/french-admin/pox": "pox-recovery",
    "scheduled/allied-admin/russians": "russian-entry",
    "roll/allies/flooding": "voluntary-flooding",
    "roll/france/le-roi": "le-roi-killed",
    "roll/allies/flood-recedes": "flood-recession",
    "roll/allies/flood-recedes/then-1": "voluntary-flooding",
}


@dataclass
class Campaign:
    game: TestGame
    states: list[dict[str, Any]] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    override_letter: str = ""
    override_report: Path | None = None
    later_rolls: dict[int, int] = field(default_factory=dict)  # turn -> the recession roll's modifier


def state_of(game_dir: Path) -> dict[str, Any]:
    game = Game.open(game_dir)
    state: dict[str, Any] = game.envelope(game.dir.get_meta("state"))["state"]
    return state


def new_campaign(root: Path) -> TestGame:
    setup = root / "setup"
    shutil.copytree(EXAMPLE, setup)
    (setup / "keys").mkdir()
    keys = {}
    for player in PLAYERS:
        keys[player] = setup / "keys" / player
        generate_keypair(keys[player], comment=f"{player}@example.org")
    init_game(root / "game", setup / "game.yaml")
    return TestGame(root / "game", keys, game="cockpit-campaign", players=PLAYERS)


def last_rolls(state: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    return [roll for roll in state["last_rolls"] if roll["label"].startswith(prefix)]


def play_phase(campaign: Campaign, turn: int, phase: str, orders: dict[str, dict[str, Any]]) -> dict[str, Any]:
    game = campaign.game
    state = campaign.states[-1]
    active = next(p for p in state["sequence"] if p["name"] == phase)["active"]
    for player in active:
        body = yaml.safe_dump(orders[player], sort_keys=False, allow_unicode=True) if orders.get(player) else "{}"
        receipt = game.submit(player, turn, body, phase=phase)
        assert receipt.accepted, (turn, phase, player, [str(p) for p in receipt.problems])
    adjudicate(game.dir, expect=f"{turn}/{phase}")
    campaign.states.append(state_of(game.dir))
    return campaign.states[-1]


def result_text(roll: dict[str, Any]) -> str:
    """Return the words of a roll's result (a structured result keeps them under `text`)."""
    result = roll["result"]
    return str(result["text"] if isinstance(result, dict) else result)


def flooding(later_rolls: int) -> dict[str, Any]:
    """Return the Allies' flood recession roll (1.253) with its conditional new request (1.251):
    the sample orders shipped with the example, with this roll's count of earlier rolls."""
    orders: dict[str, Any] = yaml.safe_load((EXAMPLE / "orders" / "allies-operations.yaml").read_text())
    (roll,) = orders["rolls"]
    roll["purpose"] = f"Do the floodwaters recede? (1.253, roll {later_rolls + 1})"
    roll["modifiers"] = [{"later-rolls": -later_rolls}]
    if not later_rolls:
        del roll["modifiers"]
    return orders


def play(root: Path) -> Campaign:
    """Play the campaign until the Peace Index ends it: every approved voluntary flooding
    (1.254) and Le Roi's death (3.132) move it through the tables' results, and each year-end
    the Allies advance it by 3 (the yearly amount is on the Peace Index Chart, which the volume
    does not print), from the first year a flood has had its recession roll: so the game
    always shows the conditional roll, whatever the dice."""
    campaign = Campaign(new_campaign(root))
    campaign.states.append(state_of(campaign.game.dir))
    flood_since: int | None = None  # the turn the Dutch Flood Zone was flooded
    recession_rolls = 0
    refused_in = -10  # the turn of the last refusal: no new request for 3 full turns (1.251)
    for turn in range(1, 60):
        season = SEASONS[(turn - 1) % 4]
        # French Administrative Phase: the Pox strikes Saxe in turn 2 (a Random Event: the
        # table is not in the volume); the French note his recovery or death.
        french: dict[str, Any] = {}
        if turn == 2:
            french["list"] = [{"list": "sick-leaders", "add": "Saxe", "reason": "The Pox (7.02)"}]
        state = play_phase(campaign, turn, "french-admin", {"france": french})
        if state["ended"]:
            return campaign
        campaign.titles.append(Game.open(campaign.game.dir).module.phase(state).title)
        for roll in last_rolls(state, "scheduled/french-admin/pox/"):
            if not result_text(roll).startswith("no effect"):
                leave = {"list": "sick-leaders", "remove": "Saxe", "reason": f"Pox recovery roll: {result_text(roll)}"}
                french = {"list": [leave]}
                break
        else:
            french = {}
        # Allied Administrative Phase: the Russians are received in turn 3 (6.431).
        allied: dict[str, Any] = {}
        if turn == 3:
            allied["list"] = [
                {"list": "russians-waiting", "add": "Russian Corps", "reason": "The Russians are Coming!"}
            ]
        state = play_phase(campaign, turn, "allied-admin", {"allies": allied})
        if state["ended"]:
            return campaign
        entered = [
            r for r in last_rolls(state, "scheduled/allied-admin/russians/") if result_text(r).startswith("enters")
        ]
        # Operations: while the Zone is flooded (after its first turn) the Allies roll for the
        # waters to recede, asking again at once if they do; otherwise they ask for flooding
        # whenever a refusal no longer bars it. At the year's end the Peace Index advances.
        allies: dict[str, Any] = {}
        if flood_since is not None and turn > flood_since:
            allies = flooding(recession_rolls)
            campaign.later_rolls[turn] = -recession_rolls
            recession_rolls += 1
        elif flood_since is None and turn - refused_in > 3:
            allies["rolls"] = [
                {"label": "flooding", "table": "voluntary-flooding", "purpose": "Voluntary Flooding (1.251)"}
            ]
        if entered:
            allies["list"] = [{"list": "russians-waiting", "remove": "Russian Corps", "reason": "entered the map"}]
        if season == "autumn" and campaign.later_rolls:
            allies["track"] = [{"track": "peace", "change": 3, "reason": "Yearly Peace Index advance (2.222)"}]
        if turn == 5:
            french["rolls"] = [{"label": "le-roi", "table": "le-roi-killed", "purpose": "Le Roi killed? (3.132)"}]
        state = play_phase(campaign, turn, "operations", {"allies": allies, "france": french})
        for roll in last_rolls(state, "roll/allies/"):
            words = result_text(roll)
            if roll["label"] == "roll/allies/flood-recedes" and words.startswith("the floodwaters recede"):
                flood_since, recession_rolls = None, 0
            elif words.startswith("approved"):
                flood_since = turn
            elif words.startswith("refused"):
                refused_in = turn
        if turn == 6:
            result = make_override(
                campaign.game.dir, "state", "/tracks/prestige-france/value", ["3"], "BHG Prestige Point award (5.444)"
            )
            campaign.override_letter = kept_letters.read_text(result.letters[0].parent / "france.override-1.txt")
            campaign.override_report = next(campaign.game.dir.glob("mail/*-t7-french-admin")) / "france.report.txt"
            campaign.states[-1] = state_of(campaign.game.dir)
        if state["ended"]:
            return campaign
    raise AssertionError("the Peace Index never reached 14")


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Campaign:
    return play(tmp_path_factory.mktemp("cockpit"))


def records(campaign: Campaign) -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted((campaign.game.dir / "records").glob("*.json"))]


def test_the_campaign_runs_several_years_and_the_peace_index_ends_it(campaign: Campaign) -> None:
    last = campaign.states[-1]
    assert last["ended"]["track"] == "peace" and last["tracks"]["peace"]["value"] == 14
    turns = (last["round"] - 1) // len(SEQUENCE)
    assert turns >= 8, "at least two years of four Quarters"
    assert Game.open(campaign.game.dir).module.phase(last) is None
    report = kept_letters.glob(campaign.game.dir / "mail", "*/france.report.txt")
    final = kept_letters.read_text(max(report, key=lambda path: path.parent.name))
    assert "The game ends: Peace Index reached 14" in " ".join(final.split())


def test_the_sequence_alternates_and_its_titles_carry_the_calendar(campaign: Campaign) -> None:
    assert campaign.titles[0] == "winter 1744, turn 1: Allied Administrative Phase"
    assert campaign.titles[4] == "winter 1745, turn 5: Allied Administrative Phase"
    phases = [(rec["turn"], rec["phase"]) for rec in records(campaign)]
    assert phases[:4] == [(1, "french-admin"), (1, "allied-admin"), (1, "operations"), (2, "french-admin")]
    for rec in records(campaign):
        signed = sorted(order["player"] for order in rec.get("orders", []))
        wanted = {"french-admin": ["france"], "allied-admin": ["allies"], "operations": ["allies", "france"]}
        assert signed == wanted[rec["phase"]], (rec["turn"], rec["phase"], signed)


def test_each_phase_has_its_own_deadline(campaign: Campaign) -> None:
    schedule = Game.open(campaign.game.dir).schedule
    assert [schedule.deadline_text(phase) for phase in SEQUENCE] == ["48h", "48h", "72h"]
    notices = {path.parent.name: path for path in kept_letters.glob(campaign.game.dir / "mail", "*/allies.notice.txt")}
    first = " ".join(kept_letters.read_text(notices[min(notices)]).split())
    assert "48h after this notice was sent" in first


def test_every_reading_matches_the_thresholds_the_rulebook_prints(campaign: Campaign) -> None:
    seen: dict[str, int] = {}
    for state in campaign.states[1:]:
        turn = (state["round"] - 2) // len(SEQUENCE) + 1  # the turn of the phase just adjudicated
        for roll in state["last_rolls"]:
            table = TABLE_OF.get(roll["label"]) or TABLE_OF.get("/".join(roll["label"].split("/")[:3]))
            assert table is not None, roll
            (value,) = roll["values"]
            if table == "flood-recession":
                value += campaign.later_rolls[turn]
            (words,) = [words for low, high, words in PRINTED[table] if low <= value <= high]
            assert result_text(roll).lower().startswith(words.lower()), (table, value, roll["result"])
            moves = next((m for (t, w), m in PRINTED_MOVES.items() if t == table and words.startswith(w)), None)
            assert (roll["result"].get("track") if isinstance(roll["result"], dict) else None) == moves, roll
            seen[table] = seen.get(table, 0) + 1
    turns = (campaign.states[-1]["round"] - 1) // len(SEQUENCE)
    assert seen["kings-ennui"] == turns, "King's Ennui is made every French Administrative Phase, unasked"
    assert seen["pox-recovery"] >= 1 and seen["russian-entry"] >= 1 and seen["le-roi-killed"] == 1


def test_the_conditional_request_follows_exactly_the_recessions(campaign: Campaign) -> None:
    """1.253's recession roll carries a `then:` (a new request, 1.251) made only when the
    waters recede: the follow-up is in the same phase, labelled after its parent, and its
    approval moves the Peace Index through the table's result."""
    recessions = 0
    for rec in records(campaign):
        labels = [roll["label"] for roll in rec.get("rolls", [])]
        if "roll/allies/flood-recedes" not in labels:
            assert "roll/allies/flood-recedes/then-1" not in labels
            continue
        recessions += 1
        report_path = next(campaign.game.dir.glob(f"mail/*-t{rec['turn']}-operations")) / "allies.report.txt"
        report = kept_letters.read_text(report_path)
        flat = " ".join(report.split())
        receded = "the floodwaters recede - flood effects end" in flat
        assert ("roll/allies/flood-recedes/then-1" in labels) == receded, (rec["turn"], labels)
        if receded:
            assert "allies' flood-recedes, then (effect flood-ends): rolled 1d10z" in flat
            html = read_kept_html(report_path.with_suffix(".html"))
            assert "allies&#39; flood-recedes, then (effect flood-ends): rolled 1d10z" in html
            assert "follows roll/allies/flood-recedes (effect flood-ends)" in flat
        if "approved - flooding starts" in flat:
            assert "(+1, Voluntary Flooding request (1.251), row 0-3; by roll/allies/" in flat
    assert recessions >= 1, "the flood never had a recession roll: the conditional roll was not in play"
    # The tables a player may roll on show the variable modifier and its range.
    assert "flood-recession (Flood recession (1.253)): 1d10z; modifiers: later-rolls -30 to +0" in flat


def test_scheduled_rolls_are_labelled_and_reported(campaign: Campaign) -> None:
    rolls = {roll["label"] for rec in records(campaign) for roll in rec.get("rolls", [])}
    assert "scheduled/french-admin/kings-ennui" in rolls
    assert "scheduled/french-admin/pox/saxe" in rolls
    assert "scheduled/allied-admin/russians/russian-corps" in rolls
    first = kept_letters.read_text(min(kept_letters.glob(campaign.game.dir / "mail", "*/allies.report.txt")))  # turn 1
    assert "Scheduled roll, 1d10z for “King's Ennui" in " ".join(first.split())


def test_the_referees_override_of_a_track_is_signed_and_shown(campaign: Campaign) -> None:
    assert "/tracks/prestige-france/value" in campaign.override_letter
    assert campaign.override_report is not None
    report = " ".join(kept_letters.read_text(campaign.override_report).split())
    assert "in your view: tracks.prestige-france.value: 2 -> 3" in report
    assert "French Prestige Level (prestige-france): 3" in report
    assert campaign.states[-1]["tracks"]["prestige-france"]["value"] == 3


def test_the_campaign_verifies_and_audits(campaign: Campaign, tmp_path: Path) -> None:
    report = verify_game_dir(campaign.game.dir)
    assert report.ok, report.problems
    audited = audit(campaign.game.dir)
    assert audited.ok, audited
    # And a player replays it from the letters they were sent, after the final reveal.
    reveal(campaign.game.dir, final=True)
    sys.path.insert(0, str(CONTRACT))
    try:
        from test_public_audit import player_folder  # the letters' attachments, as a player keeps them
    finally:
        sys.path.remove(str(CONTRACT))
    replayed = public_audit(player_folder(campaign.game.dir, tmp_path / "france", "france"))
    assert replayed.ok and replayed.records == len(records(campaign)), replayed.problems


def test_a_result_moving_a_track_the_game_lacks_is_refused_at_init_with_its_path(tmp_path: Path) -> None:
    setup = tmp_path / "setup"
    shutil.copytree(EXAMPLE, setup)
    (setup / "keys").mkdir()
    for player in PLAYERS:
        generate_keypair(setup / "keys" / player, comment=f"{player}@example.org")
    config = setup / "game.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("    peace:\n", "    peace-index:\n"), encoding="utf-8"
    )
    with pytest.raises(GameDataError) as refused:
        init_game(tmp_path / "game", config)
    message = str(refused.value)
    assert "tables.le-roi-killed.rows[1].result.track.peace: the game has no track 'peace'" in message
    assert "tables.voluntary-flooding.rows[0].result.track.peace" in message
    assert "tracks: peace-index, prestige-france, prestige-allies" in message
