"""Which SMS gateway a text goes to, and which ones after it if that one certainly did not take it.

Pure: the caller supplies the gateways, which of them are out of rotation (their circuit is open,
pipeline/infrastructure/providers/sms/circuit.py) or slow with their receipts, and a random draw in [0, 1).
"""
from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

# A gateway whose receipts come back slowly keeps this fraction of its share (Notify lowers such a
# provider's priority in the same spirit: switch-current-sms-provider-on-slow-delivery).
SLOW_SHARE = 0.5


@dataclass(frozen=True)
class Candidate:
    name: str
    priority: int  # share of the sends relative to the others; 0: only when no other can take it
    supports_international: bool
    active: bool = True


def share(candidate: Candidate, slow: Collection[str]) -> float:
    return candidate.priority * (SLOW_SHARE if candidate.name in slow else 1.0)


def order(candidates: Collection[Candidate], *, international: bool, unavailable: Collection[str] = (),
          slow: Collection[str] = (), draw: float) -> list[str]:
    """The gateways to try, in turn: the first drawn by share, then the others by share, largest first.

    Inactive gateways, those that cannot send abroad (for an international number) and those out of
    rotation are left out; an empty list means none can take the text now.
    """
    eligible = [c for c in candidates if c.active and c.name not in unavailable
                and (c.supports_international or not international)]
    by_share = sorted(eligible, key=lambda c: (-share(c, slow), c.name))
    total = sum(share(c, slow) for c in by_share)
    if total <= 0:
        return [c.name for c in by_share]
    point, first = draw * total, by_share[0]
    for candidate in by_share:
        point -= share(candidate, slow)
        if point < 0:
            first = candidate
            break
    return [first.name] + [c.name for c in by_share if c is not first]
