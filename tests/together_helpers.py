"""Making requests of a Together (pipeline/together.py) wait behind a call, so a test knows they
are taken by one call."""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

from pipeline.together import Together
from tests.conftest import wait_for


@contextlib.contextmanager
def call_under_way(together: Together, plug: Any) -> Iterator[None]:
    """A call (for the request `plug`) that lasts until the block ends: requests made in the block
    wait for it, then the next call takes them all."""
    entered, may_end = threading.Event(), threading.Event()
    original = together._call

    def held(arguments: list) -> list:
        if not entered.is_set():
            entered.set()
            may_end.wait(10)
        return original(arguments)

    together._call = held
    plugging = threading.Thread(target=together, args=(plug,))
    plugging.start()
    try:
        wait_for(entered.is_set)
        yield
    finally:
        may_end.set()
        plugging.join(10)
        together._call = original
