"""The stage that makes a job's notifications holds one part of its rows at a time: its memory does not
grow with the job, and no decrypted row outlives the job."""
from __future__ import annotations

import gc
import tracemalloc
import uuid
from collections.abc import Iterator

from models.job import FINISHED, Job
from pipeline.stages.jobs import lifecycle, rows
from tests.factories import create_sample_template
from tests.jobs.helpers import csv_file, make_job, phone


def _job(service, template, count: int, marker: str) -> object:
    """The id of a started job of `count` texts, each row's name holding marker."""
    data = csv_file(["Phone number", "name"], [[phone(n), f"{marker} {n}"] for n in range(count)])
    job_id = make_job(service, template, data).id
    assert lifecycle.start_job(job_id)
    return job_id


def _make_notifications(job_id: object) -> None:
    """As the jobs worker does: chunk after chunk while the chunk made says more follow."""
    chunk, more = 0, [True]
    while more[0]:
        more[0] = False
        rows.create_chunk(job_id, chunk, lambda new: None, lambda: more.__setitem__(0, True))
        chunk += 1
    assert Job.get_by_id(job_id).status == FINISHED


def _peak_bytes(job_id: object) -> int:
    tracemalloc.start()
    try:
        _make_notifications(job_id)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_memory_of_a_job_does_not_grow_with_its_rows(service):
    template = create_sample_template(service=service, body="Hello ((name))")
    _make_notifications(_job(service, template, 1000, "warm-up"))  # the process's caches, filled once
    small, large = _job(service, template, 2000, "small"), _job(service, template, 20_000, "large")

    small_peak, large_peak = _peak_bytes(small), _peak_bytes(large)

    # Ten times the rows, the same part (1,000 rows) at a time: the peak stays where it was, where
    # holding the whole job (about 600 bytes a row decrypted) would add some 11 MB.
    assert large_peak < small_peak * 1.3, (small_peak, large_peak)


def _strings_reachable() -> Iterator[str]:
    """Every str that an object the garbage collector tracks refers to, also through the dicts and
    tuples it stops tracking once they hold only strings and numbers."""
    gc.collect()
    seen: set[int] = set()
    stack = list(gc.get_objects())
    while stack:
        obj = stack.pop()
        for referent in gc.get_referents(obj):
            if isinstance(referent, str):
                yield referent
            elif isinstance(referent, (dict, tuple, list)) and not gc.is_tracked(referent) \
                    and id(referent) not in seen:
                seen.add(id(referent))
                stack.append(referent)


def test_no_decrypted_row_of_a_finished_job_stays_in_memory(service):
    template = create_sample_template(service=service, body="Hello ((name))")
    marker = f"row-of-{uuid.uuid4().hex}"  # in every row's name and nowhere else
    job_id = _job(service, template, 2500, marker)

    _make_notifications(job_id)

    left = [text for text in _strings_reachable() if f"{marker} " in text]
    assert left == [], f"{len(left)} strings of the job's rows still referenced, e.g. {left[:3]}"
