"""Racks and power circuits against NVIDIA's DGX B200 deployment guidance (shared/reference/
fabric.md, 'B200 / B300'): 2 DGX B200 (14.3 kW each) per rack = 28.6 kW on two 380 V
three-phase 32 A circuits; 4 per rack = 57.2 kW on two 415 V three-phase 60 A circuits."""

import math

import pytest

from slotwise.engine.plan.racks import (
    Feed,
    RackError,
    Site,
    circuits_for,
    nodes_per_rack,
    plan_racks,
)

B200_W, B200_U = 14_300, 10  # DGX B200: 14.3 kW, 10U (B200 SuperPOD RA)


def _plan(site, nodes=8):
    return plan_racks(
        nodes=nodes, node_w=B200_W, node_u=B200_U, node_name="DGX-B200-like", devices=(), site=site
    )


def test_four_b200_per_rack_on_two_415v_60a_feeds():
    site = Site(rack_kw=57.2, feed=Feed(phases=3, volts=415, amps=60, derating=0.8))
    p = _plan(site)
    rack = p.racks[0]
    assert p.nodes_per_rack == 4 and rack.peak_w == 57_200
    assert rack.circuits == 2 and rack.pdus == 2 and p.rack_count == 2
    # each circuit carries half the peak: sqrt(3) x 415 x 60 x 0.8 = 34.5 kW >= 28.6 kW
    assert site.feed.usable_w == pytest.approx(math.sqrt(3) * 415 * 60 * 0.8)
    assert site.feed.usable_w >= 57_200 / 2
    # a smaller feed would not do with two
    assert circuits_for(57_200, Site(feed=Feed(volts=380, amps=32))) == 4
    assert "U31-U40  node 4" in rack.elevation and "U41-U48  (empty)" in rack.elevation


def test_two_b200_per_rack_on_two_380v_32a_feeds():
    site = Site(rack_kw=28.6, feed=Feed(phases=3, volts=380, amps=32, derating=0.8))
    p = _plan(site)
    assert p.nodes_per_rack == 2 and p.racks[0].peak_w == 28_600
    assert p.racks[0].circuits == 2 and p.rack_count == 4
    assert site.feed.usable_w >= 28_600 / 2  # 21.1 kVA x 0.8 = 16.8 kW per circuit


def test_derating_and_2n_are_site_settings():
    feed = Feed(volts=415, amps=60, derating=1.0)
    assert feed.usable_w == pytest.approx(math.sqrt(3) * 415 * 60)
    assert circuits_for(57_200, Site(feed=feed, provisioning="2N")) == 4
    assert Feed(phases=1, volts=230, amps=32).rated_w == 230 * 32


def test_space_and_limits():
    assert nodes_per_rack(1_000, 8, Site(rack_kw=100, rack_u=48)) == 6  # space-bound
    with pytest.raises(RackError, match="kw_per_rack"):
        nodes_per_rack(50_000, 8, Site(rack_kw=40))
    with pytest.raises(RackError, match="rack_u"):
        nodes_per_rack(1_000, 50, Site(rack_u=48))
