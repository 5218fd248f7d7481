"""A phase of many rolls (issue 23 item 3): what it costs is counted, never timed.

Each order file is parsed once, each distinct view dumped once, the garbage collector is back
on after the work, each distinct attachment is encoded once, and a player's letter is bounded:
their own rolls in full, the others' counted, every roll in the record. A game begun before
letter format 2 keeps its old letters, and `audit` confirms both formats.
"""

from __future__ import annotations

import gc
import os
import re
from pathlib import Path
from typing import Any
from unittest import mock

import kept_letters
import pytest
import yaml

import referee.files
import referee.letters.content
import referee.letters.forms
import referee.letters.outbox
import referee.letters.post
import referee.protocol.orders
import referee.protocol.yamlsafe
from referee.game.audit import audit
from referee.game.engine import adjudicate
from referee.game.journal import GameDir
from referee.game.letter_format import LETTERS_META, READER_BOUND_META
from referee.kit.contract import Event
from referee.letters import outbox
from referee.letters.kept import read_kept
from referee.letters.post import read_kept_html
from referee.protocol.bulk import bulk_work
from referee.protocol.verify import verify_game_dir

from conftest import MakeGame, TestGame


def rolls(player: str, count: int, start: int = 0) -> str:
    """Return `count` roll requests, every other one on the morale table."""
    return "rolls:\n" + "".join(
        f"  - {{label: {player}{i}, table: morale, purpose: check {i}}}\n"
        if i % 2
        else f"  - {{label: {player}{i}, dice: 2d6, purpose: roll {i}}}\n"
        for i in range(start, start + count)
    )


def submit_all(game: TestGame, turn: int, counts: dict[str, int]) -> None:
    for player, count in counts.items():
        receipt = game.submit(player, turn, rolls(player, count) if count else "{}")
        assert receipt.accepted, receipt.problems


def counting(target: Any, name: str) -> list[int]:
    """Patch `target.name` to count its calls; return the counter (a one-item list)."""
    calls = [0]
    original = getattr(target, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    return calls, mock.patch.object(target, name, counted)  # type: ignore[return-value]


def test_an_order_file_is_parsed_once_when_submitted_and_not_again_when_adjudicated(
    tmp_path: Path, make_game: MakeGame
) -> None:
    game = make_game(tmp_path, players=("alice", "bob"))
    parses, patch = counting(referee.protocol.orders, "load_strict")
    with patch:
        submit_all(game, 1, {"alice": 30, "bob": 20})
        assert parses[0] == 2  # one per file: its problems and its orders from one reading
        adjudicate(game.dir)
        assert parses[0] == 2  # the orders kept at acceptance (the journal's order_content)


def test_yaml_is_read_by_the_parser_once() -> None:
    text = rolls("p", 50)
    composed, patch = counting(referee.protocol.yamlsafe._StrictLoader, "get_single_node")
    with patch, mock.patch("yaml.parse", side_effect=AssertionError("a second parse")):
        assert len(referee.protocol.yamlsafe.load_strict(text)["rolls"]) == 50
    assert composed[0] == 1
    with pytest.raises(referee.protocol.yamlsafe.StrictYAMLError, match="anchors and aliases"):
        referee.protocol.yamlsafe._refuse_aliases(yaml.compose("a: &x [1]\nb: *x\n"))


def test_each_distinct_view_is_dumped_once_per_adjudication(tmp_path: Path, make_game: MakeGame) -> None:
    players = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy")
    game = make_game(tmp_path, players=players)
    submit_all(game, 1, dict.fromkeys(players, 1))
    dumps, patch = counting(referee.letters.content, "dump")
    with patch:
        adjudicate(game.dir)
    # Every view names its reader: ten distinct views, each attached to a report and to the
    # next phase's notice (the same state). Each distinct entry of them is dumped once: the
    # entries every player shares once, the reader's own ("you") once a player.
    entries = view_entries(game, players)
    assert dumps[0] == len(entries) == len(entries_of(game, "alice")) + len(players) - 1


def entries_of(game: TestGame, player: str) -> set[str]:
    """Return the entries of `player`'s view after the first round, each as its YAML."""
    view = yaml.safe_load(kept_letters.read_text(game.dir / "mail" / "0001-t1-round" / f"{player}.view-after.yaml"))
    return {yaml.safe_dump({key: item}) for key, item in view.items()}


def view_entries(game: TestGame, players: tuple[str, ...]) -> set[str]:
    """Return the distinct entries of the players' views after the first round."""
    return set().union(*(entries_of(game, player) for player in players))


def disk_syncs(game: TestGame) -> int:
    """Return the disk syncs (fsync and syncfs calls) of adjudicating `game`'s open phase."""
    fsyncs, fsync_patch = counting(os, "fsync")
    syncfss, syncfs_patch = counting(referee.files, "syncfs")
    with fsync_patch, syncfs_patch:
        adjudicate(game.dir)
    return fsyncs[0] + syncfss[0]


def test_an_adjudication_lands_its_record_and_letters_with_syncs_that_do_not_grow_with_players(
    tmp_path: Path, make_game: MakeGame
) -> None:
    syncs = {}
    for players in (("alice", "bob"), ("alice", "bob", "carol", "dave", "erin", "frank")):
        game = make_game(tmp_path / str(len(players)), players=players)
        submit_all(game, 1, dict.fromkeys(players, 3))
        syncs[len(players)] = disk_syncs(game)
    # The record, the reports, the views and the next notices land together (files.group_commit):
    # two syncs for all of them, where each file cost two or three.
    assert syncs[2] == syncs[6] <= 4, syncs
    mail = game.dir / "mail"  # the next notice's view is the report's (a game kept as before links the two)
    after, next_view = mail / "0001-t1-round" / "alice.view-after.yaml", mail / "0002-t2-round" / "alice.view.yaml"
    assert kept_letters.read_text(after) == kept_letters.read_text(next_view)


def test_an_adjudication_renders_dumps_and_builds_as_many_letters_whatever_its_rolls(
    tmp_path: Path, make_game: MakeGame
) -> None:
    players = ("alice", "bob", "carol")
    counted = {}
    for rolls_each in (2, 200):
        game = make_game(tmp_path / str(rolls_each), players=players)
        submit_all(game, 1, dict.fromkeys(players, rolls_each))
        renders, render_patch = counting(referee.letters.post, "render")
        dumps, dump_patch = counting(referee.letters.content, "dump")
        builds, build_patch = counting(referee.letters.outbox, "message_pieces")
        referee.letters.forms._forms.clear()
        forms, form_patch = counting(referee.letters.forms, "load_strict")  # a form made is read back once
        with render_patch, dump_patch, build_patch, form_patch:
            adjudicate(game.dir)
        counted[rolls_each] = (renders[0], dumps[0] - len(view_entries(game, players)), builds[0], forms[0])
    # A report and a notice a player (text and HTML from one render each), one YAML dump a
    # distinct entry of the views, one MIME message a letter, and one order form made for all
    # the notices.
    assert counted[2] == counted[200] == (2 * len(players), 0, 2 * len(players), 1), counted


def test_an_adjudication_writes_its_letters_by_bytes_without_the_email_package(
    tmp_path: Path, make_game: MakeGame
) -> None:
    players = ("alice", "bob", "carol")
    game = make_game(tmp_path, players=players)
    submit_all(game, 1, dict.fromkeys(players, 3))
    assembled, patch = counting(referee.letters.outbox, "_assembled_bytes")
    with patch:
        adjudicate(game.dir)
    # Reports and notices alike: a notice's HTML listed the order fields on one line, over the
    # 998-byte limit, so it went quoted-printable through the email package (about 1 ms a letter).
    assert assembled[0] == 0


def test_the_garbage_collector_is_back_on_after_bulk_work_also_on_error() -> None:
    assert gc.isenabled()
    with pytest.raises(RuntimeError), bulk_work():
        assert not gc.isenabled()
        raise RuntimeError("the work failed")
    assert gc.isenabled()
    gc.disable()
    try:
        with bulk_work():
            pass
        assert not gc.isenabled()  # off before, off after
    finally:
        gc.enable()


def test_a_message_is_the_same_bytes_with_each_attachment_encoded_once() -> None:
    record = os.urandom(200_000)
    letters = [
        outbox.Letter(
            f"{player}@example.org",
            "report",
            f"text for {player} é\r\nFrom here\n" + "a line of the report\n" * 1000,
            {"alice": "<p>html</p>\n" * 100, "bob": "<p>" + "é" * 1000 + "</p>", "carol": ""}[player],
            f"<{player}@x>",
            attachments=[
                outbox.Attachment(f"{player}.view.yaml", f"you: {player}\n".encode(), "text/yaml"),
                outbox.Attachment("record.json", record, "application/json", kept=False, public=True),
            ],
        )
        for player in ("alice", "bob", "carol")
    ]
    boundary = re.compile(rb"=+[0-9]+==")
    outbox._base64_body.cache_clear()
    with mock.patch.object(outbox, "formatdate", return_value="Wed, 25 Nov 2026 12:00:00 GMT"):
        for letter in letters:
            plain = bytes(outbox.build_message(letter, "referee@example.org", "Referee"))
            assert boundary.sub(b"B", outbox.message_bytes(letter, "referee@example.org", "Referee")) == boundary.sub(
                b"B", plain
            )
    assert outbox._base64_body.cache_info().misses == 4  # three views and one record


def letter(game: TestGame, folder: str, name: str) -> str:
    if name.endswith(".html"):
        return read_kept_html(game.dir / "mail" / folder / name)
    return kept_letters.read_text(game.dir / "mail" / folder / name)


def test_a_long_phase_letter_lists_the_readers_rolls_and_counts_the_others(tmp_path: Path, make_game: MakeGame) -> None:
    counts = {"p1": 2000, "p2": 2000, "p3": 2000, "p4": 2000, "p5": 2000, "quiet": 0}
    game = make_game(tmp_path, players=tuple(counts))
    submit_all(game, 1, counts)
    result = adjudicate(game.dir)
    assert result.rolls == 10_000
    folder = result.phase.folder
    quiet = letter(game, folder, "quiet.report.txt")
    # Bounded by what the reader rolled: about 160 bytes a roll of theirs (its event and its
    # line under Dice), whatever the others rolled.
    for player, own in (("quiet", 0), ("p1", 2000)):
        assert len(letter(game, folder, f"{player}.report.txt").encode()) < 64 * 1024 + 200 * own
        assert len(letter(game, folder, f"{player}.report.html").encode()) < 64 * 1024 + 400 * own
    assert "10,000 rolls, in the order drawn. Listed here: yours and the game's own" in quiet
    assert re.search(r"and 10,000 more rolls of 5 other players, not listed here\.", quiet)
    assert re.search(r"and 10,000 more events of 5 other players, not listed here", quiet)
    assert not re.findall(r"^  roll/", quiet, flags=re.M)  # format 4: none of the others' listed
    mine = letter(game, folder, "p3.report.txt")
    assert {f"roll/p3/p3{i}" for i in range(2000)} == set(re.findall(r"^  (roll/\S+):", mine, flags=re.M))
    assert re.search(r"and 8,000 more rolls of 4 other players, not listed here\.", mine)
    for player in ("quiet", "p3"):
        for view in ("view.yaml", "view-after.yaml"):
            assert len(read_kept(game.dir / "mail" / folder / f"{player}.{view}")) < 4 * 1024
    assert "last_rolls_not_listed:" in letter(game, folder, "p3.view-after.yaml")
    assert verify_game_dir(game.dir).ok
    assert audit(game.dir).ok


def test_a_game_begun_before_format_2_keeps_its_letters_and_passes_audit(tmp_path: Path, make_game: MakeGame) -> None:
    counts = {"alice": 120, "bob": 80}
    game = make_game(tmp_path, players=tuple(counts))
    game_dir = GameDir(game.dir)
    with game_dir.transaction():  # as a game begun before: no format in its journal
        game_dir.db.execute("DELETE FROM meta WHERE key = ?", (LETTERS_META,))
    game_dir.close()
    submit_all(game, 1, counts)
    first = adjudicate(game.dir)
    # Its first report keeps the old format, which lists every roll to every player...
    assert len(re.findall(r"^  roll/", letter(game, first.phase.folder, "bob.report.txt"), flags=re.M)) == 200
    assert GameDir(game.dir).get_meta(LETTERS_META) == str(first.phase.seq + 1)
    submit_all(game, 2, {"alice": 120, "bob": 80})
    second = adjudicate(game.dir)
    # ...the next phases are written in the newest format (4: the others' rolls counted).
    bob = letter(game, second.phase.folder, "bob.report.txt")
    assert len(re.findall(r"^  roll/", bob, flags=re.M)) == 80
    assert "and 120 more rolls of 1 other player, not listed here." in bob
    assert audit(game.dir).ok


def test_a_game_begun_in_format_3_keeps_its_letters_then_bounds_them_by_the_reader(
    tmp_path: Path, make_game: MakeGame
) -> None:
    counts = {"alice": 60, "bob": 30, "carol": 30}
    game = make_game(tmp_path, players=tuple(counts))
    game_dir = GameDir(game.dir)
    with game_dir.transaction():  # as a game begun before format 4
        game_dir.db.execute("DELETE FROM meta WHERE key = ?", (READER_BOUND_META,))
    game_dir.close()
    submit_all(game, 1, counts)
    first = adjudicate(game.dir)
    # Format 3: the first ten of the others' rolls listed, the rest counted by player.
    old = letter(game, first.phase.folder, "bob.report.txt")
    assert len(re.findall(r"^  roll/", old, flags=re.M)) == 30 + 10
    assert re.search(r"and 80 more, not listed here: alice 50,\s+carol 30\.", old)
    submit_all(game, 2, counts)
    second = adjudicate(game.dir)
    new = letter(game, second.phase.folder, "bob.report.txt")
    assert len(re.findall(r"^  roll/", new, flags=re.M)) == 30
    assert "and 90 more rolls of 2 other players, not listed here." in new
    assert audit(game.dir).ok  # each phase re-rendered in its own format


def test_a_report_is_the_same_size_whatever_the_number_of_players(
    tmp_path: Path, make_game: MakeGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Format 4: a report costs what its reader rolled and saw, not the number of players: the
    others' rolls counted, and beyond ORDERS_SHOWN_WHOLE orders the reader's own listed."""
    monkeypatch.setattr(referee.letters.content, "ORDERS_SHOWN_WHOLE", 3)  # 12: a quick test with fewer players
    reports = {}
    for count in (2, 6):
        players = tuple(f"p{i}" for i in range(1, count + 1))
        game = make_game(tmp_path / str(count), players=players)
        others = 130 // (count - 1)  # a long phase in both games: more than 100 rolls
        submit_all(game, 1, {player: 5 if player == "p1" else others for player in players})
        folder = adjudicate(game.dir).phase.folder
        reports[count] = {kind: letter(game, folder, f"p1.report.{kind}") for kind in ("txt", "html")}
    text = reports[6]["txt"]
    assert len(re.findall(r"^  roll/", text, flags=re.M)) == 5
    assert (
        len(re.findall(r"^  order ", text, flags=re.M)) == 1 and "  orders       5 more, listed in the record" in text
    )
    for kind in ("txt", "html"):  # the same letter but for a few numbers, names and hashes
        assert abs(len(reports[6][kind]) - len(reports[2][kind])) < 200, {n: len(r[kind]) for n, r in reports.items()}


# The Dice section as the templates wrote it before `referee.letters.dice_lines` (format 1 and 2),
# with follow-ups, picks and structured results.
OLD_TEXT = """{% for roll in rolls %}
  {{ roll.label }}: {{ roll.spec | spec_words }} -> {{ roll["values"] | join_values }}
{% if roll.replaced_by %}
      replaced: the referee ordered a re-roll, {{ roll.replaced_by }}
{% endif %}
{% if roll.counts_as %}
      counts as {{ roll.counts_as | join_values }}, by the referee's ruling
{% endif %}
{% if roll.note.get("purpose") %}
{{ ("purpose: " ~ roll.note.get("purpose")) | wrap(6) }}
{% endif %}
{% if roll.note.get("follows") %}
{{ ("follows " ~ roll.note.get("follows") ~ " (" ~ roll.note.get("because") ~ ")") | wrap(6, 4) }}
{% endif %}
{% if roll.note.get("lookup") %}
{% with lookup = roll.note.get("lookup") %}
{% filter wrap(6, 4) %}table {{ lookup.title }} ({{ lookup.table }}): natural {{ lookup.natural }}{\
% for modifier in lookup.modifiers %}, {{ modifier.name }} {{ "%+d" | format(modifier.value) }}{% en\
dfor %} = {{ lookup.modified }}{% if lookup.clamped != lookup.modified %}, read as {{ lookup.clampe\
d }}{% endif %}{% if lookup.column %}, column {{ lookup.column }}{% endif %}{% endfilter %}

{{ ("row " ~ lookup.row ~ ": " ~ lookup.get("result_text", lookup.result) ~ (" [" ~ lookup.result.ef\
fects | join(", ") ~ "]" if lookup.result is mapping and lookup.result.get("effects") else "")) | wr\
ap(6, 4) }}
{% endwith %}
{% endif %}
{% if roll.note.get("picked") %}
{{ ("picked from " ~ roll.note.get("from") ~ ": " ~ roll.note.get("picked") | join("; ")) | wrap(6\
, 4) }}
{% elif roll.note.get("lines") %}
{{ ("picked line(s) " ~ roll.note.get("lines") | join(", ") ~ " of " ~ roll.note.get("from")) | wrap\
(6, 4) }}
{% endif %}
{% endfor %}"""
OLD_HTML = """{% for roll in rolls %}<tr><td><code>{{ roll.label }}</code></td><td>{{ roll.spec | spec_words }}</t\
d><td>{{ roll["values"] | join_values }}{% if roll.replaced_by %} (replaced by the re-roll <code>{\
{ roll.replaced_by }}</code>){% endif %}{% if roll.counts_as %} (counts as {{ roll.counts_as | join_\
values }}, by the referee's ruling){% endif %}</td>
<td>{{ roll.note.get("purpose") or "" }}</td><td>{% if roll.note.get("lookup") %}{% with lookup = ro\
ll.note.get("lookup") %}{{ lookup.title }}: {{ lookup.natural }}{% for modifier in lookup.modifier\
s %} {{ modifier.name }} {{ "%+d" | format(modifier.value) }}{% endfor %} = {{ lookup.modified }}{\
% if lookup.clamped != lookup.modified %} (read {{ lookup.clamped }}){% endif %}{% if lookup.colum\
n %}, column {{ lookup.column }}{% endif %} → row {{ lookup.row }}: <strong>{{ lookup.get("result_te\
xt", lookup.result) }}</strong>{% endwith %}{% endif %}{% if roll.note.get("follows") %} (follows {\
{ roll.note.get("follows") }}: {{ roll.note.get("because") }}){% endif %}{% if roll.note.get("picked\
") %} picked from {{ roll.note.get("from") }}: <strong>{{ roll.note.get("picked") | join("; ") }}</s\
trong>{% elif roll.note.get("lines") %} picked line(s) {{ roll.note.get("lines") | join(", ") }} o\
f {{ roll.note.get("from") }}{% endif %}</td></tr>
{% endfor %}"""
NEW_TEXT = "{% if rolls %}\n{{ rolls | rolls_text }}\n{% endif %}"
NEW_HTML = "{{ rolls | rolls_html }}"
# A report's events as the templates wrote them before `events_text` and `events_html`.
OLD_EVENTS_TEXT = '{% for event in events %}\n{{ ("* " ~ event.text) | wrap(2) }}\n{% endfor %}'
OLD_EVENTS_HTML = "{% for event in events %}<li>{{ event.text }}</li>\n{% endfor %}"


def test_the_dice_lines_are_the_bytes_the_templates_wrote() -> None:
    from referee.letters.render import environment

    lookup = {
        "title": "Fire & <smoke>",
        "table": "fire",
        "natural": 4,
        "modifiers": [{"name": "close", "value": 1}, {"name": "rain", "value": -2}],
        "modified": 3,
        "clamped": 3,
        "column": None,
        "row": "2-3",
        "result": "1 hit, \"heavy\" 'losses' " + "and a long tail of words " * 4,
    }
    rolls = [
        {"label": "a", "spec": "2d6", "values": [1, 2], "note": {}, "replaced_by": None, "counts_as": None},
        {
            "label": "roll/bob/x<1>",
            "spec": "uniform(10)",
            "values": [7],
            "note": {"purpose": "a purpose " * 12, "lookup": lookup},
            "replaced_by": "x-2",
            "counts_as": [6],
        },
        {
            "label": "c",
            "spec": "1d6",
            "values": [5],
            "note": {"purpose": "tab\there", "lookup": {**lookup, "clamped": 2, "column": "line", "modifiers": []}},
            "replaced_by": None,
            "counts_as": None,
        },
        {
            "label": "e",
            "spec": "1d10",
            "values": [9],
            "note": {
                "purpose": "the <pox>",
                "follows": "roll/alice/plague",
                "because": "total >= 9",
                "lookup": {
                    **lookup,
                    "result": {"text": "Pox & fever", "effects": ["leader-sick"]},
                    "result_text": "Pox & fever",
                },
                "picked": ["Saxe", "Noailles <jr>"],
                "from": "leaders",
            },
            "replaced_by": None,
            "counts_as": None,
        },
        {
            "label": "f",
            "spec": "uniform(4)",
            "values": [2],
            "note": {"follows": "e", "because": "effect leader-sick", "lines": [3], "from": "sealed-list"},
            "replaced_by": None,
            "counts_as": None,
        },
        {
            "label": "d",
            "spec": "shuffle(3)",
            "values": [2, 0, 1],
            "note": {"purpose": ""},
            "replaced_by": None,
            "counts_as": None,
        },
    ]
    for name in ("txt", "html"):
        env = environment()
        old, new = (OLD_TEXT, NEW_TEXT) if name == "txt" else (OLD_HTML, NEW_HTML)
        if name == "html":
            env = env.overlay(autoescape=True)
        assert env.from_string(new).render(rolls=rolls) == env.from_string(old).render(rolls=rolls)
    events = [
        Event("roll", "p1 rolled 2d6 for “check” (r1): 3 + 4 = 7; Morale: holds"),
        Event("note", 'a <note> & "quotes" ' + "and a long tail of words " * 6),
        Event("note", "a control\x07character\nand a break"),
    ]
    text, html = environment(), environment().overlay(autoescape=True)
    for env, old, new in (
        (text, OLD_EVENTS_TEXT, "{{ events | events_text }}\n"),
        (html, OLD_EVENTS_HTML, "{{ events | events_html }}"),
    ):
        assert env.from_string(new).render(events=events) == env.from_string(old).render(events=events)


def test_a_line_that_fits_is_what_textwrap_gives_it() -> None:
    import random
    import textwrap

    from referee.letters.render import wrap

    rng = random.Random(23)
    pieces = ["word", " ", "  ", "\t", "\n", "é", "\x00", "\u2028", "a-b", "x" * 30, "“q”"]
    for case in range(6000):
        if case % 2:
            text = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 12)))
        else:  # words between single spaces, some longer than a line: wrapped without textwrap
            text = " ".join("w" * rng.choice([1, 3, 8, 20, 70, 90]) for _ in range(rng.randrange(1, 30)))
        indent, hang = rng.choice([(0, 2), (2, 2), (6, 4)])
        expected = textwrap.fill(
            text,
            width=78,
            initial_indent=" " * indent,
            subsequent_indent=" " * (indent + hang),
            break_long_words=False,
            break_on_hyphens=False,
        )
        # A text with control characters is left whole (a player's own, shown as it came).
        assert wrap(text, indent, hang) == (" " * indent + text if not text.isprintable() else expected), repr(text)
