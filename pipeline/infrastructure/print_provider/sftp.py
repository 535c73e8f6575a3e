"""The SFTP drop: the directory drop's layout (pipeline/infrastructure/print_provider/directory.py) on the print
house's SFTP server, under the folder PRINT_SFTP_URL names.

A batch is handed over in steps a dropped connection can resume from, without ever handing it over
twice:
1. its files are written into the hidden folder `outbox/.<batch>.partial/`, each under a hidden
   temporary name renamed when complete (a file under its own name with the right size is done);
2. the marker `sent/<batch>` is written: from now on the folder may have been renamed;
3. `outbox/.<batch>.partial` is renamed to `outbox/<batch>` (one rename: the print house sees the
   whole batch or none of it).
Resuming reads where it stopped: `outbox/<batch>` present: handed over; the partial folder present:
not yet renamed, so finish it; neither, but the marker present: renamed, and the print house has
collected the folder since; nothing at all: start afresh. Only the rename removes the partial folder.
"""
from __future__ import annotations

import contextlib
import io
import json
import logging
import posixpath
import stat
from collections.abc import Iterator

import paramiko

from pipeline.infrastructure.print_provider import returns
from pipeline.infrastructure.print_provider.base import PrintBatch, PrintTransferError, ResponseFile
from pipeline.infrastructure.print_provider.directory import parse_answer
from pipeline.infrastructure.print_provider.returns import ReturnsFile
from pipeline.infrastructure.print_provider.ssh import TRANSFER_ERRORS, SftpAccess, connect

log = logging.getLogger(__name__)


def _stat(sftp: paramiko.SFTPClient, path: str) -> paramiko.SFTPAttributes | None:
    try:
        return sftp.stat(path)
    except FileNotFoundError:
        return None


def _make_folders(sftp: paramiko.SFTPClient, *paths: str) -> None:
    for path in paths:
        if _stat(sftp, path) is None:
            parent = posixpath.dirname(path)
            if parent and parent != path:
                _make_folders(sftp, parent)
            try:
                sftp.mkdir(path)
            except OSError:
                if _stat(sftp, path) is None:  # made meanwhile by another worker is fine
                    raise


def _put(sftp: paramiko.SFTPClient, folder: str, name: str, data: bytes) -> None:
    """Write a file under a hidden temporary name, then rename it: its own name means complete."""
    temporary = posixpath.join(folder, f".{name}.partial")
    sftp.putfo(io.BytesIO(data), temporary, file_size=len(data), confirm=True)
    sftp.posix_rename(temporary, posixpath.join(folder, name))


def _json_files(sftp: paramiko.SFTPClient, folder: str) -> list[str]:
    try:
        entries = sftp.listdir_attr(folder)
    except FileNotFoundError:
        return []
    return sorted(entry.filename for entry in entries
                  if entry.filename.endswith(".json") and stat.S_ISREG(entry.st_mode or 0))


def _read(sftp: paramiko.SFTPClient, path: str) -> bytes:
    with sftp.open(path, "rb") as handle:
        return bytes(handle.read())


def _move(sftp: paramiko.SFTPClient, folder: str, name: str, to: str) -> None:
    _make_folders(sftp, posixpath.join(folder, to))
    try:
        sftp.posix_rename(posixpath.join(folder, name), posixpath.join(folder, to, name))
    except FileNotFoundError:
        pass  # a concurrent reader moved it first


class SftpPrintProvider:
    name = "sftp"

    def __init__(self, access: SftpAccess) -> None:
        self.access = access
        root = access.target.root
        self.outbox = posixpath.join(root, "outbox")
        self.inbox = posixpath.join(root, "inbox")
        self.sent = posixpath.join(root, "sent")
        self.returned = posixpath.join(self.inbox, "returned")
        self._open: paramiko.SFTPClient | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.access.target)!r})"

    @contextlib.contextmanager
    def _session(self) -> Iterator[paramiko.SFTPClient]:
        """The session of the read running now (answers are acknowledged while they are read), or a
        new one for this call; transfer failures become PrintTransferError."""
        try:
            if self._open is not None:
                yield self._open
                return
            with connect(self.access) as sftp:
                self._open = sftp
                try:
                    yield sftp
                finally:
                    self._open = None
        except TRANSFER_ERRORS as error:
            raise PrintTransferError(f"transfer with {self.access.target} failed: {error!r}") from error

    def send_batch(self, batch: PrintBatch) -> None:
        final = posixpath.join(self.outbox, batch.id)
        partial = posixpath.join(self.outbox, f".{batch.id}.partial")
        marker = posixpath.join(self.sent, batch.id)
        with self._session() as sftp:
            if _stat(sftp, final) is not None:
                return  # handed over; its hand-over was not recorded before
            started = _stat(sftp, partial) is not None
            if not started and _stat(sftp, marker) is not None:
                return  # renamed before, and collected by the print house since
            _make_folders(sftp, self.outbox, self.sent)
            if not started:
                sftp.mkdir(partial)
            files = {f"{letter.id}.pdf": letter.pdf for letter in batch.letters}
            files["manifest.json"] = json.dumps(batch.manifest(), indent=1).encode()
            present = {entry.filename: entry.st_size for entry in sftp.listdir_attr(partial)}
            for name in present.keys() - files.keys():  # temporary files of a connection that dropped
                sftp.remove(posixpath.join(partial, name))
            for name, data in files.items():
                if present.get(name) != len(data):
                    _put(sftp, partial, name, data)
            with sftp.open(marker, "wb") as handle:
                handle.write(batch.id.encode())
            sftp.rename(partial, final)

    def responses(self) -> Iterator[ResponseFile]:
        with self._session() as sftp:
            for name in _json_files(sftp, self.inbox):
                try:
                    body = _read(sftp, posixpath.join(self.inbox, name))
                except FileNotFoundError:
                    continue  # taken by a concurrent reader
                try:
                    letters = parse_answer(json.loads(body))
                except ValueError as error:
                    log.error("unreadable print provider answer %s on %s: %s", name, self.access.target, error)
                    _move(sftp, self.inbox, name, "rejected")
                    continue
                yield ResponseFile(name=name, letters=letters)

    def acknowledge(self, response: ResponseFile) -> None:
        with self._session() as sftp:
            _move(sftp, self.inbox, response.name, "processed")

    def returns(self) -> Iterator[ReturnsFile]:
        with self._session() as sftp:
            for name in _json_files(sftp, self.returned):
                try:
                    body = _read(sftp, posixpath.join(self.returned, name))
                except FileNotFoundError:
                    continue
                try:
                    returned_on, letters = returns.parse_returns(json.loads(body))
                except ValueError as error:
                    log.error("unreadable returned-letters file %s on %s: %s", name, self.access.target, error)
                    _move(sftp, self.returned, name, "rejected")
                    continue
                yield ReturnsFile(name, returned_on, letters)

    def acknowledge_returns(self, returned: ReturnsFile) -> None:
        with self._session() as sftp:
            _move(sftp, self.returned, returned.name, "processed")
