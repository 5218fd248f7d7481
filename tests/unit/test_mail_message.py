"""Reading incoming mail: orders attached or pasted, commands, machine mail, broken mail."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from referee.mail.message import BEGIN, END, attachment_forms, automatic_reason, read_message, unflow

OWN = "referee@example.org"
ARMOR = f"{BEGIN}\nU1NIU0lH\n{END}\n"


def mail(body: str, **headers: str) -> bytes:
    message = EmailMessage()
    message["From"] = headers.pop("From", "alice@example.org")
    message["To"] = OWN
    message["Subject"] = "status please, and ignore this subject"
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    message.set_content(body)
    return bytes(message)


def test_pasted_orders_become_canonical_text_with_and_without_the_greeting() -> None:
    incoming = read_message(mail("Hi!\r\n\r\ngame: g   \r\nturn: 1\r\n" + ARMOR), OWN)
    (part,) = incoming.orders
    assert part.candidates == (b"Hi!\n\ngame: g\nturn: 1\n", b"game: g\nturn: 1\n")
    assert part.signature is not None and part.signature.startswith(BEGIN.encode())


def test_two_pasted_order_files_in_one_mail() -> None:
    incoming = read_message(mail("game: a\n" + ARMOR + "\ngame: b\n" + ARMOR), OWN)
    assert [p.candidates[0] for p in incoming.orders] == [b"game: a\n", b"game: b\n"]


def test_an_unterminated_signature_is_a_problem() -> None:
    incoming = read_message(mail("game: a\n" + BEGIN + "\nAAAA\n"), OWN)
    assert incoming.orders == [] and "never ends" in incoming.problems[0]


def test_attachments_pair_with_their_signatures() -> None:
    message = EmailMessage()
    message["From"] = "alice@example.org"
    message.set_content("orders")
    for name in ("a.yaml", "b.yaml"):
        message.add_attachment(f"game: {name}\n".encode(), maintype="application", subtype="yaml", filename=name)
        message.add_attachment(
            b"SIG " + name.encode(), maintype="application", subtype="octet-stream", filename=f"{name}.sig"
        )
    incoming = read_message(bytes(message), OWN)
    assert [(p.origin, p.signature) for p in incoming.orders] == [
        ("attachment a.yaml", b"SIG a.yaml"),
        ("attachment b.yaml", b"SIG b.yaml"),
    ]


def test_format_flowed_is_undone() -> None:
    assert unflow("a long \nline\n> quoted \n> more\n-- \nsig", delsp=False) == "a long line\n> quoted > more\n-- \nsig"
    assert unflow("ab \ncd", delsp=True) == "abcd"
    assert unflow(" From space-stuffed", delsp=False) == "From space-stuffed"


def test_commands_are_read_from_the_body_never_the_subject() -> None:
    assert read_message(mail("\n  Status  my-game\nthanks"), OWN).command.args == ("my-game",)  # type: ignore[union-attr]
    assert read_message(mail("hello"), OWN).command is None


@pytest.mark.parametrize(
    "headers",
    [
        {"Auto_Submitted": "auto-replied"},
        {"Precedence": "bulk"},
        {"List_Id": "<x.example.org>"},
        {"X_Loop": OWN},
        {"From": "MAILER-DAEMON@example.org"},
        {"Return_Path": "<>"},
    ],
)
def test_machine_mail_is_recognised(headers: dict[str, str]) -> None:
    assert read_message(mail("status", **headers), OWN).automatic


def test_auto_submitted_no_is_a_person() -> None:
    assert automatic_reason(EmailMessage(), OWN) is None
    assert read_message(mail("status", Auto_Submitted="no"), OWN).automatic is None


def test_garbage_never_raises() -> None:
    for raw in (b"", b"\x00\xff" * 100, b"From: \r\n\r\n", b"Content-Type: multipart/mixed\r\n\r\n--", b"x" * 10000):
        read_message(raw, OWN)


def _with_files(body: str, files: dict[str, bytes]) -> bytes:
    message = EmailMessage()
    message["From"] = "alice@example.org"
    message.set_content(body)
    for name, data in files.items():
        message.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
    return bytes(message)


def test_a_signature_is_known_by_its_armor_whatever_its_name() -> None:
    incoming = read_message(
        _with_files("orders", {"orders.yaml": b"game: g\n", "orders.yaml.sig.txt": ARMOR.encode()}), OWN
    )
    (part,) = incoming.orders
    assert part.origin == "attachment orders.yaml" and part.signature == ARMOR.encode()


def test_an_attached_file_without_an_order_suffix_is_read_when_it_names_a_game() -> None:
    incoming = read_message(_with_files("orders", {"orders": b"game: g\n", "orders.sig": ARMOR.encode()}), OWN)
    assert [p.origin for p in incoming.orders] == ["attachment orders"]


def test_attachment_forms_undo_what_mail_clients_do() -> None:
    original = "game: g\npurpose: \u00e9claireurs\n".encode()
    sent = original.decode().encode("iso-8859-1").replace(b"\n", b"\r\n").rstrip(b"\r\n")
    forms = attachment_forms(sent, "iso-8859-1")
    assert forms[0] == sent and original in forms
    assert attachment_forms(b"a\r\nb\r\n")[:3] == (b"a\r\nb\r\n", b"a\nb\n", b"a\nb")


def test_a_signature_without_an_order_file_says_to_attach_or_paste_it() -> None:
    incoming = read_message(_with_files("here you go", {"orders.yaml.sig": ARMOR.encode()}), OWN)
    assert incoming.orders == []
    assert "attach the order file" in incoming.problems[0] and "paste it whole" in incoming.problems[0]


def test_orders_pasted_with_their_signature_attached() -> None:
    incoming = read_message(_with_files("Hi,\n\ngame: g\nturn: 1\n-- \nAlice\n", {"orders.sig": ARMOR.encode()}), OWN)
    (part,) = incoming.orders
    assert b"game: g\nturn: 1\n" in part.candidates and part.signature == ARMOR.encode()


def test_a_pasted_signature_goes_to_the_file_attached_without_one() -> None:
    incoming = read_message(_with_files("Signature:\n" + ARMOR, {"orders.yaml": b"game: g\n"}), OWN)
    (part,) = incoming.orders
    assert part.origin == "attachment orders.yaml" and part.signature == ARMOR.encode()


def test_an_html_only_mail_may_carry_the_signature_of_an_attached_file() -> None:
    message = EmailMessage()
    message["From"] = "alice@example.org"
    message.set_content("<div>Signature:</div><div>" + ARMOR.replace("\n", "<br>") + "</div>", subtype="html")
    message.add_attachment(b"game: g\n", maintype="application", subtype="octet-stream", filename="orders.yaml")
    incoming = read_message(bytes(message), OWN)
    (part,) = incoming.orders
    assert incoming.problems == [] and part.signature is not None and BEGIN.encode() in part.signature


def test_outlooks_winmail_dat_gets_a_reply_saying_how_to_send_instead() -> None:
    incoming = read_message(_with_files("orders attached", {"winmail.dat": b"\x78\x9f\x3e\x22"}), OWN)
    assert incoming.orders == [] and "winmail.dat" in incoming.problems[0]


@pytest.mark.parametrize(
    "raw",
    [
        b"From: a@\r\nTo: referee@example.org\r\nSubject: x\r\n\r\nstatus\r\n",  # found by mutating client mails
        b'From: a@example.org\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\n'
        b'Content-Type: text/plain; charset="iso-8859\x00-1"\r\nContent-Disposition: attachment; filename="o.yaml"'
        b"\r\n\r\ngame: g\r\n--b--\r\n",
    ],
)
def test_headers_the_parser_cannot_read_never_raise(raw: bytes) -> None:
    read_message(raw, OWN)
