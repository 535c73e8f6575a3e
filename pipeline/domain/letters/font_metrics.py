"""How wide and how tall a PDF font's glyphs are, read from its font dictionary, for the boxes the
precompiled letter check draws around text (pipeline/domain/letters/precompiled.py).

From the PDF specification (ISO 32000-1:2008): a simple font's /Widths from /FirstChar, with the font
descriptor's /MissingWidth for the rest (9.6.2, 9.8); a composite (Type0) font's descendant CIDFont's
/W and /DW (9.7.4.3); /Ascent and /Descent from the font descriptor (9.8). The 14 standard fonts may
come without /Widths (reportlab writes them so): their metrics are reportlab's, which ships them.
Codes of a composite font are read as two-byte CIDs (Identity-H/V, the common case).
"""
from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reportlab.pdfbase import pdfmetrics

# pypdf's figures for a font that says nothing: the mean of the 14 standard fonts, rounded to 100.
UNKNOWN_ASCENT, UNKNOWN_DESCENT, UNKNOWN_WIDTH = 700.0, -200.0, 500.0
_SIMPLE_CODES = 256  # a simple font's codes are single bytes
_CID_DEFAULT_WIDTH = 1000.0  # /DW when a CIDFont leaves it out (9.7.4.3)
_FIXED_PITCH = 1  # bit 1 of a font descriptor's /Flags (9.8.2)


@dataclass(frozen=True)
class FontMetrics:
    """A font's widths in glyph space (1/1000 of the size, or a Type3 font's own /FontMatrix units)."""

    two_byte: bool
    widths: Mapping[int, float]
    ranges: tuple[tuple[int, int, float], ...]  # a CIDFont's `first last width` entries, sorted
    default: float
    ascent: float
    descent: float

    def width(self, code: int) -> float:
        if code in self.widths:
            return self.widths[code]
        at = bisect.bisect_right(self.ranges, (code, float("inf"), 0.0)) - 1
        if at >= 0 and self.ranges[at][0] <= code <= self.ranges[at][1]:
            return self.ranges[at][2]
        return self.default


def font_metrics(font: Any) -> FontMetrics:
    """The metrics of a font dictionary (pypdf's DictionaryObject of a page's /Font resource)."""
    if font.get("/Subtype") == "/Type0":
        return _composite(font)
    widths: dict[int, float] = {}
    if "/Widths" in font:
        first = int(font.get("/FirstChar", 0))
        listed = font["/Widths"].get_object()
        widths = {code: float(width) for code, width in enumerate(listed, start=first) if 0 <= code < _SIMPLE_CODES}
        descriptor = _descriptor(font)
    elif _standard(font):
        widths, descriptor = _standard_widths(font), _standard_descriptor(font)
    else:
        descriptor = _descriptor(font)
    default = float(descriptor.get("/MissingWidth", 0)) or _guessed_default(widths, int(descriptor.get("/Flags", 0)))
    return FontMetrics(two_byte=False, widths=widths, ranges=(), default=default,
                       ascent=float(descriptor.get("/Ascent", UNKNOWN_ASCENT)),
                       descent=float(descriptor.get("/Descent", UNKNOWN_DESCENT)))


def _composite(font: Any) -> FontMetrics:
    descendants = font.get("/DescendantFonts", [])
    descendants = descendants.get_object() if hasattr(descendants, "get_object") else descendants
    cid_font = descendants[0].get_object() if descendants else {}
    widths, ranges = _cid_widths(cid_font.get("/W", []))
    descriptor = _descriptor(cid_font)
    return FontMetrics(two_byte=True, widths=widths, ranges=tuple(sorted(ranges)),
                       default=float(cid_font.get("/DW", _CID_DEFAULT_WIDTH)),
                       ascent=float(descriptor.get("/Ascent", UNKNOWN_ASCENT)),
                       descent=float(descriptor.get("/Descent", UNKNOWN_DESCENT)))


def _cid_widths(entries: Any) -> tuple[dict[int, float], list[tuple[int, int, float]]]:
    """/W's two forms, mixed: `c [w1 w2 ...]` (widths from c on) and `first last w` (one width for all)."""
    entries = [entry.get_object() if hasattr(entry, "get_object") else entry
               for entry in (entries.get_object() if hasattr(entries, "get_object") else entries)]
    widths: dict[int, float] = {}
    ranges: list[tuple[int, int, float]] = []
    at = 0
    while at + 1 < len(entries):
        first, following = int(entries[at]), entries[at + 1]
        if isinstance(following, list):
            widths.update((first + offset, float(width)) for offset, width in enumerate(following))
            at += 2
        elif at + 2 < len(entries):
            ranges.append((first, int(following), float(entries[at + 2])))
            at += 3
        else:
            break  # a `first last` without its width: the rest says nothing
    return widths, ranges


def _descriptor(font: Any) -> Any:
    descriptor = font.get("/FontDescriptor")
    return descriptor.get_object() if descriptor is not None else {}


def _standard(font: Any) -> bool:
    return str(font.get("/BaseFont", "")).removeprefix("/") in pdfmetrics.standardFonts


def _standard_widths(font: Any) -> dict[int, float]:
    """A standard font's widths, one per code of the encoding reportlab writes it in (WinAnsi, and the
    font's own for Symbol and ZapfDingbats), which is the encoding such a font comes in nearly always."""
    listed = pdfmetrics.getFont(str(font["/BaseFont"]).removeprefix("/")).widths
    return {code: float(width) for code, width in enumerate(listed) if width}


def _standard_descriptor(font: Any) -> dict[str, float]:
    name = str(font["/BaseFont"]).removeprefix("/")
    ascent, descent = pdfmetrics.getAscentDescent(name)
    # 0 and 0 for Symbol and ZapfDingbats, as in their font metrics files
    return {"/Ascent": ascent, "/Descent": descent, "/Flags": _FIXED_PITCH if name.startswith("Courier") else 0}


def _guessed_default(widths: Mapping[int, float], flags: int) -> float:
    """pypdf's guess for a code the font gives no width: the space's width in a fixed-pitch font, twice
    that in a proportional one, else the mean of the widths it gives."""
    if space := widths.get(32):
        return space if flags & _FIXED_PITCH else 2 * space
    known = [width for width in widths.values() if width > 0]
    return sum(known) / len(known) if known else UNKNOWN_WIDTH
