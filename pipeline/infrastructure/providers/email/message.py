"""Build the MIME message for one email notification.

multipart/alternative with text/plain first and text/html last (RFC 2046: the last part is the
richest, so clients prefer the HTML), both UTF-8. The headers follow RFC 5322, plus RFC 8058 one-click
unsubscribe when the service gave us a URL.
"""
from __future__ import annotations

from datetime import UTC, datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from pipeline.infrastructure.providers.errors import EmailMessageData


def parse_address(value: str) -> Address:
    """"Name <local@domain>" or "local@domain" as an Address.

    Split at the last "<" rather than running a header parser, because a display name built from
    a service name may hold commas or quotes that a parser would read as several addresses.
    """
    value = value.strip()
    if value.endswith(">") and "<" in value:
        name, _, addr = value[:-1].rpartition("<")
        return Address(display_name=_unquote(_one_line(name)), addr_spec=addr.strip())
    return Address(addr_spec=value)


def _unquote(name: str) -> str:
    # Accept the name bare or as an RFC 5322 quoted string ('"Name"', as formataddr writes it);
    # Address quotes it again when the header is written.
    if len(name) >= 2 and name[0] == name[-1] == '"':
        return name[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return name


def build_email(message: EmailMessageData) -> EmailMessage:
    sender = parse_address(message.from_address)
    email = EmailMessage()
    email["From"] = sender
    email["To"] = parse_address(message.to)
    # A rendered subject should be one line already; a stray newline must not become a header
    # break (and EmailMessage would refuse it), so whitespace is collapsed here.
    email["Subject"] = _one_line(message.subject)
    if message.reply_to:
        email["Reply-To"] = parse_address(message.reply_to)
    email["Date"] = format_datetime(datetime.now(UTC))
    # The notification id in the left part lets a bounce or a reply be traced back to us. The
    # sender's domain on the right avoids socket.getfqdn(), which can stall on a reverse DNS lookup.
    email["Message-ID"] = make_msgid(idstring=message.notification_id, domain=sender.domain or None)
    if message.one_click_unsubscribe_url:
        email["List-Unsubscribe"] = f"<{message.one_click_unsubscribe_url}>"
        email["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    # Quoted-printable keeps every byte 7-bit: left to itself EmailMessage picks 8bit for non-ASCII
    # text, which smtplib would send without announcing BODY=8BITMIME to the server.
    email.set_content(message.text_body, charset="utf-8", cte="quoted-printable")
    email.add_alternative(message.html_body, subtype="html", charset="utf-8", cte="quoted-printable")
    return email


def _one_line(text: str) -> str:
    return " ".join(text.split())
