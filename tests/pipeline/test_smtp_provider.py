"""SmtpProvider against a real aiosmtpd server: what arrives, and how each refusal is sorted."""
from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from typing import Any

import pytest

from pipeline.infrastructure.providers import (
    EmailMessageData,
    FinalProviderError,
    OutcomeUnknownError,
    RetryableProviderError,
    SmtpProvider,
)
from tests.smtp_server import SmtpServer, make_tls_contexts, smtp_server  # noqa: F401 (fixture)


def make_message(**overrides: object) -> EmailMessageData:
    fields: dict[str, object] = {
        "notification_id": "3f8b2c1e-5d6a-4b7c-9e0f-1a2b3c4d5e6f",
        "to": "jan.jansen@example.nl",
        "from_address": "Gemeente Utrecht <gemeente.utrecht@notify.example.nl>",
        "reply_to": "balie@utrecht.example.nl",
        "subject": "Uw afspraak is bevestigd",
        "text_body": "Beste Jan,\n\nUw afspraak staat.\n",
        "html_body": "<p>Beste Jan,</p><p>Uw afspraak staat.</p>\n",
        "one_click_unsubscribe_url": None,
    }
    fields.update(overrides)
    return EmailMessageData(**fields)  # type: ignore[arg-type]


def send(url: str, message: EmailMessageData | None = None, **options: object) -> str:
    """One message through a fresh provider, closed afterwards (providers keep their connection)."""
    with closing(SmtpProvider(url, **options)) as provider:  # type: ignore[arg-type]
        return provider.send_email(message or make_message())


@pytest.fixture
def open_provider() -> Iterator[Callable[..., SmtpProvider]]:
    """Make providers that stay open across sends within the test, closed at its end."""
    made: list[SmtpProvider] = []

    def make(url: str, **options: Any) -> SmtpProvider:
        made.append(SmtpProvider(url, **options))
        return made[-1]

    yield make
    for provider in made:
        provider.close()


def test_the_message_arrives_with_envelope_headers_and_both_parts(smtp_server: SmtpServer) -> None:
    send(smtp_server.url)

    [received] = smtp_server.wait_for_messages(1)
    assert received.mail_from == "gemeente.utrecht@notify.example.nl"
    assert received.rcpt_tos == ("jan.jansen@example.nl",)
    message = received.message
    assert message["From"] == "Gemeente Utrecht <gemeente.utrecht@notify.example.nl>"
    assert message["To"] == "jan.jansen@example.nl"
    assert message["Subject"] == "Uw afspraak is bevestigd"
    assert message["Reply-To"] == "balie@utrecht.example.nl"
    assert message["Date"]
    assert message.get_content_type() == "multipart/alternative"
    text, html = message.iter_parts()
    assert (text.get_content_type(), html.get_content_type()) == ("text/plain", "text/html")
    assert text.get_content() == "Beste Jan,\n\nUw afspraak staat.\n"
    assert html.get_content() == "<p>Beste Jan,</p><p>Uw afspraak staat.</p>\n"


def test_the_reference_is_the_message_id_with_the_notification_id_in_it(smtp_server: SmtpServer) -> None:
    reference = send(smtp_server.url)

    [received] = smtp_server.wait_for_messages(1)
    assert received.message["Message-ID"] == reference
    left, _, right = reference.strip("<>").partition("@")
    assert left.endswith("3f8b2c1e-5d6a-4b7c-9e0f-1a2b3c4d5e6f")
    assert right == "notify.example.nl"


def test_one_click_unsubscribe_headers_only_when_a_url_is_given(smtp_server: SmtpServer,
                                                                open_provider: Callable[..., SmtpProvider]) -> None:
    provider = open_provider(smtp_server.url)
    provider.send_email(make_message(one_click_unsubscribe_url="https://utrecht.example.nl/afmelden?u=42"))
    provider.send_email(make_message())

    with_url, without_url = (r.message for r in smtp_server.wait_for_messages(2))
    assert with_url["List-Unsubscribe"] == "<https://utrecht.example.nl/afmelden?u=42>"
    assert with_url["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert "List-Unsubscribe" not in without_url
    assert "List-Unsubscribe-Post" not in without_url


def test_no_reply_to_header_without_a_reply_to(smtp_server: SmtpServer) -> None:
    send(smtp_server.url, make_message(reply_to=None))

    [received] = smtp_server.wait_for_messages(1)
    assert "Reply-To" not in received.message


def test_utf8_subject_body_and_sender_name_arrive_intact(smtp_server: SmtpServer) -> None:
    send(smtp_server.url, make_message(
        from_address="Gemeente 's-Hertogenbosch, Burgerzaken <burgerzaken@notify.example.nl>",
        subject="Ëën afspraak op één dag 🎉 – café",
        text_body="Geachte heer Çelik,\n\nTot ziens in het gemeentehuis ☕️.\n",
        html_body="<p>Geachte heer Çelik, tot ziens ☕️</p>\n",
    ))

    [received] = smtp_server.wait_for_messages(1)
    assert received.data.isascii()  # encoded for any server, not 8-bit
    message = received.message
    assert message["Subject"] == "Ëën afspraak op één dag 🎉 – café"
    assert message["From"].addresses[0].display_name == "Gemeente 's-Hertogenbosch, Burgerzaken"
    assert message["From"].addresses[0].addr_spec == "burgerzaken@notify.example.nl"
    text, html = message.iter_parts()
    assert text.get_content_charset() == "utf-8"
    assert text.get_content() == "Geachte heer Çelik,\n\nTot ziens in het gemeentehuis ☕️.\n"
    assert html.get_content() == "<p>Geachte heer Çelik, tot ziens ☕️</p>\n"


@pytest.mark.parametrize(
    ("from_address", "name"),
    [
        ("Dienst Toeslagen <toeslagen@notify.example.nl>", "Dienst Toeslagen"),
        ('"Dienst Toeslagen" <toeslagen@notify.example.nl>', "Dienst Toeslagen"),
        ('"Stichting "De Brug", Zwolle" <toeslagen@notify.example.nl>', 'Stichting "De Brug", Zwolle'),
        ('"Stichting \\"De Brug\\"" <toeslagen@notify.example.nl>', 'Stichting "De Brug"'),
        ("toeslagen@notify.example.nl", ""),
    ],
)
def test_the_sender_name_may_come_bare_or_quoted(smtp_server: SmtpServer, from_address: str, name: str) -> None:
    send(smtp_server.url, make_message(from_address=from_address))

    [received] = smtp_server.wait_for_messages(1)
    [sender] = received.message["From"].addresses
    assert (sender.display_name, sender.addr_spec) == (name, "toeslagen@notify.example.nl")
    assert received.mail_from == "toeslagen@notify.example.nl"


def test_a_newline_in_the_subject_cannot_add_a_header(smtp_server: SmtpServer) -> None:
    send(smtp_server.url, make_message(subject="Hallo\nBcc: iedereen@example.nl"))

    [received] = smtp_server.wait_for_messages(1)
    assert received.message["Subject"] == "Hallo Bcc: iedereen@example.nl"
    assert "Bcc" not in received.message
    assert received.rcpt_tos == ("jan.jansen@example.nl",)


def test_a_connection_is_reused_for_the_next_message(smtp_server: SmtpServer,
                                                     open_provider: Callable[..., SmtpProvider]) -> None:
    provider = open_provider(smtp_server.url)
    provider.send_email(make_message())
    provider.send_email(make_message())

    first, second = smtp_server.wait_for_messages(2)
    assert first.peer == second.peer


def test_worker_threads_share_a_provider_each_with_its_own_connection(smtp_server: SmtpServer) -> None:
    provider = SmtpProvider(smtp_server.url)

    def worker(n: int) -> None:
        for i in range(3):
            provider.send_email(make_message(notification_id=f"n-{n}-{i}"))
        provider.close()  # closes this thread's connection

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    received = smtp_server.wait_for_messages(18)
    ids = sorted(r.message["Message-ID"].split("@")[0].rsplit(".", 1)[1] for r in received)
    assert ids == sorted(f"n-{n}-{i}" for n in range(6) for i in range(3))  # each exactly once
    assert len({r.peer for r in received}) == 6


def test_a_connection_the_server_dropped_is_replaced(open_provider: Callable[..., SmtpProvider]) -> None:
    with SmtpServer(timeout=0.3) as server:  # the server hangs up on idle clients after 0.3 s
        provider = open_provider(server.url)
        provider.send_email(make_message())
        time.sleep(0.8)
        provider.send_email(make_message())

        first, second = server.wait_for_messages(2)
        assert first.peer != second.peer


def test_a_permanent_recipient_refusal_is_final_permanent_failure(smtp_server: SmtpServer) -> None:
    smtp_server.fail_next(1, "550 5.1.1 No such user")

    with pytest.raises(FinalProviderError) as raised:
        send(smtp_server.url)

    assert raised.value.status == "permanent-failure"
    assert "550" in str(raised.value)
    assert smtp_server.messages == []


def test_a_temporary_recipient_refusal_is_retryable(smtp_server: SmtpServer,
                                                    open_provider: Callable[..., SmtpProvider]) -> None:
    smtp_server.fail_next(1, "451 4.3.0 Mailbox temporarily unavailable")
    provider = open_provider(smtp_server.url)

    with pytest.raises(RetryableProviderError):
        provider.send_email(make_message())

    provider.send_email(make_message())  # and the retry gets through
    assert len(smtp_server.wait_for_messages(1)) == 1


def test_a_timeout_after_data_leaves_the_outcome_unknown(open_provider: Callable[..., SmtpProvider]) -> None:
    with SmtpServer() as server:
        server.stall_data_next(1, 2.0)  # takes the message, answers too late
        provider = open_provider(server.url, timeout=0.5)

        with pytest.raises(OutcomeUnknownError) as raised:
            provider.send_email(make_message())

        assert not raised.value.certainly_not_delivered
        assert len(server.wait_for_messages(1)) == 1  # it did arrive: sending again would duplicate it


def test_a_refusal_before_data_is_certainly_not_delivered(smtp_server: SmtpServer) -> None:
    smtp_server.fail_next(1, "451 4.3.0 Try again later")
    with pytest.raises(RetryableProviderError) as raised:
        send(smtp_server.url)
    assert raised.value.certainly_not_delivered and smtp_server.messages == []


def test_a_server_that_is_not_listening_is_retryable() -> None:
    with socket.socket() as sock:  # a port that was free a moment ago, with nobody listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]

    with pytest.raises(RetryableProviderError):
        send(f"smtp://127.0.0.1:{port}", timeout=2)


def test_good_credentials_are_accepted() -> None:
    with SmtpServer(credentials={"notify": "p@ss w/rd"}) as server:
        send(f"smtp://notify:p%40ss%20w%2Frd@127.0.0.1:{server.port}")

        assert len(server.wait_for_messages(1)) == 1


def test_bad_credentials_are_final_technical_failure() -> None:
    with SmtpServer(credentials={"notify": "secret"}) as server:
        with pytest.raises(FinalProviderError) as raised:
            send(f"smtp://notify:wrong@127.0.0.1:{server.port}")

        assert raised.value.status == "technical-failure"
        assert server.messages == []


def test_starttls_with_a_verified_certificate_and_credentials() -> None:
    server_tls, client_tls = make_tls_contexts()
    with SmtpServer(tls_context=server_tls, credentials={"notify": "secret"}) as server:
        url = f"smtp+starttls://notify:secret@127.0.0.1:{server.port}"
        send(url, tls_context=client_tls)

        [received] = server.wait_for_messages(1)
        assert received.rcpt_tos == ("jan.jansen@example.nl",)


def test_starttls_refuses_a_certificate_it_cannot_verify() -> None:
    server_tls, _ = make_tls_contexts()
    with SmtpServer(tls_context=server_tls) as server:
        with pytest.raises(RetryableProviderError, match="CERTIFICATE_VERIFY_FAILED"):
            send(server.url)  # the system trust store does not know it

        assert server.messages == []


def test_plain_smtp_to_a_server_that_requires_starttls_is_final_technical_failure() -> None:
    server_tls, _ = make_tls_contexts()
    with SmtpServer(tls_context=server_tls) as server:
        with pytest.raises(FinalProviderError) as raised:
            send(f"smtp://127.0.0.1:{server.port}")

        assert raised.value.status == "technical-failure"


def test_implicit_tls() -> None:
    server_tls, client_tls = make_tls_contexts()
    with SmtpServer(tls_context=server_tls, implicit_tls=True) as server:
        assert server.url.startswith("smtps://")
        send(server.url, tls_context=client_tls)

        assert len(server.wait_for_messages(1)) == 1


@pytest.mark.parametrize("url", ["http://127.0.0.1:25", "smtp://", "smtp+ssl://mail.example.nl"])
def test_an_unusable_url_is_refused_up_front(url: str) -> None:
    with pytest.raises(ValueError):
        SmtpProvider(url)
