"""Games begun by an earlier release go on under this one: they verify, audit byte for byte
(every notice and report rendered again as it was sent), take orders and audit again.

`moderator-db23952.tgz` is a moderator game of three rounds played (no last round) (table rolls with modifiers, dice,
declarations, notes, a hidden note revealed) played by the release at commit db23952 with
`build_moderator.py`; its outbox is left out. A change that makes a module describe or resolve
an old game differently fails here: give the change an option that new games get
(`GameModule.new_game_options`) and old games lack.
"""

from __future__ import annotations

import tarfile
from pathlib import Path

from referee.game.audit import audit
from referee.game.engine import adjudicate, submit
from referee.protocol.signatures import NAMESPACE_ORDERS, load_private_key, sign
from referee.protocol.verify import verify_game_dir

HERE = Path(__file__).parent


def unpack(name: str, into: Path) -> Path:
    with tarfile.open(HERE / name) as archive:
        # Our own file; the filter (Python 3.12, and backported to some 3.11) only keeps 3.12+ quiet.
        archive.extractall(into, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    return into / "game"


def test_a_moderator_game_of_the_earlier_release_audits_and_plays_on(tmp_path: Path) -> None:
    game = unpack("moderator-db23952.tgz", tmp_path)
    assert verify_game_dir(game).ok
    first = audit(game)
    assert first.ok, first.problems
    for player in ("alice", "bob"):
        raw = (
            f"game: oldgame\nturn: 4\nphase: round\nplayer: {player}\n"
            "orders:\n  rolls:\n    - {label: r4, table: morale, modifiers: [elite], purpose: one more}\n"
            "  declaration: {bid: 4}\n"
        ).encode()
        result = submit(game, raw, sign(raw, load_private_key(tmp_path / player), NAMESPACE_ORDERS))
        assert result.accepted, result.problems
    adjudicate(game)
    assert verify_game_dir(game).ok
    second = audit(game)
    assert second.ok, second.problems
