"""Virus scanning: the built-in EICAR scanner, and the clamd client against a real clamd (Debian's
clamav-daemon, tests/clamd_server.py) over TCP and a Unix socket.

What a real clamd cannot be made to do (accept and never answer, hang up without a word) is shown
with a bare listening socket; no fake speaks the protocol."""

from __future__ import annotations

import datetime
import hashlib
import io
import socket
import threading
import zipfile

import pytest
from reportlab.pdfgen.canvas import Canvas

from pipeline.domain.letters.pdf import render_letter_pdf
from pipeline.infrastructure.virus_scan import (
    EICAR,
    ClamdScanner,
    EicarScanner,
    Scanner,
    ScannerUnavailable,
    ScanResult,
    scanner_from_url,
)
from tests.clamd_server import EICAR_FOUND, OWN_FOUND, OWN_MARKER, STREAM_MAX, clamd  # noqa: F401

# Built from two halves (the first reversed) so this file never holds the test signature whole.
TEST_SIGNATURE = b"}7)CC7)^P(45XZP\\4[PA@%P!O5X"[::-1] + b"$EICAR-STANDARD-ANTIVIRUS-" + b"TEST-FILE!$H+H*"
FOUND = ScanResult(clean=False, signature="Eicar-Test-Signature")
CLEAN = ScanResult(clean=True, signature=None)


def a_letter_pdf() -> bytes:
    return render_letter_pdf(address_lines=["J. Jansen", "Dorpsstraat 1", "1234 AB Ergens"], subject="Hello",
                             body="Body", contact_block=None, date=datetime.date(2026, 11, 22)).data


def pdf_with_in_a_compressed_stream(text: str) -> bytes:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pageCompression=1)
    canvas.drawString(100, 700, "An ordinary page")
    canvas.addLiteral("% " + text)  # a comment in the page's Flate-compressed content
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def zipped(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr(name, data)
    return buffer.getvalue()


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
    pdf = pdf_with_in_a_compressed_stream(EICAR.decode("ascii"))
    assert EICAR not in pdf  # only found by inflating the stream, as ClamAV does
    assert EicarScanner().scan(pdf) == FOUND


def test_eicar_inside_a_zip_based_document_is_found():
    assert EicarScanner().scan(zipped("word/media/test.bin", EICAR)) == FOUND


def test_clean_data_is_clean():
    scanner = EicarScanner()
    assert scanner.scan(b"") == CLEAN
    assert scanner.scan(a_letter_pdf()) == CLEAN
    assert scanner.scan(EICAR[:40] + b"  " + EICAR[40:]) == CLEAN  # a broken-up signature is not one
    assert isinstance(scanner, Scanner)


# --- clamd ----------------------------------------------------------------------------------------

def found(signature: str) -> ScanResult:
    return ScanResult(clean=False, signature=signature)


def test_clamd_over_tcp_finds_eicar_and_our_own_signature(clamd):
    scanner = ClamdScanner(clamd.tcp_url, timeout=10)
    assert scanner.scan(EICAR) == found(EICAR_FOUND)
    assert scanner.scan(b"prefix " + EICAR + b" suffix") == found(EICAR_FOUND)
    assert scanner.scan(b"a letter that says " + OWN_MARKER) == found(OWN_FOUND)
    assert scanner.scan(b"an ordinary document") == CLEAN
    assert scanner.scan(a_letter_pdf()) == CLEAN


def test_clamd_over_a_unix_socket(clamd):
    scanner = scanner_from_url(clamd.unix_url)
    assert isinstance(scanner, ClamdScanner)
    assert scanner.scan(EICAR) == found(EICAR_FOUND)
    assert scanner.scan(b"clean") == CLEAN


def test_clamd_looks_inside_compressed_pdf_streams_and_zips(clamd):
    scanner = ClamdScanner(clamd.tcp_url, timeout=10)
    pdf = pdf_with_in_a_compressed_stream(EICAR.decode("ascii"))
    assert EICAR not in pdf
    assert scanner.scan(pdf) == found(EICAR_FOUND)
    assert scanner.scan(zipped("word/media/test.bin", EICAR)) == found(EICAR_FOUND)
    assert scanner.scan(pdf_with_in_a_compressed_stream(OWN_MARKER.decode("ascii"))) == found(OWN_FOUND)


def test_clamd_gets_a_stream_of_many_chunks_whole(clamd):
    """Four chunks of 64 KiB; the marker straddles the third boundary, so it is found only if every
    chunk arrived, in order."""
    boundary = 3 * ClamdScanner.CHUNK_SIZE
    data = bytearray(b"." * (boundary + 40_000))
    data[boundary - 10:boundary - 10 + len(OWN_MARKER)] = OWN_MARKER
    assert ClamdScanner(clamd.tcp_url, timeout=10).scan(bytes(data)) == found(OWN_FOUND)
    assert ClamdScanner(clamd.tcp_url, timeout=10).scan(b"." * (boundary + 40_000)) == CLEAN


def test_clamd_empty_stream_is_clean(clamd):
    assert ClamdScanner(clamd.tcp_url, timeout=10).scan(b"") == CLEAN


def test_clamd_refusing_a_stream_over_its_limit_is_unavailable_not_clean(clamd):
    with pytest.raises(ScannerUnavailable, match="size limit exceeded"):
        ClamdScanner(clamd.tcp_url, timeout=10).scan(b"." * (STREAM_MAX + 1))


def test_clamd_that_hangs_up_without_answering_is_unavailable():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()

        def hang_up() -> None:
            # Read the whole request before closing: closing with bytes still unread makes the
            # kernel answer with a reset instead of an orderly end, which is another failure.
            connection, _ = listener.accept()
            received = b""
            while not received.endswith(b"data\0\0\0\0"):
                received += connection.recv(64)
            connection.close()

        thread = threading.Thread(target=hang_up)
        thread.start()
        with pytest.raises(ScannerUnavailable, match="answered 'nothing'"):
            ClamdScanner(f"tcp://127.0.0.1:{listener.getsockname()[1]}", timeout=5).scan(b"data")
        thread.join()


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
