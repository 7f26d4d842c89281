"""The bundled chassis and PSU records: they load, and their slot maps give the datasheet counts.

Counts checked here (per chassis: x16 slots, most double-width GPUs, most single-width GPUs):

- SYS-521GE-TNRT datasheet: 13 PCIe 5.0 x16 slots; "8 double-width, or 10 single-width GPUs".
- SYS-421GE-TNRT: reseller "up to 10" GPUs; 8/10 split inferred from the 5U sibling (C).
- SYS-421GE-TNRT3 datasheet: "Up to 8 double-width or 8 single-width GPU(s)".
- SYS-422GA-NRT catalogue entry citing the datasheet: 13 x16 slots, 8 GPU positions (C).
- SYS-522GA-NRT datasheet as compiled (C): up to 13 x16 slots, 8 double-width or 10 single-width.
- SYS-422GL-NR: 8 GPUs behind 4 ConnectX-8 switches (C).
- HGX systems: the GPUs are on the baseboard; slots are NIC slots only.
"""

from __future__ import annotations

import itertools
import re

import pytest

from slotwise.parts.catalog import BUNDLED_DIR, CATALOG_ENV, Catalog, load_catalog
from slotwise.parts.schema import Chassis, Gpu, Psu, Slot

EXPECTED_CHASSIS = {
    "SYS-421GE-TNRT",
    "SYS-421GE-TNRT3",
    "SYS-521GE-TNRT",
    "SYS-821GE-TNHR",
    "SYS-422GA-NRT",
    "SYS-522GA-NRT",
    "SYS-422GL-NR",
    "SYS-A22GA-NBRT",
    "SYS-422GA-NBRT-LCC",
    "SYS-822GS-NBRT",
    "SYS-822GS-NB3RT",
    "SYS-422GS-NBRT-LCC",
}

# sku -> (x16 slots, max double-width GPUs, max single-width GPUs)
PCIE_COUNTS = {
    "SYS-521GE-TNRT": (13, 8, 10),
    "SYS-421GE-TNRT": (12, 8, 10),
    "SYS-421GE-TNRT3": (8, 8, 8),
    "SYS-422GA-NRT": (13, 8, 8),
    "SYS-522GA-NRT": (13, 8, 10),
    "SYS-422GL-NR": (8, 8, 8),
}

# sku -> NIC slots modelled (HGX systems: the slot map is the NIC map)
HGX_NIC_SLOTS = {
    "SYS-821GE-TNHR": 9,  # 8 east-west in the NIC tray + the north-south DPU position
    "SYS-A22GA-NBRT": 10,
    "SYS-422GA-NBRT-LCC": 10,
    "SYS-822GS-NBRT": 10,
    "SYS-822GS-NB3RT": 2,
    "SYS-422GS-NBRT-LCC": 10,
}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(CATALOG_ENV, raising=False)
        return load_catalog(bundled=BUNDLED_DIR)


@pytest.fixture(scope="module")
def chassis(catalog: Catalog) -> dict[str, Chassis]:
    return catalog.chassis


# ----------------------------------------------------------------------------- helpers


def gpu_slots(ch: Chassis) -> list[Slot]:
    return [s for s in ch.slots if s.purpose in ("gpu", "any")]


def max_cards(ch: Chassis, width: int) -> int:
    """Most cards of `width` slots (1 or 2) that fit the GPU slots at once, honouring `covers`.

    A double-width card needs a slot with ``double_width`` and makes the slot it ``covers``
    unusable; a single-width card fits any GPU slot and covers nothing.  Exhaustive search (the
    maps have at most 13 slots).
    """
    candidates = [s for s in gpu_slots(ch) if width == 1 or s.double_width]
    for n in range(len(candidates), 0, -1):
        for combo in itertools.combinations(candidates, n):
            used = {s.id for s in combo}
            if width == 1 or not any(s.covers in used for s in combo):
                return n
    return 0


def test_max_cards_helper_counts_covered_neighbours() -> None:
    """The counting helper itself: a double-width card in A covers B, so 1 DW or 2 SW fit."""
    ch = Chassis.model_validate(
        {
            "sku": "T",
            "name": "t",
            "source": "https://example.invalid",
            "family": "X13",
            "gpu_form": "pcie",
            "cpu_sockets": 1,
            "roots": [{"id": "cpu1", "kind": "cpu", "socket": 1}],
            "slots": [
                {"id": "A", "label": "A", "root": "cpu1", "gen": 5, "lanes": 16, "covers": "B"},
                {"id": "B", "label": "B", "root": "cpu1", "gen": 5, "lanes": 16},
                {"id": "C", "label": "C", "root": "cpu1", "gen": 5, "lanes": 16, "purpose": "nic"},
            ],
        }
    )
    assert max_cards(ch, 2) == 1
    assert max_cards(ch, 1) == 2


# ----------------------------------------------------------------------------- loading


def test_every_expected_chassis_loads(chassis: dict[str, Chassis]) -> None:
    assert set(chassis) >= EXPECTED_CHASSIS


def test_every_chassis_has_its_own_file(catalog: Catalog) -> None:
    for sku in EXPECTED_CHASSIS:
        assert catalog.origin[sku] == f"parts/data/chassis/{sku}.toml"


@pytest.mark.parametrize("kind", ["chassis", "psu"])
def test_every_record_has_a_source_url_and_notes(catalog: Catalog, kind: str) -> None:
    records = catalog.of_kind(kind)
    assert records
    for rec in records:
        assert re.match(r"https?://\S+$", rec.source), f"{rec.sku}: source is not a URL"
        assert rec.confidence in ("A", "B", "C")
        assert rec.notes and len(rec.notes) > 40, f"{rec.sku}: notes say where figures come from"


@pytest.mark.parametrize("kind", ["chassis", "psu"])
def test_field_sources_name_real_fields(catalog: Catalog, kind: str) -> None:
    for rec in catalog.of_kind(kind):
        for key, where in rec.field_sources.items():
            assert key.split(".")[0] in type(rec).model_fields, f"{rec.sku}: {key!r} is not a field"
            assert where.strip()


# ----------------------------------------------------------------------------- slot maps


@pytest.mark.parametrize("sku", sorted(PCIE_COUNTS))
def test_pcie_slot_map_gives_the_datasheet_counts(chassis: dict[str, Chassis], sku: str) -> None:
    ch = chassis[sku]
    x16, dw, sw = PCIE_COUNTS[sku]
    assert ch.gpu_form == "pcie"
    assert sum(1 for s in ch.slots if s.lanes == 16 and s.kind == "pcie") == x16
    assert max_cards(ch, 2) == dw
    assert max_cards(ch, 1) == sw
    if ch.max_gpus is not None:
        assert ch.max_gpus == sw


def test_sys_521ge_tnrt_matches_its_datasheet_and_measured_topology(chassis) -> None:
    ch = chassis["SYS-521GE-TNRT"]
    # datasheet: 13 PCIe 5.0 x16 FHFL slots, plus the AIOM (OCP 3.0) mezzanine
    pcie = [s for s in ch.slots if s.kind == "pcie"]
    assert len(pcie) == 13
    assert all(s.gen == 5 and s.lanes == 16 and s.full_height and s.full_length for s in pcie)
    assert [s.id for s in ch.slots if s.kind == "ocp3"] == ["aiom"]
    # measured: 4 switches, 2 per CPU, 2 double-width GPU positions per switch
    switches = [r for r in ch.roots if r.kind == "switch"]
    assert len(switches) == 4
    assert sorted(r.socket for r in switches) == [1, 1, 2, 2]
    for sw in switches:
        dw_here = [s for s in ch.slots if s.root == sw.id and s.purpose == "gpu" and s.double_width]
        assert len(dw_here) == 2
    # the 2 GPU positions beyond the 8 double-width ones take a single-width card only
    assert sorted(s.id for s in gpu_slots(ch) if not s.double_width) == ["11", "9"]
    assert (ch.psu_bays, ch.psu_default_count, ch.fans, ch.dimm_slots) == (4, 4, 10, 32)
    assert ch.max_ambient_c == 35


def nics_beside_double_width_gpus(ch: Chassis, gpus: int) -> int:
    """NIC-capable slots left free when `gpus` double-width GPUs fill double-width positions."""
    dw = [s for s in gpu_slots(ch) if s.double_width]
    best = 0
    for combo in itertools.combinations(dw, gpus):
        used = {s.id for s in combo} | {s.covers for s in combo if s.covers}
        free = [
            s
            for s in ch.slots
            if s.id not in used and s.purpose in ("nic", "any") and s.kind == "pcie"
        ]
        best = max(best, len(free))
    return best


@pytest.mark.parametrize("sku", ["SYS-521GE-TNRT", "SYS-522GA-NRT", "SYS-422GA-NRT"])
def test_nvidia_2_8_5_pattern_fits(chassis, sku: str) -> None:
    """NVIDIA's PCIe-optimised 2-8-5 pattern (2 CPUs, 8 GPUs, 5 NICs), listed for SYS-522GA-NRT."""
    ch = chassis[sku]
    assert ch.cpu_sockets == 2
    assert nics_beside_double_width_gpus(ch, 8) >= 5


def test_2_8_5_helper_sees_covered_slots() -> None:
    ch = Chassis.model_validate(
        {
            "sku": "T",
            "name": "t",
            "source": "https://example.invalid",
            "family": "X13",
            "gpu_form": "pcie",
            "cpu_sockets": 1,
            "roots": [{"id": "cpu1", "kind": "cpu", "socket": 1}],
            "slots": [
                {
                    "id": "A",
                    "label": "A",
                    "root": "cpu1",
                    "gen": 5,
                    "lanes": 16,
                    "covers": "N1",
                    "purpose": "gpu",
                },
                {
                    "id": "N1",
                    "label": "N1",
                    "root": "cpu1",
                    "gen": 5,
                    "lanes": 16,
                    "purpose": "any",
                },
                {
                    "id": "N2",
                    "label": "N2",
                    "root": "cpu1",
                    "gen": 5,
                    "lanes": 16,
                    "purpose": "nic",
                },
            ],
        }
    )
    assert nics_beside_double_width_gpus(ch, 1) == 1


@pytest.mark.parametrize("sku", sorted(HGX_NIC_SLOTS))
def test_hgx_systems_take_gpus_on_a_baseboard(catalog: Catalog, chassis, sku: str) -> None:
    ch = chassis[sku]
    assert ch.gpu_form == "sxm"
    assert ch.max_gpus == 8
    assert ch.baseboard_skus
    for bb in ch.baseboard_skus:
        board = catalog.baseboards[bb]
        assert board.gpu_sku in ch.gpu_skus
        assert board.gpu_count == ch.max_gpus
    assert not gpu_slots(ch), "HGX slots are NIC slots"
    assert len(ch.slots) == HGX_NIC_SLOTS[sku]


def test_every_root_a_slot_or_switch_references_exists(chassis) -> None:
    for ch in chassis.values():
        roots = {r.id: r for r in ch.roots}
        for r in ch.roots:
            if r.kind == "switch":
                assert r.parent in roots, f"{ch.sku}: switch {r.id} has no known parent"
                assert roots[r.parent].kind == "cpu"
                assert roots[r.parent].socket == r.socket
            else:
                assert r.parent is None
            assert 1 <= r.socket <= ch.cpu_sockets
        for s in ch.slots:
            assert s.root in roots, f"{ch.sku}: slot {s.id} hangs off unknown root {s.root}"
            assert s.requires_socket == roots[s.root].socket, f"{ch.sku}: slot {s.id}"


def test_covers_names_a_neighbour_gpu_slot_that_only_a_double_width_card_blocks(chassis) -> None:
    for ch in chassis.values():
        by_id = {s.id: s for s in ch.slots}
        for s in ch.slots:
            if s.covers is None:
                continue
            assert s.covers in by_id and s.covers != s.id, f"{ch.sku}: slot {s.id}"
            assert s.double_width, f"{ch.sku}: only a double-width card covers a neighbour"
            assert by_id[s.covers].purpose == s.purpose == "gpu"


def test_cpu_lanes_cover_what_hangs_off_them(chassis) -> None:
    """Slots on a CPU root plus its switches' uplinks never exceed the CPU's lanes (where known)."""
    for ch in chassis.values():
        for cpu in (r for r in ch.roots if r.kind == "cpu" and r.lanes):
            direct = sum(s.lanes for s in ch.slots if s.root == cpu.id)
            uplinks = sum(r.upstream_lanes or 0 for r in ch.roots if r.parent == cpu.id)
            assert direct + uplinks <= cpu.lanes, f"{ch.sku}: {cpu.id}"


def test_nvlink_groups_join_gpu_slots_under_one_cpu(chassis) -> None:
    """NVIDIA RA: pair H200 NVL cards under the same CPU socket; a 4-way bridge joins 4 GPUs."""
    for ch in chassis.values():
        by_id = {s.id: s for s in ch.slots}
        roots = {r.id: r for r in ch.roots}
        for group in ch.nvlink_groups:
            assert len(set(group)) == len(group) in (2, 4)
            assert all(by_id[sid].purpose == "gpu" and by_id[sid].double_width for sid in group)
            assert len({roots[by_id[sid].root].socket for sid in group}) == 1, f"{ch.sku}: {group}"


def test_h200_nvl_4way_islands_on_the_x13_switched_systems(chassis) -> None:
    for sku in ("SYS-521GE-TNRT", "SYS-421GE-TNRT"):
        quads = [g for g in chassis[sku].nvlink_groups if len(g) == 4]
        assert len(quads) == 2
        assert not set(quads[0]) & set(quads[1])


# ----------------------------------------------------------------------------- provenance


def test_inferred_topology_is_marked_c_with_a_note(chassis) -> None:
    for ch in chassis.values():
        assert ch.topology_note, f"{ch.sku}: every slot map says where it comes from"
        if ch.topology_confidence == "C":
            assert re.search(r"infer|not published|not found", ch.topology_note, re.I)
        else:
            assert ch.topology_confidence in ("A", "B")
            assert re.search(r"measured|datasheet", ch.topology_note, re.I)


@pytest.mark.parametrize(
    "sku",
    [
        "SYS-421GE-TNRT",
        "SYS-422GA-NRT",
        "SYS-522GA-NRT",
        "SYS-422GL-NR",
        "SYS-A22GA-NBRT",
        "SYS-822GS-NBRT",
        "SYS-822GS-NB3RT",
    ],
)
def test_chassis_without_a_published_topology_are_c(chassis, sku: str) -> None:
    ch = chassis[sku]
    assert ch.topology_confidence == "C"
    assert ch.confidence == "C"
    assert "inferred" in ch.topology_note.lower()


def test_sys_421ge_tnrt_says_what_was_borrowed_and_what_is_unknown(chassis) -> None:
    ch = chassis["SYS-421GE-TNRT"]
    assert "SYS-521GE-TNRT" in ch.topology_note
    assert ch.gpu_skus == () and "unknown" in ch.field_sources["gpu_skus"]
    assert ch.cpu_max_tdp_w is None and ch.max_gpu_tdp_air_w is None and ch.fans is None


# ----------------------------------------------------------------------------- parts it allows


def test_allowed_gpus_match_the_chassis_form(catalog: Catalog, chassis) -> None:
    for ch in chassis.values():
        if not ch.gpu_skus:  # unknown: the record says so instead of borrowing a list
            assert ch.field_sources["gpu_skus"].startswith("unknown"), ch.sku
        for sku in ch.gpu_skus:
            gpu = catalog.gpus[sku]
            assert isinstance(gpu, Gpu)
            assert gpu.form == ch.gpu_form, f"{ch.sku} lists {sku}"


def test_psu_bays_and_allowed_psus(catalog: Catalog, chassis) -> None:
    for ch in chassis.values():
        for sku in ch.psu_skus:
            assert isinstance(catalog.psus[sku], Psu)
        if ch.psu_default_count is not None:
            assert ch.psu_bays is not None and ch.psu_default_count <= ch.psu_bays
    assert chassis["SYS-821GE-TNHR"].psu_bays == 8
    assert chassis["SYS-821GE-TNHR"].psu_default_count == 6
    assert chassis["SYS-A22GA-NBRT"].psu_skus == ("PWS-5K26G-2R1",)


def test_psu_ratings(catalog: Catalog) -> None:
    psus = catalog.psus
    assert psus["SMCI-PSU-2700W-TITANIUM"].watts_high_line == 2700
    assert psus["SMCI-PSU-3000W-12V-54V"].watts_high_line == 3000
    assert psus["PWS-5K26G-2R1"].watts_high_line == 5250
    assert psus["SMCI-PSU-6600W-TITANIUM"].watts_high_line == 6600
    # Lambda's table: 2880 W at 200-207 V, 3000 W above; the whole-band figure is 2880 W.
    assert psus["PWS-3K02G-2R"].watts_high_line == 2880
    # Low line only where a source states it.
    assert psus["PWS-2K05A-1R"].watts_low_line == 1000
    for sku in (
        "SMCI-PSU-2700W-TITANIUM",
        "SMCI-PSU-3000W-12V-54V",
        "PWS-3K02G-2R",
        "PWS-5K26G-2R1",
    ):
        assert psus[sku].watts_low_line is None
    for psu in psus.values():
        if psu.watts_low_line is not None:
            assert psu.watts_low_line < psu.watts_high_line


def test_cooling_and_liquid_systems(chassis) -> None:
    assert chassis["SYS-422GA-NBRT-LCC"].cooling == "liquid"
    assert chassis["SYS-521GE-TNRT"].cooling == "air_or_liquid"
    assert chassis["SYS-422GA-NRT"].max_gpu_tdp_air_w == 600


def test_allowed_cpus_share_one_socket_and_fit_the_tdp_limit(catalog: Catalog, chassis) -> None:
    expected_socket = {"X13": "LGA4677"}
    for ch in chassis.values():
        cpus = [catalog.cpus[s] for s in ch.cpu_skus]
        sockets = {c.socket for c in cpus}
        assert len(sockets) <= 1, f"{ch.sku}: CPUs for different sockets {sockets}"
        if cpus and ch.family in expected_socket:
            assert sockets == {expected_socket[ch.family]}
        if ch.cpu_max_tdp_w is not None:
            for c in cpus:
                assert c.tdp_w is None or c.tdp_w <= ch.cpu_max_tdp_w, f"{ch.sku}: {c.sku}"
    assert {c for s in ("SYS-522GA-NRT", "SYS-A22GA-NBRT") for c in chassis[s].cpu_skus} == {
        "XEON-6980P",
        "XEON-6960P",
        "XEON-6962P",
    }


def test_a_confidence_a_figure_comes_from_a_vendor_page(catalog: Catalog) -> None:
    for rec in [*catalog.of_kind("chassis"), *catalog.of_kind("psu")]:
        if rec.confidence == "A":
            assert re.match(r"https://www\.(supermicro|nvidia|intel)\.com/", rec.source), rec.sku


# ----------------------------------------------------------------------------- audit (Dec 2026)


def test_psu_band_assumption_is_not_tier_a(catalog: Catalog) -> None:
    """The 2700 W nameplate is a datasheet figure, its 200-240 V band behaviour is not.

    Supermicro's 2 kW Titanium units give 1800 W at 200-220 V (Lambda's PSU table), so the
    2700 W unit's whole-band output is an assumption and the record must not claim tier A."""
    psu = catalog.psus["SMCI-PSU-2700W-TITANIUM"]
    assert psu.confidence != "A"
    assert "200-220 V" in (psu.notes or "")
    assert psu.watts_low_line is None


def test_audited_hgx_b200_chassis_figures(chassis) -> None:
    nbrt = chassis["SYS-822GS-NBRT"]
    assert nbrt.fans == 12 and "C" in nbrt.field_sources["fans"]
    assert (nbrt.psu_bays, nbrt.psu_default_count, nbrt.dimm_slots) == (6, 6, 32)
    # The B300 sibling shares the chassis family, but no source gives its fan count.
    assert chassis["SYS-822GS-NB3RT"].fans is None
    # SYS-A22GA-NBRT's rack height is only inferred from its X13 sibling: left unknown.
    a22 = chassis["SYS-A22GA-NBRT"]
    assert a22.form_factor_u is None and "10U" in (a22.notes or "")


def test_sys_422gs_nbrt_lcc_exists_and_differs_from_the_422ga(chassis) -> None:
    """The SKU the audit could not source: it is an MLPerf submitter's system and has a product
    page; a Xeon 6700P (LGA-4710) HGX B200 in 4U with liquid cooling, 2+2 x 6.6 kW."""
    gs = chassis["SYS-422GS-NBRT-LCC"]
    assert gs.cooling == "liquid" and gs.form_factor_u == 4 and gs.confidence == "C"
    assert (gs.psu_bays, gs.psu_redundancy, gs.dimm_slots, gs.cpu_max_tdp_w) == (4, "2+2", 32, 350)
    assert "MLPerf" in (gs.notes or "") and "inferred" in gs.topology_note.lower()
    assert set(gs.cpu_skus) != set(chassis["SYS-422GA-NBRT-LCC"].cpu_skus)
