"""The worker dashboard says when letter batches are held: the print house's SFTP server (a real
OpenSSH server) offers a host key other than the one pinned, so nothing is sent until it is put right."""
from __future__ import annotations

import dataclasses
import os

from config import get_settings
from pipeline.infrastructure.print_provider import provider_for
from pipeline.infrastructure.storage import letter_pdf_key, letter_storage
from pipeline.stages.letters import printing
from tests.console.browser import assert_accessible
from tests.factories import create_notification
from tests.sftp_server import SftpServer, sftp_server  # noqa: F401  (sftp_server: a fixture)


def test_a_batch_held_by_an_unknown_host_key_is_on_the_dashboard(signed_in_admin, sftp_server, service, tmp_path):
    page = signed_in_admin
    for _ in range(2):
        letter = create_notification(service=service, notification_type="letter", billable_units=1)
        letter_storage().put(letter_pdf_key(letter.id), b"%PDF-1.7\n" + os.urandom(100))
    [(batch_id, _)] = printing.claim_batches()
    with SftpServer(tmp_path / "other") as other:
        wrong = other.host_key
    settings = sftp_server.settings(get_settings())
    refused = provider_for(dataclasses.replace(settings, print_sftp_host_key=wrong))
    assert printing.send_batch(batch_id, refused, letter_storage()) == 0

    page.goto("/platform-admin/workers")
    assert "Briefbatches worden vastgehouden: er gaat niets naar de drukker" in page.inner_text("main")
    row = page.locator(f"#held-print-batches tr[data-batch='{batch_id}']")
    assert row.locator("[data-field=letters]").inner_text() == "2"
    reason = row.locator("[data-field=reason]").inner_text()
    assert reason.startswith(f"127.0.0.1:{sftp_server.port} offers host key ssh-ed25519 SHA256:")
    pinned = refused.access.host_key.fingerprint
    assert reason.endswith(f"not the one PRINT_SFTP_HOST_KEY pins ({pinned}): nothing sent")
    assert_accessible(page)

    assert printing.send_batch(batch_id, provider_for(settings), letter_storage()) == 2  # the right key pinned
    page.goto("/platform-admin/workers")
    assert page.locator("#no-held-print-batches").inner_text() == "Er wordt geen briefbatch vastgehouden."
