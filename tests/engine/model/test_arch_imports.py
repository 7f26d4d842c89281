"""The config.json -> architecture mapping is pure data: evaluating a build (or importing the
estimator and the mapping) never loads the HTTP stack; only fetching from the Hub does."""

import subprocess
import sys


def test_evaluate_and_the_arch_mapping_do_not_import_httpx():
    code = (
        "import sys, slotwise.engine.check.evaluate, slotwise.engine.estimate, slotwise.engine.model.arch, "
        "engine.model.resolve; print('httpx' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


def test_fetching_from_the_hub_does_import_httpx(tmp_path):
    """The check above can fail: a Hub fetch really uses httpx (here against a closed local
    port, so it fails fast and falls back to a clear error)."""
    code = (
        "import sys, slotwise.engine.model.hub as h\n"
        "try:\n"
        "    h.fetch_config('org/model')\n"
        "except Exception:\n"
        "    pass\n"
        "print('httpx' in sys.modules)"
    )
    env = {
        "PATH": "",
        "SLOTWISE_HF_ENDPOINT": "http://127.0.0.1:9",
        "SLOTWISE_CACHE_DIR": str(tmp_path),
    }
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip().splitlines()[-1] == "True", out.stderr
