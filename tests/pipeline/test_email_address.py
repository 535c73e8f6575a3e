import pytest

from pipeline.domain.recipients import InvalidRecipient, format_email_for_comparison, validate_email_address


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("jan@voorbeeld.nl", "jan@voorbeeld.nl"),
        ("  jan@voorbeeld.nl \n", "jan@voorbeeld.nl"),
        ("\u200bjan@voorbeeld.nl\u00a0", "jan@voorbeeld.nl"),  # zero-width / non-breaking space from copy-paste
        ("Jan.de.Vries+nieuwsbrief@Voorbeeld.NL", "Jan.de.Vries+nieuwsbrief@Voorbeeld.NL"),  # case kept as typed
        ("first_last-1@sub.domain.co.uk", "first_last-1@sub.domain.co.uk"),
        ("o'brien@example.ie", "o'brien@example.ie"),
        ("user@exämple.de", "user@exämple.de"),  # unicode domain: sent in IDNA form
        ("user@example.xn--p1ai", "user@example.xn--p1ai"),
        ("user@example.museum", "user@example.museum"),
    ],
)
def test_valid_addresses_are_returned_stripped(raw, expected):
    assert validate_email_address(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "jan",
        "jan@",
        "@voorbeeld.nl",
        "jan@@voorbeeld.nl",
        "jan de vries@voorbeeld.nl",  # whitespace inside
        "jan@voor beeld.nl",
        "jan\t@voorbeeld.nl",
        "jan..vries@voorbeeld.nl",  # consecutive dots
        "jan@voorbeeld..nl",
        ".jan@voorbeeld.nl",
        "jan.@voorbeeld.nl",
        "jan@voorbeeld",  # missing TLD
        "jan@localhost",
        "jan@voorbeeld.nl.",
        "jan@voorbeeld.n",  # one-letter TLD
        "jan@voorbeeld.123",  # numeric TLD
        "jan@voorbeeld.1a",
        "jan@voorbeeld.n-l",
        "jan@-voorbeeld.nl",
        "jan@[192.168.0.1]",  # IP literal
        '"jan de vries"@voorbeeld.nl',  # quoted local part
        "Jan <jan@voorbeeld.nl>",  # display name
        "jöhn@example.de",  # non-ASCII local part needs SMTPUTF8
        "jan,vries@voorbeeld.nl",
        "jan@voorbeeld.test",  # special-use domain
    ],
)
def test_invalid_addresses(raw):
    with pytest.raises(InvalidRecipient) as error:
        validate_email_address(raw)
    assert error.value.message == "Not a valid email address"
    assert str(error.value) == "Not a valid email address"


@pytest.mark.parametrize(
    "raw, expected",
    [
        (" Jan.de.Vries@Voorbeeld.NL ", "jan.de.vries@voorbeeld.nl"),
        ("jan@voorbeeld.nl", "jan@voorbeeld.nl"),
        ("\u200bJAN@VOORBEELD.NL", "jan@voorbeeld.nl"),
        (" not an address ", "not an address"),
    ],
)
def test_format_email_for_comparison(raw, expected):
    assert format_email_for_comparison(raw) == expected
