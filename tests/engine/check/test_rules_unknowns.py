"""A figure a rule needs that the catalog does not have is reported as an info finding, never
passed silently."""

from slotwise.engine.build import DriveFit, Environment
from tests.fixtures_catalog.helpers import H200, base_build, one, run


def bare():
    return base_build(
        chassis="FIX-BARE",
        cpu_count=1,
        dimm_count=8,
        slots={"1": H200},
        bridges=(),
        drives=(DriveFit(bay="front", sku="FIX-NVME-U2-3.84TB", count=2),),
        psu_count=2,
    )


def test_every_unknown_chassis_figure_is_reported():
    r = run(bare())
    for rule in (
        "slots.unknown_gpu_list",
        "slots.unknown_max_gpus",
        "memory.unknown_slots",
        "power.unknown_bays",
        "power.unknown_psu_list",
        "cooling.unknown_gpu_limit",
        "cooling.unknown_ambient",
        "cooling.unknown_cpu_limit",
        "storage.unknown_bays",
        "nvlink.unbridged",
    ):
        assert one(r, rule).severity == "info", rule
    assert r.errors == 0, [f.message for f in r.of("error")]
    # FIX-BARE publishes no fans/board/BMC figure: the derived share stands in, and says so
    # (engine.check.power_model.FANS_BOARD_SHARE, tier C), instead of a silent zero.
    labels = [label for label, _ in r.budget("power").parts]
    assert any("fans, board, BMC (derived" in label for label in labels), labels
    assert any("fans, board, BMC" in d for d in r.power.derived)


def test_unknown_figures_do_not_pass_the_budget():
    r = run(bare().with_(psu="FIX-PSU-2700-NOLOW", env=Environment(input_voltage="100-127")))
    assert r.budget("power").available is None
    assert r.budget("lanes:cpu1").available == 80  # the CPU's own lane count stands in
