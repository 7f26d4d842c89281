"""Content checks for the bundled part data: GPUs, HGX baseboards, NVLink bridges, CPUs, DIMMs,
NICs and drives (parts/data/{gpus,baseboards,bridges,cpus,memory,nics,storage}.toml).

The loader itself is tested in test_catalog_loader.py; here we check that the figures are the
ones the vendors publish (within the stated tolerance), that every SKU other modules rely on
exists, and that every record says where its figures come from.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from slotwise.parts.catalog import BUNDLED_DIR, Catalog, load_catalog
from slotwise.parts.schema import Baseboard, Bridge, Cpu, Dimm, Drive, Gpu, Nic, Record

PART_FILES = (
    "gpus.toml",
    "baseboards.toml",
    "bridges.toml",
    "cpus.toml",
    "memory.toml",
    "nics.toml",
    "storage.toml",
)

# SKU names promised in docs/CONTRACTS.md; chassis files and the engine refer to them.
CONTRACT_GPUS = (
    "NVIDIA-H100-PCIE-80GB",
    "NVIDIA-H100-NVL-94GB",
    "NVIDIA-H200-NVL-141GB",
    "NVIDIA-L40S-48GB",
    "NVIDIA-L4-24GB",
    "NVIDIA-RTX-PRO-6000-BSE-96GB",
    "NVIDIA-RTX-6000-ADA-48GB",
    "NVIDIA-A100-PCIE-80GB",
    "NVIDIA-RTX-4090-24GB",
    "NVIDIA-H100-SXM5-80GB",
    "NVIDIA-H200-SXM-141GB",
    "NVIDIA-B200-SXM-180GB",
)
CONTRACT_BASEBOARDS = ("HGX-H100-8GPU", "HGX-H200-8GPU", "HGX-B200-8GPU")
CONTRACT_BRIDGES = (
    "NVLINK-H100-PCIE-2WAY",
    "NVLINK-H100-NVL-2WAY",
    "NVLINK-H200-NVL-2WAY",
    "NVLINK-H200-NVL-4WAY",
    "NVLINK-A100-PCIE-2WAY",
)
CONTRACT_CPUS = (
    "XEON-8480+",
    "XEON-8468",
    "XEON-6448Y",
    "XEON-6530",
    "XEON-8580",
    "XEON-8568Y+",
    "XEON-6548Y+",
    "XEON-6980P",
    "XEON-6960P",
    "XEON-6767P",
    "XEON-6776P",
)
# DDR5 RDIMMs: 32/64/96/128 GB at 4800/5600 (X13) and 6400 (X14).
CONTRACT_DIMMS = tuple(
    f"DDR5-{speed}-{size}GB-RDIMM" for speed in (4800, 5600, 6400) for size in (32, 64, 96, 128)
)

# PCIe payload rate per lane and direction in Gb/s (8/16/32/64 GT/s with 128b/130b encoding for
# Gen3-5; Gen6 64 GT/s PAM4 with FLIT mode, ~1.5% overhead). PCI-SIG base specifications.
PCIE_GBPS_PER_LANE = {3: 7.88, 4: 15.75, 5: 31.5, 6: 63.0}


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """Load only this module's data files, so chassis or PSU work in progress elsewhere cannot
    make these checks fail (the whole-catalog load is tested by the loader tests)."""
    directory = tmp_path_factory.mktemp("parts")
    for name in PART_FILES:
        shutil.copy(BUNDLED_DIR / name, directory / name)
    return load_catalog(bundled=directory)


def _records(catalog: Catalog) -> list[Record]:
    return list(catalog)


# --------------------------------------------------------------------------- presence


@pytest.mark.parametrize("sku", CONTRACT_GPUS)
def test_contract_gpu_exists(catalog: Catalog, sku: str) -> None:
    assert isinstance(catalog.get(sku), Gpu), f"{sku} missing from gpus.toml"


@pytest.mark.parametrize("sku", CONTRACT_BASEBOARDS)
def test_contract_baseboard_exists(catalog: Catalog, sku: str) -> None:
    board = catalog.get(sku)
    assert isinstance(board, Baseboard)
    assert board.gpu_count == 8


@pytest.mark.parametrize("sku", CONTRACT_BRIDGES)
def test_contract_bridge_exists(catalog: Catalog, sku: str) -> None:
    assert isinstance(catalog.get(sku), Bridge)


@pytest.mark.parametrize("sku", CONTRACT_CPUS)
def test_contract_cpu_exists(catalog: Catalog, sku: str) -> None:
    assert isinstance(catalog.get(sku), Cpu)


@pytest.mark.parametrize("sku", CONTRACT_DIMMS)
def test_contract_dimm_exists_and_matches_its_name(catalog: Catalog, sku: str) -> None:
    dimm = catalog.get(sku)
    assert isinstance(dimm, Dimm)
    _, speed, size, _ = sku.split("-")
    assert dimm.speed_mts == int(speed)
    assert dimm.capacity_gb == int(size.removesuffix("GB"))
    assert dimm.type == "DDR5 RDIMM"


def test_every_part_kind_has_records(catalog: Catalog) -> None:
    assert len(catalog.nics) >= 4
    assert len(catalog.drives) >= 5
    assert any(d.interface == "sata" for d in catalog.drives.values())
    assert {d.form_factor for d in catalog.drives.values()} >= {"2.5in", "E1.S"}


# --------------------------------------------------------------------------- provenance


def test_every_record_names_an_http_source(catalog: Catalog) -> None:
    for rec in _records(catalog):
        assert rec.source.startswith(("https://", "http://")), f"{rec.sku}: source {rec.source!r}"
        for fld, url in rec.field_sources.items():
            assert url.startswith(("https://", "http://")), f"{rec.sku}.{fld}: {url!r}"
            assert fld in type(rec).model_fields, f"{rec.sku}: field_sources names unknown {fld!r}"


def test_every_record_explains_itself(catalog: Catalog) -> None:
    for rec in _records(catalog):
        assert rec.notes and len(rec.notes.strip()) >= 40, f"{rec.sku}: notes too thin"


def test_sparse_derived_dense_figures_say_so(catalog: Catalog) -> None:
    """Where NVIDIA prints only a sparse ("*") figure, the dense value is sparse / 2 and the
    note must say which figure it was derived from."""
    for gpu in catalog.gpus.values():
        if gpu.bf16_tflops_dense is None:
            continue
        note = gpu.notes or ""
        printed_dense = "dense value" in note or "dense values" in note
        assert printed_dense or "/2" in note or "/ 2" in note, gpu.sku


def test_skus_are_unique_across_my_files() -> None:
    seen: dict[str, str] = {}
    for name in PART_FILES:
        data = tomllib.loads((BUNDLED_DIR / name).read_text(encoding="utf-8"))
        for table in data.values():
            for raw in table:
                assert raw["sku"] not in seen, f"{raw['sku']} in {name} and {seen[raw['sku']]}"
                seen[raw["sku"]] = name


# --------------------------------------------------------------------------- GPU figures


def test_dense_bf16_never_exceeds_dense_fp8(catalog: Catalog) -> None:
    for gpu in catalog.gpus.values():
        if gpu.bf16_tflops_dense is not None and gpu.fp8_tflops_dense is not None:
            assert gpu.bf16_tflops_dense <= gpu.fp8_tflops_dense, gpu.sku


def test_fp8_is_twice_bf16_on_hopper_and_blackwell(catalog: Catalog) -> None:
    """Hopper, Ada and Blackwell Tensor Cores run FP8 at twice the BF16 rate (NVIDIA tables).

    Tolerance 2 %: NVIDIA's own L40S table prints dense BF16 362.05 but dense FP8 733 (1.2 % off
    an exact 2x); that is kept as printed."""
    for gpu in catalog.gpus.values():
        if gpu.bf16_tflops_dense and gpu.fp8_tflops_dense:
            assert gpu.fp8_tflops_dense == pytest.approx(2 * gpu.bf16_tflops_dense, rel=0.02), (
                gpu.sku
            )


@pytest.mark.parametrize(
    ("sku", "field", "published", "rel"),
    [
        # NVIDIA H100 table: 1,979* TFLOPS BF16 with sparsity -> 989.5 dense.
        ("NVIDIA-H100-SXM5-80GB", "bf16_tflops_dense", 989.0, 0.01),
        ("NVIDIA-H100-SXM5-80GB", "memory_bw_gbs", 3350, 0.0),
        ("NVIDIA-H200-NVL-141GB", "memory_gb", 141, 0.0),
        ("NVIDIA-H200-NVL-141GB", "memory_bw_gbs", 4800, 0.0),
        ("NVIDIA-H200-SXM-141GB", "tdp_w", 700, 0.0),
        # A100 datasheet prints BF16 312 dense (624 sparse).
        ("NVIDIA-A100-PCIE-80GB", "bf16_tflops_dense", 312, 0.0),
        ("NVIDIA-A100-PCIE-80GB", "memory_bw_gbs", 1935, 0.0),
        # L40S spec table prints 362.05 dense BF16, 733 dense FP8.
        ("NVIDIA-L40S-48GB", "bf16_tflops_dense", 362.05, 0.0),
        ("NVIDIA-L4-24GB", "tdp_w", 72, 0.0),
        ("NVIDIA-H100-NVL-94GB", "memory_gb", 94, 0.0),
        ("NVIDIA-H100-PCIE-80GB", "tdp_w", 350, 0.0),
        ("NVIDIA-B200-SXM-180GB", "tdp_w", 1000, 0.0),
        ("NVIDIA-RTX-PRO-6000-BSE-96GB", "memory_bw_gbs", 1597, 0.0),
    ],
)
def test_published_figures(catalog: Catalog, sku: str, field: str, published: float, rel: float):
    value = getattr(catalog.gpus[sku], field)
    assert value == pytest.approx(published, rel=rel), f"{sku}.{field} = {value}"


def test_ampere_has_no_fp8(catalog: Catalog) -> None:
    assert catalog.gpus["NVIDIA-A100-PCIE-80GB"].fp8_tflops_dense is None


def test_rtx_4090_is_a_consumer_open_air_card(catalog: Catalog) -> None:
    gpu = catalog.gpus["NVIDIA-RTX-4090-24GB"]
    assert gpu.datacenter is False
    assert gpu.cooling == "open_air"
    assert gpu.width_slots == 3
    assert gpu.tdp_w == 450
    assert all(g.datacenter for g in catalog.gpus.values() if g.sku != gpu.sku)


def test_form_factor_is_consistent(catalog: Catalog) -> None:
    for gpu in catalog.gpus.values():
        if gpu.form == "sxm":
            assert gpu.cooling == "sxm" and gpu.length == "SXM", gpu.sku
            assert gpu.nvlink == "nvswitch", gpu.sku
        else:
            assert gpu.cooling in ("passive", "blower", "open_air", "liquid"), gpu.sku
            assert gpu.nvlink in ("none", "bridge", None), gpu.sku  # None: not verified
            # pcie_lanes None: not published for the card (RTX PRO 4500 BSE), not verified
            assert gpu.width_slots is not None and gpu.pcie_lanes in (16, None), gpu.sku


def test_hbm_parts_are_faster_than_gddr_parts(catalog: Catalog) -> None:
    hbm = [
        g.memory_bw_gbs for g in catalog.gpus.values() if (g.memory_type or "").startswith("HBM")
    ]
    gddr = [
        g.memory_bw_gbs for g in catalog.gpus.values() if (g.memory_type or "").startswith("GDDR")
    ]
    hbm = [b for b in hbm if b is not None]
    gddr = [b for b in gddr if b is not None]
    assert hbm and gddr
    assert min(hbm) > max(gddr)


# --------------------------------------------------------------------------- bridges, boards


def test_bridged_gpus_have_a_bridge_record(catalog: Catalog) -> None:
    bridged = {g.sku for g in catalog.gpus.values() if g.nvlink == "bridge"}
    covered = {sku for b in catalog.bridges.values() for sku in b.gpu_skus}
    assert bridged <= covered, bridged - covered
    for bridge in catalog.bridges.values():
        for sku in bridge.gpu_skus:
            assert catalog.gpus[sku].nvlink == "bridge", f"{bridge.sku} joins non-bridge {sku}"


def test_bridge_count_agrees_with_gpu_record(catalog: Catalog) -> None:
    for bridge in catalog.bridges.values():
        if bridge.ways != 2:
            continue
        for sku in bridge.gpu_skus:
            per_pair = catalog.gpus[sku].bridges_per_pair
            if per_pair is not None:
                assert bridge.per_group == per_pair, (bridge.sku, sku)


def test_h100_nvl_needs_all_three_bridges(catalog: Catalog) -> None:
    assert catalog.bridges["NVLINK-H100-NVL-2WAY"].per_group == 3
    assert catalog.bridges["NVLINK-H200-NVL-4WAY"].ways == 4


def test_bridge_bandwidth_matches_gpu(catalog: Catalog) -> None:
    for bridge in catalog.bridges.values():
        for sku in bridge.gpu_skus:
            assert bridge.bw_gbs == catalog.gpus[sku].nvlink_bw_gbs, (bridge.sku, sku)


def test_baseboards_carry_sxm_gpus(catalog: Catalog) -> None:
    for board in catalog.baseboards.values():
        gpu = catalog.gpus[board.gpu_sku]
        assert gpu.form == "sxm", board.sku
        if board.board_power_w is not None:  # only when sourced
            assert board.board_power_w > 0


# --------------------------------------------------------------------------- CPUs


SOCKET_OF_FAMILY = {
    "Xeon 4th Gen": "LGA4677",
    "Xeon 5th Gen": "LGA4677",
    "Xeon 6 6900P": "LGA7529",
    "Xeon 6 6700P": "LGA4710",
}


def test_cpu_family_and_socket_agree(catalog: Catalog) -> None:
    for cpu in catalog.cpus.values():
        assert SOCKET_OF_FAMILY.get(cpu.family) == cpu.socket, cpu.sku


def test_cpu_platform_figures(catalog: Catalog) -> None:
    cpus = catalog.cpus
    assert cpus["XEON-8480+"].cores == 56 and cpus["XEON-8480+"].tdp_w == 350
    for cpu in cpus.values():
        channels = {"LGA4677": 8, "LGA4710": 8, "LGA7529": 12}[cpu.socket]
        assert cpu.memory_channels == channels, cpu.sku
        assert cpu.pcie_gen == 5, cpu.sku
        if cpu.memory_mts_2dpc is not None:
            assert cpu.memory_mts_1dpc is not None
            assert cpu.memory_mts_2dpc < cpu.memory_mts_1dpc, cpu.sku
    assert cpus["XEON-6980P"].pcie_lanes == 96
    assert cpus["XEON-6776P"].pcie_lanes == 88


# --------------------------------------------------------------------------- NICs, drives


def test_nic_ports_fit_their_host_link(catalog: Catalog) -> None:
    """A NIC's line rate must not exceed what its PCIe link can carry in one direction."""
    for nic in catalog.nics.values():
        assert isinstance(nic, Nic)
        if nic.pcie_gen is None or nic.pcie_lanes is None:
            continue
        host_gbps = PCIE_GBPS_PER_LANE[nic.pcie_gen] * nic.pcie_lanes
        if nic.role == "dpu":
            # A DPU terminates traffic on its own Arm cores, so its ports may add up to more than
            # the host link: NVIDIA sells the BlueField-3 B3240 as 2x 400G behind Gen5 x16.
            assert nic.port_gbps <= host_gbps, nic.sku
            continue
        assert nic.ports * nic.port_gbps <= host_gbps, nic.sku


def test_drives_have_sourced_capacity_and_power(catalog: Catalog) -> None:
    for drive in catalog.drives.values():
        assert isinstance(drive, Drive)
        assert 0.1 <= drive.capacity_tb <= 130, drive.sku
        if drive.power_w is not None:
            limit = {"sata": 10, "nvme": 40, "sas": 20}[drive.interface]
            assert 0 < drive.power_w <= limit, drive.sku
        if drive.interface == "sata":
            assert drive.form_factor in ("2.5in", "3.5in", "M.2"), drive.sku


def test_data_files_exist_where_the_loader_looks() -> None:
    for name in PART_FILES:
        assert (Path(BUNDLED_DIR) / name).is_file(), name
