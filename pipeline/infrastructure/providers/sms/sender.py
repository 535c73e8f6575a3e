"""What every real SMS provider asks of a sender and an encoding, each in its own fields.

A sender is either alphanumeric (at most 11 characters, letters, digits and spaces: what a phone
shows as the sender's name; no replies possible) or a long number (digits, international form),
which recipients can answer. A text is sent as GSM-7 when every character is in the GSM 03.38
alphabet, and as Unicode (UCS-2) otherwise: the same rule pipeline/domain/cost.py counts fragments by, so
the provider bills what we counted.
"""
from __future__ import annotations

import re

from pipeline.domain.cost import sms_fragments
from pipeline.infrastructure.providers.errors import TECHNICAL_FAILURE, FinalProviderError

ALPHANUMERIC_MAX = 11
_NUMBER = re.compile(r"^\+?[0-9][0-9 ]*$")
_ALPHANUMERIC = re.compile(r"^[A-Za-z0-9 ]+$")


def is_number(sender: str) -> bool:
    return bool(_NUMBER.match(sender.strip()))


def number_digits(sender: str) -> str:
    """A long number as digits in international form: "+31 6 1234" and "0031 6 1234" -> "3161234"."""
    digits = sender.replace(" ", "").lstrip("+")
    return digits[2:] if digits.startswith("00") else digits


def checked(sender: str, provider: str) -> str:
    """The sender as given, or FinalProviderError (technical: our configuration) for one no
    provider takes: an alphanumeric one over 11 characters or with other characters."""
    sender = sender.strip()
    if is_number(sender):
        return sender
    if len(sender) > ALPHANUMERIC_MAX or not _ALPHANUMERIC.match(sender):
        raise FinalProviderError(TECHNICAL_FAILURE, f"{provider} takes an alphanumeric sender of at most "
                                 f"{ALPHANUMERIC_MAX} letters, digits and spaces, not {sender!r}")
    return sender


def is_gsm7(body: str) -> bool:
    return sms_fragments(body).encoding == "gsm7"
