"""The console's label tables name every value of what they label and nothing else. They were module
assertions, which `python -O` drops; a value added to the rules without its label would show a page's
choices short of it, or fail with a KeyError when one is shown."""
from __future__ import annotations

import pytest

from console.appearance.views import LANGUAGE_LABELS
from console.go_live.views import CHECKLIST_LABELS
from console.organisations.shared import KIND_NAMES
from core.go_live import CHECKLIST
from core.organisations import LANGUAGES
from models.organisation import ORGANISATION_KINDS

TABLES = {
    "the go-live checklist": (CHECKLIST_LABELS, CHECKLIST),
    "organisation kinds": (KIND_NAMES, ORGANISATION_KINDS),
    "an organisation's languages": (LANGUAGE_LABELS, LANGUAGES),
}


@pytest.mark.parametrize("table", TABLES, ids=list(TABLES))
def test_a_label_table_names_exactly_the_values_it_labels(table):
    labels, values = TABLES[table]
    assert set(labels) == set(values)
