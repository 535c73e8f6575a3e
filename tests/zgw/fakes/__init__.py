"""Fakes of the ZGW APIs a municipality runs: Open Zaak (Zaken API 1.5.1 + Catalogi API 1.3.1), Open Klant
(klantinteracties API 0.9.0, Open Klant 2.18.0) and Open Notificaties (Notificaties API 1.0), each a real
HTTP server on 127.0.0.1, written from the public OpenAPI files alone (each module names the file, tag
and commit it follows) and strict about them. The interface the feature's tests use is fixed in
/work/wt/ZGW-FAKES-INTERFACE.md:

    from tests.zgw.fakes import zgw_world      # or the `zgw` fixture of tests/zgw/conftest.py

    with zgw_world() as zgw:
        zaaktype = zgw.add_zaaktype("Aanvraag parkeervergunning")
        ontvangen = zgw.add_statustype(zaaktype, "Ontvangen", 1)
        partij = zgw.add_partij(voornaam="Jan", achternaam="Vries", voorvoegsel="de", bsn="999993653")
        zgw.add_digitaal_adres(partij, soort="email", adres="jan@example.nl", voorkeur=True)
        zaak = zgw.add_zaak(zaaktype, identificatie="ZAAK-1", omschrijving="Parkeren", bsn="999993653")
        zgw.set_status(zaak, ontvangen)        # delivered to every matching subscription

What each serves (all JSON; every other operation its file has answers 501 "not_implemented_by_fake"):
- Open Zaak, Zaken (zaken_root): GET zaken/{uuid}, GET statussen/{uuid}, GET statussen (zaak, statustype,
  indicatieLaatstGezetteStatus), GET rollen/{uuid}, GET rollen (zaak, betrokkene, betrokkeneType,
  betrokkeneIdentificatie__natuurlijkPersoon__inpBsn, roltype, omschrijving, omschrijvingGeneriek).
- Open Zaak, Catalogi (catalogi_root): GET zaaktypen/{uuid}, GET statustypen/{uuid}, GET statustypen
  (zaaktype, zaaktypeIdentificatie, status), GET roltypen/{uuid}.
- Open Klant (klant_root): GET partijen (partijIdentificator__codeObjecttype/__codeSoortObjectId/
  __objectId/__codeRegister, soortPartij, expand), GET partijen/{uuid} (expand), GET digitaleadressen
  (verstrektDoorPartij__uuid/__url, soortDigitaalAdres, referentie, adres), GET digitaleadressen/{uuid},
  POST klantcontacten, GET klantcontacten/{uuid}, POST betrokkenen, POST onderwerpobjecten,
  POST maak-klantcontact.
- Open Notificaties (nrc_root): GET/POST abonnement, GET/PUT/PATCH/DELETE abonnement/{uuid}, GET kanaal
  (naam), GET kanaal/{uuid}, POST notificaties (the world's own publishing). On a subscription made or
  changed it posts the test message (kanaal "test") without `Authorization` expecting 401/403, then
  with `auth` as the header expecting 200-209, and refuses the subscription (400) otherwise; it
  delivers each published message to the subscriptions whose kanaal and filters match, in its own
  thread, retrying a non-2xx or no answer with back-off (nrc_retry_seconds, nrc_max_attempts).
Lists are paginated as the files say (count, next, previous, results; page, and Open Klant's pageSize);
`page_size` on a fake shortens pages.

What each refuses, in the files' `Fout` / `ValidatieFout` problem JSON:
- Open Zaak and Open Notificaties: no, a malformed, a wrongly signed, an unknown client's, a future or an
  hour-old ZGW JWT (HS256; claims iss, iat, client_id, user_id, user_representation): 403. At the NRC a
  consumer cannot publish and a publisher cannot subscribe: 403.
- Open Klant: no `Authorization: Token <key>` or another key: 401.
- Everywhere: a path the file does not have, or a path parameter that is not a UUID: 404; a method the
  path does not have: 405 (after authentication, as DRF checks it); an `Accept` without JSON: 406;
  a query parameter the file does not have: 400 "unknown-parameters"; a filter value that is not a URL
  where the file says uri, or not one of an enum's choices: 400; a body that is not application/json:
  415; not JSON, missing required fields or breaking types, lengths, patterns, formats or enums: 400;
  a foreign key to nothing: 400; a body over 64 KiB: 413; an API taken down (take_down): 503.
- Zaken: zaak_retrieve without `Accept-Crs` or `Content-Crs` (both marked required in the file): 412;
  either not EPSG:4326: 406.
Every 2xx body is checked against the schema transcribed from the file before it is sent (a fake that
would break it answers 500 "fake_defect" instead).
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

from tests.zgw.fakes.server import Tls
from tests.zgw.fakes.world import ZgwWorld


@contextlib.contextmanager
def zgw_world(*, openzaak_tls: Tls | None = None, klant_tls: Tls | None = None) -> Iterator[ZgwWorld]:
    """Starts the three fakes on free ports (Open Zaak and Open Klant over TLS under a name when given
    one); stops them (and the NRC's delivery thread) on leaving."""
    world = ZgwWorld(openzaak_tls=openzaak_tls, klant_tls=klant_tls).start()
    try:
        yield world
    finally:
        world.stop()


__all__ = ["Tls", "ZgwWorld", "zgw_world"]
