"""Measuring, in the browser, whether a page's tables read on the screen they are shown on: every word of
a table's cells on one line, and the page no wider than the screen.

A word is broken when its characters lie on more than one line although the word would fit on one: each
word of each text node inside a table (a hyphenated word counts as its parts, "Sms-" and "berichten", as a
line may rightly end after a hyphen) is selected with a Range, and the distinct tops of the boxes it is drawn
in (Range.getClientRects) are its lines: "W/ac/htr/ij" drawn on four lines is four tops. A word wider than
its cell's whole line (a long URL on a phone) cannot but break and is not counted. The first-hour walk and
the table walk call broken_words on every page they visit.
"""
from __future__ import annotations

_BROKEN_WORDS = r"""() => {
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
    acceptNode: node => node.parentElement && node.parentElement.closest("table")
      && node.parentElement.getClientRects().length ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT});
  const lineWidth = element => {  // the content width of the block the text's lines are laid out in
    let block = element;
    while (block.parentElement && getComputedStyle(block).display.startsWith("inline")) block = block.parentElement;
    const style = getComputedStyle(block);
    return block.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  };
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    // A word, or the part of a hyphenated one up to its hyphen ("Sms-"), where a line may rightly end.
    for (const match of node.textContent.matchAll(/[^\s-]+-*|-+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const boxes = [...range.getClientRects()].filter(box => box.width > 0 && box.height > 0);
      const lines = new Set(boxes.map(box => Math.round(box.top)));
      const width = boxes.reduce((sum, box) => sum + box.width, 0);
      // Broken although it would fit on one line of its cell; a word longer than the whole line (a long URL)
      // cannot but break.
      if (lines.size > 1 && width <= lineWidth(node.parentElement) + 1) broken.push(match[0]);
    }
  }
  return broken;
}"""

_PAGE_WIDTH = "() => [document.documentElement.scrollWidth, window.innerWidth]"


def broken_words(page) -> list[str]:
    """The words of the current page's tables that are drawn on more than one line (empty when none)."""
    return page.evaluate(_BROKEN_WORDS)


def wider_than_the_screen(page) -> int:
    """By how many CSS pixels the page is wider than its window (0 when it fits: nothing scrolls sideways)."""
    scroll_width, window_width = page.evaluate(_PAGE_WIDTH)
    return max(0, scroll_width - window_width)


_SPILLING_CELLS = """() => [...document.querySelectorAll("table td, table th")]
  .filter(cell => cell.getClientRects().length && cell.closest("thead") === null
                  && (cell.scrollHeight > cell.clientHeight + 1 || cell.scrollWidth > cell.clientWidth + 1))
  .map(cell => cell.textContent.trim().slice(0, 60))"""


def spilling_cells(page) -> list[str]:
    """The text of each table cell of the current page whose content does not fit its box, so it runs over the
    next cell's (empty when none)."""
    return page.evaluate(_SPILLING_CELLS)
