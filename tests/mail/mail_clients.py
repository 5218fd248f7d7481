"""Mails shaped as real mail clients send a signed order file, byte for byte, for the tests.

Each builder takes the order file and its armored signature (as ssh-keygen wrote them, LF line
ends) and returns the raw mail with CRLF line ends, as it arrives over SMTP or IMAP. The traits
each one reproduces come from messages these clients send:

- `mutt` (2.x): boundary of 16 letters and digits; the body `Content-Disposition: inline`;
  both files detected as text and sent `text/plain; charset=us-ascii` 7bit, so their LF
  line ends go out as CRLF; `filename=` only; a `User-Agent:` header.
- `thunderbird` (115): boundary `------------` + 24 characters; body `text/plain;
  charset=UTF-8; format=flowed`; the order file `application/x-yaml` in base64 with `name=`
  and `filename=` in RFC 2231 form (a non-ASCII name, `filename*=UTF-8''...`); the .sig typed
  `application/pgp-signature` (Thunderbird's type for `.sig`).
- `gmail` (web): `000000000000` + hex boundaries; multipart/mixed holding a
  multipart/alternative (plain and HTML, both quoted-printable); attachments
  `application/octet-stream` in base64 with `Content-ID` and `X-Attachment-Id`, base64 lines
  of 76 characters.
- `outlook` (Microsoft 365): `_004_...prodoutlookcom_` boundaries, plain and HTML in
  quoted-printable `charset="us-ascii"`; the order file `text/plain; charset="iso-8859-1"`
  quoted-printable with CRLF (what a Windows text file becomes), a RFC 2047 encoded `name=`,
  `Content-Description`, and `size=`, `creation-date=` in the disposition.
- `apple_mail` (macOS): `Apple-Mail=_` boundary; the files `Content-Disposition: inline`,
  `x-unix-mode=0644`; the .sig named only by `name=` on its Content-Type; the order file's
  final newline lost before the boundary; the text split around the attachment.

Shapes of what players do, not of one client:

- `pasted_signature`: the file attached, its signature pasted in the body.
- `attached_signature`: the orders pasted in the body, their signature attached.
- `forwarded`: a player's mail with the files, forwarded as a message/rfc822 attachment.
- `flowed_paste`: orders pasted in a `format=flowed` quoted-printable body, a long line
  wrapped by the client.
"""

from __future__ import annotations

import base64
import quopri
import uuid
from collections.abc import Callable
from email.utils import formatdate

REFEREE = "referee@example.org"


def _crlf(text: str) -> bytes:
    return text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")


def _head(sender: str, extra: str = "") -> str:
    return (
        f"From: {sender}\nTo: {REFEREE}\nSubject: orders\nDate: {formatdate(0)}\n"
        f"Message-ID: <{uuid.uuid4().hex}@example.org>\nMIME-Version: 1.0\n{extra}"
    )


def _b64(data: bytes) -> str:
    return base64.encodebytes(data).decode("ascii")  # lines of 76 characters


def _qp(data: bytes) -> str:
    return quopri.encodestring(data.replace(b"\r\n", b"\n")).decode("ascii")


def mutt(sender: str, orders: bytes, signature: bytes) -> bytes:
    boundary = "k3bMJ1tHq0PW9mTS"
    return _crlf(
        _head(sender, "User-Agent: Mutt/2.2.12 (2023-09-09)\n")
        + f'Content-Type: multipart/mixed; boundary="{boundary}"\nContent-Disposition: inline\n\n'
        + f"--{boundary}\nContent-Type: text/plain; charset=us-ascii\nContent-Disposition: inline\n\n"
        + "My orders are attached.\n\n"
        + f"--{boundary}\nContent-Type: text/plain; charset=us-ascii\n"
        + 'Content-Disposition: attachment; filename="orders.yaml"\n\n'
        + orders.decode()
        + f"\n--{boundary}\nContent-Type: text/plain; charset=us-ascii\n"
        + 'Content-Disposition: attachment; filename="orders.yaml.sig"\n\n'
        + signature.decode()
        + f"\n--{boundary}--\n"
    )


def thunderbird(sender: str, orders: bytes, signature: bytes) -> bytes:
    boundary = "------------x5Tj0Cz2Q9aWbN7rLk3mVd1E"
    encoded = "ordres-%C3%A9t%C3%A9.yaml"
    return _crlf(
        _head(sender, "User-Agent: Mozilla/5.0 Thunderbird/115.12.0\nContent-Language: en-US\n")
        + f'Content-Type: multipart/mixed; boundary="{boundary}"\n\nThis is a multi-part message in MIME format.\n'
        + f"--{boundary}\nContent-Type: text/plain; charset=UTF-8; format=flowed\nContent-Transfer-Encoding: 7bit\n\n"
        + "Here are my orders for this turn, with the signature.\n\n"
        + f"--{boundary}\nContent-Type: application/x-yaml; name*=UTF-8''{encoded}\n"
        + f"Content-Disposition: attachment; filename*=UTF-8''{encoded}\nContent-Transfer-Encoding: base64\n\n"
        + _b64(orders)
        + f"--{boundary}\nContent-Type: application/pgp-signature; name*=UTF-8''{encoded}.sig\n"
        + f"Content-Disposition: attachment; filename*=UTF-8''{encoded}.sig\nContent-Transfer-Encoding: base64\n\n"
        + _b64(signature)
        + f"\n--{boundary}--\n"
    )


def gmail(sender: str, orders: bytes, signature: bytes) -> bytes:
    outer, inner = "000000000000f1e2d3c4b5a69788", "000000000000f1e2d3c4b5a69786"
    return _crlf(
        _head(sender)
        + f'Content-Type: multipart/mixed; boundary="{outer}"\n\n'
        + f'--{outer}\nContent-Type: multipart/alternative; boundary="{inner}"\n\n'
        + f'--{inner}\nContent-Type: text/plain; charset="UTF-8"\nContent-Transfer-Encoding: quoted-printable\n\n'
        + "Orders attached=2E\n\n"
        + f'--{inner}\nContent-Type: text/html; charset="UTF-8"\nContent-Transfer-Encoding: quoted-printable\n\n'
        + '<div dir=3D"ltr">Orders attached.</div>\n\n'
        + f"--{inner}--\n"
        + f'--{outer}\nContent-Type: application/octet-stream; name="orders.yaml"\n'
        + 'Content-Disposition: attachment; filename="orders.yaml"\nContent-Transfer-Encoding: base64\n'
        + "Content-ID: <f_lx1a2b3c0>\nX-Attachment-Id: f_lx1a2b3c0\n\n"
        + _b64(orders)
        + f'--{outer}\nContent-Type: application/octet-stream; name="orders.yaml.sig"\n'
        + 'Content-Disposition: attachment; filename="orders.yaml.sig"\nContent-Transfer-Encoding: base64\n'
        + "Content-ID: <f_lx1a2b3c1>\nX-Attachment-Id: f_lx1a2b3c1\n\n"
        + _b64(signature)
        + f"--{outer}--\n"
    )


def outlook(sender: str, orders: bytes, signature: bytes) -> bytes:
    outer = "_004_DM6PR04MB6575A1B2C3D4E5F6DM6PR04MB6575namprd04prodoutlookcom_"
    inner = "_000_DM6PR04MB6575A1B2C3D4E5F6DM6PR04MB6575namprd04prodoutlookcom_"
    dates = 'creation-date="Wed, 25 Nov 2026 07:00:00 GMT"; modification-date="Wed, 25 Nov 2026 07:00:00 GMT"'
    return _crlf(
        _head(sender, "Thread-Topic: orders\nX-MS-Has-Attach: yes\nContent-Language: en-GB\n")
        + f'Content-Type: multipart/mixed; boundary="{outer}"\n\n'
        + f'--{outer}\nContent-Type: multipart/alternative; boundary="{inner}"\n\n'
        + f'--{inner}\nContent-Type: text/plain; charset="us-ascii"\nContent-Transfer-Encoding: quoted-printable\n\n'
        + "Please find my orders attached.\n\n"
        + f'--{inner}\nContent-Type: text/html; charset="us-ascii"\nContent-Transfer-Encoding: quoted-printable\n\n'
        + '<html><body><p class=3D"MsoNormal">Please find my orders attached.</p></body></html>\n\n'
        + f"--{inner}--\n\n"
        + f'--{outer}\nContent-Type: text/plain; charset="iso-8859-1"; name="=?iso-8859-1?Q?orders.yaml?="\n'
        + "Content-Description: orders.yaml\n"
        + f'Content-Disposition: attachment; filename="orders.yaml"; size={len(orders)};\n\t{dates}\n'
        + "Content-Transfer-Encoding: quoted-printable\n\n"
        + _qp(orders)
        + f'\n--{outer}\nContent-Type: application/octet-stream; name="orders.yaml.sig"\n'
        + "Content-Description: orders.yaml.sig\n"
        + f'Content-Disposition: attachment; filename="orders.yaml.sig"; size={len(signature)};\n\t{dates}\n'
        + "Content-Transfer-Encoding: base64\n\n"
        + _b64(signature)
        + f"\n--{outer}--\n"
    )


def apple_mail(sender: str, orders: bytes, signature: bytes) -> bytes:
    boundary = "Apple-Mail=_3F2A9C1E-7B4D-4E2A-9F0C-1D2E3F4A5B6C"
    return _crlf(
        _head(sender, "X-Mailer: Apple Mail (2.3774.500.171.1.1)\nMime-Version: 1.0 (Mac OS X Mail 16.0)\n")
        + f'Content-Type: multipart/mixed; boundary="{boundary}"\n\n\n'
        + f"--{boundary}\nContent-Transfer-Encoding: 7bit\nContent-Type: text/plain;\n\tcharset=us-ascii\n\n"
        + "Hello,\n\n"
        + f"--{boundary}\nContent-Disposition: inline;\n\tfilename=orders.yaml\nContent-Type: text/plain;\n"
        + '\tx-unix-mode=0644;\n\tname="orders.yaml"\nContent-Transfer-Encoding: 7bit\n\n'
        + orders.decode().rstrip("\n")
        + f"\n--{boundary}\nContent-Disposition: inline\nContent-Type: application/octet-stream;\n"
        + '\tx-unix-mode=0644;\n\tname="orders.yaml.sig"\nContent-Transfer-Encoding: 7bit\n\n'
        + signature.decode()
        + f"\n--{boundary}\nContent-Transfer-Encoding: 7bit\nContent-Type: text/plain;\n\tcharset=us-ascii\n\n"
        + "\nBest,\nA.\n\n"
        + f"--{boundary}--\n"
    )


def pasted_signature(sender: str, orders: bytes, signature: bytes) -> bytes:
    boundary = "pastedSig0123456"
    return _crlf(
        _head(sender)
        + f'Content-Type: multipart/mixed; boundary="{boundary}"\n\n'
        + f"--{boundary}\nContent-Type: text/plain; charset=utf-8\n\n"
        + "The file is attached; here is its signature:\n\n"
        + signature.decode()
        + f"\n--{boundary}\nContent-Type: text/plain; charset=us-ascii\n"
        + 'Content-Disposition: attachment; filename="orders.yaml"\n\n'
        + orders.decode()
        + f"\n--{boundary}--\n"
    )


def attached_signature(sender: str, orders: bytes, signature: bytes) -> bytes:
    boundary = "pastedOrders6543"
    return _crlf(
        _head(sender)
        + f'Content-Type: multipart/mixed; boundary="{boundary}"\n\n'
        + f"--{boundary}\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\n"
        + "Hi referee,\n\n"
        + _qp(orders)
        + "\n-- \nAlice\n"
        + f"\n--{boundary}\nContent-Type: application/octet-stream\n"
        + 'Content-Disposition: attachment; filename="orders.sig"\nContent-Transfer-Encoding: base64\n\n'
        + _b64(signature)
        + f"--{boundary}--\n"
    )


def forwarded(sender: str, orders: bytes, signature: bytes) -> bytes:
    boundary = "fwdOuter99999999"
    inner = mutt(sender, orders, signature).decode()
    return _crlf(
        _head(sender, "")
        + f'Content-Type: multipart/mixed; boundary="{boundary}"\n\n'
        + f"--{boundary}\nContent-Type: text/plain; charset=us-ascii\n\nForwarding my orders from my other account.\n\n"
        + f'--{boundary}\nContent-Type: message/rfc822\nContent-Disposition: attachment; filename="orders.eml"\n\n'
        + inner
        + f"\n--{boundary}--\n"
    )


def flowed_paste(sender: str, orders: bytes, signature: bytes) -> bytes:
    # format=flowed: a line longer than the client's width is cut after a space, which stays
    # at the end of the first half ("soft" line break); the reader joins the halves again.
    # A line starting with a space gets one more in front ("space-stuffed", RFC 3676 4.4).
    text = orders.decode()
    flowed = []
    for line in text.split("\n"):
        while len(line) > 40 and " " in line[20:40]:
            cut = line.index(" ", 20) + 1
            flowed.append(line[:cut])
            line = line[cut:]
        flowed.append(line)
    flowed = [" " + line if line.startswith((" ", "From ", ">")) else line for line in flowed]
    body = "Hi,\n\n" + "\n".join(flowed).rstrip("\n") + "\n" + signature.decode()
    return _crlf(
        _head(sender, "Content-Type: text/plain; charset=utf-8; format=flowed\nContent-Transfer-Encoding: 8bit\n")
        + "\n"
        + body
    )


CLIENTS: dict[str, Callable[[str, bytes, bytes], bytes]] = {
    "mutt": mutt,
    "thunderbird": thunderbird,
    "gmail": gmail,
    "outlook": outlook,
    "apple_mail": apple_mail,
    "pasted_signature": pasted_signature,
    "attached_signature": attached_signature,
    "forwarded": forwarded,
    "flowed_paste": flowed_paste,
}
