"""engine/store/fetch.py: the one offline-first fetch-and-cache (Hub configs and price lists).

A real HTTP server on 127.0.0.1 (port 0) for what needs TCP (redirects, refused connections,
a server slower than the deadline); httpx.MockTransport for the rest.  No internet.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from slotwise.engine.store.fetch import (
    CacheSlot,
    FetchError,
    fetch_cached,
    read_cached,
    remember,
)

TOKEN = "tok_SECRET_0123456789"
BODY = b'{"hello": "world"}'


@pytest.fixture(autouse=True)
def _online(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("SLOTWISE_OFFLINE", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def slot(tmp_path: Path) -> CacheSlot:
    return CacheSlot(tmp_path / "cache" / "x.body", tmp_path / "cache" / "x.json")


class Recorder:
    """A MockTransport handler that records requests and answers from a script."""

    def __init__(self, *answers: httpx.Response) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answers.pop(0)

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self), follow_redirects=True)


def _get(url: str, slot: CacheSlot, rec: Recorder | None = None, **kw) -> object:
    kw.setdefault("timeout_s", 5.0)
    kw.setdefault("max_bytes", 1 << 20)
    return fetch_cached(url, slot, client=None if rec is None else rec.client(), **kw)


def _files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


# ------------------------------------------------------------------------------ revalidation


def test_etag_and_last_modified_revalidate_and_token_is_never_cached(slot, tmp_path):
    validators = {"ETag": '"v1"', "Last-Modified": "Tue, 01 Dec 2026 00:00:00 GMT"}
    rec = Recorder(
        httpx.Response(200, content=BODY, headers=validators),
        httpx.Response(304, headers=validators),
        httpx.Response(200, content=b"new", headers={"ETag": '"v2"'}),
    )
    first = _get("https://x.test/a", slot, rec, token=TOKEN)
    assert first.origin == "network" and first.content == BODY and first.status == 200
    assert not slot.body.exists()  # nothing is cached until the caller accepts the answer
    assert remember(first, extra={"format": "json"})
    assert rec.requests[0].headers["Authorization"] == f"Bearer {TOKEN}"
    assert "If-None-Match" not in rec.requests[0].headers

    second = _get("https://x.test/a", slot, rec, token=TOKEN)
    assert rec.requests[1].headers["If-None-Match"] == '"v1"'
    assert rec.requests[1].headers["If-Modified-Since"] == "Tue, 01 Dec 2026 00:00:00 GMT"
    assert second.origin == "revalidated" and second.content == BODY and second.stale is None
    assert second.meta["format"] == "json" and second.meta["etag"] == '"v1"'
    assert not remember(second)  # a revalidated answer is already cached

    third = _get("https://x.test/a", slot, rec, token=TOKEN)
    assert third.origin == "network" and third.content == b"new"
    remember(third)
    meta = json.loads(slot.sidecar.read_text())
    assert meta["etag"] == '"v2"' and meta["last_modified"] is None and meta["saved"]
    assert meta["url"] == "https://x.test/a"
    for f in _files(tmp_path):
        assert TOKEN.encode() not in f.read_bytes(), f
    assert sorted(p.name for p in slot.body.parent.iterdir()) == ["x.body", "x.json"]  # no temps


def test_no_validators_no_sidecar_and_an_old_sidecar_is_dropped(slot):
    rec = Recorder(
        httpx.Response(200, content=BODY, headers={"ETag": '"old"'}),
        httpx.Response(200, content=b"v2"),
        httpx.Response(200, content=b"v3"),
    )
    remember(_get("https://x.test/a", slot, rec))
    assert json.loads(slot.sidecar.read_text())["etag"] == '"old"'
    remember(_get("https://x.test/a", slot, rec))  # the new body has no validator
    assert slot.body.read_bytes() == b"v2" and not slot.sidecar.exists()
    _get("https://x.test/a", slot, rec)
    assert "If-None-Match" not in rec.requests[2].headers  # never another body's ETag


def test_a_malformed_sidecar_reads_as_none(slot):
    slot.body.parent.mkdir(parents=True)
    slot.body.write_bytes(BODY)
    slot.sidecar.write_text("{not json")
    rec = Recorder(httpx.Response(200, content=BODY))
    _get("https://x.test/a", slot, rec)
    assert "If-None-Match" not in rec.requests[0].headers
    assert read_cached(slot, what="x", max_bytes=100) == (BODY, {})


# ------------------------------------------------------------------------------ offline


def test_offline_answers_from_cache_and_never_touches_the_network(slot, monkeypatch):
    remember(_get("https://x.test/a", slot, Recorder(httpx.Response(200, content=BODY))))
    rec = Recorder()
    got = _get("https://x.test/a", slot, rec, offline=True)
    assert got.origin == "cache" and got.content == BODY
    assert got.reason.kind == "offline" and got.stale is None
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert _get("https://x.test/a", slot, rec).origin == "cache"
    assert rec.requests == []
    with pytest.raises(FetchError) as err:
        _get("https://x.test/other", CacheSlot(slot.body.with_name("none")), rec)
    assert err.value.failure.kind == "offline" and err.value.cache == "missing"


# ------------------------------------------------------------------------------ failures


@pytest.mark.parametrize("status", [500, 502, 503])
def test_5xx_falls_back_to_the_cache_with_the_reason(slot, status):
    rec = Recorder(httpx.Response(200, content=BODY), httpx.Response(status, content=b"down"))
    remember(_get("https://x.test/a", slot, rec))
    got = _get("https://x.test/a", slot, rec)
    assert got.origin == "cache" and got.content == BODY
    assert got.stale.kind == "http" and got.stale.status == status
    with pytest.raises(FetchError) as err:  # and without a cache: the status, cache missing
        _get(
            "https://x.test/b",
            CacheSlot(slot.body.with_name("b")),
            Recorder(httpx.Response(status)),
        )
    assert err.value.failure.status == status and err.value.cache == "missing"


def test_the_caller_chooses_which_statuses_are_transient(slot):
    rec = Recorder(httpx.Response(200, content=BODY), httpx.Response(429), httpx.Response(429))
    remember(_get("https://x.test/a", slot, rec))
    with pytest.raises(FetchError) as err:  # default: only 5xx fall back
        _get("https://x.test/a", slot, rec)
    assert err.value.failure.status == 429 and err.value.cache == "not tried"
    got = _get("https://x.test/a", slot, rec, transient=lambda s: s >= 500 or s == 429)
    assert got.origin == "cache" and got.stale.status == 429


@pytest.mark.parametrize("status", [401, 403, 404, 410])
def test_4xx_is_an_error_even_with_a_cached_copy(slot, status):
    rec = Recorder(httpx.Response(200, content=BODY), httpx.Response(status))
    remember(_get("https://x.test/a", slot, rec))
    with pytest.raises(FetchError) as err:
        _get("https://x.test/a", slot, rec)
    assert err.value.failure.kind == "http" and err.value.failure.status == status
    assert err.value.cache == "not tried"


def test_too_large_by_header_and_by_stream(slot):
    declared = Recorder(httpx.Response(200, content=b"x" * 200))  # Content-Length: 200
    with pytest.raises(FetchError) as err:
        _get("https://x.test/a", slot, declared, max_bytes=100)
    assert err.value.failure.kind == "too_large" and "200 bytes" in err.value.failure.detail

    def chunks() -> Iterator[bytes]:
        for _ in range(10):
            yield b"y" * 50

    streamed = Recorder(httpx.Response(200, content=chunks()))  # no Content-Length
    with pytest.raises(FetchError) as err:
        _get("https://x.test/a", slot, streamed, max_bytes=100)
    assert err.value.failure.kind == "too_large"


def test_bad_token_is_refused_before_any_request_and_never_echoed(slot):
    rec = Recorder()
    bad = "abc\ndef"
    with pytest.raises(FetchError) as err:
        _get("https://x.test/a", slot, rec, token=bad)
    assert err.value.failure.kind == "bad_token" and rec.requests == []
    assert bad not in str(err.value)


def test_bad_url_is_an_error_not_a_traceback(slot):
    for url in ("http://:99999/x", "ftp://example.invalid/x"):
        with pytest.raises(FetchError) as err:
            _get(url, slot)
        assert err.value.failure.kind == "bad_url", url


def test_an_unusable_cache_says_so(slot):
    slot.body.mkdir(parents=True)  # a directory where the body should be
    with pytest.raises(FetchError) as err:
        _get("https://x.test/a", slot, offline=True)
    assert err.value.cache == "unusable" and err.value.cache_problem
    big = CacheSlot(slot.body.with_name("big"))
    big.body.write_bytes(b"z" * 500)
    with pytest.raises(FetchError) as err:
        _get("https://x.test/a", big, offline=True, max_bytes=100)
    assert err.value.cache == "unusable"


def test_an_unwritable_cache_is_not_an_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    slot = CacheSlot(blocker / "x.body", blocker / "x.json")
    answer = _get("https://x.test/a", slot, Recorder(httpx.Response(200, content=BODY)))
    assert remember(answer) is False and answer.content == BODY


# ------------------------------------------------------------------------------ real TCP


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        if self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/data")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path == "/slow":
            time.sleep(2.0)
        self.send_response(200)
        self.send_header("Content-Length", str(len(BODY)))
        self.send_header("ETag", '"tcp"')
        self.end_headers()
        with contextlib.suppress(OSError):  # the client gave up at its deadline
            self.wfile.write(BODY)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()


def test_redirect_is_followed_and_cached_under_the_asked_url(server, slot):
    got = _get(f"{server}/moved", slot)
    assert got.origin == "network" and got.content == BODY and got.url == f"{server}/moved"
    remember(got)
    assert json.loads(slot.sidecar.read_text())["url"] == f"{server}/moved"


def test_a_slow_server_hits_the_total_deadline_then_the_cache_answers(server, slot):
    remember(_get(f"{server}/data", slot))
    t0 = time.monotonic()
    got = _get(f"{server}/slow", slot, timeout_s=0.5)
    assert time.monotonic() - t0 < 1.9
    assert got.origin == "cache" and got.stale.kind == "timeout" and got.stale.deadline


def test_a_refused_connection_falls_back_then_says_missing(slot):
    with socket_closed_port() as port:
        url = f"http://127.0.0.1:{port}/data"
        with pytest.raises(FetchError) as err:
            _get(url, slot, timeout_s=2)
        assert err.value.failure.kind == "unreachable" and err.value.cache == "missing"
        assert err.value.failure.exc_name == "ConnectError"
        slot.body.parent.mkdir(parents=True)
        slot.body.write_bytes(BODY)
        got = _get(url, slot, timeout_s=2)
        assert got.origin == "cache" and got.stale.kind == "unreachable"


class socket_closed_port:  # noqa: N801 (used as a context manager)
    """A 127.0.0.1 port nothing listens on (bound, then closed)."""

    def __enter__(self) -> int:
        import socket

        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        return port

    def __exit__(self, *exc: object) -> None:
        return None
