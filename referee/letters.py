"""The referee's letters to players: phase notices, acknowledgements and phase reports.

Each letter is rendered from templates/ as text and HTML, its text signed by the referee
(`pbem-referee`), kept under GAMEDIR/mail/ and posted to the outbox with its attachments.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee import PROTOCOL
from referee.api import Event, PhaseSpec
from referee.canonical import canonical_json, sha256_hex
from referee.files import atomic_write
from referee.orders import ENTROPY_HEX_DIGITS
from referee.outbox import Attachment, Letter, make_message_id, post
from referee.reports import events_template, render
from referee.schema import describe
from referee.yamlsafe import dump

if TYPE_CHECKING:
    from referee.engine import Game, Receipt
    from referee.journal import OpenPhase


@lru_cache(maxsize=8)
def _yaml_of(canonical: bytes) -> bytes:
    return dump(json.loads(canonical)).encode("utf-8")


def view_yaml(view: Any) -> bytes:
    """Return a view as YAML; players often share a view, so identical ones are dumped once."""
    return _yaml_of(canonical_json(view))


def _domain(game: Game) -> str:
    return game.config.referee_email.rpartition("@")[2]


def _deliver(
    game: Game,
    player: str | None,
    folder: str,
    name: str,
    subject: str,
    kind: str,
    context: dict[str, Any],
    message_id: str,
    attachments: list[Attachment],
    in_reply_to: str | None = None,
    fallback_address: str | None = None,
) -> Path:
    """Render, sign, keep and post one letter; return the path of its signed text.

    The letter goes to the player's registered address; `fallback_address` is used only when
    the letter concerns no known player (a mail whose signature matched no one).
    """
    text, html = render(kind, context)
    text_bytes = text.encode("utf-8")
    signature = game.sign(text_bytes).encode()
    base = game.dir.mail / folder
    text_path = base / f"{name}.txt"
    atomic_write(text_path, text_bytes)
    atomic_write(base / f"{name}.txt.sig", signature)
    atomic_write(base / f"{name}.html", html.encode("utf-8"))
    for item in attachments:
        if item.kept:
            atomic_write(base / item.filename, item.data)
    recipient = game.config.player(player) if player else None
    address = recipient.email if recipient is not None else fallback_address
    if address is not None:
        letter = Letter(
            to=address,
            subject=subject,
            text=text,
            html=html,
            message_id=message_id,
            in_reply_to=in_reply_to,
            auto_submitted="auto-replied" if kind == "ack" else "auto-generated",
            attachments=[
                Attachment(f"{name}.txt", text_bytes, "text/plain"),
                Attachment(f"{name}.txt.sig", signature, "application/octet-stream"),
                *attachments,
            ],
        )
        post(game.dir.outbox, letter, game.config.referee_email, game.config.referee_name)
    return text_path


def _common(game: Game, player: str | None) -> dict[str, Any]:
    return {
        "game": game.config.game,
        "title": game.config.title,
        "player": player,
        "protocol": PROTOCOL,
        "referee_key": game.referee_key_line,
        "referee_email": game.config.referee_email,
    }


def order_template(game: Game, phase: OpenPhase, spec: PhaseSpec, player: str) -> str:
    """Return a ready-to-fill order file for `player` in this phase."""
    header = {"game": game.config.game, "turn": phase.turn, "phase": phase.phase, "player": player, "seq": 1}
    orders = spec.example if spec.example is not None else spec.default_orders
    return dump(header) + dump({"orders": orders})


def post_notices(game: Game, phase: OpenPhase, spec: PhaseSpec, state: Any) -> None:
    """Announce an open phase to every player: its commitment and, for the active, an order form."""
    for player in game.config.players:
        name = player.name
        view_bytes = view_yaml(game.module.view(state, name))
        context = {
            **_common(game, name),
            "turn": phase.turn,
            "phase": phase.phase,
            "phase_title": spec.title,
            "commit": phase.commit,
            "active": spec.active,
            "is_active": name in spec.active,
            "sealed": spec.sealed,
            "schema_lines": describe(spec.schema),
            "template": order_template(game, phase, spec, name),
            "entropy_digits": ENTROPY_HEX_DIGITS,
            "view_file": f"{name}.view.yaml",
            "view_sha256": sha256_hex(view_bytes),
        }
        _deliver(
            game,
            name,
            phase.stem,
            f"{name}.notice",
            f"[{game.config.game}] turn {phase.turn} {phase.phase}: orders open",
            "notice",
            context,
            make_message_id(_domain(game), game.config.game, phase.stem, "notice", name),
            [Attachment(f"{name}.view.yaml", view_bytes, "text/yaml")],
        )


def post_ack(
    game: Game, receipt: Receipt, raw: bytes, in_reply_to: str | None = None, sender: str | None = None
) -> Path:
    """Write the acknowledgement of a submitted order file (accepted or refused, every reason).

    `in_reply_to` threads it under the player's mail; `sender` is where a refusal goes when the
    file's signature names no registered player (mail intake knows who sent it).
    """
    phase = game.dir.open_phase()
    folder = phase.stem if phase else "closed"
    who = receipt.player or "unknown"
    context = {
        **_common(game, receipt.player),
        "receipt": receipt,
        "size": len(raw),
        "open_turn": phase.turn if phase else None,
        "open_phase": phase.phase if phase else None,
    }
    verdict = "accepted" if receipt.accepted else "REFUSED"
    # A file sent again gets an acknowledgement of its own: the player may have lost the first.
    again = f"-{receipt.copy}" if receipt.copy > 1 else ""
    return _deliver(
        game,
        receipt.player,
        folder,
        f"{who}.ack-{receipt.sha256[:12]}{again}",
        f"[{game.config.game}] orders {verdict} ({receipt.sha256[:12]})",
        "ack",
        context,
        make_message_id(_domain(game), game.config.game, folder, "ack", who, receipt.sha256 + again),
        [],
        in_reply_to=in_reply_to,
        fallback_address=sender if receipt.player is None else None,
    )


def annotated_rolls(rolls: list[dict[str, Any]], events: list[Event]) -> list[dict[str, Any]]:
    """Return the record's rolls, each with what the events say of it (purpose, table, row)."""
    notes = {event.data["label"]: event.data for event in events if "label" in event.data}
    return [{**roll, "note": notes.get(roll["label"], {})} for roll in rolls]


def post_reports(
    game: Game,
    phase: OpenPhase,
    record: dict[str, Any],
    record_bytes: bytes,
    events: list[Event],
    defaulted: list[str],
    envelope: dict[str, Any],
) -> list[Path]:
    """Write each player's report of an adjudicated phase, with the signed public record attached."""
    record_name = f"{phase.stem}.json"
    record_sig = (game.dir.records / (record_name + ".sig")).read_bytes()
    rolls = annotated_rolls(record["rolls"], events)
    paths = []
    for player in game.config.players:
        name = player.name
        visible = [event for event in events if event.is_visible_to(name)]
        view_bytes = view_yaml(game.module.view(envelope["state"], name))
        view_file = f"{name}.view-after.yaml"  # not the notice's {name}.view.yaml, kept in the same folder
        context = {
            **_common(game, name),
            "turn": phase.turn,
            "phase": phase.phase,
            "events": visible,
            "events_template": events_template(game.module),
            "rolls": rolls,
            "record": record,
            "record_file": record_name,
            "record_sha256": sha256_hex(record_bytes),
            "defaulted": defaulted,
            "over": envelope["over"],
            "next_turn": envelope["turn"],
            "next_phase": envelope["phase"],
            "view_file": view_file,
            "view_sha256": sha256_hex(view_bytes),
        }
        paths.append(
            _deliver(
                game,
                name,
                phase.stem,
                f"{name}.report",
                f"[{game.config.game}] turn {phase.turn} {phase.phase}: report",
                "report",
                context,
                make_message_id(_domain(game), game.config.game, phase.stem, "report", name),
                [
                    Attachment(view_file, view_bytes, "text/yaml"),
                    # The record already lives in GAMEDIR/records/: mailed, not copied again per player.
                    Attachment(record_name, record_bytes, "application/json", kept=False),
                    Attachment(record_name + ".sig", record_sig, "application/octet-stream", kept=False),
                ],
            )
        )
    return paths
