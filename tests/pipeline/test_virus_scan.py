"""Virus scanning: the built-in EICAR scanner, and the clamd client against small real servers that
speak the INSTREAM protocol over TCP and a Unix socket (threads running socketserver)."""

from __future__ import annotations

import datetime
import hashlib
import io
import shutil
import socket
import socketserver
import struct
import tempfile
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from reportlab.pdfgen.canvas import Canvas

from pipeline.letters.pdf import render_letter_pdf
from pipeline.virus_scan import (
    EICAR,
    ClamdScanner,
    EicarScanner,
    Scanner,
    ScannerUnavailable,
    ScanResult,
    scanner_from_url,
)

# Built from two halves (the first reversed) so this file never holds the test signature whole.
TEST_SIGNATURE = b"}7)CC7)^P(45XZP\\4[PA@%P!O5X"[::-1] + b"$EICAR-STANDARD-ANTIVIRUS-" + b"TEST-FILE!$H+H*"
FOUND = ScanResult(clean=False, signature="Eicar-Test-Signature")
CLEAN = ScanResult(clean=True, signature=None)


def a_letter_pdf() -> bytes:
    return render_letter_pdf(address_lines=["J. Jansen", "Dorpsstraat 1", "1234 AB Ergens"], subject="Hello",
                             body="Body", contact_block=None, date=datetime.date(2026, 11, 22)).data


def test_the_signature_is_the_real_68_byte_eicar_string():
    assert EICAR == TEST_SIGNATURE and len(EICAR) == 68
    assert hashlib.md5(EICAR).hexdigest() == "44d88612fea8a8f36de82e1278abb02f"  # the published EICAR hash


def test_eicar_at_the_start_is_found():
    assert EicarScanner().scan(EICAR) == FOUND
    assert EicarScanner().scan(EICAR + b"\r\n") == FOUND


def test_eicar_embedded_in_the_middle_of_a_pdf_is_found():
    pdf = a_letter_pdf()
    assert EicarScanner().scan(pdf[:500] + EICAR + pdf[500:]) == FOUND


def test_eicar_inside_a_compressed_pdf_stream_is_found():
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pageCompression=1)
    canvas.drawString(100, 700, "An ordinary page")
    canvas.addLiteral("% " + EICAR.decode("ascii"))  # a comment in the page's Flate-compressed content
    canvas.showPage()
    canvas.save()
    pdf = buffer.getvalue()
    assert EICAR not in pdf  # only found by inflating the stream, as ClamAV does
    assert EicarScanner().scan(pdf) == FOUND


def test_eicar_inside_a_zip_based_document_is_found():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/media/test.bin", EICAR)
    assert EicarScanner().scan(buffer.getvalue()) == FOUND


def test_clean_data_is_clean():
    scanner = EicarScanner()
    assert scanner.scan(b"") == CLEAN
    assert scanner.scan(a_letter_pdf()) == CLEAN
    assert scanner.scan(EICAR[:40] + b"  " + EICAR[40:]) == CLEAN  # a broken-up signature is not one
    assert isinstance(scanner, Scanner)


# --- clamd ----------------------------------------------------------------------------------------

class ClamdHandler(socketserver.BaseRequestHandler):
    """Just enough of clamd: zINSTREAM, length-prefixed chunks, a zero chunk, one NUL-ended reply."""

    reply_override: bytes | None = None
    received: list[tuple[bytes, list[int]]] = []

    def read_exact(self, size: int) -> bytes:
        data = b""
        while len(data) < size:
            piece = self.request.recv(size - len(data))
            if not piece:
                raise ConnectionError("client went away")
            data += piece
        return data

    def handle(self) -> None:
        assert self.read_exact(len(b"zINSTREAM\0")) == b"zINSTREAM\0"
        payload, sizes = b"", []
        while True:
            (size,) = struct.unpack(">I", self.read_exact(4))
            if size == 0:
                break
            sizes.append(size)
            payload += self.read_exact(size)
        type(self).received.append((payload, sizes))
        if self.reply_override is not None:
            self.request.sendall(self.reply_override)
        elif TEST_SIGNATURE in payload:
            self.request.sendall(b"stream: Eicar-Test-Signature FOUND\0")
        else:
            self.request.sendall(b"stream: OK\0")


def serve(server: socketserver.BaseServer) -> Iterator[socketserver.BaseServer]:
    ClamdHandler.received = []
    ClamdHandler.reply_override = None
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture
def tcp_clamd() -> Iterator[str]:
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), ClamdHandler)
    for _ in serve(server):
        yield f"tcp://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def unix_clamd() -> Iterator[str]:
    directory = tempfile.mkdtemp(prefix="clamd-", dir="/tmp")  # short: socket paths max out at 108 bytes
    path = str(Path(directory) / "clamd.sock")
    server = socketserver.ThreadingUnixStreamServer(path, ClamdHandler)
    for _ in serve(server):
        yield f"unix://{path}"
    shutil.rmtree(directory, ignore_errors=True)


def test_clamd_over_tcp_reports_found_and_ok(tcp_clamd):
    scanner = ClamdScanner(tcp_clamd, timeout=5)
    assert scanner.scan(b"prefix " + EICAR + b" suffix") == FOUND
    assert scanner.scan(b"an ordinary document") == CLEAN
    assert [payload for payload, _ in ClamdHandler.received] == [b"prefix " + EICAR + b" suffix",
                                                                 b"an ordinary document"]


def test_clamd_stream_is_sent_in_chunks_and_arrives_whole(tcp_clamd):
    data = bytes(range(256)) * 1000  # 256,000 bytes
    assert ClamdScanner(tcp_clamd, timeout=5).scan(data) == CLEAN
    [(payload, sizes)] = ClamdHandler.received
    assert payload == data
    assert len(sizes) == 4 and max(sizes) == ClamdScanner.CHUNK_SIZE == 64 * 1024


def test_clamd_empty_file_sends_only_the_terminating_chunk(tcp_clamd):
    assert ClamdScanner(tcp_clamd, timeout=5).scan(b"") == CLEAN
    assert ClamdHandler.received == [(b"", [])]


def test_clamd_over_a_unix_socket(unix_clamd):
    scanner = scanner_from_url(unix_clamd)
    assert isinstance(scanner, ClamdScanner)
    assert scanner.scan(EICAR) == FOUND
    assert scanner.scan(b"clean") == CLEAN


def test_clamd_error_reply_means_unavailable(tcp_clamd):
    ClamdHandler.reply_override = b"INSTREAM size limit exceeded. ERROR\0"
    with pytest.raises(ScannerUnavailable, match="size limit exceeded"):
        ClamdScanner(tcp_clamd, timeout=5).scan(b"data")


def test_clamd_that_hangs_up_without_answering_is_unavailable(tcp_clamd):
    ClamdHandler.reply_override = b""
    with pytest.raises(ScannerUnavailable):
        ClamdScanner(tcp_clamd, timeout=5).scan(b"data")


def test_clamd_that_never_answers_times_out_as_unavailable():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()  # accepts into the backlog, never reads or replies
        with pytest.raises(ScannerUnavailable):
            ClamdScanner(f"tcp://127.0.0.1:{listener.getsockname()[1]}", timeout=0.3).scan(b"data")


def test_connection_refused_is_unavailable():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again when the block ends: nothing listens there
    with pytest.raises(ScannerUnavailable):
        ClamdScanner(f"tcp://127.0.0.1:{port}", timeout=2).scan(b"data")


def test_missing_unix_socket_is_unavailable(tmp_path):
    with pytest.raises(ScannerUnavailable):
        ClamdScanner(f"unix://{tmp_path}/no-such.sock").scan(b"data")


def test_scanner_from_url():
    assert isinstance(scanner_from_url(None), EicarScanner)
    assert isinstance(scanner_from_url(""), EicarScanner)
    assert isinstance(scanner_from_url("tcp://clamav:3310"), ClamdScanner)
    assert isinstance(scanner_from_url("unix:///run/clamav/clamd.ctl"), ClamdScanner)
    with pytest.raises(ValueError):
        scanner_from_url("http://clamav:3310")
