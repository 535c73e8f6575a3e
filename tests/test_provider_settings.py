"""A provider setting that cannot work is refused where it is met: the process that uses it does not
start (one line naming the setting), /_status names it, and the admin API and the console answer a
4xx that says why, never a 500. An SMS gateway the database holds is held to the same rule."""
from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import peewee
import pytest

import config
from config import get_settings
from pipeline.infrastructure import provider_settings
from pipeline.infrastructure.providers.sms import gateways
from tests.admin_helpers import admin_headers, errors
from tests.conftest import _free_port

ROOT = Path(__file__).resolve().parent.parent
TWILIO_SID = "AC" + "0123456789abcdef" * 2

# (settings changed, the one line that names what is wrong)
CASES = [
    ({"sms_gateway_url": "http://sms.example.nl/send"}, "SMS_GATEWAY_URL: is not a valid https url"),
    ({"sms_gateway_url": "https://10.0.0.7/send"}, "SMS_GATEWAY_URL: must be a public internet address"),
    ({"sms_gateways": "[{"}, "SMS_GATEWAYS: not valid JSON"),
    ({"sms_gateways": '{"name": "a"}'}, "SMS_GATEWAYS: must be a JSON array of gateways"),
    ({"sms_gateways": '[{"url": "https://sms.example.nl", "token": "secret-token"}]'},
     "SMS_GATEWAYS: gateway 1 of the array needs a name"),
    ({"sms_gateways": '[{"name": "Gw A", "url": "https://sms.example.nl"}]'},
     "SMS_GATEWAYS: gateway name 'Gw A' does not match ^[a-z0-9][a-z0-9-]{0,62}$"),
    ({"sms_gateways": '[{"name": "sp", "type": "spryng"}]'},
     "SMS_GATEWAYS: SMS gateway sp: a spryng gateway needs a token (its API key)"),
    ({"sms_gateways": '[{"name": "tw", "type": "twilio", "token": "t", "priority": 101}]'},
     "SMS_GATEWAYS: SMS gateway tw: priority must be a whole number from 0 to 100"),
    ({"sms_gateways": '[{"name": "a", "url": "http://sms.example.nl"}]'},
     "SMS_GATEWAYS: SMS gateway a: url is not a valid https url"),
    ({"sms_gateway_url": "https://sms.example.nl", "sms_gateways": '[{"name": "http-gateway", "url": "https://sms2.example.nl"}]'},
     "SMS_GATEWAYS: each gateway needs a name of its own: http-gateway more than once (http-gateway is "
     "SMS_GATEWAY_URL's)"),
    ({"sms_gateway_timeout_seconds": 0.0}, "SMS_GATEWAY_TIMEOUT_SECONDS: must be more than 0 seconds, not 0"),
    ({"smtp_url": "https://user:secret@mail.example.nl"},
     "SMTP_URL: must be smtp://, smtp+starttls:// or smtps:// with a host"),
    ({"smtp_url": "smtp://mail.example.nl:99999"}, "SMTP_URL: is not a valid URL"),
    ({"smtp_fallback_url": "smtp://backup.example.nl"},
     "SMTP_FALLBACK_URL: is set without SMTP_URL, so it would never be used"),
    ({"smtp_url": "smtp://mail.example.nl", "smtp_fallback_url": "mail.example.nl:25"},
     "SMTP_FALLBACK_URL: must be smtp://, smtp+starttls:// or smtps:// with a host"),
    ({"smtp_timeout_seconds": -1.0}, "SMTP_TIMEOUT_SECONDS: must be more than 0 seconds, not -1"),
    ({"sns_host_pattern": "^sns\\.(["}, "SNS_HOST_PATTERN: is not a regular expression: "),
    ({"sns_topic_arns": ("arn:aws:sns:eu-west-1:123456789012:ses-events", "ses-events")},
     "SNS_TOPIC_ARNS: holds what is not a topic ARN (arn:aws:sns:<region>:<account>:<topic>): ses-events"),
    ({"sns_ca_file": "/nonexistent/ca.pem"}, "SNS_CA_FILE: cannot be read as PEM certificates: "),
    ({"print_provider": "postnl"}, "PRINT_PROVIDER: must be one of simulated, directory, sftp, not 'postnl'"),
    ({"print_provider": "sftp", "print_sftp_url": None}, "PRINT_SFTP_URL: must be set with PRINT_PROVIDER=sftp"),
    ({"print_provider": "sftp", "print_sftp_url": "sftp://notify:secret@print.example.nl/drop"},
     "PRINT_SFTP_URL: takes no password: the print house is reached with PRINT_SFTP_KEY_FILE"),
    ({"print_provider": "sftp", "print_sftp_host_key": "MD5:12:34"},
     "PRINT_SFTP_HOST_KEY: must be the server's public key"),
    ({"print_provider": "sftp", "print_sftp_key_file": Path("/nonexistent/print_key")},
     "PRINT_SFTP_KEY_FILE: cannot be read as a private key: "),
    ({"clamd_url": "clamd.example.nl:3310"}, "CLAMD_URL: must be tcp://host:port or unix:///path"),
    ({"throughput": "turbo"}, "THROUGHPUT: must be one of fast, reference, not 'turbo'"),
]


@pytest.fixture
def settings():
    """Settings that pass every rule (the tests' own use the simulators), loopback not allowed."""
    return dataclasses.replace(get_settings(), callbacks_allow_http_loopback=False)


@pytest.fixture
def sftp(tmp_path) -> dict[str, object]:
    """A print house reached by SFTP, set up as it can work: a readable key and a pinned host key."""
    import paramiko

    key_file = tmp_path / "print_key"
    paramiko.RSAKey.generate(2048).write_private_key_file(str(key_file))
    return {"print_provider": "sftp", "print_sftp_url": "sftp://notify@print.example.nl/drop",
            "print_sftp_key_file": key_file, "print_sftp_host_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA=="}


@pytest.fixture
def configure():
    """Run the process-wide settings with changes for the test."""
    before = config.get_settings()

    def change(**changes: object) -> config.Settings:
        config._settings = dataclasses.replace(before, **changes)
        gateways._synced.clear()
        gateways._parsed.clear()
        return config._settings

    yield change
    config._settings = before
    gateways._synced.clear()
    gateways._parsed.clear()


@pytest.mark.parametrize(("changes", "line"), CASES, ids=[line.split(":")[0] + f"-{n}" for n, (_, line) in
                                                         enumerate(CASES)])
def test_each_provider_setting_that_cannot_work_is_named_in_one_line(settings, sftp, changes, line):
    base = dataclasses.replace(settings, **sftp) if changes.get("print_provider") == "sftp" else settings
    # Every rule is a worker's: it sends, prints and scans.
    assert provider_settings.problems(base, provider_settings.WORKER) == []
    found = provider_settings.problems(dataclasses.replace(base, **changes), provider_settings.WORKER)
    assert len(found) == 1 and found[0].startswith(line), found
    assert "secret" not in found[0]  # a line never quotes a password or token


def test_a_process_checks_only_what_it_uses(settings, sftp):
    smtp = dataclasses.replace(settings, smtp_url="mail.example.nl")
    assert provider_settings.problems(smtp, provider_settings.WEB) == []
    assert provider_settings.problems(smtp, provider_settings.CONSOLE) == []
    assert provider_settings.problems(smtp, provider_settings.WORKER) == [
        "SMTP_URL: must be smtp://, smtp+starttls:// or smtps:// with a host"]
    gateway = dataclasses.replace(settings, sms_gateway_url="http://sms.example.nl")
    for process in provider_settings.PROCESSES:
        assert provider_settings.problems(gateway, process) == ["SMS_GATEWAY_URL: is not a valid https url"]
    # /_status (no process named) reads no file that only the workers' hosts need to hold.
    no_key = dataclasses.replace(settings, **{**sftp, "print_sftp_key_file": Path("/nonexistent/print_key")})
    assert provider_settings.problems(no_key) == []
    assert [line.split(":")[0] for line in provider_settings.problems(no_key, provider_settings.WORKER)] == [
        "PRINT_SFTP_KEY_FILE"]


def _stored_loopback_gateway(client) -> str:
    """A gateway added while loopback was allowed (the tests' setting), which production refuses."""
    created = client.post("/admin/sms-gateways", json={"name": "gw-local", "url": "http://127.0.0.1:9/send"},
                          headers=admin_headers())
    assert created.status_code == 201
    return created.get_json()["id"]


def test_status_names_the_setting_and_a_stored_gateway_in_use_it_refuses(client, configure):
    configure(sms_gateway_url="http://sms.example.nl/send")
    response = client.get("/_status")
    assert response.status_code == 503
    assert response.get_json()["settings"] == "SMS_GATEWAY_URL: is not a valid https url"

    configure()
    gateway_id = _stored_loopback_gateway(client)
    assert client.get("/_status").get_json()["settings"] == "ok"
    configure(callbacks_allow_http_loopback=False)
    response = client.get("/_status")
    assert (response.status_code, response.get_json()["settings"]) == (
        503, "SMS gateway gw-local (stored): url is not a valid https url")
    assert client.patch(f"/admin/sms-gateways/{gateway_id}", json={"active": False},
                        headers=admin_headers()).status_code == 200
    assert client.get("/_status").get_json()["settings"] == "ok"  # taken out of use, it harms nothing


def test_the_admin_api_says_why_with_a_4xx_never_a_500(client, configure):
    configure(sms_gateway_url="http://sms.example.nl/send")
    assert errors(client.get("/admin/sms-gateways", headers=admin_headers())) == \
        (409, [("ConfigurationError", "SMS_GATEWAY_URL: is not a valid https url")])

    configure()
    gateway_id = _stored_loopback_gateway(client)
    configure(callbacks_allow_http_loopback=False)
    listed = client.get("/admin/sms-gateways", headers=admin_headers())
    assert listed.status_code == 200
    assert [(g["name"], g["problem"]) for g in listed.get_json()["sms_gateways"]] == [
        ("gw-local", "url is not a valid https url")]
    # Kept in use, it must pass the rule; taken out of use, it can always be.
    assert errors(client.patch(f"/admin/sms-gateways/{gateway_id}", json={"priority": 20},
                               headers=admin_headers())) == (400, [("ValidationError", "url is not a valid https url")])
    assert client.patch(f"/admin/sms-gateways/{gateway_id}", json={"active": False},
                        headers=admin_headers()).status_code == 200
    assert errors(client.patch(f"/admin/sms-gateways/{gateway_id}", json={"active": True},
                               headers=admin_headers())) == (400, [("ValidationError", "url is not a valid https url")])


def test_a_stored_gateway_whose_token_cannot_be_decrypted_is_named(client, configure):
    from models.sms_gateway import SmsGateway

    created = client.post("/admin/sms-gateways", json={"name": "gw-sp", "type": "spryng", "token": "api-key"},
                          headers=admin_headers())
    assert created.status_code == 201
    sealed_elsewhere = peewee.SQL("'v2:not-sealed-by-this-key'")  # as stored, not sealed by SECRET_KEY here
    SmsGateway.update({SmsGateway.token: sealed_elsewhere}).where(SmsGateway.name == "gw-sp").execute()
    line = "SMS gateway gw-sp (stored): its token cannot be decrypted with this SECRET_KEY"
    assert errors(client.get("/admin/sms-gateways", headers=admin_headers())) == (409, [("ConfigurationError", line)])
    assert client.get("/_status").get_json()["settings"] == line


def test_the_console_says_why_in_dutch(configure):
    from console import app as console_app
    from tests.console.service_pages import signed_in_client
    from tests.console.users import create_console_user

    browser = signed_in_client(console_app, create_console_user().user)
    configure(sms_gateway_url="http://sms.example.nl/send")
    response = browser.get("/account/mobile")
    page = response.get_data(as_text=True)
    assert response.status_code == 409
    assert "Deze installatie is niet goed ingesteld" in page
    assert "<code>SMS_GATEWAY_URL: is not a valid https url</code>" in page


PROCESSES = {
    "web": ([sys.executable, "-m", "gunicorn", "app:app", "--bind", "127.0.0.1:{port}"],
            {"SMS_GATEWAY_URL": "http://sms.example.nl/send"}, "SMS_GATEWAY_URL: is not a valid https url"),
    "console": ([sys.executable, "-m", "gunicorn", "console:app", "--bind", "127.0.0.1:{port}",
                 "--no-control-socket"], {"CLAMD_URL": "clamd.example.nl:3310"},
                "CLAMD_URL: must be tcp://host:port or unix:///path"),
    "worker": ([sys.executable, "-m", "workers.supervise", "--processes", "1", "--threads", "1"],
               {"SMTP_URL": "https://mail.example.nl"},
               "SMTP_URL: must be smtp://, smtp+starttls:// or smtps:// with a host"),
    "worker, a stored gateway": ([sys.executable, "-m", "workers.supervise", "--processes", "1", "--threads", "1"],
                                 {"CALLBACKS_ALLOW_HTTP_LOOPBACK": "0"},
                                 "SMS gateway gw-local (stored): url is not a valid https url"),
}


@pytest.mark.parametrize("process", list(PROCESSES))
def test_a_misconfigured_process_refuses_to_start_with_one_line(client, process):
    command, changes, line = PROCESSES[process]
    if "stored" in process:
        _stored_loopback_gateway(client)
    env = {**os.environ, "REDIS_URL": config.redis_url(get_settings()), "WEB_CONCURRENCY": "1", **changes}
    done = subprocess.run([part.format(port=_free_port()) for part in command], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode == provider_settings.EXIT_MISCONFIGURED, output
    refusals = [json.loads(entry)["message"] for entry in output.splitlines() if "refusing to start" in entry]
    assert refusals == [f"refusing to start: {line}"], output
    assert "Traceback" not in output
