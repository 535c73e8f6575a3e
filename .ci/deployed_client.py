"""The deployed step's service (.ci/deployed.py): drives a running deployment with the official Python
client, notifications-python-client, as a team's own system would. Run by the dev environment's python
(the deployment's own holds no test tool, the client included), with one JSON argument: the base URL,
the live key and templates the operator CLI made, the admin and provider secrets, the print drop folder
and the local mailbox's folder.

A text, an email and a letter reach their final status (the letter through the directory print
provider, this script playing the print house); their delivery-status callbacks arrive, signed, at a
receiver on loopback; a text posted as an SMS gateway posts one reads back through
`get_received_texts`. Exit 1, saying what did not happen, when any of it fails.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import sys
import threading
import time
from email import message_from_bytes, policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import requests
from notifications_python_client.authentication import create_jwt_token
from notifications_python_client.notifications import NotificationsAPIClient

FINAL = {"sms": "delivered", "email": "delivered", "letter": "received"}
WITHIN_SECONDS = 180
CALLBACK_TOKEN = "deployed-step-callback-token"
ADDRESS = {"address_line_1": "A. Jansen", "address_line_2": "Dorpsstraat 1", "address_line_3": "1234 AB  Amsterdam"}


class Receiver:
    """The service's callback endpoint: keeps every request, answers 200."""

    def __init__(self) -> None:
        self.posted: list[tuple[dict[str, str], bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802  (http.server's hook name)
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.posted.append((dict(self.headers), body))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}/delivery-status"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def signed_statuses(self) -> dict[str, str]:
        """notification id -> status, of the callbacks whose token and signature are right."""
        found = {}
        for headers, body in list(self.posted):
            signature = "sha256=" + hmac.new(CALLBACK_TOKEN.encode(), headers.get("X-Notify-Timestamp", "").encode()
                                             + b"." + body, hashlib.sha256).hexdigest()
            if headers.get("Authorization") == f"Bearer {CALLBACK_TOKEN}" and hmac.compare_digest(
                    signature, headers.get("X-Notify-Signature", "")):
                payload = json.loads(body)
                found[payload["id"]] = payload["status"]
        return found


def admin(given: dict[str, Any], method: str, path: str, body: dict[str, Any]) -> None:
    token = create_jwt_token(given["admin_client_secret"], "notify-admin")
    answer = requests.request(method, f"{given['base_url']}/admin{path}", json=body, timeout=30,
                              headers={"Authorization": f"Bearer {token}"})
    if answer.status_code not in (200, 201):
        raise SystemExit(f"{method} /admin{path} answered {answer.status_code}: {answer.text[:500]}")


def play_print_house(drop: Path) -> None:
    """Take each complete batch out of the outbox and answer every letter in it dispatched, as
    docs/delivery.md's print house does (the answer written under another name, then renamed)."""
    (drop / "inbox").mkdir(exist_ok=True)
    for batch in sorted((drop / "outbox").glob("[!.]*")) if (drop / "outbox").exists() else []:
        manifest = json.loads((batch / "manifest.json").read_text())
        answer = {"batch": manifest["batch"], "letters": [
            {"id": letter["id"], "status": "dispatched"} for letter in manifest["letters"]]}
        partial = drop / "inbox" / f"{batch.name}.partial"
        partial.write_text(json.dumps(answer))
        partial.rename(drop / "inbox" / f"{batch.name}.json")
        for pdf in batch.iterdir():
            pdf.unlink()
        batch.rmdir()


def send_all(client: NotificationsAPIClient, given: dict[str, Any]) -> dict[str, str]:
    return {
        "sms": client.send_sms_notification("+31612345678", given["sms_template"], {"name": "Jan"}, "deployed-1"),
        "email": client.send_email_notification("jan@example.nl", given["email_template"],
                                                {"name": "Jan", "ref": "D-1"}, "deployed-2"),
        "letter": client.send_letter_notification(given["letter_template"], {**ADDRESS, "name": "A. Jansen"},
                                                  "deployed-3"),
    }


def wait_for_final(client: NotificationsAPIClient, ids: dict[str, str], drop: Path, started: float) -> list[str]:
    reached: dict[str, float] = {}
    statuses: dict[str, str] = {}
    while time.monotonic() - started < WITHIN_SECONDS and len(reached) < len(ids):
        play_print_house(drop)
        for kind, nid in ids.items():
            statuses[kind] = client.get_notification_by_id(nid)["status"]
            if statuses[kind] == FINAL[kind] and kind not in reached:
                reached[kind] = time.monotonic() - started
                print(f"   {kind}: {FINAL[kind]} after {reached[kind]:.1f} s", flush=True)
        time.sleep(0.3)
    return [f"{kind} is {statuses.get(kind)}, not {FINAL[kind]}" for kind in ids if kind not in reached]


def wait_for_callbacks(receiver: Receiver, expected: dict[str, str], started: float) -> list[str]:
    while time.monotonic() - started < WITHIN_SECONDS and not expected.items() <= receiver.signed_statuses().items():
        time.sleep(0.2)
    got = receiver.signed_statuses()
    if expected.items() <= got.items():
        print(f"   delivery-status callbacks, signed, for the text and the email ({len(receiver.posted)} posted)")
        return []
    return [f"no signed delivery-status callback {status} for {nid} ({len(receiver.posted)} posted: {got})"
            for nid, status in expected.items() if got.get(nid) != status]


def check_mailbox(directory: Path) -> list[str]:
    subjects = [message_from_bytes(path.read_bytes(), policy=policy.default)["Subject"]
                for path in directory.glob("*.eml")]
    if "Uw aanvraag D-1" in subjects:
        print("   the email reached the SMTP server, its subject filled in")
        return []
    return [f"the SMTP server took no email 'Uw aanvraag D-1' (it took {subjects})"]


def check_received_text(client: NotificationsAPIClient, given: dict[str, Any]) -> list[str]:
    posted = requests.post(f"{given['base_url']}/providers/gateway/inbound-sms", timeout=30,
                           headers={"Authorization": f"Bearer {given['provider_webhook_token']}"},
                           json={"to": given["inbound_number"], "from": "+31687654321", "message": "Klopt dat?",
                                 "id": "gateway-message-1"})
    if posted.status_code != 200:
        return [f"the gateway's received text was answered {posted.status_code}: {posted.text[:300]}"]
    texts = client.get_received_texts()["received_text_messages"]
    if [(text["user_number"].lstrip("+"), text["content"]) for text in texts] == [("31687654321", "Klopt dat?")]:
        print("   the received text reads back through get_received_texts")
        return []
    return [f"get_received_texts read {texts}"]


def main(given: dict[str, Any]) -> int:
    started = time.monotonic()
    receiver = Receiver()
    admin(given, "PUT", f"/services/{given['service_id']}/callbacks/delivery-status",
          {"url": receiver.url, "bearer_token": CALLBACK_TOKEN})
    admin(given, "POST", f"/services/{given['service_id']}/inbound-number", {"number": given["inbound_number"]})
    client = NotificationsAPIClient(given["key"], base_url=given["base_url"])
    ids = {kind: answer["id"] for kind, answer in send_all(client, given).items()}
    problems = wait_for_final(client, ids, Path(given["print_dir"]), started)
    problems += wait_for_callbacks(receiver, {ids["sms"]: "delivered", ids["email"]: "delivered"}, started)
    problems += check_mailbox(Path(given["mailbox_dir"]))
    problems += check_received_text(client, given)
    receiver.server.shutdown()
    for problem in problems:
        print(f"   FAILED: {problem}", flush=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(json.loads(sys.argv[1])))
