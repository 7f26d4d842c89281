"""The config.json -> architecture mapping is pure data: evaluating a build (or importing the
estimator and the mapping) never loads the HTTP stack; only fetching from the Hub does."""

import subprocess
import sys


def test_evaluate_and_the_arch_mapping_do_not_import_httpx():
    code = (
        "import sys, engine.evaluate, engine.estimate, engine.estimate.arch, "
        "engine.estimate.resolve; print('httpx' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


def test_the_hub_module_does_import_httpx():
    """The check above can fail: engine.hub really uses httpx."""
    code = "import sys, engine.hub; print('httpx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True", out.stderr
