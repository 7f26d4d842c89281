import pytest
from hypothesis import given
from hypothesis import strategies as st

from slotwise.engine.cost.tco import HOURS_PER_MONTH, TcoInputs, compute_tco, tco_markdown


def test_hand_computed_example():
    # 10 kW at 50% utilization, PUE 1.5, 0.20/kWh; 8 GPUs at 2.00/GPU-hour; 300,000 purchase.
    inp = TcoInputs(
        purchase_price=300_000,
        power_w=10_000,
        gpus=8,
        years=3,
        utilization=0.5,
        pue=1.5,
        kwh_price=0.20,
        cloud_gpu_hour=2.0,
    )
    r = compute_tco(inp)
    assert HOURS_PER_MONTH == 730
    assert r.energy_kwh_month == pytest.approx(10 * 0.5 * 1.5 * 730)  # 5,475 kWh
    assert r.power_cost_month == pytest.approx(1095.0)
    assert r.cloud_cost_month == pytest.approx(8 * 2.0 * 730 * 0.5)  # 5,840
    # 300,000 / (5,840 - 1,095) = 63.2 -> month 64, beyond 36 months
    assert r.break_even_month == 64
    assert any("after the 3-year horizon" in n for n in r.notes)
    assert r.owning(36) == pytest.approx(300_000 + 36 * 1095)
    md = tco_markdown(r)
    assert "| 3 |" in md and "339,420 USD" in md and "210,240 USD" in md


def test_break_even_within_horizon_and_never():
    r = compute_tco(
        TcoInputs(purchase_price=50_000, power_w=2000, gpus=4, kwh_price=0.1, cloud_gpu_hour=3)
    )
    assert r.break_even_month == 6  # 50,000 / (8,760 - 146) = 5.8
    assert "month 6" in tco_markdown(r)
    never = compute_tco(
        TcoInputs(purchase_price=1, power_w=100_000, gpus=1, kwh_price=1.0, cloud_gpu_hour=0.1)
    )
    assert never.break_even_month is None
    assert any("never" in n for n in never.notes)


def test_unknown_inputs_stay_unknown():
    r = compute_tco(TcoInputs(purchase_price=1000, power_w=500, gpus=1))
    assert r.power_cost_month is None and r.cloud_cost_month is None
    assert r.break_even_month is None
    assert "unknown" in tco_markdown(r)
    assert r.to_json()["own_total"] is None


@given(
    price=st.floats(0, 5e6),
    watts=st.floats(0, 1e5),
    gpus=st.integers(1, 1024),
    kwh=st.floats(0, 1),
    hour=st.floats(0.01, 20),
    util=st.floats(0.05, 1),
    pue=st.floats(1, 3),
)
def test_break_even_is_the_first_cheaper_month(price, watts, gpus, kwh, hour, util, pue):
    r = compute_tco(
        TcoInputs(
            purchase_price=price,
            power_w=watts,
            gpus=gpus,
            kwh_price=kwh,
            cloud_gpu_hour=hour,
            utilization=util,
            pue=pue,
            years=5,
        )
    )
    m = r.break_even_month
    if m is None:
        assert r.cloud_cost_month <= r.power_cost_month
    else:
        tol = 1e-6 * max(1.0, price)
        assert r.owning(m) <= r.cloud(m) + tol
        if m > 1:
            assert r.owning(m - 1) > r.cloud(m - 1) - tol


def test_servers_tco_counts_every_node_and_the_fabric_power():
    """One composition for a suggestion or a cluster (engine.cost.tco.servers_tco): nodes x the
    node's wall power + the switches' power; a note says when their price is not included."""
    from slotwise.engine.cost.tco import servers_tco

    r = servers_tco(
        purchase_price=100_000.0, node_power_w=10_000.0, nodes=4, gpus=32,
        fabric_power_w=1_500.0, kwh_price=0.2,
    )  # fmt: skip
    assert r.inputs.power_w == 41_500.0
    assert any("1,500 W of fabric" in n and "not included" in n for n in r.notes)
    alone = servers_tco(purchase_price=1.0, node_power_w=500.0, nodes=1, gpus=1)
    assert alone.inputs.power_w == 500.0 and not any("fabric" in n for n in alone.notes)
