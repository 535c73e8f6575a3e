"""Dramatiq broker set-up and actors; `dramatiq workers` imports this package to find them all."""
# Imported for what importing them does: the broker's set-up, every actor declared on it (bulk jobs
# on their own queue, the console's messages reports), and callbacks' status-change listener.
from workers import (  # noqa: F401
    broker,
    callbacks,
    jobs,
    letters,
    periodic,
    receipts,
    reports,
    retention,
    sending,
)
