"""The SFTP print provider against a real OpenSSH server (tests/sftp_server.py): batches arrive under
their final name only, a pinned host key is the only one accepted, a dropped connection resumes the
batch without handing it over twice, and answers and returns are read from the server."""
from __future__ import annotations

import base64
import dataclasses
import json
import os
import threading
import uuid

import pytest

from config import get_settings
from pipeline.infrastructure.print_provider import (
    LetterResponse,
    PrintBatch,
    PrintHeld,
    PrintLetter,
    PrintTransferError,
    SftpPrintProvider,
    SimulatedPrintProvider,
    answering_providers,
    provider_for,
)
from pipeline.infrastructure.print_provider.returns import ReturnedLetter
from pipeline.infrastructure.print_provider.ssh import HostKeyPin, SftpTarget, fingerprint
from tests.conftest import wait_for
from tests.sftp_server import SftpServer, sftp_server  # noqa: F401  (sftp_server: a fixture)


def a_letter(size: int = 2000) -> PrintLetter:
    return PrintLetter(str(uuid.uuid4()), "second", 1, "Netherlands", b"%PDF-1.7\n" + os.urandom(size))


def provider(server: SftpServer, **changes) -> SftpPrintProvider:
    made = provider_for(dataclasses.replace(server.settings(get_settings()), **changes))
    assert isinstance(made, SftpPrintProvider)
    return made


def files_on(server: SftpServer) -> list[str]:
    """Every path in the drop, relative to it."""
    return sorted(str(path.relative_to(server.drop)) for path in server.drop.rglob("*"))


def assert_handed_over(server: SftpServer, batch: PrintBatch) -> None:
    folder = server.drop / "outbox" / batch.id
    assert sorted(p.name for p in folder.iterdir()) == sorted([*(f"{x.id}.pdf" for x in batch.letters),
                                                               "manifest.json"])
    for letter in batch.letters:
        assert (folder / f"{letter.id}.pdf").read_bytes() == letter.pdf
    assert json.loads((folder / "manifest.json").read_text()) == batch.manifest()
    assert [p.name for p in (server.drop / "outbox").iterdir()] == [batch.id]  # no partial folder left


def test_a_batch_arrives_under_its_final_name(sftp_server):
    batch = PrintBatch("20261126T100000-abc", [a_letter(), a_letter()])
    provider(sftp_server).send_batch(batch)
    assert_handed_over(sftp_server, batch)
    assert not [name for name in files_on(sftp_server) if ".partial" in name]


def test_a_batch_sent_again_is_a_no_op_even_after_the_print_house_collected_it(sftp_server):
    batch = PrintBatch("b1", [a_letter()])
    sftp = provider(sftp_server)
    sftp.send_batch(batch)
    sftp.send_batch(batch)  # the rename's answer was lost: the folder is there
    assert_handed_over(sftp_server, batch)
    folder = sftp_server.drop / "outbox" / "b1"
    for path in folder.iterdir():  # the print house collects it
        path.unlink()
    folder.rmdir()
    sftp.send_batch(batch)  # ... before we knew the rename was made
    assert files_on(sftp_server) == ["outbox", "sent", "sent/b1"]


def test_a_complete_partial_folder_is_renamed_on_the_next_try(sftp_server):
    """The connection dropped after the marker was written, before the rename: the next try renames."""
    batch = PrintBatch("b1", [a_letter()])
    partial = sftp_server.drop / "outbox" / ".b1.partial"
    partial.mkdir(parents=True)
    (partial / f"{batch.letters[0].id}.pdf").write_bytes(batch.letters[0].pdf)
    (partial / "manifest.json").write_text(json.dumps(batch.manifest(), indent=1))
    (sftp_server.drop / "sent").mkdir()
    (sftp_server.drop / "sent" / "b1").write_text("b1")
    provider(sftp_server).send_batch(batch)
    assert_handed_over(sftp_server, batch)


def _sending_in_the_background(sftp_server, batch: PrintBatch) -> tuple[threading.Thread, list[PrintTransferError]]:
    """The batch's send started on a thread of its own, and the list its failure lands in."""
    failures: list[PrintTransferError] = []

    def send() -> None:
        try:
            provider(sftp_server).send_batch(batch)
        except PrintTransferError as error:
            failures.append(error)

    thread = threading.Thread(target=send)
    thread.start()
    return thread, failures


def test_a_connection_killed_mid_batch_is_resumed_and_the_batch_handed_over_once(sftp_server):
    batch = PrintBatch("b1", [a_letter(1_000_000) for _ in range(20)])
    partial = sftp_server.drop / "outbox" / ".b1.partial"
    first, failures = _sending_in_the_background(sftp_server, batch)
    wait_for(lambda: partial.is_dir() and len([p for p in partial.iterdir() if p.name.endswith(".pdf")]) >= 3,
             interval=0.001)
    sftp_server.pause_sessions()  # hold the server where it is, look, then drop the connection
    done_before = {p.name: p.stat().st_ino for p in partial.iterdir() if p.name.endswith(".pdf")}
    assert not (sftp_server.drop / "outbox" / "b1").exists() and len(done_before) < len(batch.letters)
    assert sftp_server.kill_sessions()
    first.join(timeout=30)
    assert len(failures) == 1, "the killed connection failed the first try"

    provider(sftp_server).send_batch(batch)
    assert_handed_over(sftp_server, batch)
    folder = sftp_server.drop / "outbox" / "b1"
    # The files complete before the drop were kept, not written again.
    assert {name: (folder / name).stat().st_ino for name in done_before} == done_before
    assert not [name for name in files_on(sftp_server) if ".partial" in name]


def test_a_server_stopped_mid_batch_and_started_again(sftp_server):
    batch = PrintBatch("b1", [a_letter(1_000_000) for _ in range(10)])
    partial = sftp_server.drop / "outbox" / ".b1.partial"
    first, failures = _sending_in_the_background(sftp_server, batch)
    wait_for(lambda: partial.is_dir() and any(p.name.endswith(".pdf") for p in partial.iterdir()), interval=0.001)
    sftp_server.pause_sessions()
    sftp_server.stop()
    first.join(timeout=30)
    assert len(failures) == 1
    with pytest.raises(PrintTransferError, match="cannot reach"):
        provider(sftp_server).send_batch(batch)  # the server is down
    sftp_server.start()
    provider(sftp_server).send_batch(batch)
    assert_handed_over(sftp_server, batch)


def test_an_unknown_host_key_sends_nothing(sftp_server, tmp_path):
    with SftpServer(tmp_path / "other") as other:  # the key of another server is pinned
        wrong = other.host_key
    offered = HostKeyPin.parse(sftp_server.host_key).fingerprint
    with pytest.raises(PrintHeld) as held:
        provider(sftp_server, print_sftp_host_key=wrong).send_batch(PrintBatch("b1", [a_letter()]))
    assert str(held.value) == (
        f"127.0.0.1:{sftp_server.port} offers host key ssh-ed25519 {offered}, not the one PRINT_SFTP_HOST_KEY pins "
        f"({HostKeyPin.parse(wrong).fingerprint}): nothing sent")
    assert files_on(sftp_server) == []
    # Nor is anything read from it.
    (sftp_server.drop / "inbox").mkdir()
    (sftp_server.drop / "inbox" / "1.json").write_text(json.dumps({"batch": "b1", "letters": []}))
    with pytest.raises(PrintHeld):
        list(provider(sftp_server, print_sftp_host_key=wrong).responses())
    assert files_on(sftp_server) == ["inbox", "inbox/1.json"]


def test_a_changed_host_key_sends_nothing(sftp_server):
    pinned = sftp_server.host_key
    sftp_server.stop()
    sftp_server.new_host_key()
    sftp_server.start()
    with pytest.raises(PrintHeld, match="not the one PRINT_SFTP_HOST_KEY pins"):
        provider(sftp_server, print_sftp_host_key=pinned).send_batch(PrintBatch("b1", [a_letter()]))
    assert files_on(sftp_server) == []


def test_the_host_key_pinned_by_its_fingerprint(sftp_server):
    pin = fingerprint(_blob(sftp_server.host_key))
    batch = PrintBatch("b1", [a_letter()])
    provider(sftp_server, print_sftp_host_key=pin).send_batch(batch)
    assert_handed_over(sftp_server, batch)


def test_a_refused_client_key_holds(sftp_server):
    (sftp_server.folder / "authorized_keys").write_text("")
    with pytest.raises(PrintHeld, match=f"refused the key in {sftp_server.key_file} for user {sftp_server.user}"):
        provider(sftp_server).send_batch(PrintBatch("b1", [a_letter()]))
    with pytest.raises(PrintHeld, match="private key file .* cannot be read"):
        provider(sftp_server, print_sftp_key_file=sftp_server.folder / "missing").send_batch(
            PrintBatch("b1", [a_letter()]))
    assert files_on(sftp_server) == []


def test_answers_and_returns_are_read_over_sftp(sftp_server):
    inbox = sftp_server.drop / "inbox"
    (inbox / "returned").mkdir(parents=True)
    ok, refused = str(uuid.uuid4()), str(uuid.uuid4())
    (inbox / "2.json").write_text(json.dumps({"batch": "b1", "letters": [
        {"id": ok, "status": "dispatched"}, {"id": refused, "status": "refused", "reason": "unreadable barcode"}]}))
    (inbox / "1.json").write_text("{not json")
    (inbox / ".3.json.partial").write_text("{}")  # still being written by the print house
    (inbox / "returned" / "r1.json").write_text(json.dumps(
        {"batch": "r1", "returned_on": "2026-11-20", "letters": [{"id": ok}, {"reference": "ref-1"}]}))
    (inbox / "returned" / "r0.json").write_text(json.dumps({"batch": "r0", "letters": []}))  # no date
    sftp = provider(sftp_server)

    answers = sftp.responses()
    [answer] = list(answers)
    assert answer.letters == [LetterResponse(ok, "dispatched"),
                              LetterResponse(refused, "refused", "unreadable barcode")]
    sftp.acknowledge(answer)
    [returned] = list(sftp.returns())
    assert (returned.name, returned.returned_on.isoformat(), returned.letters) == (
        "r1.json", "2026-11-20", [ReturnedLetter(ok, None), ReturnedLetter(None, "ref-1")])
    sftp.acknowledge_returns(returned)
    assert files_on(sftp_server) == [
        "inbox", "inbox/.3.json.partial", "inbox/processed", "inbox/processed/2.json", "inbox/rejected",
        "inbox/rejected/1.json", "inbox/returned", "inbox/returned/processed", "inbox/returned/processed/r1.json",
        "inbox/returned/rejected", "inbox/returned/rejected/r0.json"]
    assert list(sftp.responses()) == [] and list(sftp.returns()) == []


def test_answers_acknowledged_while_read_share_one_connection(sftp_server):
    inbox = sftp_server.drop / "inbox"
    inbox.mkdir()
    for n in range(3):
        (inbox / f"{n}.json").write_text(json.dumps({"batch": "b1", "letters": []}))
    sftp = provider(sftp_server)
    for answer in sftp.responses():
        sftp.acknowledge(answer)
        assert len(sftp_server.sessions()) <= 2  # one connection (its sshd processes), not one per file
    assert sorted(p.name for p in (inbox / "processed").iterdir()) == ["0.json", "1.json", "2.json"]
    wait_for(lambda: not sftp_server.sessions())  # closed once read


def test_provider_choice(sftp_server):
    settings = sftp_server.settings(get_settings())
    made = provider_for(settings)
    assert isinstance(made, SftpPrintProvider)
    assert made.access.target == SftpTarget(sftp_server.user, "127.0.0.1", sftp_server.port, str(sftp_server.drop))
    # Test-key letters go to the simulator in a folder of this machine, never to the print house.
    assert [type(p) for p in answering_providers(settings)] == [SftpPrintProvider, SimulatedPrintProvider]
    assert provider_for(settings, simulated=True).root == settings.print_drop_dir / "simulated"


@pytest.mark.parametrize(("changes", "message"), [
    ({"print_sftp_host_key": None},
     "PRINT_PROVIDER=sftp needs PRINT_SFTP_URL, PRINT_SFTP_KEY_FILE and PRINT_SFTP_HOST_KEY"),
    ({"print_sftp_url": "https://print.example.nl/drop"}, "PRINT_SFTP_URL must look like sftp://user@host:22/path"),
    ({"print_sftp_url": "sftp://print.example.nl/drop"}, "PRINT_SFTP_URL must look like sftp://user@host:22/path"),
    ({"print_sftp_url": "sftp://notify:secret@print.example.nl/drop"}, "PRINT_SFTP_URL takes no password"),
    ({"print_sftp_host_key": "ssh-ed25519"}, "PRINT_SFTP_HOST_KEY must be the server's public key"),
    ({"print_sftp_host_key": "ssh-dss AAAAB3NzaC1kc3M="}, "PRINT_SFTP_HOST_KEY must be the server's public key"),
    ({"print_sftp_host_key": "MD5:12:34"}, "PRINT_SFTP_HOST_KEY must be the server's public key"),
])
def test_settings_that_cannot_work_are_refused(changes, message):
    settings = dataclasses.replace(get_settings(), print_provider="sftp",
                                   print_sftp_url="sftp://notify@print.example.nl/drop",
                                   print_sftp_key_file="/etc/notify/print_key",
                                   print_sftp_host_key="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA==")
    with pytest.raises(ValueError, match=message.replace(".", r"\.").replace("(", r"\(")):
        provider_for(dataclasses.replace(settings, **changes))


def test_a_url_without_a_path_is_the_login_folder():
    assert SftpTarget.parse("sftp://notify@print.example.nl:2222") == SftpTarget(
        "notify", "print.example.nl", 2222, ".")
    assert SftpTarget.parse("sftp://notify@print.example.nl/") == SftpTarget("notify", "print.example.nl", 22, "/")
    assert SftpTarget.parse("sftp://notify@print.example.nl/in%20box/") == SftpTarget(
        "notify", "print.example.nl", 22, "/in box")


def _blob(public_key_line: str) -> bytes:
    return base64.b64decode(public_key_line.split()[1])
