import subprocess
import sys

from tui.cli import main


def test_version(capsys):
    try:
        main(["--version"])
    except SystemExit as e:
        assert e.code == 0
    assert "slotwise 0.1.0" in capsys.readouterr().out


def test_help_lists_parts(capsys):
    try:
        main(["--help"])
    except SystemExit as e:
        assert e.code == 0
    assert "parts" in capsys.readouterr().out


def test_unknown_flag_exits_2():
    r = subprocess.run(
        [sys.executable, "-m", "tui.cli", "parts", "--nope"], capture_output=True, text=True
    )
    assert r.returncode == 2
    assert "--nope" in r.stderr
