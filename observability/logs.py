"""One JSON object per log line from every process, carrying the ids known where it was written.

The request id comes from the X-Request-Id header (or is made up) in the web process and travels
in each message's options to the workers, and on to the messages they send, so one send can be
followed from the API through every stage. Recipients and tokens are masked in every line.
"""
from __future__ import annotations

import contextvars
import inspect
import logging
import re
import sys
from typing import Any

import dramatiq
from dramatiq.middleware import Middleware
from pythonjsonlogger.json import JsonFormatter

CONTEXT_FIELDS = ("request_id", "service_id", "notification_id", "job_id", "message_id", "actor")
_context: dict[str, contextvars.ContextVar[str | None]] = {
    name: contextvars.ContextVar(name, default=None) for name in CONTEXT_FIELDS}

_EMAIL = re.compile(r"\b([A-Za-z0-9._%+-])[A-Za-z0-9._%+-]*@([A-Za-z0-9.-]+\.[A-Za-z]{2,})\b")
# 10 to 16 digits, maybe after a + and with single spaces: dates, times and ids do not match.
_PHONE = re.compile(r"(?<![\w.:/-])(\+?\d(?: ?\d){9,15})(?![\w.:/-])")
_SECRET = re.compile(r"(?i)(\bbearer |(?:token|secret|password)(?:=|[\"']\s*:\s*[\"']))[^\s\"',;]+")
_JWT = re.compile(r"\beyJ[\w-]+\.[\w-]+\.[\w-]+")


def mask(text: str) -> str:
    """Recipients to their first character and domain or last three digits; tokens dropped."""
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
        record.msg = mask(record.getMessage())
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = mask(logging.Formatter().formatException(record.exc_info))
        return True


def json_formatter(process: str) -> logging.Formatter:
    return JsonFormatter("%(asctime)s %(levelname)s %(name)s %(message)s",
                         rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
                         static_fields={"process_type": process}, timestamp=False)


def configure(process: str, *, level: int = logging.INFO, stream: Any = None) -> None:
    """JSON lines on stderr (or stream) for this process; replaces any handler set before."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(json_formatter(process))
    handler.addFilter(_ContextFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)


def _id_parameters(fn: Any) -> dict[int, str]:
    """Positions of an actor's arguments named like the context fields (notification_id, ...)."""
    names = list(inspect.signature(fn).parameters)
    return {i: name for i, name in enumerate(names) if name in CONTEXT_FIELDS}


class MessageLogContext(Middleware):
    """Carries the request id from the enqueuing thread to the message, and puts the message's
    ids into the worker thread's log context while it runs."""

    def __init__(self) -> None:
        self._positions: dict[str, dict[int, str]] = {}

    def after_process_boot(self, broker: dramatiq.Broker) -> None:
        configure("worker")  # the dramatiq CLI set up plain text lines on its logging pipe (stderr)

    def before_enqueue(self, broker: dramatiq.Broker, message: dramatiq.Message, delay: int) -> None:
        request_id = current("request_id")
        if request_id and "request_id" not in message.options:
            message.options["request_id"] = request_id

    def before_process_message(self, broker: dramatiq.Broker, message: dramatiq.Message) -> None:
        clear()
        if message.actor_name not in self._positions:
            actor = broker.get_actor(message.actor_name)
            self._positions[message.actor_name] = _id_parameters(actor.fn)
        ids = {name: message.args[i] for i, name in self._positions[message.actor_name].items()
               if i < len(message.args)}
        bind(request_id=message.options.get("request_id"), message_id=message.message_id,
             actor=message.actor_name, **ids)

    def after_process_message(self, broker: dramatiq.Broker, message: dramatiq.Message, *,
                              result: Any = None, exception: BaseException | None = None) -> None:
        clear()

    after_skip_message = after_process_message

