"""Every console page in Dutch: a platform admin with Dutch chosen follows every link from the dashboard
of a service with something in every area (tests/console/full_service.py), then opens the pages behind a
form (a spreadsheet's check page and its problems, a message's preview) and the console's own emails in
the local mailbox; no page shows a string of the English catalogue left untranslated, a raw value (a
status code, a permission's or provider's name) or an English sentence the catalogues never saw
(tests/console/crawl.py)."""
from __future__ import annotations

import io
import re

import local_mailbox as mailbox
from models.job import FINISHED, SCHEDULED, Job
from models.platform import PLATFORM_SERVICE_ID
from models.template import Template
from tests.conftest import running_worker, wait_for
from tests.console.crawl import Page, followed, problems, read_page, untranslated
from tests.console.full_service import full_service
from tests.console.service_pages import csrf_token, signed_in_client
from tests.jobs.helpers import csv_file

# Not pages to read: switching the language, files (CSV reports, PDFs, example files), the static files; and
# the platform's own service, whose templates are the console's emails written out in Dutch and in English.
SKIP = ("/language/", "/static/", ".csv", ".pdf", ".xlsx", "/download", f"/services/{PLATFORM_SERVICE_ID}")
MAX_PAGES = 400


def _walk(client, start: list[str], catalogue) -> tuple[list[str], list[str]]:
    """(the pages read, what a Dutch reader should not have met on them)."""
    seen: set[str] = set(start)
    queue, found, visited = list(start), [], []
    while queue and len(visited) < MAX_PAGES:
        url = queue.pop(0)
        response = client.get(url, follow_redirects=True)
        visited.append(url)
        assert response.status_code == 200, f"{url}: {response.status_code}"
        if response.mimetype != "text/html":
            continue
        html = response.get_data(as_text=True)
        assert '<html lang="nl">' in html, url
        page = read_page(url, html)
        found += problems(page, catalogue)
        queue += followed(page, seen, SKIP)
    assert not queue, f"more than {MAX_PAGES} pages"
    return visited, found


def _behind_forms(client, service, catalogue) -> list[str]:
    """The pages a form leads to: a spreadsheet with problems, one checked, and a message's preview."""
    found = []
    template = Template.get((Template.service == service) & (Template.template_type == "sms")
                            & (Template.archived == False))  # noqa: E712
    upload = f"/services/{service.id}/send/{template.id}/upload"

    def post(url: str, **data: object):
        return client.post(url, data={"csrf_token": csrf_token(client, url), **data},
                           content_type="multipart/form-data")

    for rows in ([["06123", ""]], [["0612345678", "Jan"]]):
        answer = post(upload, file=(io.BytesIO(csv_file(["telefoonnummer", "naam"], rows)), "lijst.csv"))
        if answer.status_code == 302:
            answer = client.get(answer.headers["Location"])
        found += problems(read_page(upload, answer.get_data(as_text=True)), catalogue)
    one = f"/services/{service.id}/send/{template.id}/one"
    for fields in ({"phone_number": "12"}, {"phone_number": "0612345678", "placeholder_0": "Jan",
                                            "placeholder_1": "morgen"}):
        answer = client.post(one, data={"csrf_token": csrf_token(client, one), "action": "preview", **fields})
        found += problems(read_page(one, answer.get_data(as_text=True)), catalogue)
    return found


def _emails(directory, catalogue) -> list[str]:
    """The console's own emails as they arrived, their text read as a page's."""
    found = []
    for mail in mailbox.messages(directory):
        text = Page(f"email to {mail.to}", texts=[mail.subject or "", *(mail.text or "").split("\n")])
        found += problems(text, catalogue)
    return found


def test_every_page_reached_from_the_dashboard_is_dutch(console_app, tmp_path, local_mailbox, live_server):
    made = full_service(tmp_path)
    # A worker sends the invitation to the local mailbox and runs the spreadsheet; the pages are read after.
    with running_worker():  # generous bounds: the machine may be loaded
        wait_for(lambda: len(mailbox.messages(local_mailbox)) >= 1, timeout=120)
        wait_for(lambda: Job.select().where(Job.status.not_in([FINISHED, SCHEDULED])).count() == 0, timeout=120)
    client = signed_in_client(console_app, made.admin.user)
    with client.session_transaction() as session:
        session["lang"] = "nl"
    catalogue = untranslated()
    start = [f"/services/{made.service.id}/dashboard", f"/services/{made.trial.id}", "/services", "/"]
    visited, found = _walk(client, start, catalogue)
    assert len(visited) > 150, visited  # the walk reached every area, not only the dashboard
    assert {re.sub(r"/[0-9a-f-]{36,}", "/…", url).split("?")[0] for url in visited} >= {
        "/services/…/history", "/services/…/api-integration", "/services/…/delivery-events",
        "/services/…/conversations/…", "/services/…/jobs/…", "/platform-admin/local-mailbox/…",
        "/platform-admin/services/…/go-live", "/organisations/…/go-live/…", "/services/…/templates/…/versions"}
    found += _behind_forms(client, made.service, catalogue)
    found += _emails(local_mailbox, catalogue)
    assert not found, "\n".join(found)
