"""How many SMS fragments a text message takes, and the per-message length limit."""

from __future__ import annotations

import math
from dataclasses import dataclass

from pipeline.domain.errors import Refusal

# GSM 03.38 default alphabet, code points 0x00-0x7F in order. 0x1B is the escape to the
# extension table, not a character of its own, so it is left out of GSM7_BASIC below.
GSM7_BASIC_TABLE = (
    "@£$¥èéùìòÇ\nØø\rÅå"
    "Δ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ"
    " !\"#¤%&'()*+,-./"
    "0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNO"
    "PQRSTUVWXYZÄÖÑÜ§"
    "¿abcdefghijklmno"
    "pqrstuvwxyzäöñüà"
)
GSM7_BASIC = frozenset(GSM7_BASIC_TABLE) - {"\x1b"}
# GSM 03.38 extension table: each is sent as ESC + code, so it costs two units.
GSM7_EXTENSION = frozenset("\f^{}\\[~]|€")

GSM7_SINGLE_LIMIT = 160
GSM7_MULTIPART_SIZE = 153  # 7 units of every part go to the concatenation header
UCS2_SINGLE_LIMIT = 70
UCS2_MULTIPART_SIZE = 67

SMS_MAX_FRAGMENTS = 6
SMS_CHARACTER_LIMIT = SMS_MAX_FRAGMENTS * GSM7_MULTIPART_SIZE  # 918


@dataclass(frozen=True)
class SmsFragments:
    encoding: str  # "gsm7" or "ucs2"
    characters: int  # length in encoding units: septets for gsm7, UTF-16 code units for ucs2
    fragments: int  # at least 1, even for an empty message


def _gsm7_units(text: str) -> int | None:
    """Septets needed for ``text``, or None when a character is outside GSM-7."""
    units = 0
    for char in text:
        if char in GSM7_BASIC:
            units += 1
        elif char in GSM7_EXTENSION:
            units += 2
        else:
            return None
    return units


def _fragments(units: int, single_limit: int, part_size: int) -> int:
    if units <= single_limit:
        return 1
    return math.ceil(units / part_size)


def sms_fragments(text: str) -> SmsFragments:
    gsm_units = _gsm7_units(text)
    if gsm_units is not None:
        return SmsFragments("gsm7", gsm_units, _fragments(gsm_units, GSM7_SINGLE_LIMIT, GSM7_MULTIPART_SIZE))
    ucs2_units = len(text.encode("utf-16-le")) // 2
    return SmsFragments("ucs2", ucs2_units, _fragments(ucs2_units, UCS2_SINGLE_LIMIT, UCS2_MULTIPART_SIZE))


def non_gsm7_characters(text: str) -> list[str]:
    """The characters, each once in order of appearance, that make a text be sent as UCS-2."""
    return list(dict.fromkeys(char for char in text if char not in GSM7_BASIC and char not in GSM7_EXTENSION))


def sms_too_long(text: str) -> bool:
    """Whether the message is over the limit, counted in encoding units (see SmsFragments)."""
    return sms_fragments(text).characters > SMS_CHARACTER_LIMIT


def sms_too_long_message(length: int) -> Refusal:
    return Refusal("sms_too_long", f"Text messages cannot be longer than {SMS_CHARACTER_LIMIT} characters. "
                   f"Your message is {length} characters.", {"limit": SMS_CHARACTER_LIMIT, "length": length})
