"""A phase's life: open (commit), collect (accept or refuse orders), adjudicate (resolve,
record, report) — the whole game lifecycle behind `init`, `submit`, `adjudicate` and `status`.
What an adjudication computes, and how the next phase opens, is in `referee.game.adjudication`
(shared with the roll forward after a rollback and with the audit).

Every step holds the game's lock. Files are written atomically before the journal commits;
a crash anywhere leaves files the next run writes again byte for byte (the seeds are drawn
once and kept, ed25519 signatures are deterministic), so nothing is lost or done twice.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from referee.errors import ConfigError, RefereeError, SignatureError, StateError
from referee.files import atomic_write
from referee.game import operations
from referee.game.adjudication import adjudicate_phase, open_phase, prepare_opening
from referee.game.announce import post_ack
from referee.game.beacons import orders_closed
from referee.game.config import GameConfig, config_yaml, load_config_file
from referee.game.journal import (
    KEPT_ACKS_META,
    KEPT_ACKS_PACKED,
    KEPT_LETTERS_META,
    KEPT_LETTERS_PACKED,
    KEPT_ORDERS_META,
    KEPT_ORDERS_PACKED,
    GameDir,
    OpenPhase,
)
from referee.game.opened import Game, parse_expect
from referee.game.operations import Intent
from referee.game.order_files import keep_order_file
from referee.game.pinning import pin
from referee.game.registry import find_game
from referee.game.results import Adjudication, Receipt
from referee.game.states import wrap_state
from referee.game.status import status, status_text
from referee.game.supplies import WaitingOnReferee, hold
from referee.kit.schema import check
from referee.protocol.bulk import bulk_work
from referee.protocol.canonical import sha256_hex
from referee.protocol.orders import (
    MAX_ORDER_BYTES,
    ORDER_LIMITS,
    OrderFile,
    order_file_problems,
    read_order_file,
)
from referee.protocol.problems import Problem
from referee.protocol.signatures import NAMESPACE_ORDERS, PublicKey, generate_keypair, verify
from referee.protocol.yamlsafe import StrictYAMLError, load_strict

# -- init ---------------------------------------------------------------------------------


def init_game(path: Path, config_file: Path, operation: str | None = None) -> dict[str, Any]:
    """Create a game directory from a configuration file and open its first phase; return its status.

    An operation (referee.game.operations): the journal is made first and records it, so that
    run again after a crash, `init` finishes the same game (the same key, unless none was kept
    whole yet); run again after it finished, it raises AlreadyDone.
    """
    config = load_config_file(config_file)
    module = find_game(config.module)
    scenario = config.scenario or module.scenarios[0]
    if scenario not in module.scenarios:
        raise ConfigError(
            f"game module '{module.id}' has no scenario '{scenario}'",
            hints=(f"scenarios: {', '.join(module.scenarios)}",),
        )
    names = [player.name for player in config.players]
    roles = module.roles(scenario, config.module_options())
    if roles is not None and sorted(roles) != sorted(names):
        raise ConfigError(
            f"scenario '{scenario}' of {module.id} is played by {', '.join(roles)}; "
            f"the configuration names {', '.join(names)}",
            hints=("give each role exactly one player, named after the role",),
        )
    # The module's options for new games are written into game.yaml: pinned there, they keep the
    # rules this game begins with, whatever a later version of the module gives new games.
    options = {**module.new_game_options, **config.options}
    config = GameConfig(**{**config.__dict__, "scenario": scenario, "options": options})
    path = Path(path)
    config_bytes = config_yaml(config)
    intent = Intent.of(
        "init", {"config": sha256_hex(config_bytes)}, [str(path), "--config", str(config_file)], operation
    )
    game_dir = GameDir(path)
    if path.exists() and any(path.iterdir()) and not game_dir.exists():
        raise StateError(
            f"{path} already exists and is not empty",
            hints=("choose a new directory, or remove this one if it is a failed attempt",),
        )
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)  # an existing empty folder keeps its mode otherwise: the key and seeds live here
    game_dir.allow_create()
    with game_dir.lock(guard=False):
        if operations.begin(game_dir, intent) is None:
            if game_dir.get_meta("game") is not None:
                raise StateError(
                    f"{path} already holds game '{config.game}'"
                    if game_dir.config.exists()
                    else f"{path} holds a game",
                    hints=("choose a new directory for a new game",),
                )
            operations.start(game_dir, intent, {"config": str(config_file)})
        if not game_dir.public_key.exists():
            # No public key yet: the key was never used, and a crash may have left half of it.
            for leftover in (game_dir.key, Path(f"{game_dir.key}.pub")):
                leftover.unlink(missing_ok=True)
            generate_keypair(game_dir.key, comment=f"referee@{config.game}")
            os.replace(f"{game_dir.key}.pub", game_dir.public_key)  # players look for GAMEDIR/referee.pub
        game = Game(game_dir, config, module)
        atomic_write(game_dir.config, config_bytes)
        if game_dir.get_meta("game") is None:
            with game_dir.transaction():
                game_dir.set_meta(
                    "game",
                    json.dumps({"game": config.game, "module": module.id, "title": config.title, "players": names}),
                )
                pin(game_dir, config)  # what defines the game: a later change in game.yaml is refused at open
                game_dir.set_meta(KEPT_LETTERS_META, KEPT_LETTERS_PACKED)  # a new game packs its letters
                game_dir.set_meta(KEPT_ORDERS_META, KEPT_ORDERS_PACKED)  # its order files, a pack a phase
                game_dir.set_meta(KEPT_ACKS_META, KEPT_ACKS_PACKED)  # its acknowledgements, a pack a folder
                game_dir.log("game.init", {"module": module.id, "scenario": scenario, "players": names})
        if not game_dir.phases():
            state = module.setup(scenario, names, config.module_options())
            raw = wrap_state(game, state, module.phase(state), None)
            open_phase(game, prepare_opening(game, raw), game_dir.next_phase_seq())
        summary = status(path)
        summary.pop("interrupted", None)  # this very operation, finished just below
        operations.finish(game_dir, intent, status_text(summary))
    return summary


# -- submit -------------------------------------------------------------------------------


def submit(
    path: Path,
    raw: bytes,
    signature: str | bytes | None,
    become: str | None = None,
    in_reply_to: str | None = None,
    sender: str | None = None,
    source: str | None = None,
    opened: Game | None = None,
) -> Receipt:
    """Accept or refuse a signed order file; write the acknowledgement. Refusals change nothing.

    `opened` is the game at `path` when the caller has it open already (mail intake's batch).

    Mail intake passes the incoming `in_reply_to` Message-ID and the `sender` address (used only
    to answer a file whose signature names no registered player). A `source` (one incoming
    mail) is handled once: submitted again, it changes nothing and returns `already_handled`.

    With `become`, the referee enters the file for that player (absent, or by agreement): the
    header fields the file lacks are filled in for the open phase (`filled_header`), the
    referee signs it, it is recorded and announced as entered by the referee, and the
    acknowledgement goes to the player. A refused entry is the referee's own mistake: it is
    kept on record but nothing is sent to the player (the receipt has no letter; the caller
    shows the problems).
    """
    game = opened or Game.open(path)
    filled: tuple[str, ...] = ()
    if become is not None:
        if game.config.player(become) is None:
            players = ", ".join(p.name for p in game.config.players)
            raise RefereeError(
                f"there is no player '{become}' in game '{game.config.game}'", hints=(f"players: {players}",)
            )
        raw, filled = filled_header(game, become, raw)
        signature = game.sign(raw)
    with game.dir.lock():
        if source is not None and game.dir.source_seen(source):
            return Receipt(False, sha256_hex(raw), None, None, None, None, already_handled=True)
        receipt, order = _examine(game, raw, signature, become)
        receipt.by_referee = become is not None
        receipt.filled = filled
        receipt.copy = game.dir.times_received(receipt.sha256) + 1
        # The acknowledgement is posted before the journal commits: after a crash in between,
        # the same submission writes the same letter again (same Message-ID), which the outbox
        # keeps once; committed first, a crash would lose the letter.
        if receipt.accepted or become is None:
            receipt.letter = post_ack(game, receipt, raw, in_reply_to, sender)
        extra = {"source": source} if source is not None else {}
        if receipt.accepted and not receipt.duplicate:
            _store_accepted(game, order, signature, receipt.by_referee, extra)
        elif not receipt.accepted:
            _store_refused(game, receipt, raw, signature, extra)
        else:
            with game.dir.transaction():
                game.dir.log(
                    "order.duplicate",
                    {"sha256": receipt.sha256, **extra},
                    receipt.turn,
                    receipt.phase,
                    receipt.player,
                )
    return receipt


def filled_header(game: Game, player: str, raw: bytes) -> tuple[bytes, tuple[str, ...]]:
    """Return the file the referee enters for `player`, with the header fields it lacks (game,
    turn, phase, player, seq) filled in for the open phase, and the names of those filled.

    seq is the one after the player's standing orders, so the entry replaces them. Fields
    the file has are kept as they are: one that contradicts (another player, another phase) is
    refused by the usual checks. A file that is not a YAML mapping, or a game that is over, is
    returned unchanged for those checks to refuse.
    """
    phase = game.dir.open_phase()
    if phase is None or len(raw) > MAX_ORDER_BYTES:
        return raw, ()
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
        data = load_strict(text, ORDER_LIMITS)
    except (UnicodeDecodeError, StrictYAMLError):
        return raw, ()
    if not isinstance(data, dict):
        return raw, ()
    standing = game.dir.standing_orders(phase).get(player)
    wanted: dict[str, Any] = {
        "game": game.config.game,
        "turn": phase.turn,
        "phase": phase.phase,
        "player": player,
        "seq": standing.seq + 1 if standing else 1,
    }
    # A missing seq means 1: written only when the entry must follow standing orders, so that a
    # file entered the old way keeps its bytes.
    missing = {f: v for f, v in wanted.items() if f not in data and (f, v) != ("seq", 1)}
    if not missing:
        return raw, ()
    # JSON scalars are YAML: quoted, a phase named "1805" stays text.
    header = "".join(f"{field}: {json.dumps(value)}\n" for field, value in missing.items())
    filled = header + text
    try:
        fits = load_strict(filled, ORDER_LIMITS) == {**data, **missing}
    except StrictYAMLError:
        fits = False
    return (filled.encode("utf-8"), tuple(missing)) if fits else (raw, ())


def _examine(
    game: Game, raw: bytes, signature: str | bytes | None, become: str | None = None
) -> tuple[Receipt, OrderFile | None]:
    sha = sha256_hex(raw)
    receipt = Receipt(False, sha, None, None, None, None)
    problems = receipt.problems
    if len(raw) > MAX_ORDER_BYTES:
        receipt.problems += order_file_problems(raw)  # says the size, reading nothing
        return receipt, None
    # The signature is checked before the YAML is parsed: what no registered player signed is
    # refused unread, so a stranger's file never reaches a parser.
    signer = become if become is not None else _signer(game, raw, signature, problems)
    if signer is None:
        return receipt, None
    receipt.player = signer
    order, shape = read_order_file(raw)  # the YAML is read once, for its problems and its orders
    problems += shape
    if order is None:
        return receipt, None
    receipt.turn, receipt.phase, receipt.seq = order.turn, order.phase, order.seq
    if order.game != game.config.game:
        problems.append(
            Problem(
                "refused.game",
                "game",
                f"this file is for game '{order.game}', but it was sent to game '{game.config.game}'",
            )
        )
    if become is not None and order.player != become:
        problems.append(
            Problem(
                "refused.player",
                "player",
                f"the file says player '{order.player}', but the referee is entering orders for '{become}'",
            )
        )
    elif signer is not None and order.player != signer:
        problems.append(
            Problem(
                "refused.key-other-player",
                "player",
                f"the file says player '{order.player}', but it is signed with the key registered to '{signer}'",
            )
        )
    elif game.config.player(order.player) is None:
        problems.append(
            Problem("refused.player", "player", f"there is no player '{order.player}' in game '{game.config.game}'")
        )
    phase = game.dir.open_phase()
    if phase is None:
        problems.append(
            Problem("refused.game-over", "turn", f"game '{game.config.game}' is over: it takes no more orders")
        )
        return receipt, None
    if (order.turn, order.phase) != (phase.turn, phase.phase):
        problems.append(_wrong_phase(game, order, phase))
    elif game.dir.revealed(phase.turn, phase.phase, phase.commit) is not None:
        problems.append(
            Problem(
                "refused.replay",
                "turn",
                f"turn {phase.turn} '{phase.phase}' is being adjudicated again after the referee rolled the game "
                "back: its seed was revealed in its record, so it takes no new orders; the orders on record stand "
                "(the referee can correct them with `referee override`)",
            )
        )
    elif (closed := orders_closed(game, phase)) is not None:
        problems.append(closed)
    if problems:
        return receipt, None
    envelope = game.envelope(phase.state_before)
    spec = game.module.phase(envelope["state"])
    assert spec is not None
    if order.player not in spec.active:
        problems.append(
            Problem(
                "refused.not-active",
                "player",
                f"player '{order.player}' gives no orders in turn {phase.turn} '{phase.phase}'"
                f" (awaited: {', '.join(spec.active) or 'nobody'})",
            )
        )
        return receipt, None
    problems += check(order.orders, spec.schema) or game.module.validate(envelope["state"], order.player, order.orders)
    problems += _seq_problems(game, phase, order)
    if any(p.code == "duplicate" for p in problems):
        receipt.accepted, receipt.duplicate, receipt.problems = True, True, []
        return receipt, order
    receipt.accepted = not problems
    return receipt, order


def _signer(game: Game, raw: bytes, signature: str | bytes | None, problems: list[Problem]) -> str | None:
    """Return the registered player who signed `raw`, adding a problem when there is none."""
    if signature is None or not (signature.strip() if isinstance(signature, (str, bytes)) else True):
        problems.append(
            Problem(
                "refused.signature",
                "signature",
                "no signature came with the order file: sign it with "
                "`ssh-keygen -Y sign -f ~/.ssh/id_ed25519 -n pbem-orders FILE` and send FILE.sig too",
            )
        )
        return None
    try:
        key: PublicKey = verify(raw, signature, NAMESPACE_ORDERS)
    except SignatureError as exc:
        problems.append(Problem("refused.signature", "signature", "; ".join([exc.message, *exc.hints])))
        return None
    player = game.config.player_by_key(key)
    if player is None:
        problems.append(
            Problem(
                "refused.key-unknown",
                "signature",
                f"the file is signed with key {key.fingerprint}, which is not registered in game "
                f"'{game.config.game}': sign with the key you registered, or ask the referee to register this one",
            )
        )
        return None
    return player.name


def _wrong_phase(game: Game, order: OrderFile, phase: OpenPhase) -> Problem:
    closed = game.dir.has_phase(order.turn, order.phase)
    now = f"the open phase is turn {phase.turn} '{phase.phase}'"
    if closed:
        return Problem(
            "refused.stale",
            "turn",
            f"this file is for turn {order.turn} '{order.phase}', which is closed ({now}): "
            "a late or replayed file; write new orders for the open phase",
        )
    return Problem(
        "refused.not-open", "phase", f"this file is for turn {order.turn} '{order.phase}', which is not open ({now})"
    )


def _seq_problems(game: Game, phase: OpenPhase, order: OrderFile) -> list[Problem]:
    same = game.dir.find_order(phase, order.player, order.seq)
    if same is not None:
        if same.sha256 == order.sha256:
            return [Problem("duplicate", "seq", "this exact file was already accepted")]
        return [
            Problem(
                "refused.seq-used",
                "seq",
                f"seq {order.seq} was already accepted with another file (SHA-256 {same.sha256[:16]}...): "
                "to replace your orders, send the new file with a higher seq",
            )
        ]
    standing = game.dir.standing_orders(phase).get(order.player)
    if standing is not None and standing.seq > order.seq:
        return [
            Problem(
                "refused.seq-superseded",
                "seq",
                f"your orders with seq {standing.seq} already stand, so seq {order.seq} would not count: "
                f"send it again with seq {standing.seq + 1}",
            )
        ]
    return []


def _as_bytes(signature: str | bytes) -> bytes:
    return signature if isinstance(signature, bytes) else signature.encode()


def _store_accepted(
    game: Game,
    order: OrderFile | None,
    signature: str | bytes | None,
    by_referee: bool = False,
    extra: dict[str, Any] | None = None,
) -> None:
    assert order is not None and signature is not None
    phase = game.dir.open_phase()
    assert phase is not None
    name = f"{phase.stem}/{order.player}-seq{order.seq}-{order.sha256[:12]}.yaml"
    keep_order_file(game.dir, name, order.raw, _as_bytes(signature))
    with game.dir.transaction():
        game.dir.insert_order(phase, order.player, order.seq, order.sha256, name, by_referee)
        if (kept := orders_as_json(order.orders)) is not None:
            game.dir.keep_order_content(order.sha256, phase.turn, phase.phase, kept)
        game.dir.log(
            "order.accepted",
            {
                "sha256": order.sha256,
                "seq": order.seq,
                "file": name,
                "by": "referee" if by_referee else order.player,
                **(extra or {}),
            },
            phase.turn,
            phase.phase,
            order.player,
        )


def orders_as_json(orders: Any) -> str | None:
    """Return the orders as JSON text that reads back equal, or None for YAML that JSON cannot
    carry as it is (a mapping with a number as a key): such orders are read from their file."""
    try:
        text = json.dumps(orders, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return None
    return text if json.loads(text) == orders else None


def _store_refused(
    game: Game, receipt: Receipt, raw: bytes, signature: str | bytes | None, extra: dict[str, Any] | None = None
) -> None:
    """Keep a refused file for the record (nothing is ever lost); it changes nothing in the game."""
    atomic_write(game.dir.refused / f"{receipt.sha256}.order", raw)
    if signature:
        atomic_write(
            game.dir.refused / f"{receipt.sha256}.order.sig",
            _as_bytes(signature),
        )
    with game.dir.transaction():
        game.dir.log(
            "order.refused",
            {"sha256": receipt.sha256, "problems": [p.as_dict() for p in receipt.problems], **(extra or {})},
            receipt.turn,
            receipt.phase,
            receipt.player,
        )


# -- adjudicate ---------------------------------------------------------------------------


def adjudicate(path: Path, expect: str | None = None, force: bool = False) -> Adjudication:
    """Adjudicate the open phase once every order is in (or now, with `force`)."""
    game = Game.open(path)
    with game.dir.lock():
        phase = game.dir.open_phase()
        if phase is None:
            raise StateError(f"game '{game.config.game}' is over: there is nothing to adjudicate")
        if expect is not None and parse_expect(expect) != (phase.turn, phase.phase):
            raise StateError(
                f"the open phase is {phase.ident}, not {expect}: nothing was done",
                hints=("the game has moved on since you looked; check `referee status`",),
            )
        try:
            with bulk_work():
                return adjudicate_phase(game, phase, force)
        except WaitingOnReferee as waiting:  # held, players told once; the error says what to supply
            raise hold(game, phase, waiting) from None


# -- helpers ------------------------------------------------------------------------------


def read_signature_file(order_path: Path, sig_path: Path | None) -> bytes | None:
    """Return the detached signature for an order file (ORDER.sig by default), or None if absent."""
    candidate = sig_path or Path(str(order_path) + ".sig")
    if sig_path is None and not candidate.exists():
        return None
    try:
        return candidate.read_bytes()
    except OSError as exc:
        raise RefereeError(f"cannot read the signature {candidate}: {exc.strerror}") from None
