"""What each letter of a game says: the notices of open phases (with each player's order form),
the acknowledgements of order files, the reports of adjudicated phases, and the letters about
the referee's changes, disputes and reveals. The contexts are built here from the game; the
letters are rendered, signed, kept and posted by `referee.letters`.
"""

from __future__ import annotations

import gzip
import hmac
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.game.beacons import promise_text
from referee.game.journal import OpenPhase, OverrideRow
from referee.game.letter_format import RECORD_PACKED_OVER, letter_format
from referee.game.opened import Game
from referee.game.order_files import read_order_file
from referee.game.overrides import describe as describe_change
from referee.game.overrides import public_entry, state_edits_of, view_changes
from referee.game.results import Outcome, Receipt, Rollback
from referee.kit.contract import Event, Example, Fact, GameModule, PhaseSpec
from referee.kit.needs import Need
from referee.kit.schema import describe
from referee.letters import board_pictures
from referee.letters.content import OTHERS_SHOWN, PhaseLetters, orders_listed, view_yaml
from referee.letters.dice_lines import Rolls
from referee.letters.forms import order_form
from referee.letters.kept import gathered
from referee.letters.outbox import Attachment
from referee.letters.pictures import letter_picture, png
from referee.letters.post import deliver, to_every_player
from referee.letters.render import events_template
from referee.protocol.canonical import sha256_hex
from referee.protocol.orders import ENTROPY_HEX_DIGITS
from referee.protocol.problems import Problem


def order_template(game: Game, phase: OpenPhase, spec: PhaseSpec, player: str, state: Any = None) -> str:
    """Return a ready-to-fill order file for `player` in this phase, filled in with their own
    choices when the game makes them from `state` (GameModule.example), a comment on each field.

    It carries an `entropy` line for this player alone, so the order's hash in the public record
    cannot be guessed by trying short orders (a sealed choice, a hidden note). The digits come
    from the game's hidden secret, committed before the game: the referee cannot pick them to
    steer the dice, and the template reads the same each time the notice is written.
    """
    header: dict[str, Any] = {"game": game.config.game, "turn": phase.turn, "phase": phase.phase, "player": player}
    header["seq"] = 1
    secret = game.dir.hidden_secret()
    if secret is not None:
        message = f"pbem-referee-entropy/1\n{game.config.game}\n{phase.turn}\n{phase.phase}\n{player}\n".encode()
        header["entropy"] = hmac.digest(secret, message, "sha256").hex()[:ENTROPY_HEX_DIGITS]
    example = player_example(game.module, state, spec, player)
    return order_form(header, example.orders, player_schema(spec.schema, example), example.notes)


def player_schema(schema: Mapping[str, Any], example: Example) -> Mapping[str, Any]:
    """Return the phase's order schema narrowed to the fields `example` says its player may give."""
    if example.fields is None or schema.get("type") != "map":
        return schema
    return {**schema, "fields": {k: v for k, v in schema.get("fields", {}).items() if k in example.fields}}


def player_example(module: GameModule, state: Any, spec: PhaseSpec, player: str) -> Example:
    """Return `player`'s own order form from the game (its `example` hook), else the phase's."""
    asked = module.example is not None and state is not None and player in spec.active
    own = module.example(state, player) if asked else None  # type: ignore[misc]
    if own is not None:
        return own
    return Example(spec.example if spec.example is not None else spec.default_orders)


def standing_of(module: GameModule, state: Any, player: str) -> list[Fact]:
    """Return where `player` stands, as the game says (nothing for a game without the hook)."""
    return list(module.standing(state, player)) if module.standing is not None else []


def post_notices(game: Game, phase: OpenPhase, spec: PhaseSpec, state: Any) -> None:
    """Announce an open phase to every player: its commitment and, for the active, an order form."""
    game.keep_notice_deadline(phase)
    with gathered():  # one pack of letters for the phase's notices, in a game that packs them
        for player in game.config.players:
            _post_notice(game, phase, spec, state, player.name)


def _post_notice(game: Game, phase: OpenPhase, spec: PhaseSpec, state: Any, name: str) -> None:
    context, view_bytes = notice_context(game, phase, spec, state, name)
    deliver(
        game.letterhead,
        name,
        phase.folder,
        f"{name}.notice",
        f"[{game.config.game}] turn {phase.turn} {phase.phase}: orders open",
        "notice",
        context,
        notice_message_id(game, phase, name),
        [Attachment(f"{name}.view.yaml", view_bytes, "text/yaml"), *picture_attachments(context, name, "")],
    )


def notice_message_id(game: Game, phase: OpenPhase, name: str) -> str:
    """Return the Message-ID of `name`'s notice of `phase`: the game's first notice is the one
    every later letter to the player threads under (`Letterhead.thread_id`)."""
    if phase.seq == 1 and phase.generation == 0:
        return game.letterhead.thread_id(name)
    return game.letterhead.message_id(phase.folder, "notice", name)


def notice_context(
    game: Game, phase: OpenPhase, spec: PhaseSpec, state: Any, name: str
) -> tuple[dict[str, Any], bytes]:
    """Return what the notice of an open phase says to player `name`, and their view (YAML)."""
    shown = letter_view(game, phase.seq, state, name)
    view_bytes = view_yaml(shown)
    context = {
        **game.letterhead.common(name),
        "turn": phase.turn,
        "phase": phase.phase,
        "phase_title": spec.title,
        "commit": phase.commit,
        "hidden_commit": game.hidden_commit,
        "active": spec.active,
        "is_active": name in spec.active,
        "sealed": spec.sealed,
        # A form filled in for its reader gives the examples; the schema's might name another's piece.
        "schema_lines": describe(
            player_schema(spec.schema, player_example(game.module, state, spec, name)),
            examples=game.module.example is None,
        ),
        "template": order_template(game, phase, spec, name, state),
        "standing": standing_of(game.module, state, name),
        "entropy_digits": ENTROPY_HEX_DIGITS,
        "signed_name": game.letterhead.filed(phase.folder, f"{name}.notice"),
        "view_file": game.letterhead.filed(phase.folder, f"{name}.view.yaml"),
        "view_sha256": sha256_hex(view_bytes),
        # A rule, not a moment, and the rule of the schedule in force when the notice was first
        # written: the notice reads the same whenever it is written again or replayed by the audit.
        "deadline": game.notice_deadline(phase),
        "beacon": _beacon_promise(game, phase),
        "picture": picture_of(game, phase.seq, state, name, (), phase.folder, picture_name(name, ""), shown),
        "board_picture": board_of(game, phase.seq, state, name, phase.folder, board_name(name, ""), shown),
    }
    return context, view_bytes


def picture_name(name: str, when: str) -> str:
    """Return the file name of `name`'s picture in a notice (`when` ""), or a report ("-after")."""
    return f"{name}.battlefield{when}.png"


def picture_of(
    game: Game,
    seq: int,
    state: Any,
    name: str,
    events: Sequence[Event],
    folder: str,
    filename: str,
    shown: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Return the picture of the table a letter to `name` of phase `seq` shows (None: the game
    draws none, or the phase's letters are of a format before pictures), drawn by the game from
    `name`'s view and the `events` they see, never from the state. `shown`: the view the letter
    attaches, reused when it is the game's whole view."""
    if game.module.picture is None or letter_format(game.dir, seq) < 3:
        return None
    seen = [event.as_dict() for event in events if event.is_visible_to(name)]
    whole = shown if shown is not None and game.module.letter_view is None else game.module.view(state, name)
    scene = game.module.picture(whole, name, seen)
    return letter_picture(scene, game.letterhead.filed(folder, filename)) if scene is not None else None


def board_name(name: str, when: str) -> str:
    """Return the file name of `name`'s board picture in a notice (`when` ""), or a report ("-after")."""
    return f"{name}.board{when}.png"


def board_of(
    game: Game, seq: int, state: Any, name: str, folder: str, filename: str, shown: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """Return the board picture a letter to `name` of phase `seq` shows (None: the game draws
    none, or the phase's letters are of a format before pictures), drawn by the game from
    `name`'s view, never from the state (`shown`: as `picture_of`)."""
    if game.module.board is None or letter_format(game.dir, seq) < 3:
        return None
    whole = shown if shown is not None and game.module.letter_view is None else game.module.view(state, name)
    scene = game.module.board(whole, name)
    return board_pictures.letter_board(scene, game.letterhead.filed(folder, filename)) if scene is not None else None


def picture_attachments(context: dict[str, Any], name: str, when: str) -> list[Attachment]:
    """Return the PNGs of a letter's pictures (the table, the board), as attachments (none
    when it has no picture).

    Not kept under GAMEDIR/mail/: the letter's kept HTML holds the same pictures as SVG."""
    attached = []
    if (picture := context.get("picture")) is not None:
        attached.append(Attachment(picture_name(name, when), png(picture["scene"]), "image/png", kept=False))
    if (board := context.get("board_picture")) is not None:
        made = board_pictures.png(board["scene"])
        attached.append(Attachment(board_name(name, when), made, "image/png", kept=False))
    return attached


def letter_view(game: Game, seq: int, state: Any, name: str) -> dict[str, Any]:
    """Return the view of `state` that the letters of phase `seq` attach for player `name`."""
    if game.module.letter_view is not None and letter_format(game.dir, seq) >= 2:
        return game.module.letter_view(state, name)
    return game.module.view(state, name)


def phase_letters(game: Game, outcome: Outcome) -> PhaseLetters:
    """Return the phase's events and rolls indexed for its reports, made once per outcome."""
    made = outcome.letters.get("index")
    if made is None:
        number = letter_format(game.dir, outcome.phase.seq)
        made = outcome.letters["index"] = PhaseLetters(
            outcome.events,
            outcome.record["rolls"],
            outcome.record.get("overrides", []),
            bounded=number >= 2,
            others_shown=0 if number >= 4 else OTHERS_SHOWN,
        )
    return made


def _beacon_promise(game: Game, phase: OpenPhase) -> dict[str, Any] | None:
    promised = game.dir.beacon_round(phase.commit)
    return promise_text(game, promised) if promised is not None else None


def post_ack(
    game: Game, receipt: Receipt, raw: bytes, in_reply_to: str | None = None, sender: str | None = None
) -> Path:
    """Write the acknowledgement of a submitted order file (accepted or refused, every reason).

    `in_reply_to` threads it under the player's mail; `sender` is where a refusal goes when the
    file's signature names no registered player (mail intake knows who sent it).
    """
    phase = game.dir.open_phase()
    folder = phase.folder if phase else "closed"
    who = receipt.player or "unknown"
    context = {
        **game.letterhead.common(receipt.player),
        "receipt": receipt,
        "size": len(raw),
        "open_turn": phase.turn if phase else None,
        "open_phase": phase.phase if phase else None,
    }
    verdict = "accepted" if receipt.accepted else "REFUSED"
    # A file sent again gets an acknowledgement of its own: the player may have lost the first.
    again = f"-{receipt.copy}" if receipt.copy > 1 else ""
    return deliver(
        game.letterhead,
        receipt.player,
        folder,
        f"{who}.ack-{receipt.sha256[:12]}{again}",
        f"[{game.config.game}] orders {verdict} ({receipt.sha256[:12]})",
        "ack",
        context,
        game.letterhead.message_id(folder, "ack", who, receipt.sha256 + again),
        [],
        in_reply_to=in_reply_to,
        fallback_address=sender if receipt.player is None else None,
    )


def _replaced_record(game: Game, phase: OpenPhase) -> dict[str, Any] | None:
    """Return what a report of a phase adjudicated again says of the rollback that caused it."""
    if phase.generation == 0:
        return None
    for generation, row in game.dir.superseded_phases(phase.turn, phase.phase):
        if generation == phase.generation and row.record:
            entries = game.dir.log_entries(("game.rollback",))
            reasons = [e["data"]["reason"] for e in entries if e["data"]["generation"] == generation]
            return {"record": row.record, "reason": reasons[-1] if reasons else "", "generation": generation}
    return None


def _changes(game: Game, outcome: Outcome, player: str) -> list[dict[str, Any]]:
    """Return the referee's changes in this phase as `player`'s report lists them."""
    changes = []
    entries = outcome.record.get("overrides", [])
    # The record names states by commitments (protocol section 15): the edits' own envelopes.
    edited = any(entry["kind"] == "state" for entry in entries)
    edits = {i: (a, b) for a, b, i in state_edits_of(game, outcome.phase.state_before)} if edited else {}
    for entry in entries:
        details: list[str] = []
        if entry["kind"] == "supply":
            details = [f"the data is in the record's overrides (SHA-256 {entry['sha256'][:16]}...)"]
        elif entry["kind"] == "state":
            before, after = (envelope["state"] for envelope in edits[entry["id"]])
            lines = view_changes(game.module.view(before, player), game.module.view(after, player))
            details = [f"in your view: {line}" for line in lines] or ["nothing you see changed"]
        elif entry["kind"] == "order" and entry["player"] == player:
            corrected = game.letterhead.filed(outcome.phase.folder, f"{player}.corrected-orders.yaml")
            details = [f"the corrected file is attached as {corrected}"]
        changes.append({**entry, "text": change_text(game, entry), "details": details})
    return changes


def change_text(game: Game, entry: dict[str, Any]) -> str:
    """Return one sentence saying what an override entry did, a supply by the rules' own words."""
    supplies = game.module.supplies
    if entry["kind"] == "supply" and supplies is not None and entry["need"] in supplies.by_id:
        need = supplies.by_id[entry["need"]]
        return f"the referee supplied {need.title} ({need.book})"
    return describe_change(entry)


def report_context(game: Game, outcome: Outcome, name: str) -> tuple[dict[str, Any], list[Attachment]]:
    """Return what the report of an adjudicated phase says to player `name`, and its attachments."""
    phase, record, envelope = outcome.phase, outcome.record, outcome.envelope
    record_name = f"{phase.stem}.json"
    index = phase_letters(game, outcome)
    events, rolls = index.events_for(name), index.rolls_for(name)
    by_reader = letter_format(game.dir, phase.seq) >= 4
    orders = orders_listed(record["orders"], name, by_reader)
    shown = letter_view(game, phase.seq, envelope["state"], name)
    view_bytes = view_yaml(shown)
    view_file = f"{name}.view-after.yaml"  # not the notice's {name}.view.yaml, kept in the same folder
    context = {
        **game.letterhead.common(name),
        "signed_name": game.letterhead.filed(phase.folder, f"{name}.report"),
        "turn": phase.turn,
        "phase": phase.phase,
        "events": events.shown,
        "events_total": events.total,
        "events_omitted": events.omitted,
        "events_template": events_template(game.module),
        # Only the reader's events annotate the dice: a private event's notes stay private.
        "rolls": Rolls(rolls.shown),  # its text lines and HTML rows written once for both
        "rolls_total": rolls.total,
        "rolls_omitted": rolls.omitted,
        "others_counted": by_reader,  # format 4: the other players' events and rolls counted, none listed
        "orders": orders,
        "orders_more": len(record["orders"]) - len(orders),
        "record": record,
        "record_file": record_name,
        "record_packed": record_packed(game, outcome),  # format 5: attached as record_file + ".gz"
        "record_sha256": outcome.record_sha256,
        "defaulted": outcome.defaulted,
        "over": envelope["over"],
        "next_turn": envelope["turn"],
        "next_phase": envelope["phase"],
        "view_file": game.letterhead.filed(phase.folder, view_file),
        "view_sha256": sha256_hex(view_bytes),
        "changes": _changes(game, outcome, name),
        "standing": standing_of(game.module, envelope["state"], name),
        "replaces": _replaced_record(game, phase),
        "proofs": index.proofs_for(name),
        "picture": picture_of(
            game, phase.seq, envelope["state"], name, outcome.events, phase.folder, picture_name(name, "-after"), shown
        ),
        "board_picture": board_of(
            game, phase.seq, envelope["state"], name, phase.folder, board_name(name, "-after"), shown
        ),
    }
    attachments = [Attachment(view_file, view_bytes, "text/yaml")]
    if name in outcome.corrections:
        corrected = read_order_file(game.dir, outcome.corrections[name])
        attachments.append(Attachment(f"{name}.corrected-orders.yaml", corrected, "text/yaml"))
    return context, attachments


def record_packed(game: Game, outcome: Outcome) -> bool:
    """Return whether the phase's reports attach its record gzip-compressed (letter format 5)."""
    return len(outcome.record_bytes) > RECORD_PACKED_OVER and letter_format(game.dir, outcome.phase.seq) >= 5


def post_reports(game: Game, outcome: Outcome, record_sig: bytes) -> list[Path]:
    """Write each player's report of an adjudicated phase, with the public record and its
    signature `record_sig` attached."""
    phase = outcome.phase
    record_name = f"{phase.stem}.json"
    # The record already lives in GAMEDIR/records/: mailed, not copied again per player.
    if record_packed(game, outcome):
        # mtime 0: the same record packs to the same bytes whenever its letters are written.
        packed = gzip.compress(outcome.record_bytes, compresslevel=6, mtime=0)
        record = Attachment(record_name + ".gz", packed, "application/gzip", kept=False, public=True)
    else:
        record = Attachment(record_name, outcome.record_bytes, "application/json", kept=False, public=True)
    signature = Attachment(record_name + ".sig", record_sig, "application/octet-stream", kept=False, public=True)
    paths = []
    with gathered():  # one pack of letters for the phase's reports, in a game that packs them
        for player in game.config.players:
            paths.append(_post_report(game, outcome, player.name, [record, signature]))
    return paths


def _post_report(game: Game, outcome: Outcome, name: str, record: list[Attachment]) -> Path:
    phase = outcome.phase
    context, attachments = report_context(game, outcome, name)
    return deliver(
        game.letterhead,
        name,
        phase.folder,
        f"{name}.report",
        f"[{game.config.game}] turn {phase.turn} {phase.phase}: report",
        "report",
        context,
        game.letterhead.message_id(phase.folder, "report", name),
        [
            *attachments,
            *picture_attachments(context, name, "-after"),
            *record,
        ],
    )


def post_change(
    game: Game,
    name: str,
    rollback: Rollback | None,
    overrides: list[OverrideRow],
    unfit: dict[str, list[Problem]],
) -> list[Path]:
    """Tell every player of a rollback and of the referee's overrides, each with its reason.

    `name` (e.g. `override-3`) names the letters, kept under GAMEDIR/mail/changes/.
    """
    changes = [
        {**public_entry(row), "text": change_text(game, public_entry(row)), "turn": row.turn, "phase": row.phase}
        for row in overrides
    ]
    return to_every_player(
        game.letterhead,
        "changes",
        name,
        f"[{game.config.game}] the referee changed the game ({name})",
        "change",
        lambda player: {"rollback": rollback, "changes": changes, "unfit": unfit.get(player, [])},
    )


def post_waiting(game: Game, phase: OpenPhase, needs: Sequence[Need], why: str) -> list[Path]:
    """Tell every player, once, that the open phase waits on its referee and for what (the
    rulebook's parts by title and page: never the data, which the referee has yet to give)."""
    wanted = [{"title": need.title, "book": need.book, "needed_by": need.needed_by} for need in needs]
    # Named by the needs: a phase held again later for another need gets a letter of its own.
    name = "waiting-" + "-".join(re.sub(r"[^A-Za-z0-9_]+", "_", need.id) for need in needs)
    return to_every_player(
        game.letterhead,
        phase.folder,
        name,
        f"[{game.config.game}] turn {phase.turn} {phase.phase}: waiting on the referee",
        "waiting",
        lambda player: {"turn": phase.turn, "phase": phase.phase, "needs": wanted, "why": why},
    )


def post_dispute_resolution(
    game: Game, dispute: dict[str, Any], outcome: str, note: str, evidence: str | None
) -> list[Path]:
    """Tell every player how a dispute was resolved, with the evidence when it was upheld."""
    name = f"dispute-{dispute['number']}"
    details = {"dispute": dispute, "outcome": outcome, "note": note, "evidence": evidence}
    subject = f"[{game.config.game}] dispute #{dispute['number']} {outcome}"
    return to_every_player(game.letterhead, "disputes", name, subject, "dispute", lambda player: details)


def post_reveal(
    game: Game,
    reveal_file: Path,
    final: bool,
    labels: list[str],
    opens: Sequence[str] = (),
    extra: Sequence[Path] = (),
) -> list[Path]:
    """Send every player a reveal of hidden draws (kept as GAMEDIR/mail/reveals/PLAYER.reveal-N);
    `opens` says what a forced reveal opens that the game still hid, told to every player, and
    the signed `extra` files go beside it (the final reveal's replay.json)."""
    data = reveal_file.read_bytes()
    signature = reveal_file.with_name(reveal_file.name + ".sig").read_bytes()
    attached = [
        Attachment(name, path.with_name(name).read_bytes(), kind, kept=False, public=True)
        for path in extra
        for name, kind in ((path.name, "application/json"), (path.name + ".sig", "application/octet-stream"))
    ]
    name = f"reveal-{reveal_file.stem}"
    subject = f"[{game.config.game}] hidden draws revealed" + (" (the game secret)" if final else "")
    return to_every_player(
        game.letterhead,
        "reveals",
        name,
        subject,
        "reveal",
        lambda player: {
            "final": final,
            "labels": labels,
            "reveal_file": reveal_file.name,
            "opens": list(opens),
            "replay_file": extra[0].name if extra else None,
        },
        [
            Attachment(reveal_file.name, data, "application/json", kept=False, public=True),
            Attachment(reveal_file.name + ".sig", signature, "application/octet-stream", kept=False, public=True),
            *attached,
        ],
    )
