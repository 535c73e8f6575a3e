"""Requests of many threads made as one call (pipeline/together.py), with real threads."""
from __future__ import annotations

import threading

import pytest

from pipeline.together import Together
from tests.conftest import wait_for


def _start(target, *args) -> threading.Thread:
    thread = threading.Thread(target=target, args=args)
    thread.start()
    return thread


def test_requests_that_come_during_a_call_share_the_next_one_and_each_gets_its_own_result():
    calls: list[list[int]] = []
    first_call_may_end = threading.Event()

    def double(numbers: list[int]) -> list[int]:
        calls.append(numbers)
        if len(calls) == 1:
            first_call_may_end.wait(10)
        return [2 * n for n in numbers]

    together = Together(double)
    results: dict[int, int] = {}

    def request(n: int) -> None:
        results[n] = together(n)

    threads = [_start(request, 1)]
    wait_for(lambda: calls == [[1]])
    threads += [_start(request, n) for n in range(2, 12)]
    wait_for(lambda: len(together._waiting) == 10)  # all ten wait behind the call under way
    first_call_may_end.set()
    for thread in threads:
        thread.join(10)

    assert calls[0] == [1] and len(calls) == 2 and sorted(calls[1]) == list(range(2, 12))
    assert results == {n: 2 * n for n in range(1, 12)}


def test_a_request_alone_is_made_at_once():
    together = Together(lambda words: [word.upper() for word in words])
    assert together("a") == "A" and together("b") == "B"


def test_a_call_that_fails_raises_in_every_thread_it_carried_and_the_next_call_is_made():
    calls: list[list[str]] = []
    first_call_may_end = threading.Event()

    def refuse_the_second(words: list[str]) -> list[str]:
        calls.append(words)
        if len(calls) == 1:
            first_call_may_end.wait(10)
        if len(calls) == 2:
            raise ConnectionError("refused")
        return words

    together = Together(refuse_the_second)
    outcomes: dict[str, str] = {}

    def request(word: str) -> None:
        try:
            outcomes[word] = together(word)
        except ConnectionError as exc:
            outcomes[word] = f"raised {exc}"

    threads = [_start(request, "first")]
    wait_for(lambda: len(calls) == 1)
    threads += [_start(request, word) for word in ("x", "y", "z")]
    wait_for(lambda: len(together._waiting) == 3)
    first_call_may_end.set()
    for thread in threads:
        thread.join(10)

    assert outcomes == {"first": "first", "x": "raised refused", "y": "raised refused", "z": "raised refused"}
    assert together("after") == "after"  # the failure is not kept


def test_a_call_that_answers_for_too_few_requests_raises():
    together = Together(lambda words: [])
    with pytest.raises(ValueError):
        together("lost")
