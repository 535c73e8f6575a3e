"""An SMS gateway for the pipeline benchmark: a real HTTP server in a process of its own.

It speaks the protocol of pipeline/infrastructure/providers/sms/http_gateway.py: each POST /messages is answered
`201 {"id": ..., "status": "accepted"}` after --delay-ms (50 by default), the gateway's latency, and
every accepted message gets a "delivered" receipt posted to its callback_url with the provider
webhook token, after the answer, as a real gateway posts them: one receipt per request by default,
or arrays of up to --receipt-batch for a gateway that reports in batches. GET /stats answers
{"accepted", "receipts_posted", "receipt_failures", "most_in_flight"}: the most requests it held at
once shows whether the senders overlap the latency or queue behind it.

asyncio serves the sends (one coroutine per kept-alive connection, so a slow answer holds nothing
but its own connection); a few threads with kept-alive urllib3 connections post the receipts.

    python bench/gateway.py --port 9000 --webhook-token T [--delay-ms 50] [--receipt-batch 1]
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import queue
import threading
from datetime import UTC, datetime

import urllib3


class Gateway:
    def __init__(self, delay: float, webhook_token: str, receipt_batch: int, posters: int) -> None:
        self.delay = delay
        self.receipt_batch = receipt_batch
        self.ids = itertools.count(1)
        self.accepted = self.in_flight = self.most_in_flight = 0
        self.receipts_posted = self.receipt_failures = 0
        self.receipts: queue.Queue[tuple[str, dict]] = queue.Queue()
        self.lock = threading.Lock()
        self.headers = {"Authorization": f"Bearer {webhook_token}", "Content-Type": "application/json"}
        for _ in range(posters):
            threading.Thread(target=self._post_receipts, daemon=True).start()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                method, path, _ = head.split(b"\r\n", 1)[0].decode().split(" ", 2)
                length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                body = await reader.readexactly(length) if length else b""
                status, answer = await self.answer(method, path, body)
                payload = json.dumps(answer).encode()
                writer.write(b"HTTP/1.1 %d OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                             % (status, len(payload), payload))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def answer(self, method: str, path: str, body: bytes) -> tuple[int, dict]:
        if method == "GET" and path == "/stats":
            return 200, {"accepted": self.accepted, "receipts_posted": self.receipts_posted,
                         "receipt_failures": self.receipt_failures, "most_in_flight": self.most_in_flight}
        if method != "POST" or path != "/messages":
            return 404, {"error": "not found"}
        message = json.loads(body)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.in_flight -= 1
        gateway_id = f"gw-{next(self.ids)}"
        self.accepted += 1
        # Queued now, posted once the answer is on its way: receipts follow the answer.
        asyncio.get_running_loop().call_soon(self.receipts.put, (message["callback_url"], {
            "id": gateway_id, "reference": message["reference"], "status": "delivered",
            "timestamp": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        }))
        return 201, {"id": gateway_id, "status": "accepted"}

    def _post_receipts(self) -> None:
        # urllib3 rather than requests: this process shares the machine with what is measured, and
        # requests cost it about 0.3 ms of CPU more per receipt.
        pool = urllib3.PoolManager(maxsize=2, retries=False, timeout=urllib3.Timeout(10))
        while True:
            url, receipt = self.receipts.get()
            batch = [receipt]
            while len(batch) < self.receipt_batch:
                try:
                    more_url, more = self.receipts.get(timeout=0.01)
                except queue.Empty:
                    break
                if more_url != url:  # another callback: back in the queue for its own request
                    self.receipts.put((more_url, more))
                    break
                batch.append(more)
            body = batch[0] if self.receipt_batch == 1 else batch
            for _ in range(100):  # a gateway retries a webhook that fails, for a while
                try:
                    if pool.request("POST", url, body=json.dumps(body).encode(), headers=self.headers).status < 300:
                        with self.lock:
                            self.receipts_posted += len(batch)
                        break
                except urllib3.exceptions.HTTPError:
                    pass
                with self.lock:
                    self.receipt_failures += 1
                threading.Event().wait(0.2)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--webhook-token", required=True)
    parser.add_argument("--delay-ms", type=float, default=50, help="how long each send waits for its answer")
    parser.add_argument("--receipt-batch", type=int, default=1, help="receipts per webhook request (1: one each)")
    parser.add_argument("--posters", type=int, default=8, help="threads posting receipts")
    args = parser.parse_args()
    gateway = Gateway(args.delay_ms / 1000, args.webhook_token, args.receipt_batch, args.posters)
    server = await asyncio.start_server(gateway.serve, "127.0.0.1", args.port, backlog=1024)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
