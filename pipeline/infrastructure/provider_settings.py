"""Every provider setting's rule: what makes it unusable, said in one line that names the setting.

Each rule is checked in three places (docs/architecture.md#settings-that-cannot-work-stop-the-process): a
process that uses the setting refuses
to start with it (`refuse_to_start`, from app.py, console/, workers/supervise.py), `/_status` names it
(api/monitoring.py), and a request that needs it is answered 409 rather than failing inside (the SMS
gateways' rule is also the admin API's, pipeline/infrastructure/providers/sms/gateways.py). An SMS gateway the
database holds is checked by the same rule as one given in configuration.

Rules that read a file of this host (a key, a CA bundle) are left to the processes that use the
file: on several hosts, a web host need not hold the worker's SFTP key.
"""
from __future__ import annotations

import logging
import re
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import paramiko
import peewee

from config import Settings
from models.outages import DATABASE_UNAVAILABLE
from pipeline.infrastructure import outbound, throughput
from pipeline.infrastructure.print_provider import PROVIDERS
from pipeline.infrastructure.print_provider.ssh import HostKeyPin, SftpTarget
from pipeline.infrastructure.providers.email import smtp
from pipeline.infrastructure.providers.sms import gateways
from pipeline.infrastructure.virus_scan import clamd_url_problem

log = logging.getLogger(__name__)

WEB, CONSOLE, WORKER = "web", "console", "worker"
PROCESSES = (WEB, CONSOLE, WORKER)
# Exit status of a process that refuses to start: gunicorn's master stops on a worker that exits 4
# ("App failed to load") instead of starting another in its place, and the rest follow suit.
EXIT_MISCONFIGURED = 4
# arn:aws:sns:eu-west-1:123456789012:ses-events (aws-cn and aws-us-gov partitions too).
_TOPIC_ARN = re.compile(r"^arn:aws(-cn|-us-gov)?:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$")


@dataclass(frozen=True)
class Rule:
    setting: str
    problem: Callable[[Settings], str | None]  # what is wrong, after the setting's name; None: usable
    used_by: frozenset[str]
    reads_host_file: bool = False


def _positive(value: float) -> str | None:
    return None if value > 0 else f"must be more than 0 seconds, not {value:g}"


def _smtp_fallback(settings: Settings) -> str | None:
    if not settings.smtp_fallback_url:
        return None
    if not settings.smtp_url:
        return "is set without SMTP_URL, so it would never be used"
    return smtp.url_problem(settings.smtp_fallback_url)


def _sns_host_pattern(settings: Settings) -> str | None:
    try:
        re.compile(settings.sns_host_pattern)
    except re.error as error:
        return f"is not a regular expression: {error}"
    return None


def _sns_topic_arns(settings: Settings) -> str | None:
    wrong = [arn for arn in settings.sns_topic_arns if not _TOPIC_ARN.match(arn)]
    return f"holds what is not a topic ARN (arn:aws:sns:<region>:<account>:<topic>): {', '.join(wrong)}" \
        if wrong else None


def _ca_file_problem(path: str | None) -> str | None:
    if not path:
        return None
    try:
        ssl.create_default_context(cafile=path)
    except (OSError, ssl.SSLError) as error:
        return f"cannot be read as PEM certificates: {error}"
    return None


def _private_networks(settings: Settings) -> str | None:
    wrong = [problem for text in settings.case_events_private_networks if (problem := outbound.network_problem(text))]
    return "; ".join(wrong) or None


def _sftp(settings: Settings, problem: Callable[[str], str | None], value: str | None) -> str | None:
    if settings.print_provider != "sftp":
        return None
    if not value:
        return "must be set with PRINT_PROVIDER=sftp"
    return problem(value)


def _sftp_key_file(settings: Settings) -> str | None:
    def unreadable(path: str) -> str | None:
        try:
            paramiko.PKey.from_path(Path(path))
        except (OSError, paramiko.SSHException, ValueError) as error:
            return f"cannot be read as a private key: {error}"
        return None

    return _sftp(settings, unreadable, str(settings.print_sftp_key_file or ""))


_EVERYWHERE = frozenset(PROCESSES)
_WEB_AND_WORKER = frozenset({WEB, WORKER})
_WORKER = frozenset({WORKER})
RULES = (
    Rule("SMS_GATEWAY_URL", gateways.url_setting_problem, _EVERYWHERE),
    Rule("SMS_GATEWAYS", gateways.gateways_setting_problem, _EVERYWHERE),
    Rule("SMS_GATEWAY_TIMEOUT_SECONDS", lambda s: _positive(s.sms_gateway_timeout_seconds), _WORKER),
    Rule("SMTP_URL", lambda s: smtp.url_problem(s.smtp_url) if s.smtp_url else None, _WORKER),
    Rule("SMTP_FALLBACK_URL", _smtp_fallback, _WORKER),
    Rule("SMTP_TIMEOUT_SECONDS", lambda s: _positive(s.smtp_timeout_seconds), _WORKER),
    Rule("SNS_HOST_PATTERN", _sns_host_pattern, _WEB_AND_WORKER),
    Rule("SNS_TOPIC_ARNS", _sns_topic_arns, _WEB_AND_WORKER),
    Rule("SNS_CA_FILE", lambda s: _ca_file_problem(s.sns_ca_file), _WEB_AND_WORKER, reads_host_file=True),
    Rule("PRINT_PROVIDER", lambda s: None if s.print_provider in PROVIDERS
         else f"must be one of {', '.join(PROVIDERS)}, not {s.print_provider!r}", _WORKER),
    Rule("PRINT_SFTP_URL", lambda s: _sftp(s, SftpTarget.problem, s.print_sftp_url), _WORKER),
    Rule("PRINT_SFTP_KEY_FILE", _sftp_key_file, _WORKER, reads_host_file=True),
    Rule("PRINT_SFTP_HOST_KEY", lambda s: _sftp(s, HostKeyPin.problem, s.print_sftp_host_key), _WORKER),
    Rule("PRINT_SFTP_TIMEOUT_SECONDS", lambda s: _positive(s.print_sftp_timeout_seconds)
         if s.print_provider == "sftp" else None, _WORKER),
    Rule("CLAMD_URL", lambda s: clamd_url_problem(s.clamd_url) if s.clamd_url else None, _EVERYWHERE),
    Rule("THROUGHPUT", lambda s: throughput.setting_problem(s.throughput), _EVERYWHERE),
    # The web (admin API) and the console save links and subscribe synchronously; the worker reads the APIs.
    Rule("CASE_EVENTS_PRIVATE_NETWORKS", _private_networks, _EVERYWHERE),
    Rule("CASE_EVENTS_CA_FILE", lambda s: _ca_file_problem(s.case_events_ca_file), _EVERYWHERE, reads_host_file=True),
)


def problems(settings: Settings, process: str | None = None) -> list[str]:
    """What is wrong with the provider settings `process` uses (None: all of them, but for files of
    other processes' hosts), a line each: "<SETTING>: <what is wrong>"."""
    found = []
    for rule in RULES:
        wanted = process in rule.used_by if process is not None else \
            not (rule.reads_host_file and WEB not in rule.used_by)
        if wanted and (problem := rule.problem(settings)):
            found.append(f"{rule.setting}: {problem}")
    return found


def stored_gateway_problems() -> list[str]:
    """The SMS gateways in use that the database holds and the rules refuse, a line each."""
    return gateways.stored_problems()


def refuse_to_start(settings: Settings, process: str) -> None:
    """Stop this process, one CRITICAL line per setting it uses that cannot work, before it serves
    anything. A worker also refuses gateways in use that the database holds (the admin API changes
    them without a restart); web and console serve on, so that the admin API can put them right."""
    found = problems(settings, process)
    if process == WORKER:
        try:
            found += stored_gateway_problems()
        except (*DATABASE_UNAVAILABLE, peewee.ProgrammingError) as error:  # not a misconfiguration
            log.warning("SMS gateways in the database not checked at start-up (database unavailable or not "
                        "migrated yet): %s", error)
    if not found:
        return
    for line in found:
        log.critical("refusing to start: %s", line)
    raise SystemExit(EXIT_MISCONFIGURED)

