"""One way to write a phone number, a recipient and a moment, whichever page, email or file shows it."""
from __future__ import annotations

import datetime

import pytest

from pipeline.domain.message_words import Written, status_words
from pipeline.domain.recipients import written_phone_number, written_recipient
from pipeline.domain.wall_clock import on_the_clock


@pytest.mark.parametrize("typed", ["0612345678", "06 12345678", "06-1234 5678", "+31612345678", "+31 6 1234 5678",
                                   "0031612345678", "31612345678", "+31 (0)6 12345678"])
def test_a_dutch_mobile_number_is_written_as_the_dutch_government_writes_it(typed):
    assert written_phone_number(typed) == "06 12345678"


@pytest.mark.parametrize("typed, written", [
    ("+32470123456", "+32 470 12 34 56"), ("0032 470 12 34 56", "+32 470 12 34 56"),
    ("+447700900123", "+44 7700 900123"), ("020-1234567", "020 123 4567"), ("3197010000001", "0970 100 00001"),
    ("Gemeente", "Gemeente"), ("06123", "06123"), ("  06  1 ", "06 1"), ("", ""),
])
def test_any_other_number_internationally_with_spaces_and_what_is_no_number_as_given(typed, written):
    assert written_phone_number(typed) == written


def test_a_recipient_of_each_channel():
    assert written_recipient("sms", "+31 6 1234 5678") == "06 12345678"
    assert written_recipient("email", "Jan@Example.nl") == "Jan@Example.nl"
    # The envelope's two spaces between the postcode and the town are single on one line.
    printed = "A. Jansen\nDorpsstraat 1\n1234 CD  VOORBEELDSTAD"
    assert written_recipient("letter", printed) == "A. Jansen, Dorpsstraat 1, 1234 CD VOORBEELDSTAD"
    assert written_recipient("letter", printed, one_line=False) == printed
    assert written_recipient("sms", None) == ""


def test_a_moment_on_the_services_clock_in_the_readers_language():
    winter, summer = datetime.datetime(2026, 12, 9, 14, 36, 49, 607368), datetime.datetime(2026, 7, 1, 6, 5)
    assert on_the_clock(winter) == "9 dec 2026 15:36 CET"  # stored UTC, shown on Amsterdam's clock
    assert on_the_clock(winter, "Europe/Amsterdam", "en") == "9 Dec 2026 15:36 CET"
    assert on_the_clock(summer, "Europe/Amsterdam") == "1 jul 2026 08:05 CEST"
    assert on_the_clock(summer, "Europe/London", "en") == "1 Jul 2026 07:05 BST"
    assert on_the_clock(winter, seconds=True) == "9 dec 2026 15:36:49 CET"
    assert on_the_clock(winter.replace(tzinfo=datetime.UTC)) == "9 dec 2026 15:36 CET"


def test_a_status_has_one_wording_per_channel_in_each_language():
    dutch, english = Written("nl"), Written("en")
    assert dutch.status("letter", "delivered") == "Gedrukt en gepost"
    assert dutch.status("sms", "delivered") == dutch.status("email", "delivered") == "Afgeleverd"
    assert english.status("letter", "sending") == "Handed to the printer"
    assert dutch.channel("sms") == "Sms" and english.channel("sms") == "Text message"
    assert status_words("sms", "no-such-status") == "no-such-status"
    assert Written("nl", "Europe/Amsterdam").file_stamp(datetime.datetime(2026, 12, 7, 14, 38)) == "2026-12-07-1538"
