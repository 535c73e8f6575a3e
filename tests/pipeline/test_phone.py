import pytest

from pipeline.domain.recipients import (
    InvalidRecipient,
    PhoneNumber,
    format_phone_for_comparison,
    validate_phone_number,
)
from pipeline.domain.recipients.phone import DEFAULT_RATE_MULTIPLIER, RATE_MULTIPLIERS

NL_MOBILE = PhoneNumber(e164="+31612345678", international=False, country_prefix="31", rate_multiplier=1)


@pytest.mark.parametrize(
    "raw",
    [
        "0612345678",
        "06-12345678",
        "06 1234 5678",
        "(06) 12345678",
        "+31 6 1234 5678",
        "+31612345678",
        "0031612345678",
        "31612345678",
        "+31 (0)6 12345678",
        "0031 (0)6 12345678",
        "(+31) 6 1234 5678",
        "06.12.34.56.78",
        "  06 12 34 56 78  ",
        "\u00a0+31\u00a06\u00a012345678\u200b",  # non-breaking / zero-width spaces from copy-paste
        "\t06-1234-5678\n",
    ],
)
def test_dutch_mobile_spellings_normalise_to_e164(raw):
    assert validate_phone_number(raw) == NL_MOBILE


@pytest.mark.parametrize(
    "raw, message",
    [
        ("0201234567", "Not a NL mobile number"),  # Amsterdam landline
        ("+31 20 123 4567", "Not a NL mobile number"),
        ("0031 10 1234567", "Not a NL mobile number"),
        ("0800 1234", "Not a NL mobile number"),
        ("020", "Not a NL mobile number"),
        ("0612345", "Not enough digits"),
        ("061234567", "Not enough digits"),
        ("+3161234567", "Not enough digits"),
        ("06", "Not enough digits"),
        ("0", "Not enough digits"),
        ("", "Not enough digits"),
        ("   ", "Not enough digits"),
        ("+", "Not enough digits"),
        ("06123456789", "Too many digits"),
        ("+31 6 1234 56789", "Too many digits"),
        ("0031 6123456789", "Too many digits"),
        ("06 1234 567a", "Must not contain letters or symbols"),
        ("O612345678", "Must not contain letters or symbols"),  # letter O
        ("06/12345678", "Must not contain letters or symbols"),
        ("06_12345678", "Must not contain letters or symbols"),
        ("06*12345678", "Must not contain letters or symbols"),
        ("06+12345678", "Must not contain letters or symbols"),  # "+" only at the start
        ("++31612345678", "Must not contain letters or symbols"),
        ("tel: 0612345678", "Must not contain letters or symbols"),
        ("\uff10\uff16\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18", "Must not contain letters or symbols"),
    ],
)
def test_dutch_number_errors(raw, message):
    with pytest.raises(InvalidRecipient) as error:
        validate_phone_number(raw)
    assert error.value.message == message
    assert str(error.value) == message


@pytest.mark.parametrize(
    "raw, e164, prefix, rate",
    [
        ("+44 7900 900123", "+447900900123", "44", 3),  # valid UK mobile
        ("0044 7900 900123", "+447900900123", "44", 3),
        ("447900900123", "+447900900123", "44", 3),  # non-31 prefix without + or 00
        ("+49 1512 3456789", "+4915123456789", "49", 2),
        ("+32 470 12 34 56", "+32470123456", "32", 2),
        ("+47 412 34 567", "+4741234567", "47", 2),  # Norway, EEA
        ("+1 (202) 555-0123", "+12025550123", "1", 3),
        ("+91 98765 43210", "+919876543210", "91", 3),
    ],
)
def test_international_numbers(raw, e164, prefix, rate):
    assert validate_phone_number(raw) == PhoneNumber(
        e164=e164, international=True, country_prefix=prefix, rate_multiplier=rate
    )


@pytest.mark.parametrize(
    "raw, message",
    [
        ("+999 1234567", "Not a valid country prefix"),  # unassigned calling code
        ("+0 612345678", "Not a valid country prefix"),
        ("+44 7700 900123", "Not a valid country prefix"),  # right length, reserved (invalid) range
        ("+44 7900 9001234567", "Too many digits"),
        ("+1 202 555 012", "Not enough digits"),
        ("+44", "Not enough digits"),
        ("+4", "Not enough digits"),
        ("+44 7900 900123 12345678901", "Too many digits"),  # longer than phonenumbers parses at all
        ("+44 7900 900x23", "Must not contain letters or symbols"),
    ],
)
def test_international_number_errors(raw, message):
    with pytest.raises(InvalidRecipient) as error:
        validate_phone_number(raw)
    assert error.value.message == message


def test_invalid_recipient_is_a_value_error():
    with pytest.raises(ValueError):
        validate_phone_number("abc")


def test_rate_multiplier_table():
    assert RATE_MULTIPLIERS["31"] == 1
    assert RATE_MULTIPLIERS["49"] == 2
    assert "44" not in RATE_MULTIPLIERS  # the UK is not in the EU/EEA
    assert DEFAULT_RATE_MULTIPLIER == 3
    assert set(RATE_MULTIPLIERS.values()) == {1, 2}


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("06 1234 5678", "+31612345678"),
        ("0031612345678", "+31612345678"),
        ("+44 7900 900123", "+447900900123"),
        ("  not a number ", "not a number"),
        (" 0201234567 ", "0201234567"),
    ],
)
def test_format_phone_for_comparison(raw, expected):
    assert format_phone_for_comparison(raw) == expected


@pytest.mark.parametrize(
    "raw, message",
    [
        # possible lengths for the country, but invalid for the range: told apart by
        # whether one digit more / fewer would make the number valid
        ("+44 7900 90012", "Not enough digits"),
        ("+44 7700 900123", "Not a valid country prefix"),
        ("+32 470 12 34 5", "Not enough digits"),
        ("+49 1512 34567891", "Too many digits"),
    ],
)
def test_international_invalid_numbers_of_possible_length(raw, message):
    with pytest.raises(InvalidRecipient) as error:
        validate_phone_number(raw)
    assert error.value.message == message
