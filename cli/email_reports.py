"""Bounce and abuse reports an MTA pipes in, one message on stdin."""
from __future__ import annotations

import json

import click
from flask import Flask


def register(app: Flask) -> None:
    @app.cli.command("read-email-report")
    def read_email_report() -> None:
        """Read one bounce (RFC 3464) or abuse report (RFC 5965) on stdin, as an MTA pipe delivers it.

        A message that is neither is dropped with a note (exit 0: the MTA must not bounce it back);
        exit 75 (EX_TEMPFAIL) when the database is unreachable, so the MTA tries again later.
        """
        import sys

        from models.outages import UNAVAILABLE
        from pipeline.infrastructure.providers.email.events import to_json
        from pipeline.infrastructure.providers.email.reports import read_report
        from workers.receipts import apply_posted_email_events

        events = read_report(sys.stdin.buffer.read())
        if not events:
            click.echo("not a delivery status notification or abuse report: ignored", err=True)
            return
        try:
            apply_posted_email_events("smtp", [to_json(event) for event in events])
        except UNAVAILABLE as error:
            click.echo(f"database unavailable, try again later: {error}", err=True)
            raise click.exceptions.Exit(75) from None
        click.echo(json.dumps({"events": [to_json(event) for event in events]}))
