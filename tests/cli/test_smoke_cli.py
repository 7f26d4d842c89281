import subprocess
import sys

import pytest

from slotwise.tui.cli import main


def test_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == "slotwise 0.1.0"


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    for command in ("parts", "validate", "estimate", "suggest", "export"):
        assert command in out, command


def test_unknown_flag_exits_2():
    r = subprocess.run(
        [sys.executable, "-m", "slotwise.tui.cli", "parts", "--nope"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert "--nope" in r.stderr
    assert "Traceback" not in r.stderr
