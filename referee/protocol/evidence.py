"""A player's own letters as evidence: check the mail a player kept against the published records.

Every letter the referee sends is signed, so what it said at the time binds it: an
acknowledgement states the SHA-256 of the order file it accepted, a notice the phase's
commitment (and hidden commitment, and the beacon round it promises), a report the SHA-256 of
the record it attaches. A referee who later re-signs a record (a changed roll, a dropped order)
can make the records agree with each other, but not with the letters the players kept.

The mail is read as mail clients keep it (a Maildir folder or an mbox file), with the standard
library's `email` and `mailbox` only. A letter sealed to the player's key (age) is opened by a
`decrypt` function the caller hands in; without one it is reported as needing decryption.
"""

from __future__ import annotations

import email
import mailbox
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from referee.protocol.canonical import load_json, sha256_hex
from referee.protocol.errors import RefereeError
from referee.protocol.signatures import PublicKey, check_signature, load_public_key_file

SEALED_SUFFIX = ".age"
Decrypt = Callable[[bytes], bytes]  # opens an age file sealed to the player; raises ValueError

_FIRST_LINE = {
    "ack": re.compile(r"^your order file was (?P<verdict>accepted|REFUSED)$"),
    "notice": re.compile(r"^turn (?P<turn>[0-9]+), phase '(?P<phase>.*)'(?: \(.*\))? is open$"),
    "report": re.compile(r"^report of turn (?P<turn>[0-9]+), phase '(?P<phase>.*)'$"),
    "reveal": re.compile(r"^hidden draws revealed$"),
}
_TO = re.compile(r"^To: (?P<player>.+)$", re.MULTILINE)
_ACK_FILE = re.compile(r"^File SHA-256: (?P<sha256>[0-9a-f]{64}) ", re.MULTILINE)
_ACK_FOR = re.compile(r"^For: turn (?P<turn>[0-9]+), phase '(?P<phase>.*)', seq (?P<seq>[0-9]+)$", re.MULTILINE)
_COMMIT = re.compile(r"^    commit (?P<hex>[0-9a-f]{64})$", re.MULTILINE)
_HIDDEN_COMMIT = re.compile(r"^    hidden commit (?P<hex>[0-9a-f]{64})$", re.MULTILINE)
_BEACON = re.compile(r"drand round (?P<round>[0-9]+) of chain\s+(?P<chain>[0-9a-f]+)")
_RECORD = re.compile(r"^  record +(?P<name>\S+) \(SHA-256 (?P<sha256>[0-9a-f]{64})\)", re.MULTILINE)
_REVEAL_FILE = re.compile(r"^[0-9]{4}\.json$")


@dataclass(frozen=True)
class KeptLetter:
    """One message of the player's mail: its headers and what it carries, opened where possible."""

    message_id: str
    date: str
    subject: str
    text: bytes | None  # the text the referee signed; None while it is sealed
    text_name: str  # the file it came as (NAME.txt), or "the mail's text" when it came inline
    signature: bytes | None
    attachments: dict[str, bytes]  # every plain (or opened) attachment by file name
    sealed: tuple[str, ...] = ()  # attachments still sealed to the player's key
    unopened: str | None = None  # why a sealed attachment could not be opened

    def where(self) -> str:
        """Return how a problem names this letter: its Message-ID, date and subject."""
        return f"letter {self.message_id} ({self.date}, {self.subject!r})"


@dataclass
class LetterReport:
    """What the letters were checked for and every problem found, each naming its letter."""

    messages: int = 0  # mails read from the mailbox
    acks: int = 0
    notices: int = 0
    reports: int = 0
    reveals: int = 0
    others: int = 0  # other signed letters of the game (replies, changes, disputes): signature only
    skipped: int = 0  # mails of another game, or to another player
    notes: list[str] = field(default_factory=list)  # what was fine but worth saying
    problems: list[str] = field(default_factory=list)

    @property
    def checked(self) -> int:
        """Return how many letters of this game to this player were checked."""
        return self.acks + self.notices + self.reports + self.reveals + self.others

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems

    def summary(self) -> str:
        """Return one line saying what was checked."""
        return (
            f"{self.checked} letter(s) checked ({self.acks} acknowledgement(s), {self.notices} notice(s), "
            f"{self.reports} report(s), {self.reveals} reveal(s), {self.others} other), "
            f"{self.skipped} other mail(s) skipped"
        )


def read_mailbox(path: Path) -> list[EmailMessage]:
    """Return the messages of a Maildir folder (cur/ and new/), a folder of .eml files, or an mbox
    file. Raise ValueError if `path` is none of these."""
    path = Path(path)
    if path.is_dir():
        if (path / "cur").is_dir() or (path / "new").is_dir():
            folder = mailbox.Maildir(str(path), factory=None, create=False)
            raw = [folder.get_bytes(key) for key in sorted(folder.keys())]
        else:
            raw = [item.read_bytes() for item in sorted(path.iterdir()) if item.is_file()]
    elif path.is_file():
        box = mailbox.mbox(str(path), create=False)
        raw = [box.get_bytes(key) for key in box.iterkeys()]
    else:
        raise ValueError(f"{path}: no such Maildir folder or mbox file")
    messages = []
    for data in raw:
        message = email.message_from_bytes(data, policy=policy.default)
        if isinstance(message, EmailMessage):
            messages.append(message)
    return messages


def kept_letter(message: EmailMessage, decrypt: Decrypt | None = None) -> KeptLetter:
    """Return what `message` carries: its signed text (attached as NAME.txt beside NAME.txt.sig,
    or else the mail's own text), its signature and its attachments, opening sealed ones with
    `decrypt` when given."""
    attachments: dict[str, bytes] = {}
    sealed: list[str] = []
    unopened = None
    for part in message.iter_attachments():
        name = part.get_filename() or ""
        data = part.get_payload(decode=True)
        if not isinstance(data, bytes):
            continue
        if name.endswith(SEALED_SUFFIX):
            if decrypt is None:
                sealed.append(name)
                continue
            try:
                attachments[name.removesuffix(SEALED_SUFFIX)] = decrypt(data)
            except ValueError as error:
                sealed.append(name)
                unopened = str(error)
            continue
        attachments[name] = data
    text_name = next((n for n in attachments if n.endswith(".txt") and n + ".sig" in attachments), None)
    if text_name is None:
        text_name = next((n for n in attachments if n.endswith(".txt")), None)
    text: bytes | None = None
    signature: bytes | None = None
    if text_name is not None:
        text, signature = attachments[text_name], attachments.get(text_name + ".sig")
    elif not any(n.endswith(".txt" + SEALED_SUFFIX) for n in sealed):
        body = message.get_body(("plain",))
        if body is not None and isinstance(body, EmailMessage):
            text = str(body.get_content()).encode("utf-8")
            signature = next((data for n, data in attachments.items() if n.endswith(".txt.sig")), None)
            text_name = "the mail's text"
    return KeptLetter(
        message_id=str(message.get("Message-ID", "(no Message-ID)")).strip(),
        date=str(message.get("Date", "(no date)")),
        subject=str(message.get("Subject", "(no subject)")),
        text=text,
        text_name=text_name or "(no text)",
        signature=signature,
        attachments=attachments,
        sealed=tuple(sealed),
        unopened=unopened,
    )


@dataclass(frozen=True)
class _Published:
    """A record of the game: where it is kept, its bytes' SHA-256 and its content."""

    name: str  # records/NAME, or superseded/ROLLBACK/NAME
    sha256: str
    record: dict[str, Any]


def _records(game_dir: Path) -> tuple[list[_Published], list[_Published]]:
    """Return the game's published records in order, and those a rollback withdrew."""

    def read(paths: Iterable[Path], shown: Callable[[Path], str]) -> list[_Published]:
        found = []
        for path in paths:
            try:
                data = path.read_bytes()
                record = load_json(data)
            except (OSError, UnicodeDecodeError, ValueError):
                continue  # `referee verify` says why
            if isinstance(record, dict):
                found.append(_Published(shown(path), sha256_hex(data), record))
        return found

    records_dir = game_dir / "records"
    if not records_dir.is_dir():
        return [], []
    current = read(sorted(records_dir.glob("*.json")), lambda p: f"records/{p.name}")
    withdrawn = read(
        sorted(records_dir.glob("superseded/*/*.json")), lambda p: f"records/superseded/{p.parent.name}/{p.name}"
    )
    return current, withdrawn


def _of_phase(records: Sequence[_Published], turn: int, phase: str) -> list[_Published]:
    return [r for r in records if r.record.get("turn") == turn and r.record.get("phase") == phase]


@dataclass(frozen=True)
class _Ack:
    letter: KeptLetter
    sha256: str
    turn: int
    phase: str
    seq: int


def check_letters(
    game_dir: Path, letters: Sequence[KeptLetter], player: str, referee_key: PublicKey | None
) -> LetterReport:
    """Return the report on `letters` (the mail `player` kept) against GAMEDIR's records."""
    game_dir = Path(game_dir)
    report = LetterReport(messages=len(letters))
    current, withdrawn = _records(game_dir)
    game = next((r.record.get("game") for r in current + withdrawn if isinstance(r.record.get("game"), str)), None)
    if game is None:
        report.problems.append(f"no records found in {game_dir / 'records'}: the letters have nothing to be held to")
        return report
    acks: list[_Ack] = []
    seen: set[str] = set()
    for letter in letters:
        if letter.message_id in seen:
            continue  # the same letter kept twice
        seen.add(letter.message_id)
        kind, match, text = _classify(letter, game, player)
        if kind == "skip":
            report.skipped += 1
            continue
        if text is None:
            report.others += 1
            report.problems.append(_sealed_problem(letter))
            continue
        report.problems += [
            f"{letter.where()}: {line}"
            for line in check_signature(letter.text or b"", letter.signature, referee_key, letter.text_name)
        ]
        if kind == "ack":
            report.acks += 1
            ack = _read_ack(letter, text, match)
            if ack is None and match is not None and match["verdict"] == "accepted":
                report.problems.append(f"{letter.where()}: an acceptance that states no file SHA-256 or phase")
            elif ack is not None:
                acks.append(ack)
        elif kind == "notice" and match is not None:
            report.notices += 1
            report.problems += _notice_problems(letter, text, match, current, withdrawn, report.notes)
        elif kind == "report" and match is not None:
            report.reports += 1
            report.problems += _report_problems(letter, text, current, withdrawn, report.notes)
        elif kind == "reveal":
            report.reveals += 1
            report.problems += _reveal_problems(letter, game_dir)
        else:
            report.others += 1
    report.problems += _ack_problems(acks, player, current, withdrawn, report.notes)
    if not report.checked:
        report.problems.append(
            f"none of the {report.messages} mail(s) is a letter of game {game} to {player}: "
            "nothing was held to the records (is it the right folder, and your player name?)"
        )
    return report


def _classify(letter: KeptLetter, game: str, player: str) -> tuple[str, re.Match[str] | None, str | None]:
    """Return the letter's kind (ack, notice, report, reveal, other, or skip: not this game's or
    not to this player), the match of its first line and its text (None while sealed)."""
    if letter.text is None:
        # A sealed letter names its game in the subject: "[GAME] ..."
        return ("other" if letter.subject.startswith(f"[{game}]") else "skip"), None, None
    try:
        text = letter.text.decode("utf-8")
    except UnicodeDecodeError:
        return "skip", None, None
    first = text.split("\n", 1)[0]
    marker = f"({game}): "
    if marker not in first:
        return "skip", None, text
    to = _TO.search(text)
    if to is not None and to["player"] != player:
        return "skip", None, text
    rest = first.split(marker, 1)[1]
    for kind, pattern in _FIRST_LINE.items():
        match = pattern.match(rest)
        if match is not None:
            return kind, match, text
    return "other", None, text


def _sealed_problem(letter: KeptLetter) -> str:
    files = ", ".join(letter.sealed) or "its text"
    if letter.unopened:
        return f"{letter.where()}: cannot open {files} with the identity given: {letter.unopened}"
    return (
        f"{letter.where()}: sealed to your key ({files}), so not checked: decrypt it first "
        "(age -d -i ~/.ssh/id_ed25519 FILE.age) or give your key with --identity"
    )


def _read_ack(letter: KeptLetter, text: str, match: re.Match[str] | None) -> _Ack | None:
    if match is None or match["verdict"] != "accepted":
        return None  # a refusal changed nothing, and says so
    sha, where = _ACK_FILE.search(text), _ACK_FOR.search(text)
    if sha is None or where is None:
        return None
    return _Ack(letter, sha["sha256"], int(where["turn"]), where["phase"], int(where["seq"]))


def _ack_problems(
    acks: Sequence[_Ack], player: str, current: Sequence[_Published], withdrawn: Sequence[_Published], notes: list[str]
) -> list[str]:
    """Each phase's last accepted file (the highest seq) must be the player's order in its record;
    an earlier one was replaced by the player's own later file."""
    problems: list[str] = []
    phases: dict[tuple[int, str], list[_Ack]] = {}
    for ack in acks:
        phases.setdefault((ack.turn, ack.phase), []).append(ack)
    for (turn, phase), group in sorted(phases.items()):
        group.sort(key=lambda a: a.seq)
        last = group[-1]
        replaced = [a for a in group if a.seq < last.seq and a.sha256 != last.sha256]
        if replaced:
            notes.append(
                f"turn {turn} '{phase}': {len(replaced)} earlier accepted file(s) replaced by your seq {last.seq}"
            )
        records = _of_phase(current, turn, phase)
        if not records:
            if _of_phase(withdrawn, turn, phase):
                notes.append(f"turn {turn} '{phase}': its record was withdrawn by a rollback and not published again")
            else:
                notes.append(f"turn {turn} '{phase}': not adjudicated yet, your file {last.sha256[:12]} awaits it")
            continue
        published = records[-1]
        listed = [o for o in published.record.get("orders") or [] if isinstance(o, dict) and o.get("player") == player]
        if any(o.get("sha256") == last.sha256 for o in listed):
            continue
        override = next(
            (
                o
                for o in published.record.get("overrides") or []
                if isinstance(o, dict) and o.get("kind") == "order" and o.get("replaces") == last.sha256
            ),
            None,
        )
        if override is not None:
            notes.append(
                f"turn {turn} '{phase}': your file {last.sha256[:12]} was replaced by the referee's "
                f"override #{override.get('id')} ({override.get('reason')}), listed in {published.name}"
            )
            continue
        instead = ", ".join(str(o.get("sha256")) for o in listed) or "no order from you"
        problems.append(
            f"{last.letter.where()}: the referee accepted your order file {last.sha256} for turn {turn} "
            f"'{phase}' (seq {last.seq}), but {published.name} lists {instead}"
        )
    return problems


def _notice_problems(
    letter: KeptLetter,
    text: str,
    match: re.Match[str],
    current: Sequence[_Published],
    withdrawn: Sequence[_Published],
    notes: list[str],
) -> list[str]:
    """The notice's commitment, hidden commitment and beacon round must be its phase's record's."""
    turn, phase = int(match["turn"]), match["phase"]
    commit, hidden_commit, beacon = _COMMIT.search(text), _HIDDEN_COMMIT.search(text), _BEACON.search(text)
    if commit is None:
        return [f"{letter.where()}: a notice that states no commitment"]
    records = _of_phase(current, turn, phase)
    if not records:
        if current and current[-1].record.get("next_commit") == commit["hex"]:
            notes.append(f"turn {turn} '{phase}': open, its commitment is the one the last record promised")
            return []
        if any(r.record.get("commit") == commit["hex"] for r in _of_phase(withdrawn, turn, phase)):
            notes.append(f"turn {turn} '{phase}': your notice's phase was withdrawn by a rollback")
            return []
        return [
            f"{letter.where()}: no published record of turn {turn} '{phase}', and its commitment "
            f"{commit['hex']} is not the next_commit of the last record"
        ]
    published = records[-1]
    record = published.record
    if record.get("commit") != commit["hex"]:
        if any(r.record.get("commit") == commit["hex"] for r in _of_phase(withdrawn, turn, phase)):
            notes.append(f"turn {turn} '{phase}': your notice was for a phase a rollback opened again")
            return []
        return [
            f"{letter.where()}: the notice committed to {commit['hex']}, but {published.name} was "
            f"adjudicated with commit {record.get('commit')}: the seed is not the one promised"
        ]
    problems = []
    if hidden_commit is not None and record.get("hidden_commit") not in (None, hidden_commit["hex"]):
        problems.append(
            f"{letter.where()}: the notice's hidden commit {hidden_commit['hex']} is not "
            f"{published.name}'s ({record.get('hidden_commit')})"
        )
    if beacon is not None:
        proof = record.get("beacon_proof")
        proof = proof if isinstance(proof, dict) else {}
        if proof.get("round") != int(beacon["round"]) or proof.get("chain_hash") != beacon["chain"]:
            problems.append(
                f"{letter.where()}: the notice promised drand round {beacon['round']} of chain "
                f"{beacon['chain'][:16]}..., but {published.name} mixes in round {proof.get('round')} of chain "
                f"{str(proof.get('chain_hash'))[:16]}..."
            )
    return problems


def _report_problems(
    letter: KeptLetter, text: str, current: Sequence[_Published], withdrawn: Sequence[_Published], notes: list[str]
) -> list[str]:
    """The record a report names (and attaches) must be the record published now."""
    named = _RECORD.search(text)
    if named is None:
        return [f"{letter.where()}: a report that names no record"]
    name, sha = named["name"], named["sha256"]
    problems = []
    attached = letter.attachments.get(name)
    if attached is not None and sha256_hex(attached) != sha:
        problems.append(f"{letter.where()}: the attached {name} hashes to {sha256_hex(attached)}, not to {sha}")
    published = next((r for r in current if r.name == f"records/{name}"), None)
    if published is not None and published.sha256 == sha:
        return problems
    old = next((r for r in withdrawn if r.sha256 == sha and r.name.endswith(f"/{name}")), None)
    if old is not None:
        notes.append(f"{name}: the record your report of {letter.date} names was withdrawn by a rollback ({old.name})")
        return problems
    if published is None:
        problems.append(f"{letter.where()}: the report's record {name} (SHA-256 {sha}) is not published")
    else:
        problems.append(
            f"{letter.where()}: the report's record {name} had SHA-256 {sha}; the one published now hashes to "
            f"{published.sha256}: the referee changed it after the report"
        )
    return problems


def _reveal_problems(letter: KeptLetter, game_dir: Path) -> list[str]:
    """A reveal letter's attached reveal file must be the one in GAMEDIR/reveals/."""
    problems = []
    for name, data in letter.attachments.items():
        if not _REVEAL_FILE.match(name):
            continue
        kept = game_dir / "reveals" / name
        if not kept.is_file():
            problems.append(
                f"{letter.where()}: its {name} is not in {game_dir / 'reveals'} (put it there with its .sig)"
            )
        elif kept.read_bytes() != data:
            problems.append(f"{letter.where()}: its {name} is not the reveals/{name} published now")
    return problems


def verify_letters(game_dir: Path, mail: Path, player: str, decrypt: Decrypt | None = None) -> LetterReport:
    """Return the report on the letters to `player` kept in `mail` (a Maildir or an mbox) against
    GAMEDIR's records, with the referee's key GAMEDIR/referee.pub (`verify_game_dir` says when it
    is missing or bad: then signatures are checked, but not who made them)."""
    try:
        referee_key: PublicKey | None = load_public_key_file(Path(game_dir) / "referee.pub")
    except (RefereeError, OSError):
        referee_key = None
    try:
        messages = read_mailbox(mail)
    except (ValueError, OSError) as error:
        return LetterReport(problems=[str(error)])
    return check_letters(game_dir, [kept_letter(m, decrypt) for m in messages], player, referee_key)
