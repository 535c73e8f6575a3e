"""Page geometry for letters, in millimetres, measured from the TOP-LEFT corner of an A4 portrait page.

This is the one place layout numbers live: the renderer (pdf.py) draws with them and the precompiled
checker (precompiled.py) validates against them, so a letter we render always passes our own check.
PDF works in points from the bottom-left corner; `pt()` and `from_top()` convert.
"""

from __future__ import annotations

MM_PER_INCH = 25.4
POINTS_PER_INCH = 72.0

# ISO 216 A4. The print provider's machines take A4 portrait only.
PAGE_WIDTH = 210.0
PAGE_HEIGHT = 297.0
# Exported PDFs round A4 to whole points (595 x 842 pt = 209.9 x 297.0 mm) or store 595.276 x 841.89;
# 1 mm covers both without letting A4-ish sizes such as US Letter (215.9 x 279.4 mm) through.
PAGE_SIZE_TOLERANCE = 1.0

# Nothing may be printed closer than this to any edge: the printer's grippers and the inserting
# machine's barcode/tracking marks use that strip. 15 mm all round is the minimum we were given.
PRINTABLE_MARGIN = 15.0
# Slack when checking uploaded PDFs against that margin: float rounding only, not a real allowance.
CONTENT_TOLERANCE = 0.05

# Address window of the envelope, as it lands on page 1 of the folded A4 sheet.
# Source: the DL (110 x 220 mm) window envelope of ISO 269 / DIN 678, the common European one (also
# sold in the Netherlands and used for C5/C6 "venster" envelopes): window 90 x 45 mm, 20 mm from the
# left edge. An A4 sheet folded in three into DL puts that window 45 mm below the top of the sheet,
# which is the DIN 5008 "Form B" address field (45 mm from the top, 45 mm high).
WINDOW_LEFT = 20.0
WINDOW_TOP = 45.0
WINDOW_WIDTH = 90.0
WINDOW_HEIGHT = 45.0
# The folded sheet moves a few millimetres inside the envelope, so the address text keeps clear of
# the window's edges. 5 mm left gives the DIN 5008 25 mm address indent.
WINDOW_CLEARANCE = 5.0
ADDRESS_LEFT = WINDOW_LEFT + WINDOW_CLEARANCE
ADDRESS_TOP = WINDOW_TOP + WINDOW_CLEARANCE
ADDRESS_WIDTH = WINDOW_WIDTH - 2 * WINDOW_CLEARANCE
ADDRESS_HEIGHT = WINDOW_HEIGHT - 2 * WINDOW_CLEARANCE

# Body text column. 25 mm left lines the body up with the address; both sides stay well inside
# the 15 mm printable margin.
BODY_LEFT = 25.0
BODY_RIGHT_MARGIN = 20.0
BODY_WIDTH = PAGE_WIDTH - BODY_LEFT - BODY_RIGHT_MARGIN
BODY_TOP_OTHER_PAGES = 20.0
# Bottom of the body frame, measured from the page bottom: leaves room for the footer.
BODY_BOTTOM = 25.0

# Sender contact block, top right of page 1, right of the envelope window.
CONTACT_LEFT = 125.0
CONTACT_TOP = 20.0
CONTACT_WIDTH = PAGE_WIDTH - BODY_RIGHT_MARGIN - CONTACT_LEFT
# The contact block may not push page 1's reference block below this (measured from the top);
# a longer block does not fit on a letter and the caller must shorten it.
CONTACT_MAX_BOTTOM = 150.0

# Letter logo (letter branding), top left of page 1: inside the printable area, left-aligned with the
# window, and ending 5 mm above the window so the folded sheet can never show it through the window.
LOGO_LEFT = WINDOW_LEFT
LOGO_TOP = PRINTABLE_MARGIN + 2.0
LOGO_MAX_WIDTH = WINDOW_WIDTH  # never reaches the contact block column
LOGO_MAX_HEIGHT = WINDOW_TOP - 5.0 - LOGO_TOP

# Reference block (NEN 1026 "referentieregel": our reference, your reference, date; then the subject),
# below the window across the body column; a tall contact block pushes it down.
REFERENCE_TOP = WINDOW_TOP + WINDOW_HEIGHT + 5.0
REFERENCE_GAP_BELOW_CONTACT = 8.0
REFERENCE_LABEL_FONT_SIZE = 7.5
REFERENCE_VALUE_FONT_SIZE = 9.5
REFERENCE_GAP_BELOW = 8.0  # between the subject and the start of the body

# Footer ("Page N of M", notification id, sender): baseline this far above the page bottom, so that
# descenders of the 8 pt footer text (under 1 mm) stay above the 15 mm printable margin.
FOOTER_BASELINE = 17.0

# Type sizes in points (not mm: type is measured in points everywhere in print).
BODY_FONT_SIZE = 11.0
BODY_LEADING = 14.0
HEADING_FONT_SIZE = 13.0
ADDRESS_FONT_SIZES = (10.0, 9.0, 8.0)  # tried in order until the address fits the window
CONTACT_FONT_SIZE = 9.0
FOOTER_FONT_SIZE = 8.0
LIST_INDENT = 6.0  # mm per list level


def pt(mm: float) -> float:
    """Millimetres to PDF points (1/72 inch)."""
    return mm * POINTS_PER_INCH / MM_PER_INCH


def mm(points: float) -> float:
    """PDF points to millimetres."""
    return points * MM_PER_INCH / POINTS_PER_INCH


def from_top(mm_from_top: float) -> float:
    """A distance from the top of the page (mm) as a PDF y coordinate (points from the bottom)."""
    return pt(PAGE_HEIGHT - mm_from_top)
