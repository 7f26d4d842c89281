"""`slotwise export --format md`: the Cluster sizing and Total cost of ownership sections."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slotwise.engine.bom import read_bom
from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.cost.pricing import load_prices
from slotwise.engine.estimate import estimate
from slotwise.engine.model.resolve import resolve_arch
from slotwise.engine.plan.for_build import TcoParams, cluster_for_build, tco_for_build
from slotwise.parts.catalog import load_catalog
from slotwise.tui.cli import main
from tests.paths import REPO

EX = REPO / "examples"
NO_FIT = EX / "broken-workload-does-not-fit.toml"  # 70B full fine-tune on 4 x L40S
H200_FT = EX / "hgx-h200-finetune-821ge.toml"
PRICES = EX / "prices-example.toml"

# A small build whose every SKU has a price in examples/prices-example.toml.
PRICED_BOM = """\
schema = 1

[chassis]
sku = "SYS-521GE-TNRT"

[cpu]
sku = "XEON-6448Y"
count = 2

[memory]
sku = "DDR5-6400-64GB-RDIMM"
count = 16

[psu]
sku = "SMCI-PSU-2700W-TITANIUM"
count = 4

[slots]
"1" = "NVIDIA-RTX-6000-ADA-48GB"
"3" = "NVIDIA-RTX-6000-ADA-48GB"

[workload]
model = "mistral-7b-v0.3"
method = "inference"
seq_len = 8192
micro_batch = 8
"""


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(None)


def _loaded(path, catalog):
    loaded = read_bom(path, catalog)
    assert loaded.build is not None
    return loaded.build, evaluate(loaded.build, catalog)


def _row(md: str, item: str) -> str:
    """A row of the Cluster sizing table."""
    md = md[md.index("## Cluster sizing") :]
    m = re.search(rf"^\| {item} \| (.*) \|$", md, re.M)
    assert m, f"no '{item}' row in:\n{md}"
    return m.group(1)


def test_cluster_section_matches_engine_cluster(capsys, catalog):
    build, report = _loaded(NO_FIT, catalog)
    bc = cluster_for_build(build, catalog, report, kw_per_rack=40)
    assert bc is not None and bc.plan is not None
    plan = bc.plan
    code, md, err = run(capsys, "export", str(NO_FIT), "--format", "md")
    assert code == 0, err
    assert "## Cluster sizing" in md
    assert _row(md, "nodes") == f"{plan.nodes} x SYS-521GE-TNRT"
    assert _row(md, "GPUs").startswith(f"{plan.total_gpus} x NVIDIA-L40S-48GB (4 per node)")
    # one 400G NIC per GPU for training, the build's own NIC model
    assert _row(md, "NICs").startswith("4 per node x NVIDIA-CX7-400G-1P-OSFP")
    assert f"{plan.nodes * 4} in all" in _row(md, "NICs")
    assert "add 3" in md  # the build has 1 NIC for 4 GPUs
    per = plan.nodes_per_rack
    assert _row(md, "racks") == f"{plan.racks} ({per} nodes per rack at 40 kW, 48U)"
    assert "Assumptions: 40 kW per rack" in md and "switch radix 64" in md
    assert "rail-optimised" in md and _row(md, "circuits").endswith("PDUs")
    # the section comes between the workload verdict and the open points
    assert md.index("## Workload") < md.index("## Cluster sizing") < md.index("## Open points")


def test_cluster_node_count_is_the_fewest_that_fits(catalog):
    """Independent check with the estimator: n nodes fit with the planning margin (memory x
    (1 + the held-out memory error) within the usable memory), n - 1 do not."""
    from slotwise.engine.check.margin import MEMORY_HELD_OUT_ERROR

    build, report = _loaded(NO_FIT, catalog)
    plan = cluster_for_build(build, catalog, report).plan
    gpu = catalog.gpus["NVIDIA-L40S-48GB"]
    arch = resolve_arch(build.workload, catalog, offline=True)

    def fit(n: int) -> bool:
        e = estimate(build.workload, gpu, 4 * n, arch=arch, gpus_per_server=4)
        return (
            e.fits and e.memory_per_gpu.total_bytes * (1 + MEMORY_HELD_OUT_ERROR) <= e.usable_bytes
        )

    assert fit(plan.nodes) and not fit(plan.nodes - 1)
    # at least the estimator's own single-server minimum, in whole nodes
    assert plan.nodes >= math.ceil(report.estimate.min_gpus / 4) - 1


def test_target_days_needs_a_cluster_and_kw_per_rack_flag(capsys, catalog, tmp_path):
    text = H200_FT.read_text().replace(
        "tokens = 5000000000.0", "tokens = 5000000000.0\ntarget_days = 2"
    )
    assert "target_days = 2" in text
    bom = tmp_path / "target.toml"
    bom.write_text(text)
    build, report = _loaded(bom, catalog)
    plan = cluster_for_build(build, catalog, report, kw_per_rack=25).plan
    assert plan.nodes >= 2
    # 10,164 W nodes (8U): power decides, 2 a rack at 25 kW; the switches in network racks
    assert plan.nodes_per_rack == 2
    network = sum(r.count for r in plan.rack_plan.racks if r.kind == "network")
    assert plan.racks == math.ceil(plan.nodes / 2) + network
    code, md, err = run(capsys, "export", str(bom), "--format", "md", "--kw-per-rack", "25")
    assert code == 0, err
    assert "(target 2 days" in md
    assert _row(md, "nodes") == f"{plan.nodes} x SYS-821GE-TNHR"
    assert _row(md, "racks") == f"{plan.racks} (2 nodes per rack at 25 kW, 48U)"


def test_no_cluster_section_when_one_server_is_enough(capsys):
    code, md, _ = run(capsys, "export", str(H200_FT), "--format", "md")
    assert code == 0 and "## Cluster sizing" not in md


def test_tco_section_shows_inputs_and_break_even(capsys, catalog, tmp_path):
    bom = tmp_path / "priced.toml"
    bom.write_text(PRICED_BOM)
    argv = [
        "export", str(bom), "--format", "md", "--prices", str(PRICES),
        "--cloud-gpu-hour", "2", "--kwh-price", "0.15", "--pue", "1.3",
        "--utilization", "0.8", "--years", "4",
    ]  # fmt: skip
    code, md, err = run(capsys, *argv)
    assert code == 0, err
    assert "## Total cost of ownership (4 years)" in md
    # the inputs are visible
    assert "x 80% utilization x PUE 1.3" in md
    assert "at 0.15 USD/kWh" in md
    assert "2 GPUs at 2 USD per GPU-hour" in md
    # the figures are engine.cost.tco's for this build and price list
    build, report = _loaded(bom, catalog)
    pl = load_prices(PRICES)
    bt = tco_for_build(
        build,
        catalog,
        report,
        {k: e.price for k, e in pl.entries.items()},
        "USD",
        TcoParams(years=4, utilization=0.8, pue=1.3, kwh_price=0.15, cloud_gpu_hour=2),
    )
    res = bt.result
    assert res is not None and res.break_even_month is not None
    assert f"- purchase: {res.inputs.purchase_price:,.0f} USD" in md
    assert f"Owning becomes cheaper than the cloud in month {res.break_even_month}." in md
    # break-even is the first month where owning <= cloud
    m = res.break_even_month
    assert res.owning(m) <= res.cloud(m) and res.owning(m - 1) > res.cloud(m - 1)
    section = md[md.index("## Total cost of ownership") : md.index("## Assumptions")]
    years = re.findall(r"^\| (\d+) \| ", section, re.M)
    assert years == ["1", "2", "3", "4"]  # a row per year
    # one TCO for a build, two uses: an unpriced part stops the export's section, while the
    # app's screen (unpriced_ok) still shows running costs with the purchase price unknown
    some = {k: e.price for k, e in pl.entries.items() if k != build.chassis}
    params = TcoParams(years=4, kwh_price=0.15, cloud_gpu_hour=2)
    strict = tco_for_build(build, catalog, report, some, "USD", params)
    assert strict.result is None and strict.missing_prices == (build.chassis,)
    lenient = tco_for_build(build, catalog, report, some, "USD", params, unpriced_ok=True)
    assert lenient.missing_prices == (build.chassis,) and lenient.result is not None
    assert lenient.result.inputs.purchase_price is None
    assert lenient.result.break_even_month is None
    assert lenient.result.power_cost_month is not None


def test_tco_missing_prices_names_skus_and_gives_no_total(capsys):
    code, md, err = run(
        capsys, "export", str(NO_FIT), "--format", "md", "--prices", str(PRICES),
        "--cloud-gpu-hour", "2", "--kwh-price", "0.15",
    )  # fmt: skip
    assert code == 0, err
    section = md[md.index("## Total cost of ownership") : md.index("## Assumptions")]
    assert "Not computed: no price for" in section
    for sku in ("XEON-6530", "DDR5-4800-64GB-RDIMM", "NVIDIA-L40S-48GB"):
        assert sku in section
    assert "SYS-521GE-TNRT" not in section  # it is priced
    assert "purchase:" not in section and "| year |" not in section
    assert "Owning becomes cheaper" not in section


def test_tco_needs_prices(capsys):
    code, _, err = run(capsys, "export", str(H200_FT), "--format", "md", "--cloud-gpu-hour", "2")
    assert code == 2 and "--prices" in err


def test_tco_flags_only_with_markdown(capsys):
    code, _, err = run(
        capsys, "export", str(NO_FIT), "--format", "csv", "--prices", str(PRICES),
        "--cloud-gpu-hour", "2",
    )  # fmt: skip
    assert code == 2 and "--format md" in err


def test_no_tco_without_cloud_price(capsys):
    code, md, _ = run(capsys, "export", str(NO_FIT), "--format", "md", "--prices", str(PRICES))
    assert code == 0 and "Total cost of ownership" not in md


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--pue", "0.5"), ("--utilization", "1.5"), ("--years", "11"), ("--kw-per-rack", "-1")],
)
def test_bad_tco_and_rack_flags_are_usage_errors(capsys, flag, value):
    with pytest.raises(SystemExit) as exc:
        main(["export", str(NO_FIT), "--format", "md", flag, value])
    assert exc.value.code == 2
    assert flag in capsys.readouterr().err


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(target=st.floats(min_value=0.3, max_value=8.0))
def test_target_days_node_count_is_minimal(catalog, target):
    """For any target, the plan's node count meets it and one node fewer does not."""
    loaded = read_bom(H200_FT, catalog)
    wl = loaded.build.workload.model_copy(update={"target_days": target})
    build = loaded.build.with_(workload=wl)
    report = evaluate(build, catalog)
    bc = cluster_for_build(build, catalog, report)
    from slotwise.engine.check.margin import TIME_HELD_OUT_ERROR

    hours = report.estimate.train_hours
    if hours * (1 + TIME_HELD_OUT_ERROR) <= target * 24:
        assert bc is None
        return
    plan = bc.plan
    gpu = catalog.gpus["NVIDIA-H200-SXM-141GB"]
    arch = resolve_arch(wl, catalog, offline=True)

    def meets(n: int) -> bool:
        """Within the target with the planning margin (the held-out time error)."""
        e = estimate(wl, gpu, 8 * n, arch=arch, gpus_per_server=8)
        return e.fits and e.train_hours * (1 + TIME_HELD_OUT_ERROR) <= target * 24

    assert meets(plan.nodes)
    assert not meets(plan.nodes - 1)


def test_cluster_section_lists_the_cluster_bom_with_prices(capsys, tmp_path):
    prices = tmp_path / "prices.toml"
    prices.write_text(
        PRICES.read_text()
        + '\n[[price]]\nsku = "920-9B210-00FN-0M0"\nprice = 25000\nexample = true\n'
    )
    code, md, err = run(capsys, "export", str(NO_FIT), "--format", "md", "--prices", str(prices))
    assert code == 0, err
    section = md[md.index("### Cluster bill of materials") :]
    assert "| Item | Part number | Qty | Unit W | Unit price" in section
    assert "| 920-9B210-00FN-0M0 | 1 | 1,720 | 25,000.00 | 25,000.00 |" in section
    assert "PN needed" in section
    # racks and PDUs have no published part number, so no price: no partial total
    assert "No total:" in section
