"""engine/model/resolve.py: presets, local config.json files, Hub ids, arch dicts."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from slotwise.engine.model.hub import cache_path
from slotwise.engine.model.params import count_params
from slotwise.engine.model.resolve import (
    ModelResolveError,
    resolve_arch,
    resolve_arch_with_warnings,
)
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import BUNDLED_DIR, Catalog, load_catalog
from slotwise.tui.commands.flags import cli_words

QWEN_7B = {
    "architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2",
    "hidden_size": 3584,
    "intermediate_size": 18944,
    "num_hidden_layers": 28,
    "num_attention_heads": 28,
    "num_key_value_heads": 4,
    "vocab_size": 152064,
    "max_position_embeddings": 131072,
    "tie_word_embeddings": False,
}


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    d = tmp_path_factory.mktemp("models_only")
    shutil.copy(BUNDLED_DIR / "models.toml", d / "models.toml")
    return load_catalog(bundled=Path(d))


@pytest.fixture
def env(monkeypatch, tmp_path) -> Path:
    """A private cache dir, no token, online mode, and a Hub endpoint nothing listens on."""
    monkeypatch.setenv("SLOTWISE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SLOTWISE_HF_ENDPOINT", "http://127.0.0.1:9")
    for var in ("HF_TOKEN", "SLOTWISE_OFFLINE", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        if self.path == "/Qwen/Qwen2.5-7B/resolve/main/config.json":
            body, status = json.dumps(QWEN_7B).encode(), 200
        else:
            body, status = b"{}", 404
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def hub(env, monkeypatch) -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True).start()
    monkeypatch.setenv("SLOTWISE_HF_ENDPOINT", f"http://127.0.0.1:{server.server_port}")
    yield server
    server.shutdown()
    server.server_close()


# ------------------------------------------------------------------------------ presets


def test_preset_by_id(catalog):
    arch = resolve_arch(Workload(model="llama-3.1-70b"), catalog)
    assert arch is catalog.models["llama-3.1-70b"]


def test_preset_id_is_case_insensitive(catalog):
    assert resolve_arch(Workload(model="Llama-3.1-8B"), catalog).sku == "llama-3.1-8b"


def test_unknown_preset_lists_close_matches(catalog):
    with pytest.raises(ModelResolveError) as err:
        resolve_arch(Workload(model="llama-3.1-7b"), catalog)
    msg = cli_words(str(err.value))  # as the CLI says it
    assert "--model 'llama-3.1-7b'" in msg and "Did you mean" in msg and "llama-3.1-8b" in msg
    assert "slotwise parts --kind model" in msg


def test_unknown_preset_without_close_match(catalog):
    with pytest.raises(ModelResolveError) as err:
        resolve_arch(Workload(model="zzzzzz"), catalog)
    assert "Did you mean" not in str(err.value)


def test_no_model_at_all(catalog):
    with pytest.raises(ModelResolveError, match="No model given"):
        resolve_arch(Workload(), catalog)


# ------------------------------------------------------------------------------ local files


def test_local_config_file(catalog, env):
    path = env / "qwen" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(QWEN_7B, indent=2))
    arch = resolve_arch(Workload(config=str(path)), catalog)
    assert arch.sku == "qwen" and arch.source == path.resolve().as_uri()
    assert count_params(arch).total == count_params(catalog.models["qwen2.5-7b"]).total
    # a directory holding config.json works too
    assert resolve_arch(Workload(config=str(path.parent)), catalog).hidden_size == 3584


def test_malformed_local_json_names_file_line_and_column(catalog, env):
    path = env / "broken.json"
    path.write_text('{\n  "hidden_size": 4096,\n  "vocab_size": ,\n}\n')
    with pytest.raises(ModelResolveError) as err:
        resolve_arch(Workload(config=str(path)), catalog)
    assert f"{path}:3:17: malformed JSON" in str(err.value)


def test_local_json_that_is_not_an_object(catalog, env):
    path = env / "list.json"
    path.write_text("[1, 2]")
    with pytest.raises(ModelResolveError, match="is a list, not an object"):
        resolve_arch(Workload(config=str(path)), catalog)


def test_local_config_missing_fields(catalog, env):
    path = env / "partial.json"
    path.write_text(json.dumps({"hidden_size": 64}))  # no model_type: nothing to default from
    with pytest.raises(ModelResolveError, match=r"partial\.json: missing intermediate_size"):
        resolve_arch(Workload(config=str(path)), catalog)


def test_local_config_with_shape_fields_from_class_defaults_warns(catalog, env):
    """transformers fills absent keys from LlamaConfig's defaults; so does slotwise, but a
    missing shape field is a warning, never silent."""
    path = env / "partial.json"
    path.write_text(json.dumps({"model_type": "llama", "hidden_size": 64}))
    preset, warnings = resolve_arch_with_warnings(Workload(config=str(path)), catalog)
    assert preset.num_hidden_layers == 32 and preset.intermediate_size == 11008
    assert any("intermediate_size=11008" in w and "defaults for llama" in w for w in warnings)


def test_missing_file_is_not_sent_to_the_hub(catalog, env):
    with pytest.raises(ModelResolveError, match="no such file"):
        resolve_arch(Workload(config="./nowhere/config.json"), catalog)


def test_directory_without_config(catalog, env):
    with pytest.raises(ModelResolveError, match="directory without a config.json"):
        resolve_arch(Workload(config=str(env)), catalog)


# ------------------------------------------------------------------------------ Hub ids


def test_hub_id_fetched_then_cached_offline(catalog, hub):
    arch, warnings = resolve_arch_with_warnings(Workload(config="Qwen/Qwen2.5-7B"), catalog)
    assert warnings == [] and arch.sku == "Qwen/Qwen2.5-7B" and arch.attention_qkv_bias
    assert arch.hf_id == "Qwen/Qwen2.5-7B"
    assert arch.source.endswith("/Qwen/Qwen2.5-7B/resolve/main/config.json")
    assert cache_path("Qwen/Qwen2.5-7B").is_file()
    hub.shutdown()
    again = resolve_arch(Workload(config="Qwen/Qwen2.5-7B"), catalog, offline=True)
    assert again == arch


def test_hub_unreachable_uses_cache_with_a_warning(catalog, env):
    path = cache_path("Qwen/Qwen2.5-7B")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(QWEN_7B))
    arch, warnings = resolve_arch_with_warnings(
        Workload(config="Qwen/Qwen2.5-7B"), catalog, timeout=2
    )
    assert arch.hidden_size == 3584
    assert len(warnings) == 1 and "cached config.json" in warnings[0]
    assert "cached config.json" in arch.notes


def test_hub_404_becomes_resolve_error(catalog, hub):
    with pytest.raises(ModelResolveError) as err:
        resolve_arch(Workload(config="nobody/nothing"), catalog)
    assert cli_words(str(err.value)).startswith("--config nobody/nothing: No model")


def test_offline_and_not_cached(catalog, env):
    with pytest.raises(ModelResolveError, match="Cache only"):
        resolve_arch(Workload(config="meta-llama/Llama-3.1-8B"), catalog, offline=True)


# ------------------------------------------------------------------------------ arch dicts


def test_arch_numbers(catalog):
    arch_numbers = {
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "vocab_size": 128256,
    }
    arch, warnings = resolve_arch_with_warnings(Workload(arch=arch_numbers), catalog)
    assert arch.sku == "custom"
    assert count_params(arch).total == 8_030_261_248
    assert any("no model_type" in w for w in warnings)  # counted as Llama-style, and says so


def test_arch_missing_numbers(catalog):
    with pytest.raises(ModelResolveError, match="architecture numbers: missing"):
        resolve_arch(Workload(arch={"hidden_size": 4096}), catalog)
