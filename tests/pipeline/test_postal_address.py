import pytest

from pipeline.domain.recipients import AddressErrors, PostalAddress, validate_postal_address
from pipeline.domain.recipients.countries import find_country

FORBIDDEN = "Address lines must not start with any of the following characters: @ ( ) = [ ] \u201d \\ / , < >"
LAST_LINE = "Last line of address must be a real NL postcode or another country"


def address(*lines, **extra):
    personalisation = {f"address_line_{n}": line for n, line in enumerate(lines, start=1)}
    personalisation.update(extra)
    return personalisation


def errors(personalisation):
    with pytest.raises(AddressErrors) as error:
        validate_postal_address(personalisation)
    return error.value.messages


def nl(lines, postcode):
    return PostalAddress(
        lines=lines, postcode=postcode, country=None, international=False, postage_zone=None, is_bfpo=False
    )


# --- Dutch addresses -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "last_line, normalised",
    [
        ("1234AB", "1234 AB"),
        ("1234ab", "1234 AB"),
        ("1234 ab", "1234 AB"),
        ("1234 AB", "1234 AB"),
        ("1234-AB", "1234 AB"),
        ("  1234   ab  ", "1234 AB"),
        ("NL-1234 AB", "1234 AB"),
        ("1000 AA", "1000 AA"),
        ("9999 ZZ", "9999 ZZ"),
    ],
)
def test_postcode_only_last_line(last_line, normalised):
    result = validate_postal_address(address("Jan Jansen", "Damrak 1", last_line))
    assert result == nl(["Jan Jansen", "Damrak 1", normalised], normalised)


@pytest.mark.parametrize(
    "last_line, normalised, postcode",
    [
        ("1012 AB  AMSTERDAM", "1012 AB  AMSTERDAM", "1012 AB"),
        ("1012AB Amsterdam", "1012 AB  AMSTERDAM", "1012 AB"),
        ("1012 ab amsterdam", "1012 AB  AMSTERDAM", "1012 AB"),
        ("1012 AB, Amsterdam", "1012 AB  AMSTERDAM", "1012 AB"),
        ("2511 CV 's-Gravenhage", "2511 CV  'S-GRAVENHAGE", "2511 CV"),
        ("9711 LM Groningen", "9711 LM  GRONINGEN", "9711 LM"),
    ],
)
def test_postcode_and_town_last_line(last_line, normalised, postcode):
    result = validate_postal_address(address("Jan Jansen", "Damrak 1", last_line))
    assert result == nl(["Jan Jansen", "Damrak 1", normalised], postcode)


@pytest.mark.parametrize("country_line",
                         ["Nederland", "Netherlands", "The Netherlands", "NEDERLAND", "the netherlands"])
def test_netherlands_as_last_line_is_dropped(country_line):
    result = validate_postal_address(address("Jan Jansen", "Damrak 1", "1012AB Amsterdam", country_line))
    assert result == nl(["Jan Jansen", "Damrak 1", "1012 AB  AMSTERDAM"], "1012 AB")


def test_netherlands_last_line_needs_postcode_line_before_it():
    assert errors(address("Jan Jansen", "Damrak 1", "Amsterdam", "Nederland")) == ["Must be a real NL postcode"]


def test_netherlands_line_does_not_count_as_an_address_line():
    assert errors(address("Jan Jansen", "1012 AB Amsterdam", "Nederland")) == ["Address must be at least 3 lines"]


def test_legacy_postcode_key_is_the_last_line():
    result = validate_postal_address(address("Jan Jansen", "Damrak 1", "Amsterdam", postcode="1012ab"))
    assert result == nl(["Jan Jansen", "Damrak 1", "Amsterdam", "1012 AB"], "1012 AB")


def test_legacy_postcode_key_comes_after_every_address_line():
    personalisation = {"postcode": "1012 AB", "address_line_1": "Jan Jansen", "address_line_2": "Damrak 1"}
    assert validate_postal_address(personalisation).lines == ["Jan Jansen", "Damrak 1", "1012 AB"]


@pytest.mark.parametrize(
    "keys",
    [
        ("Address Line 1", "address line 2", "ADDRESS_LINE_3"),
        ("address-line-1", "addressline2", "Address_Line 3"),
        ("address_line_1", "Address Line 2", " address line 3 "),
    ],
)
def test_keys_compare_ignoring_case_spaces_underscores_and_hyphens(keys):
    personalisation = dict(zip(keys, ["Jan Jansen", "Damrak 1", "1012AB"], strict=True))
    assert validate_postal_address(personalisation).lines == ["Jan Jansen", "Damrak 1", "1012 AB"]


def test_exact_key_wins_over_variant_spelling():
    personalisation = address("Jan Jansen", "Damrak 1", "1012 AB")
    personalisation["Address Line 2"] = "Ignored 9"
    assert validate_postal_address(personalisation).lines == ["Jan Jansen", "Damrak 1", "1012 AB"]


def test_blank_lines_are_dropped_and_whitespace_normalised():
    personalisation = address(" Jan   Jansen ", "Damrak 1,", "", "   ", None, "1012ab", "")
    assert validate_postal_address(personalisation) == nl(["Jan Jansen", "Damrak 1", "1012 AB"], "1012 AB")


def test_other_personalisation_keys_are_ignored():
    personalisation = address("Jan Jansen", "Damrak 1", "1012 AB", name="Jan", reference=12)
    assert validate_postal_address(personalisation).lines == ["Jan Jansen", "Damrak 1", "1012 AB"]


def test_seven_lines_are_allowed():
    lines = ["Jan Jansen", "Afdeling X", "Gebouw Y", "Kamer 3", "Postbus 1", "Damrak 1", "1012 AB Amsterdam"]
    assert validate_postal_address(address(*lines)).lines[-1] == "1012 AB  AMSTERDAM"


# --- Dutch postcode errors -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "last_line",
    [
        "0123 AB",  # first digit 0: below 1000
        "0123AB Amsterdam",
        "1234 SA",  # SA, SD and SS are never issued
        "1234 sd",
        "1234SS Amsterdam",
        "123 AB",  # wrong digit count
        "12345 AB",
        "1234",  # letters missing
        "1234 A",
        "1234 ABC",
        "1234 Amsterdam",
    ],
)
def test_postcode_attempts_that_are_not_real(last_line):
    assert errors(address("Jan Jansen", "Damrak 1", last_line)) == ["Must be a real NL postcode"]


@pytest.mark.parametrize("last_line", ["Amsterdam", "Damrak 1", "10115 Berlin", "Narnia", "AB 1234"])
def test_last_line_neither_postcode_nor_country(last_line):
    assert errors(address("Jan Jansen", "Damrak 1", last_line)) == [LAST_LINE]


# --- international addresses ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "country_line, country, zone",
    [
        ("Duitsland", "Germany", "europe"),
        ("Germany", "Germany", "europe"),
        ("Deutschland", "Germany", "europe"),
        ("GERMANY", "Germany", "europe"),
        ("België", "Belgium", "europe"),
        ("Belgie", "Belgium", "europe"),  # accents optional
        ("Belgique", "Belgium", "europe"),
        ("Frankrijk", "France", "europe"),
        ("Verenigd Koninkrijk", "United Kingdom", "europe"),
        ("United Kingdom", "United Kingdom", "europe"),
        ("UK", "United Kingdom", "europe"),
        ("U.K.", "United Kingdom", "europe"),
        ("Great Britain", "United Kingdom", "europe"),
        ("Zwitserland", "Switzerland", "europe"),
        ("Noorwegen", "Norway", "europe"),
        ("IJsland", "Iceland", "europe"),
        ("Turkije", "Türkiye", "europe"),
        ("Oekraïne", "Ukraine", "europe"),
        ("Verenigde Staten", "United States", "rest-of-world"),
        ("USA", "United States", "rest-of-world"),
        ("United States of America", "United States", "rest-of-world"),
        ("Canada", "Canada", "rest-of-world"),
        ("Marokko", "Morocco", "rest-of-world"),
        ("Suriname", "Suriname", "rest-of-world"),
        ("Curaçao", "Curaçao", "rest-of-world"),
        ("Curacao", "Curaçao", "rest-of-world"),
        ("Aruba", "Aruba", "rest-of-world"),
        ("Zuid-Afrika", "South Africa", "rest-of-world"),
        ("Australië", "Australia", "rest-of-world"),
        ("Republic of Korea", "South Korea", "rest-of-world"),
        ("Korea, Republic of", "South Korea", "rest-of-world"),
        ("Cote d'Ivoire", "Côte d'Ivoire", "rest-of-world"),
        ("St Lucia", "Saint Lucia", "rest-of-world"),
    ],
)
def test_international_addresses(country_line, country, zone):
    result = validate_postal_address(address("Hans Müller", "Hauptstraße 1", "10115 Berlin", country_line))
    assert result == PostalAddress(
        lines=["Hans Müller", "Hauptstraße 1", "10115 Berlin", country],
        postcode=None,
        country=country,
        international=True,
        postage_zone=zone,
        is_bfpo=False,
    )


def test_international_address_with_country_in_legacy_postcode_key():
    result = validate_postal_address(address("Hans Müller", "Hauptstraße 1", postcode="Duitsland"))
    assert result.country == "Germany"
    assert result.lines == ["Hans Müller", "Hauptstraße 1", "Germany"]


def test_country_line_counts_towards_the_minimum():
    assert errors(address("Hans Müller", "Duitsland")) == [
        "personalisation address_line_3 is a required property",
        "Address must be at least 3 lines",
    ]


@pytest.mark.parametrize(
    "text, code",
    [
        ("the Netherlands", "NL"),
        ("Holland", "NL"),
        ("Faerøer", "FO"),
        ("Bosnië en Herzegovina", "BA"),
        ("Kosovo", "XK"),
        ("Congo-Kinshasa", "CD"),
        ("Democratic Republic of the Congo", "CD"),
        ("Verenigde Arabische Emiraten", "AE"),
        ("UAE", "AE"),
    ],
)
def test_find_country(text, code):
    assert find_country(text).code == code


@pytest.mark.parametrize("text", ["Amsterdam", "DE", "IN", "", "Europe"])
def test_find_country_rejects_non_countries_and_bare_codes(text):
    assert find_country(text) is None


# --- BFPO ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("bfpo_line", ["BFPO 1234", "bfpo 57", "B.F.P.O. 801"])
def test_bfpo_address(bfpo_line):
    result = validate_postal_address(address("Sgt J Smith", "Unit 5", bfpo_line))
    assert result == PostalAddress(
        lines=["Sgt J Smith", "Unit 5", bfpo_line],
        postcode=None,
        country="United Kingdom",
        international=True,
        postage_zone="europe",
        is_bfpo=True,
    )


def test_bfpo_address_with_uk_postcode_last():
    assert validate_postal_address(address("Sgt J Smith", "BFPO 1234", "BF1 4AA")).is_bfpo


@pytest.mark.parametrize("country_line", ["United Kingdom", "UK", "Verenigd Koninkrijk", "Nederland", "Duitsland"])
def test_bfpo_address_must_not_end_with_a_country(country_line):
    assert errors(address("Sgt J Smith", "BFPO 1234", "Unit 5", country_line)) == [
        "The last line of a BFPO address must not be a country."
    ]


# --- required lines and line counts --------------------------------------------------------------


def test_every_missing_required_line_is_reported():
    assert errors({}) == [
        "personalisation address_line_1 is a required property",
        "personalisation address_line_2 is a required property",
        "personalisation address_line_3 is a required property",
        "Address must be at least 3 lines",
    ]


def test_legacy_postcode_key_stands_in_for_address_line_3():
    assert errors(address("Jan Jansen", postcode="1012 AB")) == [
        "personalisation address_line_2 is a required property",
        "Address must be at least 3 lines",
    ]


def test_null_required_line_is_missing():
    assert errors(address("Jan Jansen", None, "Damrak 1", "1012 AB")) == [
        "personalisation address_line_2 is a required property"
    ]


def test_blank_required_line_only_counts_as_a_dropped_line():
    assert validate_postal_address(address("Jan Jansen", "", "Damrak 1", "1012 AB")).lines == [
        "Jan Jansen",
        "Damrak 1",
        "1012 AB",
    ]


def test_too_few_lines():
    assert errors(address("Jan Jansen", "", "1012 AB")) == ["Address must be at least 3 lines"]


def test_too_many_lines_with_legacy_postcode():
    lines = [f"Regel {n}" for n in range(1, 8)]
    assert errors(address(*lines, postcode="1012 AB")) == ["Address must be no more than 7 lines"]


# --- forbidden first characters ------------------------------------------------------------------


@pytest.mark.parametrize("character", list("@()=[]\u201d\\/,<>"))
def test_forbidden_first_character(character):
    assert errors(address("Jan Jansen", f"{character}Damrak 1", "1012 AB")) == [FORBIDDEN]


def test_forbidden_character_after_leading_spaces_and_in_postcode_key():
    assert errors(address("  <Jan", "Damrak 1", postcode="(1012 AB")) == [FORBIDDEN, LAST_LINE]


@pytest.mark.parametrize("line", ["Jan @ home", '"Het Huis"', "\u201cHet Huis\u201d", "'t Hof 1", "Damrak 1)"])
def test_allowed_characters(line):
    assert validate_postal_address(address(line, "Damrak 1", "1012 AB")).lines[0] == line


def test_forbidden_message_lists_the_curly_quote():
    assert "\u201d" in FORBIDDEN
    assert errors(address("\u201dJan", "Damrak 1", "1012 AB")) == [FORBIDDEN]


# --- no fixed abode ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "No fixed abode",
        "of no fixed address",
        "Jan Jansen, no fixed abode",
        "NFA",
        "N.F.A.",
        "Zonder vaste woon- of verblijfplaats",
        "zonder vaste woonplaats",
        "geen vast adres",
        "ZVWO",
        "z.v.w.o.",
    ],
)
def test_no_fixed_abode_is_not_a_real_address(line):
    assert errors(address("Jan Jansen", line, "1012 AB")) == ["Must be a real address"]


def test_nfa_inside_a_name_is_allowed():
    assert validate_postal_address(address("NFA Logistics BV", "Damrak 1", "1012 AB")).postcode == "1012 AB"


# --- all problems together -----------------------------------------------------------------------


def test_all_problems_reported_once_in_stable_order():
    personalisation = {
        "address_line_1": "@Jan",
        "address_line_3": "=no fixed abode",
        "address_line_4": "[NFA",
        "address_line_5": "0123 AB",
    }
    assert errors(personalisation) == [
        "personalisation address_line_2 is a required property",
        FORBIDDEN,
        "Must be a real NL postcode",
        "Must be a real address",
    ]


def test_errors_are_value_errors_with_all_messages():
    with pytest.raises(ValueError) as error:
        validate_postal_address(address("Jan", "Damrak 1"))
    assert str(error.value) == "personalisation address_line_3 is a required property; " + (
        "Address must be at least 3 lines; " + LAST_LINE
    )
