"""Dramatiq broker set-up and actors; `dramatiq workers` imports this package to find them all."""
from workers import broker  # noqa: F401
from workers import periodic, receipts, sending  # noqa: F401
from workers import letters  # noqa: F401
from workers import callbacks, retention  # noqa: F401  (callbacks also registers the status-change listener)
from workers import reports  # noqa: F401  (the console's messages reports)
from workers import jobs  # noqa: F401  (bulk jobs: their own queue)
