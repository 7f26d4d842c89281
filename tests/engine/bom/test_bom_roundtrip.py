"""export -> import -> export is byte-identical, for generated builds (hypothesis)."""

from __future__ import annotations

import string
import tomllib
from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slotwise.engine.bom import BomMeta, export_bom, import_bom
from slotwise.engine.bom import toml_writer as bom_toml
from slotwise.engine.build import BridgeFit, Build, DriveFit, Environment
from slotwise.engine.build.items import canonical_build
from slotwise.engine.check.report import Budget, Finding, Report
from slotwise.engine.workload import LORA_MODULES, Workload
from slotwise.engine.workload.trainers import trainer_names
from tests.engine.bom.bom_fixture import fixture_catalog
from tests.model_strategies import field_strategy, instances

CAT = fixture_catalog()
PCIE = CAT.chassis["TEST-PCIE-4U"]
SLOT_IDS = [s.id for s in PCIE.slots]
REPORT = Report(
    findings=(
        Finding(rule="power.redundancy", severity="error", message='one "PSU" short\n', fix="add"),
        Finding(rule="cooling.x", severity="info", message="ok"),
    ),
    budgets=(
        Budget(name="power", used=4321.123456, available=5400.0, unit="W"),
        Budget(name="heat", used=4321.123456, available=None, unit="W"),
        Budget(name="lanes:cpu1", used=64, available=80, unit="lanes"),
    ),
)

# Meta text holds no control character (refused at load, issue #29: parts.plain_text).
texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30)
sku_like = st.text(alphabet=string.ascii_letters + string.digits + "-+._ ", min_size=1, max_size=20)
finite = st.floats(allow_nan=False, allow_infinity=False)


# Every field of the workload is generated from its type (tests/model_strategies.py); only the
# fields whose values the engine narrows further get a strategy of their own.
WORKLOAD_OVERRIDES = {
    "model": st.sampled_from(["test-7b", "not-a-preset"]),
    # a config a BOM may name (engine.bom.config_path): a Hub id or a path inside the BOM's
    # folder; an absolute, ~ or .. path is refused on import (tests/test_hostile_config_path.py)
    "config": texts.filter(
        lambda t: (
            bool(t)
            and not t.startswith(("/", "\\", "~"))
            and ".." not in t
            and not (len(t) > 1 and t[1] == ":")
        )
    ),
    "arch": st.dictionaries(
        st.from_regex(r"[a-z_]{1,12}", fullmatch=True),
        st.one_of(st.integers(-(2**40), 2**40), finite, st.booleans(), texts),
        max_size=5,
    ).filter(bool),
    "lora_targets": st.lists(st.sampled_from(LORA_MODULES), max_size=7).map(tuple),
    # a trainer profile's name (engine/workload/trainers.toml) and profile-field overrides
    "trainer": st.sampled_from([None, *trainer_names()]),
    "trainer_overrides": st.sampled_from(
        [
            {},
            {"nf4_keeps_input": True},
            {"lora_input_cast": "fp32", "zero_buckets": 400_000_000},
            {"loss": "fused", "lora_dropout": 0.1, "gradient_checkpointing": "multi-gpu"},
        ]
    ),
    # set only by resolution inside the estimator, never part of a document
    "trainer_resolved": st.just(False),
}


@st.composite
def workloads(draw):
    # model, config and arch name the model three ways: a workload names it at most one way
    which = draw(st.sampled_from(["model", "config", "arch", "none"]))
    named = {k: None for k in ("model", "config", "arch") if k != which}
    return draw(instances(Workload, WORKLOAD_OVERRIDES, base=named))


def test_every_workload_field_has_a_strategy():
    for name in Workload.model_fields:
        assert name in WORKLOAD_OVERRIDES or field_strategy(Workload, name) is not None


@st.composite
def builds(draw):
    chassis = draw(st.sampled_from(["TEST-PCIE-4U", "TEST-HGX-8U", "NOT-A-CHASSIS"]))
    slot_pool = SLOT_IDS + ["99", "slot x"]
    cards = st.sampled_from(["GPU-A", "GPU-B", "NIC-400", "CPU-X", "NOPE-GPU"])
    slots = draw(st.dictionaries(st.sampled_from(slot_pool), cards, max_size=10))
    bridges = tuple(
        BridgeFit(sku=draw(st.sampled_from(["BR-2", "BR-4", "BR-?"])), slots=tuple(g), count=c)
        for g, c in draw(
            st.lists(
                st.tuples(
                    st.lists(st.sampled_from(slot_pool), min_size=1, max_size=4), st.integers(1, 4)
                ),
                max_size=3,
            )
        )
    )
    drives = tuple(
        DriveFit(bay=b, sku=s, count=c)
        for b, s, c in draw(
            st.lists(
                st.tuples(
                    st.sampled_from(["front-nvme", "m2", "nowhere"]), sku_like, st.integers(1, 24)
                ),
                max_size=3,
            )
        )
    )
    cpu = draw(st.none() | st.sampled_from(["CPU-X", "CPU-UNKNOWN"]))
    dimm = draw(st.none() | st.just("DIMM-64"))
    psu = draw(st.none() | st.just("PSU-2700"))
    return Build(
        chassis=chassis,
        cpu=cpu,
        cpu_count=draw(st.integers(1, 2)) if cpu else 0,
        dimm=dimm,
        dimm_count=draw(st.integers(1, 32)) if dimm else 0,
        psu=psu,
        psu_count=draw(st.integers(1, 8)) if psu else 0,
        baseboard=draw(st.none() | st.sampled_from(["BB-8", "BB-UNKNOWN"])),
        slots=slots,
        bridges=bridges,
        drives=drives,
        env=Environment(
            input_voltage=draw(st.sampled_from(["200-240", "100-127"])),
            ambient_c=draw(st.floats(min_value=-10, max_value=60)),
            redundancy=draw(st.sampled_from(["N+1", "N+N"])),
            cooling=draw(st.sampled_from(["air", "liquid"])),
        ),
        workload=draw(st.none() | workloads()),
    )


@st.composite
def metas(draw):
    when = st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
    )
    return BomMeta(
        customer=draw(texts),
        project=draw(texts),
        engineer=draw(texts),
        notes=draw(texts),
        created=draw(st.none() | when),
        updated=draw(st.none() | when),
    )


prices_st = st.none() | st.dictionaries(
    st.sampled_from(["GPU-A", "CPU-X", "TEST-PCIE-4U", "BR-2", "PSU-2700"]),
    st.floats(min_value=0, max_value=1e7),
    max_size=5,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    build=builds(),
    meta=metas(),
    prices=prices_st,
    currency=st.none() | st.just("EUR"),
    note=st.none() | texts.filter(bool),
)
def test_export_import_export_is_byte_identical(build, meta, prices, currency, note):
    text = export_bom(build, CAT, meta, REPORT, prices=prices, currency=currency, price_note=note)
    tomllib.loads(text)  # valid TOML
    loaded = import_bom(text, CAT, filename="gen.toml")
    assert loaded.build == canonical_build(build, CAT)  # nothing lost, nothing invented
    assert loaded.meta.customer == meta.customer and loaded.meta.created == meta.created
    assert loaded.prices == {k: v for k, v in (prices or {}).items() if _in_build(k, build)}
    again = export_bom(
        loaded.build,
        CAT,
        loaded.meta,
        REPORT,
        prices=loaded.prices or None,
        currency=loaded.currency,
        price_note=loaded.price_note,
    )
    assert again == text


def _in_build(sku: str, b: Build) -> bool:
    return sku in {b.chassis, b.cpu, b.dimm, b.psu, b.baseboard} | set(b.slots.values()) | {
        br.sku for br in b.bridges
    }


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.one_of(st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(), texts),
        lambda inner: st.lists(inner, max_size=3),
        max_leaves=6,
    ),
    st.dictionaries(texts, texts, max_size=3),
)
def test_toml_writer_reads_back_equal(v, table):
    doc = {
        "k": v,
        "t": {"x": v, **{f"q{i}": x for i, x in enumerate(table.values())}},
        "a": [table or {"z": 1}],
    }
    doc["t"].update({k: "s" for k in table if k not in ("x",) and not k.startswith("q")})
    back = tomllib.loads(bom_toml.dumps(doc))

    def same(a, b):
        if isinstance(a, float) and a != a:
            return b != b
        if isinstance(a, list):
            return isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        return a == b and type(a) is type(b)

    assert same(doc, back)


def test_canonical_order_is_independent_of_edit_order():
    a = Build(chassis="TEST-PCIE-4U", slots={"3": "GPU-A", "1": "GPU-A", "10": "NIC-400"})
    b = Build(chassis="TEST-PCIE-4U", slots={"10": "NIC-400", "1": "GPU-A", "3": "GPU-A"})
    meta = BomMeta()
    assert export_bom(a, CAT, meta, REPORT) == export_bom(b, CAT, meta, REPORT)
    text = export_bom(a, CAT, meta, REPORT)
    assert text.index('"1" = ') < text.index('"3" = ') < text.index('"10" = ')


def test_clock_sets_times_and_export_never_reads_the_clock():
    t0 = datetime(2026, 12, 1, 3, 4, 5, 678, tzinfo=UTC)
    meta = BomMeta.new(clock=lambda: t0, customer="ACME")
    text = export_bom(Build(chassis="TEST-PCIE-4U"), CAT, meta, REPORT)
    assert 'created = "2026-12-01T03:04:05Z"' in text
    later = meta.touched(lambda: datetime(2027, 1, 2, 0, 0, 0, tzinfo=UTC))
    assert later.created == meta.created and later.updated.year == 2027
    assert export_bom(Build(chassis="TEST-PCIE-4U"), CAT, meta, REPORT) == text


def test_hand_edited_file_is_accepted_and_canonicalised():
    hand = """
# my notes
schema = 1
[chassis]
sku = "TEST-PCIE-4U"
[slots]
3 = "GPU-A"
'1' = "GPU-A"
[[bridges]]
sku = "BR-2"
slots = ["3", "1"]
[environment]
ambient_c = 30
[meta]
customer = "ACME"
created = 2026-12-01T03:00:00Z
"""
    loaded = import_bom(hand, CAT, filename="hand.toml")
    assert loaded.problems == ()
    assert loaded.build.slots == {"1": "GPU-A", "3": "GPU-A"}
    assert loaded.build.bridges[0].slots == ("1", "3")
    assert loaded.build.env.ambient_c == 30.0
    text = export_bom(loaded.build, CAT, loaded.meta, REPORT)
    assert 'created = "2026-12-01T03:00:00Z"' in text
    assert import_bom(text, CAT).build == loaded.build


def test_every_build_field_has_a_place_in_the_bom():
    """A new Build field must be written and read by engine/bom/write.py and read.py, or saved builds lose it."""
    assert set(Build.model_fields) == {
        "chassis",
        "cpu",
        "cpu_count",
        "dimm",
        "dimm_count",
        "slots",
        "baseboard",
        "bridges",
        "drives",
        "psu",
        "psu_count",
        "env",
        "workload",
    }
