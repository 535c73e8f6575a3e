"""The local mailbox of `python3 dev.py run` without SMTP_URL: a mail catcher the email provider sends
to, so the console's own emails (set-up links, invitations, codes) arrive somewhere on a first run.

The catcher (`python -m local_mailbox --port N --dir D`, started by dev.py) is an aiosmtpd server
on 127.0.0.1 that writes each message it takes as one `.eml` file into D. The console runs in other
processes, so it reads the directory (messages(), message()) rather than asking the catcher: files
need no protocol of their own and keep the mail across restarts. A file is written under a
temporary name and renamed, so a reader never sees half a message.
"""
from __future__ import annotations

import argparse
import logging
import os
import re
import signal
import threading
import time
import uuid
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

MAILBOX_LIMIT = 200  # the newest this many messages are listed
_NAME = re.compile(r"^\d{20}-[0-9a-f]{32}\.eml$")


@dataclass(frozen=True)
class Mail:
    id: str
    received_at: float  # seconds since the epoch
    to: str
    sender: str
    subject: str
    text: str | None
    html: str | None


class _Handler:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 (aiosmtpd's hook name)
        name = f"{time.time_ns():020d}-{uuid.uuid4().hex}.eml"
        partial = self.directory / f".{name}.part"
        partial.write_bytes(envelope.original_content or envelope.content)
        partial.rename(self.directory / name)
        return "250 OK: kept in the local mailbox"


def serve(port: int, directory: Path) -> None:
    """Take mail on 127.0.0.1:port until SIGTERM or SIGINT."""
    from aiosmtpd.controller import Controller

    directory.mkdir(parents=True, exist_ok=True)
    controller = Controller(_Handler(directory), hostname="127.0.0.1", port=port)
    controller.start()
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    print(f"local mailbox at      smtp://127.0.0.1:{port} (messages kept in {directory})", flush=True)
    stop.wait()
    controller.stop()


def _read(path: Path) -> Mail:
    parsed: EmailMessage = message_from_bytes(path.read_bytes(), policy=policy.default)  # type: ignore[assignment]
    text = parsed.get_body(preferencelist=("plain",))
    html = parsed.get_body(preferencelist=("html",))
    return Mail(id=path.stem, received_at=int(path.stem.split("-")[0]) / 1e9, to=str(parsed.get("To", "")),
                sender=str(parsed.get("From", "")), subject=str(parsed.get("Subject", "")),
                text=text.get_content() if text is not None else None,
                html=html.get_content() if html is not None else None)


def messages(directory: Path) -> list[Mail]:
    """The newest messages first."""
    if not directory.is_dir():
        return []
    names = sorted((p for p in directory.iterdir() if _NAME.match(p.name)), reverse=True)[:MAILBOX_LIMIT]
    return [_read(path) for path in names]


def message(directory: Path, mail_id: str) -> Mail | None:
    """One message by its id; None for an id that names no message (nor anything outside the directory)."""
    path = directory / f"{mail_id}.eml"
    if not _NAME.match(path.name) or not path.is_file():
        return None
    return _read(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--dir", type=Path, required=True)
    args = parser.parse_args()
    # aiosmtpd logs every SMTP command at INFO.
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    os.umask(0o077)  # the mail holds sign-in codes and set-up links: for this user only
    serve(args.port, args.dir)


if __name__ == "__main__":
    main()
