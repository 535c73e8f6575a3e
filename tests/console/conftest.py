"""Browser-test fixtures for the web console.

- `console_app`, `console_client`: the console's Flask app and a test client (no browser).
- `console_server`: the console on a real socket in a thread of this process (same database/Redis).
- `page`: a Playwright page in Debian's chromium (/usr/bin/chromium), a fresh browser context per test;
  a Content-Security-Policy violation on any page it showed fails the test.
- `platform_admin`, `make_user(...)`: accounts with a password and a TOTP second factor.
- `signed_in_admin`, `signed_in_member`: pages already signed in (the member belongs to `service`).
- `local_mailbox`: `dev.py run`'s mail catcher, the console's email sent to it and its mailbox pages on.
Helpers to import: tests.console.browser.assert_accessible(page), sign_in(page, user).
"""
from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import config
from config import get_settings
from tests.console.browser import AXE, CHROMIUM, CHROMIUM_ARGS, sign_in
from tests.console.users import ConsoleUser, create_console_user
from tests.factories import create_sample_template

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def console_app():
    import console

    return console.app


@pytest.fixture
def console_client(console_app):
    return console_app.test_client()


@pytest.fixture(autouse=True)
def _forget_console_counters() -> Iterator[None]:
    """Sign-in counters and codes live in Redis beyond a test: each test starts with none."""
    yield
    from console.redis_state import _client

    for key in _client().scan_iter(f"{get_settings().queue_namespace}:console:*"):
        _client().delete(key)


@pytest.fixture(scope="session")
def console_server(console_app) -> Iterator[str]:
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, console_app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.fixture(scope="session")
def browser(request):
    missing = [str(p) for p in (Path(CHROMIUM), AXE) if not p.exists()]
    if missing:
        # .ci/run installs both; on a developer's machine without them the browser tests say so.
        if os.environ.get("CI"):
            pytest.fail(f"browser tests need {', '.join(missing)}")
        pytest.skip(f"browser tests need {', '.join(missing)} (apt-get install chromium; npm ci in tests/console)")

    playwright = request.getfixturevalue("playwright_session")  # shared with tests/look
    launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield launched
    launched.close()


@pytest.fixture
def page(browser, console_server):
    """A page that fails its test if anything it showed broke the Content-Security-Policy."""
    context = browser.new_context(base_url=console_server, java_script_enabled=True)
    refused: list[str] = []
    context.on("console", lambda message: refused.append(message.text)
               if "Content Security Policy" in message.text else None)
    opened = context.new_page()
    opened.set_default_timeout(15000)
    yield opened
    context.close()
    assert refused == [], refused


@pytest.fixture
def make_user() -> Callable[..., ConsoleUser]:
    return create_console_user


@pytest.fixture
def platform_admin() -> ConsoleUser:
    return create_console_user(platform_admin=True)


@pytest.fixture
def signed_in_admin(page, platform_admin):
    sign_in(page, platform_admin)
    return page


@pytest.fixture
def service_member(service) -> ConsoleUser:
    """A member of `service` with every permission but managing API keys."""
    return create_console_user(service=service, permissions=["view_activity", "send_messages",
                                                             "manage_templates", "manage_service"])


@pytest.fixture
def signed_in_member(page, service_member):
    sign_in(page, service_member)
    return page


@pytest.fixture
def local_mailbox(tmp_path) -> Iterator[Path]:
    """The local mailbox as `dev.py run` starts it without SMTP_URL: the catcher, and the settings dev.py
    gives the other processes (email to the catcher, the console's mailbox pages on); its directory."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    directory = tmp_path / "mailbox"
    catcher = subprocess.Popen([sys.executable, "-m", "local_mailbox", "--port", str(port), "--dir", str(directory)],
                               cwd=ROOT)
    before = config.get_settings()
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.05)
        config._settings = dataclasses.replace(before, smtp_url=f"smtp://127.0.0.1:{port}",
                                               local_mailbox_dir=directory)
        yield directory
    finally:
        config._settings = before
        catcher.terminate()
        catcher.wait(timeout=10)


@pytest.fixture
def templates(service):
    """A text, an email and a letter template of the service, each with a ((naam)): a fallback chain's."""
    return {"sms": create_sample_template(service=service, name="Afspraak", body="Hallo ((naam))"),
            "email": create_sample_template(service=service, template_type="email", name="Afspraak per mail",
                                            subject="Uw afspraak", body="Beste ((naam))"),
            "letter": create_sample_template(service=service, template_type="letter", name="Afspraakbrief",
                                             body="Beste ((naam))")}


@pytest.fixture
def sender(service):
    """A member of the service who may send messages."""
    return create_console_user(service=service, permissions=["send_messages"])
