"""Checks on uploaded ("precompiled") letter PDFs, with pypdf: readable, A4 portrait, not too long,
and nothing printed outside the printable area.

pypdf does not render pages, so "where is the ink" is worked out by walking each page's content
stream with a small graphics-state tracker (CTM, clip box, text matrices, fill/stroke colour) and
taking the bounding box of what would paint: text runs (advance widths from the font's /Widths or
/W, height from the font descriptor's ascent/descent), path bounding boxes (control points, padded
by half the line width), images and inline images (the unit square under the CTM), form XObjects
(recursively, clipped to their /BBox), shadings (the current clip) and printable annotations.
Content painted in white, invisible text (render mode 3/7) and content clipped away are ignored.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from pypdf import PageObject, PdfReader
from pypdf.errors import PyPdfError
from pypdf.generic import ContentStream, DictionaryObject

from pipeline.domain.errors import Refusal

from . import geometry as g
from .font_metrics import UNKNOWN_WIDTH, FontMetrics, font_metrics
from .pdf import MAX_SHEETS, sheets_for_pages

# pypdf reports malformed input through many exception types besides its own (it parses hostile
# bytes with plain Python); all of them mean "not a PDF we can use", nothing else is caught.
_READ_ERRORS = (PyPdfError, ValueError, TypeError, KeyError, IndexError, AttributeError,
                AssertionError, RecursionError, OSError, struct.error, zlib.error)
_MAX_FORM_DEPTH = 12
Matrix = tuple[float, float, float, float, float, float]
Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in page (default user space) points
_IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
_UNIT_SQUARE = [(0.0, 0.0), (1.0, 1.0), (0.0, 1.0), (1.0, 0.0)]  # where images land, before the CTM
# Text state operators with one number: the _State attribute they set and the unit conversion.
_TEXT_STATE = {b"Tc": ("char_spacing", 1.0), b"Tw": ("word_spacing", 1.0), b"Tz": ("h_scale", 0.01),
               b"TL": ("leading", 1.0), b"Ts": ("rise", 1.0)}


class NotAPdf(ValueError):
    """pypdf cannot read the bytes as a PDF with at least one page."""


@dataclass(frozen=True)
class PrecompiledCheck:
    ok: bool
    pages: int
    sheets: int
    problems: list[Refusal]


def _reader(data: bytes) -> PdfReader:
    # PDF readers accept the header anywhere in the first 1024 bytes; pypdf alone would also try
    # to "repair" arbitrary bytes that merely end in a trailer-like shape.
    if b"%PDF-" not in data[:1024]:
        raise NotAPdf("no PDF header")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise NotAPdf("encrypted with a password")
        if len(reader.pages) == 0:
            raise NotAPdf("no pages")
    except _READ_ERRORS as error:
        raise NotAPdf(str(error)) from error
    return reader


def check_is_pdf(data: bytes) -> int:
    """Page count of a readable PDF. Raises NotAPdf ("Letter content is not a valid PDF")."""
    return len(_reader(data).pages)


def _mul(m: Matrix, n: Matrix) -> Matrix:
    """m then n (PDF row-vector convention: p' = p x m x n)."""
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F)


def _apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    return x * m[0] + y * m[2] + m[4], x * m[1] + y * m[3] + m[5]


def _bbox(points: list[tuple[float, float]], m: Matrix = _IDENTITY) -> Box:
    moved = [_apply(m, x, y) for x, y in points]
    xs, ys = [p[0] for p in moved], [p[1] for p in moved]
    return min(xs), min(ys), max(xs), max(ys)


def _intersect(a: Box | None, b: Box | None) -> Box | None:
    if a is None or b is None:
        return None
    box = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    return box if box[0] <= box[2] and box[1] <= box[3] else None


def _nums(operands: list[Any]) -> list[float]:
    return [float(o) for o in operands]


def _white(operands: list[Any]) -> bool:
    """Gray 1, RGB 1 1 1 or CMYK 0 0 0 0 paints nothing on white paper. Patterns never count as white."""
    try:
        values = _nums(operands)
    except (TypeError, ValueError):
        return False
    return values in ([1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0])


def _plain_space(resources: DictionaryObject, name: Any) -> bool:
    """Colour spaces in which _white() applies. Not spot colours (tint 1 is full ink), Indexed or Lab."""
    space = resources.get("/ColorSpace", DictionaryObject()).get_object().get(name, name).get_object()
    family = space[0] if isinstance(space, list) and space else space
    return family in ("/DeviceGray", "/DeviceRGB", "/DeviceCMYK", "/CalGray", "/CalRGB", "/ICCBased")


@dataclass
class _State:
    ctm: Matrix
    clip: Box | None
    fill_white: bool = False
    stroke_white: bool = False
    fill_plain: bool = True  # the current colour space is one where _white() applies
    stroke_plain: bool = True
    line_width: float = 1.0
    font: FontMetrics | None = None
    font_scale: float = 0.001
    size: float = 0.0
    char_spacing: float = 0.0
    word_spacing: float = 0.0
    h_scale: float = 1.0
    leading: float = 0.0
    rise: float = 0.0
    render_mode: int = 0


@dataclass
class _Ink:
    """Union of everything that would be printed on one page."""

    reader: PdfReader
    extent: Box | None = None
    fonts: dict[int, tuple[FontMetrics, float]] = field(default_factory=dict)
    forms: dict[int, ContentStream] = field(default_factory=dict)

    def mark(self, box: Box, clip: Box | None) -> None:
        box_ = _intersect(box, clip)
        if box_ is not None:
            e = self.extent or box_
            self.extent = min(e[0], box_[0]), min(e[1], box_[1]), max(e[2], box_[2]), max(e[3], box_[3])

    def font(self, resources: DictionaryObject, name: Any) -> tuple[FontMetrics | None, float]:
        """The font and its glyph-space scale (1/1000 except for Type3 fonts, which set their own)."""
        font_dict = resources.get("/Font", DictionaryObject()).get_object().get(name)
        if font_dict is None:
            return None, 0.001
        font_dict = font_dict.get_object()
        if id(font_dict) not in self.fonts:
            type3 = font_dict.get("/Subtype") == "/Type3" and "/FontMatrix" in font_dict
            scale = abs(float(font_dict["/FontMatrix"][0])) if type3 else 0.001
            self.fonts[id(font_dict)] = font_metrics(font_dict), scale
        return self.fonts[id(font_dict)]

    def show(self, s: _State, tm: Matrix, text: Any) -> Matrix:
        """Mark one string of a Tj/TJ and return the text matrix advanced past it."""
        raw = text.original_bytes if hasattr(text, "original_bytes") else bytes(text)
        font = s.font
        two_byte = font is not None and font.two_byte
        codes = [int.from_bytes(raw[i:i + 2], "big") for i in range(0, len(raw), 2)] if two_byte else list(raw)
        advance = 0.0
        for code in codes:
            width = (font.width(code) if font else UNKNOWN_WIDTH) * s.font_scale
            spacing = s.word_spacing if code == 32 and not two_byte else 0.0
            advance += (width * s.size + s.char_spacing + spacing) * s.h_scale
        visible = {0: not s.fill_white, 1: not s.stroke_white, 4: not s.fill_white, 5: not s.stroke_white,
                   2: not (s.fill_white and s.stroke_white), 6: not (s.fill_white and s.stroke_white)}
        if codes and visible.get(s.render_mode, False):
            ascent = (font.ascent if font and font.ascent > 0 else 750.0) * s.font_scale
            descent = (font.descent if font else -250.0) * s.font_scale
            y0, y1 = s.rise + descent * s.size, s.rise + ascent * s.size
            self.mark(_bbox([(0, y0), (advance, y0), (0, y1), (advance, y1)], _mul(tm, s.ctm)), s.clip)
        return _mul((1.0, 0.0, 0.0, 1.0, advance, 0.0), tm)

    def walk(self, content: ContentStream, resources: DictionaryObject, s: _State, depth: int = 0) -> None:
        walk = _Walk(self, resources, s, depth)
        for operands, op in content.operations:
            handler = _OPERATORS.get(op)
            if handler is not None:
                handler(walk, operands, op)

    def xobject(self, resources: DictionaryObject, name: Any, s: _State, depth: int) -> None:
        xobj = resources.get("/XObject", DictionaryObject()).get_object().get(name)
        if xobj is None:
            return
        xobj = xobj.get_object()
        if xobj.get("/Subtype") == "/Image":
            self.mark(_bbox(_UNIT_SQUARE, s.ctm), s.clip)
        elif xobj.get("/Subtype") == "/Form" and depth < _MAX_FORM_DEPTH:  # depth also stops cycles
            ctm = _mul(tuple(_nums(xobj.get("/Matrix", list(_IDENTITY)))), s.ctm)  # type: ignore[arg-type]
            x0, y0, x1, y1 = _nums(xobj["/BBox"])
            clip = _intersect(s.clip, _bbox([(x0, y0), (x1, y1), (x0, y1), (x1, y0)], ctm))
            if id(xobj) not in self.forms:  # a logo drawn on every page is parsed once
                self.forms[id(xobj)] = ContentStream(xobj, self.reader)
            inner = replace(s, ctm=ctm, clip=clip)
            self.walk(self.forms[id(xobj)], xobj.get("/Resources", resources).get_object(), inner, depth + 1)


@dataclass
class _Walk:
    """One content stream being walked: the graphics state and the states saved by `q`, the path
    being built and the text position. Each operator that paints, or changes what or where the next
    one paints, has a handler here; `_OPERATORS` maps the operators to them, the rest are skipped."""

    ink: _Ink
    resources: DictionaryObject
    s: _State
    depth: int
    stack: list[_State] = field(default_factory=list)
    path: list[tuple[float, float]] = field(default_factory=list)
    clip_pending: bool = False
    tm: Matrix = _IDENTITY
    tlm: Matrix = _IDENTITY

    def save(self, operands: list[Any], op: bytes) -> None:
        self.stack.append(replace(self.s))

    def restore(self, operands: list[Any], op: bytes) -> None:
        self.s = self.stack.pop() if self.stack else self.s

    def transform(self, operands: list[Any], op: bytes) -> None:
        self.s.ctm = _mul(tuple(_nums(operands)), self.s.ctm)  # type: ignore[arg-type]

    def line_width(self, operands: list[Any], op: bytes) -> None:
        self.s.line_width = float(operands[0])

    def fill_colour(self, operands: list[Any], op: bytes) -> None:
        self.s.fill_plain, self.s.fill_white = True, _white(operands)

    def stroke_colour(self, operands: list[Any], op: bytes) -> None:
        self.s.stroke_plain, self.s.stroke_white = True, _white(operands)

    def fill_space(self, operands: list[Any], op: bytes) -> None:
        # A new colour space starts at black, or full tint: never white.
        self.s.fill_plain, self.s.fill_white = _plain_space(self.resources, operands[0]), False

    def stroke_space(self, operands: list[Any], op: bytes) -> None:
        self.s.stroke_plain, self.s.stroke_white = _plain_space(self.resources, operands[0]), False

    def fill_colour_in_space(self, operands: list[Any], op: bytes) -> None:
        self.s.fill_white = self.s.fill_plain and _white(operands)

    def stroke_colour_in_space(self, operands: list[Any], op: bytes) -> None:
        self.s.stroke_white = self.s.stroke_plain and _white(operands)

    def path_points(self, operands: list[Any], op: bytes) -> None:
        v = _nums(operands)
        # Bezier control points bound the curve, so their box bounds the path (maybe loosely).
        self.path.extend(_apply(self.s.ctm, v[i], v[i + 1]) for i in range(0, len(v) - 1, 2))

    def rectangle(self, operands: list[Any], op: bytes) -> None:
        x, y, w, h = _nums(operands)
        box = _bbox([(x, y), (x + w, y + h), (x, y + h), (x + w, y)], self.s.ctm)
        self.path.extend([box[:2], box[2:]])

    def clip(self, operands: list[Any], op: bytes) -> None:
        self.clip_pending = True  # takes effect at the next painting operator

    def paint(self, operands: list[Any], op: bytes) -> None:
        s = self.s
        if self.path:
            box = _bbox(self.path)
            strokes, fills = op in (b"S", b"s", b"B", b"B*", b"b", b"b*"), op not in (b"S", b"s", b"n")
            if strokes and not s.stroke_white:
                pad = s.line_width / 2 * max(abs(s.ctm[0]) + abs(s.ctm[2]), abs(s.ctm[1]) + abs(s.ctm[3]))
                self.ink.mark((box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad), s.clip)
            if fills and not s.fill_white:
                self.ink.mark(box, s.clip)
            if self.clip_pending:
                s.clip = _intersect(s.clip, box)
        self.path, self.clip_pending = [], False

    def begin_text(self, operands: list[Any], op: bytes) -> None:
        self.tm = self.tlm = _IDENTITY

    def font(self, operands: list[Any], op: bytes) -> None:
        (self.s.font, self.s.font_scale), self.s.size = self.ink.font(self.resources, operands[0]), float(operands[1])

    def text_state(self, operands: list[Any], op: bytes) -> None:
        attribute, factor = _TEXT_STATE[op]
        setattr(self.s, attribute, float(operands[0]) * factor)

    def render_mode(self, operands: list[Any], op: bytes) -> None:
        self.s.render_mode = int(operands[0])

    def next_line(self, operands: list[Any], op: bytes) -> None:
        s = self.s
        if op == b"TD":
            s.leading = -float(operands[1])
        if op == b'"':
            s.word_spacing, s.char_spacing = float(operands[0]), float(operands[1])
        tx, ty = _nums(operands[:2]) if op in (b"Td", b"TD") else (0.0, -s.leading)
        self.tm = self.tlm = _mul((1.0, 0.0, 0.0, 1.0, tx, ty), self.tlm)
        if op in (b"'", b'"'):
            self.tm = self.ink.show(s, self.tm, operands[-1])

    def text_matrix(self, operands: list[Any], op: bytes) -> None:
        self.tm = self.tlm = tuple(_nums(operands))  # type: ignore[assignment]

    def show_text(self, operands: list[Any], op: bytes) -> None:
        self.tm = self.ink.show(self.s, self.tm, operands[0])

    def show_texts(self, operands: list[Any], op: bytes) -> None:
        for item in operands[0]:
            if isinstance(item, (int, float)):
                self.tm = _mul((1.0, 0.0, 0.0, 1.0, -float(item) / 1000.0 * self.s.size * self.s.h_scale, 0.0), self.tm)
            else:
                self.tm = self.ink.show(self.s, self.tm, item)

    def inline_image(self, operands: list[Any], op: bytes) -> None:
        self.ink.mark(_bbox(_UNIT_SQUARE, self.s.ctm), self.s.clip)

    def shading(self, operands: list[Any], op: bytes) -> None:
        if self.s.clip is not None:  # a shading fills whatever the clip allows
            self.ink.mark(self.s.clip, self.s.clip)

    def xobject(self, operands: list[Any], op: bytes) -> None:
        self.ink.xobject(self.resources, operands[0], self.s, self.depth)


# The content-stream operators the walk follows, by what they do (PDF 32000-1, annex A).
_OPERATORS: dict[bytes, Callable[[_Walk, list[Any], bytes], None]] = {
    b"q": _Walk.save, b"Q": _Walk.restore, b"cm": _Walk.transform, b"w": _Walk.line_width,
    **dict.fromkeys((b"g", b"rg", b"k"), _Walk.fill_colour),
    **dict.fromkeys((b"G", b"RG", b"K"), _Walk.stroke_colour),
    b"cs": _Walk.fill_space, b"CS": _Walk.stroke_space,
    **dict.fromkeys((b"sc", b"scn"), _Walk.fill_colour_in_space),
    **dict.fromkeys((b"SC", b"SCN"), _Walk.stroke_colour_in_space),
    **dict.fromkeys((b"m", b"l", b"c", b"v", b"y"), _Walk.path_points),
    b"re": _Walk.rectangle,
    **dict.fromkeys((b"W", b"W*"), _Walk.clip),
    **dict.fromkeys((b"S", b"s", b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*", b"n"), _Walk.paint),
    b"BT": _Walk.begin_text, b"Tf": _Walk.font,
    **dict.fromkeys(_TEXT_STATE, _Walk.text_state),
    b"Tr": _Walk.render_mode,
    **dict.fromkeys((b"Td", b"TD", b"T*", b"'", b'"'), _Walk.next_line),
    b"Tm": _Walk.text_matrix, b"Tj": _Walk.show_text, b"TJ": _Walk.show_texts,
    b"INLINE IMAGE": _Walk.inline_image, b"sh": _Walk.shading, b"Do": _Walk.xobject,
}


def _is_a4_portrait(page: PageObject) -> bool:
    width, height = g.mm(float(page.cropbox.width)), g.mm(float(page.cropbox.height))
    if page.rotation % 180 == 90:  # /Rotate 90 or 270 turns a landscape box into a portrait page
        width, height = height, width
    return abs(width - g.PAGE_WIDTH) <= g.PAGE_SIZE_TOLERANCE and abs(height - g.PAGE_HEIGHT) <= g.PAGE_SIZE_TOLERANCE


def content_extent(page: PageObject, reader: PdfReader) -> Box | None:
    """Bounding box (page points, unrotated) of what would print on the page, or None if blank."""
    box = page.cropbox  # only the crop box is printed
    crop: Box = (float(box.left), float(box.bottom), float(box.right), float(box.top))
    ink = _Ink(reader)
    content = page.get_contents()
    if content is not None:
        resources = page.get("/Resources", DictionaryObject()).get_object()
        ink.walk(content, resources, _State(ctm=_IDENTITY, clip=crop))
    for annot in page.get("/Annots", None) or []:
        annot = annot.get_object()
        flags = int(annot.get("/F", 0))
        if flags & 4 and not flags & 2 and "/Rect" in annot:  # Print set, Hidden not set
            x0, y0, x1, y1 = _nums(annot["/Rect"])
            ink.mark((min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)), crop)
    return ink.extent


def validate_precompiled(data: bytes) -> PrecompiledCheck:
    """Check an uploaded letter against the print specification. Raises NotAPdf if unreadable."""
    reader = _reader(data)
    pages = len(reader.pages)
    problems = []
    if sheets_for_pages(pages) > MAX_SHEETS:
        problems.append(Refusal.filled("letter_too_long", "letter is longer than {sheets} sheets", sheets=MAX_SHEETS))
    margin = g.pt(g.PRINTABLE_MARGIN - g.CONTENT_TOLERANCE)
    # Beyond the sheet limit the letter fails anyway: don't spend time on hundreds of pages.
    for number, page in enumerate(reader.pages[: MAX_SHEETS * 2], start=1):
        try:
            if not _is_a4_portrait(page):
                problems.append(Refusal.filled("page_not_a4_portrait", "page {page} is not A4 portrait", page=number))
                continue  # margins are meaningless on the wrong paper
            extent = content_extent(page, reader)
        except _READ_ERRORS:
            problems.append(Refusal.filled("page_unchecked", "page {page} could not be checked", page=number))
            continue
        box = page.cropbox
        if extent is not None and (
            extent[0] < float(box.left) + margin or extent[1] < float(box.bottom) + margin
            or extent[2] > float(box.right) - margin or extent[3] > float(box.top) - margin
        ):
            problems.append(Refusal.filled("page_outside_printable_area",
                                           "content outside the printable area on page {page}", page=number))
    return PrecompiledCheck(ok=not problems, pages=pages, sheets=sheets_for_pages(pages), problems=problems)
