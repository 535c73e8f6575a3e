"""A letter's PDF as one PNG image per page, for previews (PDFium renders exactly what prints)."""
from __future__ import annotations

import io

import pypdfium2

PREVIEW_DPI = 96  # an A4 page becomes 794 x 1123 pixels: readable on screen, small to send


def page_images(pdf: bytes, *, dpi: int = PREVIEW_DPI, max_pages: int | None = None) -> list[bytes]:
    """The first max_pages pages (all when None) as PNG images."""
    document = pypdfium2.PdfDocument(pdf)
    try:
        images = []
        for number, page in enumerate(document):
            if max_pages is not None and number >= max_pages:
                page.close()
                break
            bitmap = page.render(scale=dpi / 72)
            buffer = io.BytesIO()
            bitmap.to_pil().save(buffer, format="PNG", optimize=True)
            images.append(buffer.getvalue())
            page.close()
        return images
    finally:
        document.close()
