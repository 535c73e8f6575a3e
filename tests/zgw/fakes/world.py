"""The world the ZGW fakes make together: Open Zaak (Zaken + Catalogi), Open Klant and Open
Notificaties on their own 127.0.0.1 ports, seeded and inspected as /work/wt/ZGW-FAKES-INTERFACE.md
(the agreed interface) says. See tests/zgw/fakes/__init__.py for what each fake serves and refuses.
"""
from __future__ import annotations

import secrets
from typing import Any

import requests

from tests.zgw.fakes.common import zgw_token
from tests.zgw.fakes.openklant import OpenKlant
from tests.zgw.fakes.opennotificaties import OpenNotificaties
from tests.zgw.fakes.openzaak import OpenZaak
from tests.zgw.fakes.server import FakeServer, Tls

_PREFIXES = {"zaken": "/zaken/", "catalogi": "/catalogi/"}
RSIN = "002220647"  # passes the 11-proef, as the Zaken API's bronorganisatie must


def elfproef(number: str) -> bool:
    """The BSN/RSIN check (https://nl.wikipedia.org/wiki/Burgerservicenummer#11-proef)."""
    if len(number) != 9 or not number.isdigit():
        return False
    total = sum(int(digit) * weight for digit, weight in zip(number[:8], range(9, 1, -1), strict=True))
    return (total - int(number[8])) % 11 == 0 and number != "000000000"


class ZgwWorld:
    """Attributes and methods as the interface file names them."""

    def __init__(self, *, openzaak_tls: Tls | None = None, klant_tls: Tls | None = None) -> None:
        """`openzaak_tls`, `klant_tls`: Open Zaak, Open Klant served over TLS under a name (an internal
        network's); Open Notificaties always on 127.0.0.1 by plain http."""
        self.client_id = "notify-zgw"
        self.secret = secrets.token_urlsafe(48)
        self.nrc_client_id = "notify-nrc-consumer"
        self.nrc_secret = secrets.token_urlsafe(48)
        self.klant_token = secrets.token_hex(20)
        self.rsin = RSIN
        # Open Zaak's own credentials at the NRC, for publishing (scope notificaties.publiceren).
        self._publisher = ("openzaak-publisher", secrets.token_urlsafe(48))
        self._openzaak = OpenZaak({self.client_id: self.secret}, openzaak_tls)
        self._klant = OpenKlant(self.klant_token, klant_tls)
        self._nrc = OpenNotificaties(consumers={self.nrc_client_id: self.nrc_secret},
                                     publishers={self._publisher[0]: self._publisher[1]})
        self._apis: dict[str, FakeServer] = {"zaken": self._openzaak, "catalogi": self._openzaak,
                                             "klant": self._klant, "nrc": self._nrc}
        self._zaaktypen = 0

    # -- life ----------------------------------------------------------------------------------------

    def start(self) -> ZgwWorld:
        try:
            for server in (self._openzaak, self._klant, self._nrc):
                server.start()
        except BaseException:
            self.stop()  # a server not started only closes its socket
            raise
        return self

    def stop(self) -> None:
        for server in (self._nrc, self._klant, self._openzaak):
            server.stop()

    # -- roots -----------------------------------------------------------------------------------------

    @property
    def zaken_root(self) -> str:
        return self._openzaak.zaken_root

    @property
    def catalogi_root(self) -> str:
        return self._openzaak.catalogi_root

    @property
    def klant_root(self) -> str:
        return self._klant.root

    @property
    def nrc_root(self) -> str:
        return self._nrc.root

    # -- NRC delivery settings -------------------------------------------------------------------------

    @property
    def nrc_retry_seconds(self) -> float:
        return self._nrc.retry_seconds

    @nrc_retry_seconds.setter
    def nrc_retry_seconds(self, value: float) -> None:
        self._nrc.retry_seconds = value

    @property
    def nrc_max_attempts(self) -> int:
        return self._nrc.max_attempts

    @nrc_max_attempts.setter
    def nrc_max_attempts(self, value: int) -> None:
        self._nrc.max_attempts = value

    # -- seeding ---------------------------------------------------------------------------------------

    def add_zaaktype(self, omschrijving: str, identificatie: str | None = None) -> str:
        self._zaaktypen += 1
        return self._openzaak.add_zaaktype(omschrijving, identificatie or f"ZAAKTYPE-{self._zaaktypen}")

    def add_statustype(self, zaaktype: str, omschrijving: str, volgnummer: int, *, is_eindstatus: bool = False,
                       informeren: bool = True) -> str:
        """`isEindstatus` is derived as the Catalogi API does (the zaaktype's highest volgnummer);
        `is_eindstatus=True` makes this one an end status whatever its number."""
        return self._openzaak.add_statustype(zaaktype, omschrijving, volgnummer, is_eindstatus=is_eindstatus,
                                             informeren=informeren)

    def add_zaak(self, zaaktype: str, *, identificatie: str, omschrijving: str, bsn: str | None = None,
                 betrokkene: str | None = None) -> str:
        assert bsn is None or elfproef(bsn), f"{bsn!r} fails the 11-proef: Open Zaak refuses such an inpBsn"
        return self._openzaak.add_zaak(zaaktype, identificatie=identificatie, omschrijving=omschrijving,
                                       rsin=self.rsin, bsn=bsn, betrokkene=betrokkene)

    def add_partij(self, *, voornaam: str, achternaam: str, voorvoegsel: str = "", bsn: str | None = None,
                   correspondentieadres: dict[str, Any] | None = None) -> str:
        """A `persoon` partij; `correspondentieadres` (optional, the API's fields: adresregel1..3, land,
        ...) gives it a postal address."""
        assert bsn is None or elfproef(bsn), f"{bsn!r} fails the 11-proef"
        return self._klant.add_partij(voornaam=voornaam, achternaam=achternaam, voorvoegsel=voorvoegsel, bsn=bsn,
                                      correspondentieadres=correspondentieadres)

    def add_digitaal_adres(self, partij: str, *, soort: str, adres: str, referentie: str = "",
                           voorkeur: bool = False) -> str:
        return self._klant.add_digitaal_adres(partij, soort=soort, adres=adres, referentie=referentie,
                                              voorkeur=voorkeur)

    def set_status(self, zaak: str, statustype: str) -> str:
        """Sets the status in Open Zaak and publishes it at the NRC as Open Zaak does (kanaal "zaken")."""
        status = self._openzaak.add_status(zaak, statustype)
        with self._openzaak.lock:
            aanmaakdatum = self._openzaak.statussen[status]["datumStatusGezet"]
        message = {"kanaal": "zaken", "hoofdObject": zaak, "resource": "status", "resourceUrl": status,
                   "actie": "create", "aanmaakdatum": aanmaakdatum, "kenmerken": self._openzaak.kenmerken(zaak)}
        self.publish(message)
        return status

    def publish(self, message: dict[str, Any]) -> requests.Response:
        """Posts a message to the NRC's /notificaties as a publishing API does (raises if refused)."""
        answer = requests.post(self.nrc_root + "notificaties", json=message, timeout=10,
                               headers={"Authorization": zgw_token(*self._publisher)})
        assert answer.status_code == 201, f"the NRC refused the message: {answer.status_code} {answer.text}"
        return answer

    # -- what happened ---------------------------------------------------------------------------------

    def subscriptions(self) -> list[dict[str, Any]]:
        return self._nrc.subscriptions()

    def deliveries(self) -> list[dict[str, Any]]:
        return self._nrc.deliveries()

    def wait_for_deliveries(self, count: int, *, test: bool = False, timeout: float = 10.0) -> list[dict[str, Any]]:
        """Blocks until at least `count` deliveries (test messages when `test`) were made; returns them."""
        return self._nrc.wait_for_deliveries(count, test=test, timeout=timeout)

    def redeliver_last(self) -> int | None:
        """Posts the last delivered message again to its subscriber; returns the status it answered."""
        return self._nrc.redeliver_last()

    def klantcontacten(self) -> list[dict[str, Any]]:
        return self._klant.klantcontacten()

    def requests(self, api: str) -> list[tuple[str, str, int]]:
        prefix = _PREFIXES.get(api)
        return [entry for entry in self._apis[api].requests() if prefix is None or entry[1].startswith(prefix)]

    # -- faults ----------------------------------------------------------------------------------------

    def take_down(self, api: str) -> None:
        """The API answers 503 to everything until brought up (Zaken and Catalogi each on their own)."""
        with self._apis[api].lock:
            self._apis[api].down.add(_PREFIXES.get(api, "/"))

    def bring_up(self, api: str) -> None:
        with self._apis[api].lock:
            self._apis[api].down.discard(_PREFIXES.get(api, "/"))
