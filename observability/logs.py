"""One JSON object per log line from every process, carrying the ids known where it was written.

The request id comes from the X-Request-Id header (or is made up) in the web process and travels
in each message's options to the workers, and on to the messages they send, so one send can be
followed from the API through every stage. Recipients, tokens and the secret part of links are
masked in every line, by the formatter every handler writes with (the web and console processes'
gunicorn access and error lines too).
"""
from __future__ import annotations

import contextvars
import logging
import re
import sys
from typing import Any

from pythonjsonlogger.json import JsonFormatter

from observability.outages import OutageFilter

CONTEXT_FIELDS = ("request_id", "service_id", "notification_id", "job_id", "message_id", "actor")
_context: dict[str, contextvars.ContextVar[str | None]] = {
    name: contextvars.ContextVar(name, default=None) for name in CONTEXT_FIELDS}

_EMAIL = re.compile(r"\b([A-Za-z0-9._%+-])[A-Za-z0-9._%+-]*@([A-Za-z0-9.-]+\.[A-Za-z]{2,})\b")
# 10 to 16 digits, maybe after a + and with single spaces: dates, times and ids do not match.
_PHONE = re.compile(r"(?<![\w.:/-])(\+?\d(?: ?\d){9,15})(?![\w.:/-])")
_SECRET = re.compile(r"(?i)(\bbearer |(?:token|secret|password)(?:=|[\"']\s*:\s*[\"']))[^\s\"',;]+")
_JWT = re.compile(r"\beyJ[\w-]+\.[\w-]+\.[\w-]+")
# Links whose path holds the credential (invitation and set-up, password reset, email change, unsubscribe), also
# URL-encoded inside another URL's query, and file download links' ?key=.
_SLASH = r"(?:/|%2F)"
_LINK_TOKEN = re.compile(
    rf"(?i)({_SLASH}(?:invitation|reset-password|email{_SLASH}confirm){_SLASH}|{_SLASH}unsubscribe{_SLASH}[\w-]+{_SLASH})[^\s/?#&\"'<>%]+")
_QUERY_KEY = re.compile(r"(?i)([?&]key=)[^\s&#\"'<>]+")
# A citizen's BSN where a case's role (inpBsn) or a party query (partijIdentificator__objectId) names it (issue 52).
_BSN = re.compile(r"(?i)((?:inpBsn|objectId|bsn)[\"']?\s*[=:]\s*[\"']?)\d{9}\b")


def mask(text: str) -> str:
    """Recipients to their first character and domain or last three digits; tokens and BSNs dropped."""
    text = _BSN.sub(r"\1***", _LINK_TOKEN.sub(r"\1***", _QUERY_KEY.sub(r"\1***", text)))
    text = _JWT.sub("***", _SECRET.sub(r"\1***", text))
    text = _EMAIL.sub(r"\1***@\2", text)
    return _PHONE.sub(lambda m: "***" + re.sub(r"\D", "", m.group(1))[-3:], text)


def bind(**values: Any) -> None:
    """Set context fields of this thread (or greenlet) for the lines it logs from now on."""
    for name, value in values.items():
        _context[name].set(None if value is None else str(value))


def current(name: str) -> str | None:
    return _context[name].get()


def clear() -> None:
    for var in _context.values():
        var.set(None)


class _ContextFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        for name, var in _context.items():
            value = var.get()
            if value is not None and not hasattr(record, name):
                setattr(record, name, value)
        return True


class _MaskingJsonFormatter(JsonFormatter):
    """JSON lines whose message, traceback and stack have gone through mask()."""

    def format(self, record: logging.LogRecord) -> str:
        record.msg, record.args = mask(record.getMessage()), None
        return super().format(record)

    def formatException(self, ei: Any) -> str:  # noqa: N802 (logging's name)
        return mask(super().formatException(ei))

    def formatStack(self, stack_info: str) -> str:  # noqa: N802
        return mask(super().formatStack(stack_info))


def json_formatter(process: str) -> logging.Formatter:
    return _MaskingJsonFormatter("%(asctime)s %(levelname)s %(name)s %(message)s",
                         rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
                         static_fields={"process_type": process}, timestamp=False)


def configure(process: str, *, level: int = logging.INFO, stream: Any = None) -> None:
    """JSON lines on stderr (or stream) for this process; replaces any handler set before."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(json_formatter(process))
    handler.addFilter(_ContextFilter())
    # An outage of Redis or the database: a line when it starts and one when it ends, not one per try.
    handler.addFilter(OutageFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    logging.getLogger("pika").setLevel(logging.WARNING)  # a line per connection opened and closed
