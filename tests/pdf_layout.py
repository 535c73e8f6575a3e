"""Where things are on a PDF page, read back from the file itself (pypdf), in mm from the top left."""
from __future__ import annotations

import io

import pypdf
from pypdf.generic import ContentStream

from pipeline.domain.letters import geometry as g

Box = tuple[float, float, float, float]  # left, top, right, bottom in mm from the page's top left


def _mul(m, n):
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F)


def image_boxes(pdf: bytes, page: int = 0) -> list[Box]:
    """Every image drawn on the page (images land on the unit square under the current matrix)."""
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    content = ContentStream(reader.pages[page].get_contents(), reader)
    stack, ctm, boxes = [], (1.0, 0.0, 0.0, 1.0, 0.0, 0.0), []
    for operands, op in content.operations:
        if op == b"q":
            stack.append(ctm)
        elif op == b"Q":
            ctm = stack.pop()
        elif op == b"cm":
            ctm = _mul(tuple(float(o) for o in operands), ctm)
        elif op == b"Do":
            a, b, c, d, e, f = ctm
            xs, ys = [e, e + a, e + c, e + a + c], [f, f + b, f + d, f + b + d]
            boxes.append((g.mm(min(xs)), g.PAGE_HEIGHT - g.mm(max(ys)), g.mm(max(xs)), g.PAGE_HEIGHT - g.mm(min(ys))))
    return boxes


def text_boxes(pdf: bytes, page: int = 0) -> dict[str, tuple[float, float]]:
    """Text run -> (x, y) of its baseline start, mm from the top left."""
    found: dict[str, tuple[float, float]] = {}

    def visit(text, cm, tm, _font, _size):
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        if text.strip():
            found.setdefault(text.strip(), (g.mm(x), g.PAGE_HEIGHT - g.mm(y)))

    pypdf.PdfReader(io.BytesIO(pdf)).pages[page].extract_text(visitor_text=visit)
    return found


def overlaps(box: Box, left: float, top: float, right: float, bottom: float) -> bool:
    return box[0] < right and box[2] > left and box[1] < bottom and box[3] > top


WINDOW = (g.WINDOW_LEFT, g.WINDOW_TOP, g.WINDOW_LEFT + g.WINDOW_WIDTH, g.WINDOW_TOP + g.WINDOW_HEIGHT)
