"""Issue #29 item 7: size.  A 1.6 MB BOM with 60,000 bogus slots made ``validate`` print 29 MB
(each slot reported twice) and the app take a minute and ~1 GB; resuming an autosave with 20,000
undo steps ignored the 200-step limit, so every later edit rewrote them all."""

from __future__ import annotations

import time

from slotwise.engine.bom import import_bom
from slotwise.engine.build import Build
from slotwise.parts.catalog import load_catalog
from slotwise.tui.cli import main
from slotwise.tui.history import History

HEAD = """schema = 1

[chassis]
sku = "SYS-521GE-TNRT"

[slots]
"""


def _bogus(n: int) -> str:
    return HEAD + "".join(f'"s{i}" = "NVIDIA-L40S-48GB"\n' for i in range(n))


def test_sixty_thousand_bogus_slots_print_a_capped_report(capsys, tmp_path):
    bom = tmp_path / "big.toml"
    bom.write_text(_bogus(60_000))
    t0 = time.monotonic()
    rc = main(["validate", str(bom)])
    out, err = capsys.readouterr()
    assert rc == 2
    assert len(out) + len(err) < 100_000, len(out) + len(err)
    assert "more like it" in out
    assert "60,000 slots" in out
    assert time.monotonic() - t0 < 60


def test_the_reader_keeps_a_bounded_number_of_entries():
    loaded = import_bom(_bogus(5_000), load_catalog(), filename="big.toml")
    assert loaded.build is not None and len(loaded.build.slots) <= 256
    assert sum(1 for p in loaded.problems if p.field == "slots") == 1


def test_restored_undo_history_is_trimmed_to_its_limit():
    builds = [Build(chassis=f"C{i}") for i in range(20_000)]
    h = History.restore(Build(chassis="NOW"), undo=builds, redo=builds[:500])
    assert len(h.undo_builds) == h.limit and len(h.redo_builds) == h.limit
    assert h.undo_builds[-1] == builds[-1]  # the newest steps are kept
