"""A small, self-contained catalog for the BOM format tests (no tests in this module).

The BOM reader/writer is about file format, not about hardware facts, so these tests use a
fixed in-memory catalog instead of the bundled data (which keeps changing as parts are added).
Every record here is marked ``source = "test fixture"``: none of it is a claim about real
hardware, and nothing outside tests/ may use it.  The figures mimic the shape of real records.
"""

from __future__ import annotations

from slotwise.parts.catalog import Catalog
from slotwise.parts.schema import (
    Baseboard,
    Bridge,
    Chassis,
    Cpu,
    Dimm,
    Drive,
    DriveBay,
    Gpu,
    ModelPreset,
    Nic,
    Psu,
    Root,
    Slot,
)

SRC = "test fixture"


def fixture_catalog() -> Catalog:
    slots = tuple(
        Slot(id=str(i), label=f"SLOT{i}", root="cpu1" if i <= 5 else "cpu2", gen=5, lanes=16)
        for i in range(1, 11)
    )
    recs = [
        Chassis(
            sku="TEST-PCIE-4U",
            name="Test 4U PCIe chassis",
            source=SRC,
            family="X13",
            gpu_form="pcie",
            cpu_sockets=2,
            roots=(
                Root(id="cpu1", kind="cpu", socket=1, lanes=80),
                Root(id="cpu2", kind="cpu", socket=2, lanes=80),
            ),
            slots=slots,
            nvlink_groups=(("1", "2"), ("3", "4"), ("1", "2", "3", "4")),
            drive_bays=(
                DriveBay(id="front-nvme", count=8, form_factor="2.5in", interfaces=("nvme",)),
                DriveBay(id="m2", count=2, form_factor="M.2", interfaces=("nvme",)),
            ),
        ),
        Chassis(
            sku="TEST-HGX-8U",
            name="Test 8U HGX chassis",
            source=SRC,
            family="X14",
            gpu_form="sxm",
            cpu_sockets=2,
        ),
        Gpu(sku="GPU-A", name="Test GPU A 96GB", source=SRC, memory_gb=96, form="pcie"),
        Gpu(sku="GPU-B", name="Test GPU B 48GB", source=SRC, memory_gb=48, form="pcie"),
        Gpu(sku="GPU-SXM", name="Test SXM GPU", source=SRC, memory_gb=180, form="sxm"),
        Baseboard(sku="BB-8", name="Test 8-GPU board", source=SRC, gpu_sku="GPU-SXM", gpu_count=8),
        Bridge(sku="BR-2", name="Test 2-way bridge", source=SRC, gpu_skus=("GPU-A",), ways=2),
        Bridge(sku="BR-4", name="Test 4-way bridge", source=SRC, gpu_skus=("GPU-A",), ways=4),
        Cpu(sku="CPU-X", name="Test CPU", source=SRC, family="test", socket="test"),
        Dimm(
            sku="DIMM-64",
            name="Test 64GB RDIMM",
            source=SRC,
            capacity_gb=64,
            type="DDR5 RDIMM",
            speed_mts=5600,
        ),
        Nic(sku="NIC-400", name="Test 400G NIC", source=SRC, family="test", ports=1, port_gbps=400),
        Drive(
            sku="SSD-7T",
            name="Test 7.68TB NVMe",
            source=SRC,
            form_factor="2.5in",
            interface="nvme",
            capacity_tb=7.68,
        ),
        Psu(sku="PSU-2700", name="Test 2700W PSU", source=SRC, watts_high_line=2700),
        ModelPreset(
            sku="test-7b",
            name="Test 7B",
            source=SRC,
            model_type="llama",
            hidden_size=4096,
            intermediate_size=11008,
            num_hidden_layers=32,
            num_attention_heads=32,
            num_key_value_heads=32,
            vocab_size=32000,
            published_params_b=6.7,
        ),
    ]
    return Catalog(records={r.sku: r for r in recs}, version="fixture1")
