"""Price lists: local TOML/CSV, and a REAL local HTTP server on 127.0.0.1 (ETag, 304, offline
from cache, 401, malformed), token from the environment only."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from slotwise.engine.build import BridgeFit, Build
from slotwise.engine.cost.pricing import (
    TOKEN_ENV,
    PriceError,
    load_prices,
    parse_csv,
    parse_toml,
    quote_build,
)
from tests.paths import REPO

GOOD = """
[meta]
currency = "EUR"
label = "test list"

[[price]]
sku = "CH"
price = 1000

[[price]]
sku = "GPU"
price = 20000.5
source = "quote 42"
"""


class Server:
    """A tiny real HTTP server: /prices.toml with an ETag, /secret.toml needs a bearer token,
    /bad.toml is malformed, /csv serves CSV."""

    def __init__(self):
        self.requests: list[dict] = []
        self.body = GOOD
        self.etag = '"v1"'
        owner = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                owner.requests.append({"path": self.path, **dict(self.headers)})
                if (
                    self.path == "/secret.toml"
                    and self.headers.get("Authorization") != "Bearer s3cret"
                ):
                    return self._send(401, "no")
                if self.path == "/bad.toml":
                    return self._send(200, "[meta\ncurrency = ", etag='"bad"')
                if self.path == "/csv":
                    return self._send(200, "sku,price,currency\nCH,5,USD\n", ctype="text/csv")
                if self.headers.get("If-None-Match") == owner.etag:
                    return self._send(304, "")
                return self._send(200, owner.body, etag=owner.etag)

            def _send(self, code, body, etag=None, ctype="application/toml"):
                data = body.encode()
                self.send_response(code)
                if etag:
                    self.send_header("ETag", etag)
                    self.send_header("Last-Modified", "Tue, 01 Dec 2026 00:00:00 GMT")
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if code != 304:
                    self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.01,), daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SLOTWISE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    return tmp_path / "cache"


def test_200_with_etag_then_304_revalidation(server, cache):
    url = server.url + "/prices.toml"
    pl = load_prices(url)
    assert pl.fetched == "network" and pl.currency == "EUR" and pl.price("GPU") == 20000.5
    assert list((cache / "prices").glob("*.body"))
    pl2 = load_prices(url)
    assert server.requests[-1]["If-None-Match"] == '"v1"'
    assert server.requests[-1]["If-Modified-Since"] == "Tue, 01 Dec 2026 00:00:00 GMT"
    assert "304" in pl2.fetched and pl2.price("CH") == 1000
    # a changed list (new ETag) is fetched again
    server.body = GOOD.replace("1000", "1100")
    server.etag = '"v2"'
    pl3 = load_prices(url)
    assert pl3.fetched == "network" and pl3.price("CH") == 1100


def test_offline_from_cache(server):
    url = server.url + "/prices.toml"
    load_prices(url)
    server.close()
    pl = load_prices(url)  # connection refused -> cached copy
    assert pl.fetched.startswith("cache (network error") and pl.price("GPU") == 20000.5
    assert load_prices(url, offline=True).fetched.startswith("cache (offline")


def test_offline_without_cache_is_a_clear_error(server):
    url = server.url + "/prices.toml"
    server.close()
    with pytest.raises(PriceError, match="no cached copy"):
        load_prices(url)


def test_401_names_the_token_variable_and_token_is_never_stored(server, cache, monkeypatch):
    url = server.url + "/secret.toml"
    with pytest.raises(PriceError, match=TOKEN_ENV):
        load_prices(url)
    monkeypatch.setenv(TOKEN_ENV, "s3cret")
    pl = load_prices(url)
    assert pl.price("CH") == 1000
    assert server.requests[-1]["Authorization"] == "Bearer s3cret"
    for f in cache.rglob("*"):
        if f.is_file():
            assert b"s3cret" not in f.read_bytes()


def test_malformed_download_is_an_error_and_not_cached(server, cache):
    with pytest.raises(PriceError, match="malformed TOML"):
        load_prices(server.url + "/bad.toml")
    assert not list(cache.rglob("*.body"))


def test_csv_over_http(server):
    pl = load_prices(server.url + "/csv")
    assert pl.currency == "USD" and pl.price("CH") == 5


def test_local_toml_csv_and_errors(tmp_path):
    p = tmp_path / "p.toml"
    p.write_text(GOOD)
    assert load_prices(p).price("GPU") == 20000.5
    c = tmp_path / "p.csv"
    c.write_text("sku,price,currency,example\nA,10,USD,true\nB,1,USD,\n")
    pl = load_prices(c)
    assert pl.entries["A"].example and not pl.entries["B"].example and pl.any_example
    with pytest.raises(PriceError, match="no such price list"):
        load_prices(tmp_path / "nope.toml")
    with pytest.raises(PriceError, match=r"p.csv:3: field 'price'"):
        parse_csv("sku,price,currency\nA,1,USD\nB,abc,USD\n", "p.csv")
    with pytest.raises(PriceError, match="meta.currency"):
        parse_toml("[[price]]\nsku='A'\nprice=1\n", "x.toml")
    bad = "[meta]\ncurrency='USD'\n\n[[price]]\nsku='A'\nprice=1\n\n[[price]]\nsku='B'\nprice=-1\n"
    with pytest.raises(PriceError, match=r"x.toml:8: field 'price'"):
        parse_toml(bad, "x.toml")
    with pytest.raises(PriceError, match="listed twice"):
        parse_toml(
            "[meta]\ncurrency='USD'\n[[price]]\nsku='A'\nprice=1\n[[price]]\nsku='A'\nprice=2\n",
            "x.toml",
        )


def test_quote_names_missing_parts_and_never_sums_partially():
    pl = parse_toml(GOOD, "t")
    b = Build(chassis="CH", slots={"1": "GPU", "2": "GPU"})
    q = quote_build(b, pl)
    assert q.total == pytest.approx(1000 + 2 * 20000.5) and not q.missing
    b2 = b.with_(cpu="CPU-X", cpu_count=2, bridges=(BridgeFit(sku="BR", slots=("1", "2")),))
    q2 = quote_build(b2, pl)
    assert q2.total is None and q2.missing == ("BR", "CPU-X")
    assert q2.known_total == pytest.approx(41001)


def test_bundled_example_is_labelled_and_every_price_marked_example():
    path = REPO / "examples" / "prices-example.toml"
    text = path.read_text()
    assert "EXAMPLE" in text.splitlines()[0]
    pl = load_prices(path)
    assert pl.example and pl.entries
    assert all(e.example for e in pl.entries.values())
    assert all(e.source for e in pl.entries.values())


def test_offline_env_keeps_the_price_loader_off_the_network(tmp_path, monkeypatch):
    """SLOTWISE_OFFLINE is one policy for every fetcher: the price loader must not call out."""
    import httpx

    from slotwise.engine.cost.pricing import PriceError, load_prices

    calls = []

    def handler(request):
        calls.append(request.url)
        return httpx.Response(200, text='[prices]\n"X" = 1\n')

    monkeypatch.setenv("SLOTWISE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("SLOTWISE_OFFLINE", "1")
    client = httpx.Client(transport=httpx.MockTransport(handler))
    with pytest.raises(PriceError, match="offline"):
        load_prices("http://127.0.0.1:9/prices.toml", client=client)
    assert calls == []
