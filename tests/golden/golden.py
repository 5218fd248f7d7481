"""Golden games: whole games played through the command line with fixed keys and fixed
randomness, whose every record, letter, state and command output is compared byte for byte with
what the code made before a change (tests/golden/expected/).

A scenario is a folder of tests/golden/scenarios/: its inputs (game.yaml, tables, order files)
and script.yaml, the commands to run in order. Each command is a `referee` command line, with
`{game}` for the game directory and `{work}` for the scratch folder; `[sign-submit, PLAYER, FILE]`
signs FILE with PLAYER's key (`referee sign`) and submits it. Players' keys are made from their
names, so signatures are the same on every run; the referee's seeds, secrets and keys come from a
counter instead of os.urandom.

expected/SCENARIO/ holds the command lines' transcript in full and, in files.sha256, the SHA-256
of every other file the game made (records, letters, states, views, acknowledgements, reveals):
4.8 MB of files would swamp the repository, their hashes take 180 KB.

    python3 tests/golden/golden.py update          # write expected/ anew from the code as it is
    python3 tests/golden/golden.py play NAME DIR   # play one scenario; its files stay in DIR

Use `update` only with code known to be right, and say why in the commit: the test's whole point
is that a refactoring changes none of these bytes. To see what a change changed, `play` the
scenario at both commits and compare the folders (diff -r).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import secrets
import shutil
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from referee.letters.kept import is_pack

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
EXPECTED = HERE / "expected"
MANIFEST = "files.sha256"
TRANSCRIPT = "transcript.txt"
WORK = "<work>"  # the scratch folder's path, as it stands in the compared files
# What a game directory holds that is not the same from run to run: the journal (times of day),
# the outbox (Date headers, MIME boundaries), the lock, and the cache of a status's needs (the
# game package's file paths and times, referee.game.glance).
SKIPPED = ("journal.sqlite", "journal.sqlite-wal", "journal.sqlite-shm", ".lock", "outbox", ".status-needs.json")


class FixedRandomness:
    """os.urandom, secrets.token_bytes/token_hex and Ed25519 key generation from a counter."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.count = 0

    def urandom(self, size: int) -> bytes:
        out = b""
        while len(out) < size:
            self.count += 1
            out += hashlib.sha256(f"golden/{self.name}/{self.count}".encode()).digest()
        return out[:size]

    def token_bytes(self, size: int | None = None) -> bytes:
        return self.urandom(32 if size is None else size)

    def token_hex(self, size: int | None = None) -> str:
        return self.token_bytes(size).hex()

    def generate(self) -> ed25519.Ed25519PrivateKey:
        return ed25519.Ed25519PrivateKey.from_private_bytes(self.urandom(32))


@contextlib.contextmanager
def fixed_randomness(name: str) -> Iterator[None]:
    """Within the block, every random value the referee draws comes from a counter."""
    fixed = FixedRandomness(name)
    saved = (os.urandom, secrets.token_bytes, secrets.token_hex, vars(ed25519.Ed25519PrivateKey)["generate"])
    os.urandom = fixed.urandom
    secrets.token_bytes = fixed.token_bytes
    secrets.token_hex = fixed.token_hex
    ed25519.Ed25519PrivateKey.generate = staticmethod(fixed.generate)  # type: ignore[method-assign]
    try:
        yield
    finally:
        os.urandom, secrets.token_bytes, secrets.token_hex, generate = saved
        ed25519.Ed25519PrivateKey.generate = generate  # the classmethod itself, as it was


def player_key(folder: Path, player: str) -> Path:
    """Write `player`'s key pair (made from the name alone) as FOLDER/PLAYER and PLAYER.pub."""
    key = ed25519.Ed25519PrivateKey.from_private_bytes(hashlib.sha256(f"golden-player/{player}".encode()).digest())
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
    )
    public = key.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    path = folder / player
    path.write_bytes(private)
    path.chmod(0o600)
    (folder / f"{player}.pub").write_bytes(public + f" {player}@example.org\n".encode())
    return path


def referee(args: list[str]) -> tuple[int, str]:
    """Run one `referee` command line in this process; return its exit code and what it printed."""
    from referee.cli import main

    out = io.StringIO()
    saved = sys.argv
    sys.argv = ["referee", *args]
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.argv = saved
    return code, out.getvalue()


class Play:
    """One golden game being played in a scratch folder: run its steps, then collect its files."""

    def __init__(self, name: str, work: Path) -> None:
        self.work = work
        self.inputs = work / "inputs"
        shutil.copytree(SCENARIOS / name, self.inputs)
        self.script = yaml.safe_load((self.inputs / "script.yaml").read_text(encoding="utf-8"))
        self.keys = work / "keys"
        self.keys.mkdir()
        for player in self.script.get("players", []):
            player_key(self.keys, player)
        self.transcript: list[str] = []

    def step(self, step: list[str]) -> int:
        """Run one step of the script; return the exit code of its last command."""
        words = [str(word).format(game=self.work / "game", work=self.work, inputs=self.inputs) for word in step]
        if words[0] == "sign-submit":
            player, order = words[1], self.inputs / words[2]
            runs = [
                ["sign", str(order), "--key", str(self.keys / player)],
                ["submit", str(self.work / "game"), str(order)],
            ]
        else:
            runs = [words]
        code = 0
        for args in runs:
            code, output = referee(args)
            self.transcript.append(f"$ referee {' '.join(args)}\n{output}[exit {code}]\n")
        return code

    def files(self) -> dict[str, bytes]:
        """Return every compared file by its path: the transcript, the inputs and the game's files."""
        found = {TRANSCRIPT: "".join(self.transcript).encode()}
        for root in (self.inputs, self.work / self.script.get("game_dir", "game")):
            for path in sorted(root.rglob("*")):
                relative = path.relative_to(self.work)
                if not path.is_file() or any(part in SKIPPED for part in relative.parts):
                    continue
                if is_pack(path.name):  # a pack of letters: its letters' files, by the names they had
                    with zipfile.ZipFile(path) as pack:
                        found.update({str(relative.parent / name): pack.read(name) for name in pack.namelist()})
                else:
                    found[str(relative)] = path.read_bytes()
        return {path: _steady(_key_material(data), self.work) for path, data in found.items()}


def play(name: str, work: Path) -> dict[str, bytes]:
    """Play scenario `name` in the empty folder `work`; return every compared file by its path."""
    with fixed_randomness(name):
        game = Play(name, work)
        for step in game.script["steps"]:
            game.step(step)
    return game.files()


def _key_material(data: bytes) -> bytes:
    """Return an OpenSSH private key file as its raw key: the file's check number is random in
    cryptography 50 and later (drawn in Rust, out of reach of fixed_randomness)."""
    if not data.startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----"):
        return data
    key = serialization.load_ssh_private_key(data, password=None)
    assert isinstance(key, ed25519.Ed25519PrivateKey)
    return b"openssh ed25519 private key " + key.private_bytes_raw().hex().encode()


def _steady(data: bytes, work: Path) -> bytes:
    """Return a file's bytes with what differs from run to run (paths, times of day) made fixed."""
    data = data.replace(str(work).encode(), WORK.encode())
    data = re.sub(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(\+00:00|Z)", b"<time>", data)
    return re.sub(rb"/[\w/.-]*/referee-preview-\w+", b"<preview>", data)


def scenarios() -> list[str]:
    """Return the names of the scenarios."""
    return sorted(path.name for path in SCENARIOS.iterdir() if (path / "script.yaml").exists())


def manifest(files: dict[str, bytes]) -> str:
    """Return the lines "SHA-256  PATH" of every file but the transcript, sorted by path (sha256sum's format)."""
    return "".join(
        f"{hashlib.sha256(data).hexdigest()}  {path}\n" for path, data in sorted(files.items()) if path != TRANSCRIPT
    )


def hashes(manifest: str) -> dict[str, str]:
    """Return a manifest's SHA-256 by path."""
    return {path: digest for digest, path in (line.split("  ", 1) for line in manifest.splitlines())}


def expected(name: str) -> tuple[str, str]:
    """Return the expected transcript and manifest of scenario `name`."""
    folder = EXPECTED / name
    return (folder / TRANSCRIPT).read_text(encoding="utf-8"), (folder / MANIFEST).read_text(encoding="utf-8")


def keep(files: dict[str, bytes], folder: Path) -> None:
    """Write a played game's files into `folder`, by their paths."""
    for relative, data in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_bytes(data)


def update(scratch: Path) -> None:
    """Write expected/ anew: each scenario played by the code as it is."""
    for name in scenarios():
        work = scratch / name
        work.mkdir(parents=True)
        files = play(name, work)
        target = EXPECTED / name
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        (target / TRANSCRIPT).write_bytes(files[TRANSCRIPT])
        (target / MANIFEST).write_text(manifest(files), encoding="utf-8")
        print(f"{name}: {len(files)} files, hashed in {target / MANIFEST}")


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        if sys.argv[1:] == ["update"]:
            update(Path(scratch))
        elif len(sys.argv) == 4 and sys.argv[1] == "play":
            keep(play(sys.argv[2], Path(scratch)), Path(sys.argv[3]))
        else:
            sys.exit(__doc__)
