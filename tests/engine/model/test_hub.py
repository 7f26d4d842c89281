"""engine/model/hub.py against a REAL HTTP server on 127.0.0.1 (http.server in a thread, port 0).

Nothing in engine.model.hub is mocked: httpx talks to the server over TCP, the cache is a real
directory (SLOTWISE_CACHE_DIR = a pytest tmp dir), and the environment switches are real env vars.
"""

from __future__ import annotations

import json
import threading
import time
import tomllib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from slotwise.engine.model.arch import ArchConfigError, arch_from_config
from slotwise.engine.model.hub import (
    HubError,
    cache_path,
    config_url,
    fetch_config,
    safetensors_params,
)
from slotwise.engine.model.params import count_params
from slotwise.parts.catalog import BUNDLED_DIR
from slotwise.parts.schema import ModelPreset

LLAMA_8B = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "tie_word_embeddings": False,
    "attention_bias": False,
    "rope_theta": 500000.0,
}
SECRET = "hf_test_SECRET_token_0123456789"


class _Hub(BaseHTTPRequestHandler):
    """Routes: /ok/*, /gated/*, /missing/*, /slow/*, /bad/*, /boom/*, /list/*."""

    seen_auth: list[str | None] = []
    seen_if_none_match: list[str | None] = []
    slow_s = 1.0

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        type(self).seen_auth.append(self.headers.get("Authorization"))
        owner = self.path.strip("/").split("/")[0]
        if self.path.startswith("/api/models/"):
            repo_owner = self.path.split("/")[3]
            totals = {"ok": 8_030_261_248, "bigger": 9_000_000_000}
            if repo_owner in totals:
                total = totals[repo_owner]
                body = {"id": "x", "safetensors": {"parameters": {"BF16": total}, "total": total}}
                self._send(200, json.dumps(body).encode())
            else:
                self._send(404, b'{"error": "Repository not found"}')
        elif owner in ("ok", "bigger"):
            self._send(200, json.dumps(LLAMA_8B).encode())
        elif owner == "gated":
            self._send(401, b'{"error": "Access to model is restricted."}')
        elif owner == "forbidden":
            self._send(403, b'{"error": "Forbidden"}')
        elif owner == "missing":
            self._send(404, b'{"error": "Entry not found"}')
        elif owner == "slow":
            time.sleep(type(self).slow_s)
            self._send(200, json.dumps(LLAMA_8B).encode())
        elif owner == "bad":
            self._send(200, b'{"hidden_size": 4096,\n  "vocab_size": }')
        elif owner == "list":
            self._send(200, b"[1, 2, 3]")
        elif owner == "moved":
            self.send_response(307)
            self.send_header("Location", "/ok/model-8b/resolve/main/config.json")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif owner == "boom":
            self._send(500, b"internal error")
        elif owner == "etag":  # the real Hub sends an ETag for resolve/…/config.json
            type(self).seen_if_none_match.append(self.headers.get("If-None-Match"))
            if self.headers.get("If-None-Match") == '"c1"':
                self.send_response(304)
                self.send_header("ETag", '"c1"')
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self._send(200, json.dumps(LLAMA_8B).encode(), etag='"c1"')
        else:
            self._send(404, b"{}")

    def _send(self, status: int, body: bytes, etag: str | None = None) -> None:
        try:
            self.send_response(status)
            if etag:
                self.send_header("ETag", etag)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test)

    def log_message(self, *args) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False


@pytest.fixture
def hub(monkeypatch, tmp_path) -> Iterator[_Server]:
    server = _Server(("127.0.0.1", 0), _Hub)
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    _Hub.seen_auth = []
    _Hub.seen_if_none_match = []
    monkeypatch.setenv("SLOTWISE_HF_ENDPOINT", f"http://127.0.0.1:{server.server_port}")
    monkeypatch.setenv("SLOTWISE_CACHE_DIR", str(tmp_path / "cache"))
    for var in ("HF_TOKEN", "SLOTWISE_OFFLINE", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    yield server
    server.shutdown()
    server.server_close()


def _stop(server: _Server) -> None:
    server.shutdown()
    server.server_close()


def test_success_is_parsed_and_cached(hub, tmp_path):
    got = fetch_config("ok/model-8b")
    assert got.config == LLAMA_8B and not got.from_cache
    assert got.url == config_url("ok/model-8b")
    assert got.url.endswith("/ok/model-8b/resolve/main/config.json")
    path = cache_path("ok/model-8b")
    assert path == got.cache_path and path.is_relative_to(tmp_path / "cache")
    assert json.loads(path.read_text()) == LLAMA_8B
    # atomic write: no temp files left next to it
    assert [p.name for p in path.parent.iterdir()] == ["config.json"]


def test_cache_answers_when_offline_and_server_stopped(hub, monkeypatch):
    fetch_config("ok/model-8b")
    _stop(hub)
    got = fetch_config("ok/model-8b", offline=True)
    assert got.from_cache and got.config == LLAMA_8B and got.stale_reason is None
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert fetch_config("ok/model-8b").from_cache
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("SLOTWISE_OFFLINE", "1")
    assert fetch_config("ok/model-8b").from_cache


def test_online_falls_back_to_cache_when_server_is_gone(hub):
    fetch_config("ok/model-8b")
    _stop(hub)
    got = fetch_config("ok/model-8b", timeout=2)
    assert got.from_cache and got.stale_reason and "cannot reach" in got.stale_reason


def test_offline_without_cache_is_a_clear_error(hub):
    with pytest.raises(HubError, match="Cache only.*not in the cache"):
        fetch_config("ok/never-fetched", offline=True)
    assert _Hub.seen_auth == []  # offline means no request at all


def test_server_gone_and_not_cached(hub):
    _stop(hub)
    with pytest.raises(HubError, match="cannot reach .* not in the cache"):
        fetch_config("ok/never-fetched", timeout=2)


@pytest.mark.parametrize("owner", ["gated", "forbidden"])
def test_401_403_say_gated_and_hf_token(hub, owner):
    with pytest.raises(HubError) as err:
        fetch_config(f"{owner}/llama")
    msg = str(err.value)
    assert "gated" in msg and "HF_TOKEN" in msg and "licence" in msg
    assert not cache_path(f"{owner}/llama").exists()


def test_404_says_no_such_model(hub):
    with pytest.raises(HubError, match=r"No model 'missing/nothing'.*HTTP 404"):
        fetch_config("missing/nothing")


def test_timeout_names_the_wait_and_is_not_a_traceback(hub):
    t0 = time.monotonic()
    with pytest.raises(HubError, match=r"did not answer within 0\.2 s"):
        fetch_config("slow/model", timeout=0.2)
    assert time.monotonic() - t0 < _Hub.slow_s


def test_timeout_falls_back_to_cache(hub, monkeypatch):
    # Cache it through a fast route, then ask the slow one for the same cache path.
    got = fetch_config("ok/model-8b")
    slow_cache = cache_path("slow/model")
    slow_cache.parent.mkdir(parents=True)
    slow_cache.write_bytes(got.cache_path.read_bytes())
    again = fetch_config("slow/model", timeout=0.2)
    assert again.from_cache and "0.2 s" in again.stale_reason


def test_malformed_json_names_line_and_column_and_is_not_cached(hub):
    with pytest.raises(HubError, match=r"malformed JSON \(line 2, column 17"):
        fetch_config("bad/model")
    assert not cache_path("bad/model").exists()
    with pytest.raises(HubError, match="not an object"):
        fetch_config("list/model")


def test_server_error_without_cache(hub):
    with pytest.raises(HubError, match="HTTP 500"):
        fetch_config("boom/model")


def test_token_sent_as_bearer_header_and_never_written(hub, monkeypatch, tmp_path):
    monkeypatch.setenv("HF_TOKEN", SECRET)
    fetch_config("ok/model-8b")
    assert _Hub.seen_auth == [f"Bearer {SECRET}"]
    with pytest.raises(HubError) as err:
        fetch_config("gated/llama")
    assert SECRET not in str(err.value) and "was not accepted" in str(err.value)
    for path in (tmp_path / "cache").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_an_etag_is_revalidated_with_if_none_match(hub):
    first = fetch_config("etag/model")
    assert not first.from_cache and first.config == LLAMA_8B
    again = fetch_config("etag/model")  # the Hub says 304: the cached copy is current
    assert _Hub.seen_if_none_match == [None, '"c1"']
    assert again.config == LLAMA_8B and not again.from_cache and again.stale_reason is None
    sidecar = json.loads(cache_path("etag/model").with_name("config.json.meta.json").read_text())
    assert sidecar["etag"] == '"c1"'


def test_no_token_no_header(hub):
    fetch_config("ok/model-8b")
    assert _Hub.seen_auth == [None]


@pytest.mark.parametrize("bad", ["../etc/passwd", "a/b/c", "", "owner/", "/abs"])
def test_bad_repo_ids_rejected_before_any_request(hub, bad):
    with pytest.raises(HubError, match="not a Hugging Face model id"):
        fetch_config(bad)
    assert _Hub.seen_auth == []


# ------------------------------------------------------------------------------ arch_from_config


def test_llama_config_maps_to_exact_count():
    preset, warnings = arch_from_config(LLAMA_8B, source="test", name="meta-llama/Llama-3.1-8B")
    assert warnings == []
    assert preset.sku == "meta-llama/Llama-3.1-8B"
    assert count_params(preset).total == 8_030_261_248
    assert preset.published_params_b == pytest.approx(8.030261248)
    assert "computed" in (preset.notes or "")


def test_mixtral_num_local_experts():
    cfg = {
        **LLAMA_8B,
        "model_type": "mixtral",
        "vocab_size": 32000,
        "num_local_experts": 8,
        "num_experts_per_tok": 2,
    }
    preset, warnings = arch_from_config(cfg, source="test", name="mixtral")
    assert warnings == [] and preset.num_experts == 8
    assert preset.published_params_b == pytest.approx(46.7, rel=0.01)
    assert preset.published_active_params_b == pytest.approx(12.9, rel=0.01)


def test_deepseek_v3_n_routed_experts_and_mla():
    cfg = {
        "model_type": "deepseek_v3",
        "hidden_size": 7168,
        "intermediate_size": 18432,
        "moe_intermediate_size": 2048,
        "num_hidden_layers": 61,
        "num_attention_heads": 128,
        "num_key_value_heads": 128,
        "vocab_size": 129280,
        "n_routed_experts": 256,
        "n_shared_experts": 1,
        "num_experts_per_tok": 8,
        "first_k_dense_replace": 3,
        "q_lora_rank": 1536,
        "kv_lora_rank": 512,
        "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "v_head_dim": 128,
        "num_nextn_predict_layers": 1,
        "tie_word_embeddings": False,
    }
    preset, warnings = arch_from_config(cfg, source="test", name="deepseek")
    assert warnings == []
    assert preset.num_experts == 256 and preset.kv_lora_rank == 512
    assert preset.published_params_b == pytest.approx(671.0, rel=0.001)
    assert "multi-token-prediction" in preset.notes


def test_qwen2_gets_qkv_bias_even_though_config_lacks_it():
    cfg = {
        "model_type": "qwen2",
        "hidden_size": 3584,
        "intermediate_size": 18944,
        "num_hidden_layers": 28,
        "num_attention_heads": 28,
        "num_key_value_heads": 4,
        "vocab_size": 152064,
        "tie_word_embeddings": False,
    }
    preset, _ = arch_from_config(cfg, source="test", name="qwen")
    assert preset.attention_qkv_bias is True and preset.attention_out_bias is False
    assert preset.published_params_b == pytest.approx(7.61, rel=0.01)  # Qwen2.5-7B card


def test_gemma2_defaults_to_tied_embeddings():
    cfg = {
        "model_type": "gemma2",
        "hidden_size": 3584,
        "intermediate_size": 14336,
        "num_hidden_layers": 42,
        "num_attention_heads": 16,
        "num_key_value_heads": 8,
        "head_dim": 256,
        "vocab_size": 256000,
    }
    preset, warnings = arch_from_config(cfg, source="test", name="gemma")
    assert warnings == [] and preset.tie_word_embeddings is True
    assert count_params(preset).total == 9_241_705_984


def test_phi3_mini_counts_its_published_3_8b():
    # Phi-3-mini (microsoft/Phi-3-mini-4k-instruct config.json); Microsoft publishes 3.8B.
    cfg = {
        "model_type": "phi3",
        "hidden_size": 3072,
        "intermediate_size": 8192,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 32,
        "vocab_size": 32064,
        "tie_word_embeddings": False,
    }
    preset, warnings = arch_from_config(cfg, source="test", name="phi3")
    assert warnings == []
    assert preset.published_params_b == pytest.approx(3.8, rel=0.01)


def test_unknown_type_is_refused_not_counted_as_llama():
    cfg = {**LLAMA_8B, "model_type": "madeup_lm"}
    with pytest.raises(ArchConfigError, match=r"cfg\.json: model_type 'madeup_lm' is not a family"):
        arch_from_config(cfg, source="cfg.json", name="x")


def test_missing_optional_fields_take_the_config_class_defaults():
    cfg = {k: v for k, v in LLAMA_8B.items() if k not in ("num_key_value_heads",)}
    cfg.pop("tie_word_embeddings")
    preset, warnings = arch_from_config(cfg, source="cfg.json", name="x")
    assert warnings == []
    assert preset.num_key_value_heads == 32 and preset.tie_word_embeddings is False


def test_no_model_type_is_read_as_llama_with_a_warning():
    cfg = {k: v for k, v in LLAMA_8B.items() if k != "model_type"}
    preset, warnings = arch_from_config(cfg, source="cfg.json", name="x")
    assert any("no model_type" in w and "Llama-style" in w for w in warnings)
    assert count_params(preset).total == 8_030_261_248


def test_text_config_of_a_multimodal_config_is_used():
    cfg = {"model_type": "llava", "text_config": dict(LLAMA_8B), "vision_config": {}}
    preset, warnings = arch_from_config(cfg, source="test", name="vlm")
    assert preset.hidden_size == 4096 and any("text_config" in w for w in warnings)


def test_missing_required_fields_is_an_error_naming_them():
    with pytest.raises(ArchConfigError, match=r"my\.json: missing intermediate_size, vocab_size"):
        arch_from_config(
            {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 1},
            source="my.json",
            name="x",
        )


@pytest.mark.parametrize(
    ("field", "value"), [("hidden_size", "4096"), ("num_hidden_layers", True), ("vocab_size", 0)]
)
def test_bad_values_are_errors(field, value):
    with pytest.raises(ArchConfigError, match=field):
        arch_from_config({**LLAMA_8B, field: value}, source="test", name="x")


def test_unusable_endpoint_is_a_clear_error(hub, monkeypatch):
    monkeypatch.setenv("SLOTWISE_HF_ENDPOINT", "ftp://example.invalid")
    with pytest.raises(HubError, match="SLOTWISE_HF_ENDPOINT"):
        fetch_config("ok/model-8b")


def test_token_with_control_characters_is_refused_without_echoing_it(hub, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_abc\ndef")
    with pytest.raises(HubError) as err:
        fetch_config("ok/model-8b")
    assert "HF_TOKEN" in str(err.value) and "hf_abc" not in str(err.value)
    assert _Hub.seen_auth == []


def test_redirect_is_followed(hub):
    got = fetch_config("moved/model")
    assert got.config == LLAMA_8B
    assert cache_path("moved/model").is_file()


_EXPERT_KEY = {"mixtral": "num_local_experts", "deepseek_v3": "n_routed_experts"}
_PRESETS = tomllib.loads((BUNDLED_DIR / "models.toml").read_text(encoding="utf-8"))["model"]


@pytest.mark.parametrize("raw", _PRESETS, ids=[r["sku"] for r in _PRESETS])
def test_every_preset_round_trips_through_its_config_json_form(raw):
    """Write each bundled preset back as config.json (its own field names, no slotwise extras)
    and import it: the architecture and the counts must come back unchanged."""
    preset = ModelPreset.model_validate(raw)
    meta = {"sku", "name", "source", "confidence", "notes", "field_sources", "kind", "hf_id"}
    meta |= {"published_params_b", "published_active_params_b"}
    # mode="json": per-layer lists as config.json has them (lists, not tuples)
    cfg = {
        k: v for k, v in preset.model_dump(mode="json").items() if k not in meta and v is not None
    }
    # A vision tower comes from a config's vision_config, which a preset keeps only as its
    # weight count (extra_params, Gemma 3): the language model must round-trip exactly.
    extra = cfg.pop("extra_params", 0)
    if preset.model_type in _EXPERT_KEY:
        cfg[_EXPERT_KEY[preset.model_type]] = cfg.pop("num_experts")
    if preset.model_type == "qwen2":
        cfg.pop("attention_bias")  # Qwen2's config.json has no such key
    imported, warnings = arch_from_config(cfg, source="roundtrip", name=preset.sku)
    assert warnings == []
    a, b = count_params(imported), count_params(preset)
    assert (a.total + extra, a.active) == (b.total, b.active)
    for field in cfg:
        if field in raw and field in ModelPreset.model_fields:
            assert getattr(imported, field) == getattr(preset, field), field


# ------------------------------------------------------------------------------ safetensors


def test_safetensors_total_is_read_cached_and_used_offline(hub):
    assert safetensors_params("ok/model-8b") == 8_030_261_248
    assert cache_path("ok/model-8b").with_name("model_info.json").is_file()
    _stop(hub)
    assert safetensors_params("ok/model-8b", offline=True) == 8_030_261_248
    assert safetensors_params("ok/other", offline=True) is None


def test_safetensors_missing_or_unreachable_is_none_not_an_error(hub):
    assert safetensors_params("missing/model") is None
    _stop(hub)
    assert safetensors_params("nowhere/model", timeout=1) is None


def test_resolving_a_hub_id_cross_checks_the_count(hub):
    from slotwise.engine.model.resolve import resolve_arch_with_warnings
    from slotwise.engine.workload import Workload

    _, agree = resolve_arch_with_warnings(Workload(config="ok/model-8b"), None)  # type: ignore[arg-type]
    assert any("8.030B" in w and "safetensors" in w and "they agree" in w for w in agree)
    _, differ = resolve_arch_with_warnings(Workload(config="bigger/model"), None)  # type: ignore[arg-type]
    assert any("-10.8%" in w and "differ by more than 1 %" in w for w in differ)
