"""Every refusal of an address or a recipient reads as a sentence in the page's language (Dutch by
default), never in the rule's own English words."""
from __future__ import annotations

import pytest

from console.services.refusals import translated
from pipeline.domain.recipients import email_address, phone, postal_address

ADDRESS_REFUSALS = [postal_address.NOT_ENOUGH_LINES, postal_address.TOO_MANY_LINES,
                    postal_address.FORBIDDEN_CHARACTERS, postal_address.NOT_POSTCODE_OR_COUNTRY,
                    postal_address.NOT_REAL_POSTCODE, postal_address.NOT_REAL_ADDRESS,
                    postal_address.BFPO_WITH_COUNTRY]
RECIPIENT_PROBLEMS = [*(problem.about("phone_number") for problem in (
    phone.TOO_MANY_DIGITS, phone.NOT_ENOUGH_DIGITS, phone.NOT_NL_MOBILE, phone.LETTERS_OR_SYMBOLS,
    phone.INVALID_COUNTRY_PREFIX)), email_address.NOT_VALID_EMAIL.about("email_address")]


@pytest.mark.parametrize("refusal", ADDRESS_REFUSALS + RECIPIENT_PROBLEMS)
def test_a_recipients_refusal_reads_in_dutch(console_app, refusal):
    with console_app.test_request_context("/"):
        shown = translated(refusal)
    assert shown != refusal and not shown.startswith(("Address", "Last line", "Must", "The last line", "phone_number"))


def test_a_british_forces_address_ending_in_a_country(console_app):
    with console_app.test_request_context("/"):
        assert translated(postal_address.BFPO_WITH_COUNTRY) == (
            "De laatste regel van een adres van de Britse strijdkrachten (BFPO) mag geen land zijn")
