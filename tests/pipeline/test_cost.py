import pytest

from pipeline.domain.cost import (
    GSM7_BASIC_TABLE,
    SMS_CHARACTER_LIMIT,
    SmsFragments,
    non_gsm7_characters,
    sms_fragments,
    sms_too_long,
    sms_too_long_message,
)


def test_gsm_table_is_the_full_128_entry_default_alphabet():
    assert len(GSM7_BASIC_TABLE) == 128
    assert GSM7_BASIC_TABLE[0x00] == "@"
    assert GSM7_BASIC_TABLE[0x1B] == "\x1b"
    assert GSM7_BASIC_TABLE[0x24] == "¤"
    assert GSM7_BASIC_TABLE[0x7F] == "à"


@pytest.mark.parametrize(
    ("length", "fragments"),
    [(1, 1), (160, 1), (161, 2), (306, 2), (307, 3), (459, 3), (460, 4), (918, 6), (919, 7)],
)
def test_gsm7_fragment_boundaries(length, fragments):
    assert sms_fragments("a" * length) == SmsFragments("gsm7", length, fragments)


@pytest.mark.parametrize(("length", "fragments"), [(70, 1), (71, 2), (134, 2), (135, 3), (201, 3), (202, 4)])
def test_ucs2_fragment_boundaries(length, fragments):
    text = "ŵ" + "a" * (length - 1)  # one character outside GSM-7 makes the whole message UCS-2
    assert sms_fragments(text) == SmsFragments("ucs2", length, fragments)


def test_extension_characters_count_two_units():
    assert sms_fragments("€") == SmsFragments("gsm7", 2, 1)
    assert sms_fragments("^{}\\[~]|€").characters == 18
    assert sms_fragments("[" * 80).fragments == 1
    assert sms_fragments("a" + "[" * 80) == SmsFragments("gsm7", 161, 2)


def test_basic_table_accents_and_greek_stay_gsm7():
    result = sms_fragments("Ça coûte £5 — no")  # û and the em dash are not GSM-7
    assert result.encoding == "ucs2"
    assert sms_fragments("Ça va? £5, ¥3, ΔΩ, Ñ, ü, à\n").encoding == "gsm7"


def test_lowercase_c_cedilla_is_not_in_the_basic_table():
    assert sms_fragments("ç").encoding == "ucs2"


def test_ucs2_counts_utf16_code_units():
    assert sms_fragments("😀") == SmsFragments("ucs2", 2, 1)
    assert sms_fragments("😀" * 35) == SmsFragments("ucs2", 70, 1)
    assert sms_fragments("😀" * 36) == SmsFragments("ucs2", 72, 2)


def test_empty_message_is_one_fragment():
    assert sms_fragments("") == SmsFragments("gsm7", 0, 1)


def test_escape_character_itself_is_not_gsm7():
    assert sms_fragments("\x1b").encoding == "ucs2"


def test_length_limit():
    assert SMS_CHARACTER_LIMIT == 918
    assert not sms_too_long("a" * 918)
    assert sms_too_long("a" * 919)
    assert sms_too_long("€" * 460)
    assert sms_too_long_message(919) == (
        "Text messages cannot be longer than 918 characters. Your message is 919 characters."
    )


def test_the_characters_that_force_ucs2_are_named_once_each_in_order():
    assert non_gsm7_characters("Café € [ok]") == []  # é is in the basic table, € and [ in the extension
    assert non_gsm7_characters("ç – ê – ç 😀") == ["ç", "–", "ê", "😀"]
