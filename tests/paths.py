"""Where the checkout and the test tree are, for tests at any depth."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
