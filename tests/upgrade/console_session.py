"""The web console driven as a browser without scripts drives it: pages fetched, their forms read
(CSRF token and all) and submitted. Releases old and new are signed into the same way: the one-time
set-up link of `flask --app console create-platform-admin-link`, an account, an authenticator app."""
from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urljoin

import pyotp
import requests

from tests.upgrade.patience import patiently


class _Forms(HTMLParser):
    """Every <form> of a page: its action, method and the values its fields would submit."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, Any]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {name: value or "" for name, value in attrs}
        if tag == "form":
            self.forms.append({"action": attr.get("action", ""), "method": attr.get("method", "get").lower(),
                               "fields": {}, "names": set()})
        elif self.forms and tag in ("input", "select", "textarea", "button") and attr.get("name"):
            form, kind = self.forms[-1], attr.get("type", "text").lower()
            form["names"].add(attr["name"])
            if tag == "input" and kind not in ("checkbox", "radio", "submit", "file") \
                    or kind in ("checkbox", "radio") and "checked" in attr:
                form["fields"][attr["name"]] = attr.get("value", "")


def forms_of(html: str) -> list[dict[str, Any]]:
    parser = _Forms()
    parser.feed(html)
    return parser.forms


@dataclass(frozen=True)
class Account:
    email_address: str
    password: str
    totp_secret: str


class ConsoleSession:
    def __init__(self, base_url: str) -> None:
        self.base_url, self.http = base_url.rstrip("/"), requests.Session()

    def get(self, path: str) -> requests.Response:
        response = patiently(lambda: self.http.get(urljoin(self.base_url + "/", path.lstrip("/")), timeout=60))
        assert response.status_code == 200, f"GET {path}: {response.status_code}\n{response.text[:2000]}"
        return response

    def submit(self, path: str, values: dict[str, str], *, field: str | None = None,
               files: dict[str, tuple[str, bytes, str]] | None = None) -> requests.Response:
        """Fill the form of the page at `path` that has `field` (else the one of values' first name)
        and submit it as a browser would: its hidden fields (the CSRF token) go along."""
        page = self.get(path)
        wanted = field or next(iter(values or files or {}))
        form = next((f for f in forms_of(page.text) if wanted in f["names"]), None)
        assert form is not None, f"no form with {wanted!r} on {path}:\n{page.text[:3000]}"
        target = urljoin(page.url, form["action"] or page.url)
        data = {**form["fields"], **values}
        response = patiently(lambda: self.http.post(target, data=data, files=files, timeout=120))
        assert response.status_code == 200, f"POST {target}: {response.status_code}\n{response.text[:3000]}"
        assert not _form_errors(response.text), f"POST {target} refused: {_form_errors(response.text)}"
        return response

    def become_platform_admin(self, setup_link: str) -> Account:
        """An account from the one-time set-up link, with an authenticator app as its second factor:
        signed in at the end, as the link's first user is."""
        password = "Upgrade " + secrets.token_urlsafe(18)
        account = Account("beheer@upgrade.example.nl", password, "")
        self.submit(setup_link, {"email_address": account.email_address, "name": "Beheer Upgrade",
                                 "password": password, "password_confirm": password}, field="password")
        self.submit("/two-factor/set-up", {"auth_type": "totp"})
        page = self.get("/two-factor/set-up/app")
        secret = re.search(r'id="totp-secret">([A-Z2-7=]+)<', page.text)
        assert secret, page.text[:3000]
        self.submit("/two-factor/set-up/app", {"code": pyotp.TOTP(secret.group(1)).now()})
        self._assert_signed_in()
        return Account(account.email_address, password, secret.group(1))

    def sign_in(self, account: Account) -> None:
        self.submit("/sign-in", {"email_address": account.email_address, "password": account.password})
        # The next period's code: the authenticator's window allows it, and it cannot be the code the
        # set-up used, which the console refuses to take twice.
        self.submit("/two-factor", {"code": pyotp.TOTP(account.totp_secret).at(time.time() + 30)})
        self._assert_signed_in()

    def _assert_signed_in(self) -> None:
        assert "/sign-in" not in self.get("/").url, "not signed in"


def _form_errors(html: str) -> str:
    """The text of the page's error summary (every release's forms show one when refused), else ""."""
    start = html.find("notify-error-summary")
    return "" if start < 0 else " ".join(re.sub(r"<[^>]+>", " ", html[start:start + 2000]).split())[:500]
