"""A deliberately faulty HTTP server on 127.0.0.1 (port 0) for the input-limit tests and
bench/fuzz.py: it trickles, truncates, stalls, and returns huge, deeply nested or invalid JSON.

Raw sockets rather than http.server, so the faults are exact (a status line sent a byte at a
time, a Content-Length that lies).  The first path segment picks the behaviour, so it doubles as
a Hugging Face endpoint (``/<owner>/<name>/resolve/<rev>/config.json``) and a price-list URL:

==================  ===============================================================================
``ok``              a valid Llama-style config.json
``trickle``         valid headers, then the body one byte every ``TRICKLE_S``
``trickle-head``    the status line and headers themselves one byte every ``TRICKLE_S``
``silent``          accepts, reads the request, never answers
``truncate``        Content-Length 1,000, sends 10 bytes, closes
``huge``            Content-Length 100 MB, streams until the client goes away
``huge-chunked``    no Content-Length, streams 50 MB (until the client goes away)
``nested``          a JSON array nested 100,000 deep
``bigint``          {"hidden_size": <5,000-digit integer>, ...}
``zero-heads``      a config with num_attention_heads = 0
``garbage``         random bytes
``body``            the bytes stored under the request's second segment in ``server.bodies``
==================  ===============================================================================
"""

from __future__ import annotations

import json
import random
import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

TRICKLE_S = 0.05
LLAMA = {
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
}


def _head(status: int, length: int | None, ctype: str = "application/json") -> bytes:
    lines = [f"HTTP/1.1 {status} X", f"Content-Type: {ctype}", "Connection: close"]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


class _Handler(socketserver.BaseRequestHandler):
    server: FaultyServer

    def handle(self) -> None:
        sock: socket.socket = self.request
        sock.settimeout(30)
        data = b""
        try:
            while b"\r\n\r\n" not in data and len(data) < 65536:
                chunk = sock.recv(4096)
                if not chunk:
                    return
                data += chunk
            path = data.split(b" ", 2)[1].decode("latin-1")
            parts = path.strip("/").split("/")
            self.route(sock, parts[0], parts[1] if len(parts) > 1 else "")
        except OSError:
            pass  # the client gave up: that is the point of most routes

    def route(self, sock: socket.socket, kind: str, arg: str) -> None:
        stop = self.server.stopping
        if kind == "ok":
            body = json.dumps(LLAMA).encode()
            sock.sendall(_head(200, len(body)) + body)
        elif kind == "trickle":
            body = json.dumps(LLAMA).encode() * 50
            sock.sendall(_head(200, len(body)))
            for i in range(len(body)):
                if stop.wait(TRICKLE_S):
                    return
                sock.sendall(body[i : i + 1])
        elif kind == "trickle-head":
            body = json.dumps(LLAMA).encode()
            head = _head(200, len(body)) + body
            for i in range(len(head)):
                if stop.wait(TRICKLE_S):
                    return
                sock.sendall(head[i : i + 1])
        elif kind == "silent":
            stop.wait(30)
        elif kind == "truncate":
            sock.sendall(_head(200, 1000) + b'{"hidden_s')
        elif kind in ("huge", "huge-chunked"):
            sock.sendall(_head(200, 100_000_000 if kind == "huge" else None))
            block = b" " * 65536
            for _ in range(800):
                if stop.is_set():
                    return
                sock.sendall(block)
        elif kind == "nested":
            sock.sendall(_head(200, 200_000) + b"[" * 100_000 + b"]" * 100_000)
        elif kind == "bigint":
            body = b'{"hidden_size": ' + b"9" * 5000 + b', "vocab_size": 1}'
            sock.sendall(_head(200, len(body)) + body)
        elif kind == "zero-heads":
            body = json.dumps({**LLAMA, "num_attention_heads": 0}).encode()
            sock.sendall(_head(200, len(body)) + body)
        elif kind == "garbage":
            body = random.Random(arg).randbytes(2000)
            sock.sendall(_head(200, len(body)) + body)
        elif kind == "body":
            body = self.server.bodies.get(arg, b"")
            sock.sendall(_head(200, len(body), "text/plain") + body)
        else:
            sock.sendall(_head(404, 2) + b"{}")


class FaultyServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    block_on_close = False

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.stopping = threading.Event()
        self.bodies: dict[str, bytes] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@contextmanager
def faulty_server() -> Iterator[FaultyServer]:
    server = FaultyServer()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()
        time.sleep(0)  # let handler threads see the stop flag
