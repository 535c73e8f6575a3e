"""What an upgrade changed in what an API shows: each value read before that reads otherwise after."""
from __future__ import annotations

from typing import Any


def changes(before: Any, after: Any, path: str = "") -> list[str]:
    """Each value `before` holds that `after` lost or holds otherwise, by where it is; fields `after`
    adds are no change (a later release may say more). Lists of records with an id are matched by id,
    then checked for order."""
    if isinstance(before, dict) and isinstance(after, dict):
        return [line for key, value in before.items() for line in (
            changes(value, after[key], f"{path}.{key}") if key in after else [f"{path}.{key}: gone (was {value!r})"])]
    if isinstance(before, list) and isinstance(after, list):
        if before and all(isinstance(item, dict) and "id" in item for item in before + after):
            return _records(before, after, path)
        if len(before) != len(after):
            return [f"{path}: {before!r} -> {after!r}"]
        return [line for n, (old, new) in enumerate(zip(before, after, strict=True))
                for line in changes(old, new, f"{path}[{n}]")]
    return [] if before == after else [f"{path}: {before!r} -> {after!r}"]


def _records(before: list[dict[str, Any]], after: list[dict[str, Any]], path: str) -> list[str]:
    now, then = {item["id"]: item for item in after}, {item["id"] for item in before}
    lines = [line for item in before for line in (
        changes(item, now[item["id"]], f"{path}[{item['id']}]") if item["id"] in now
        else [f"{path}: {item['id']} gone (was {item!r})"])]
    lines += [f"{path}: {item['id']} not there before" for item in after if item["id"] not in then]
    order = [item["id"] for item in before], [item["id"] for item in after]
    return lines or ([] if order[0] == order[1] else [f"{path}: order {order[0]} -> {order[1]}"])
