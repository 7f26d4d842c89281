"""The catalog loader: each kind of broken data gives a problem naming file, record and field;
user overlays (``load_catalog(overlay=...)`` and ``SLOTWISE_CATALOG``) add and correct records and
go through the same checks.

Most tests write a small synthetic catalog into ``tmp_path`` and point ``bundled=`` at it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from slotwise.parts.catalog import BUNDLED_DIR, CATALOG_ENV, CatalogError, Problem, load_catalog

GPUS = """
[[gpu]]
sku = "TEST-GPU"
name = "Test GPU"
source = "https://example.invalid/gpu"
memory_gb = 80
tdp_w = 350
form = "pcie"
"""

CPUS = """
[[cpu]]
sku = "TEST-CPU"
name = "Test CPU"
source = "https://example.invalid/cpu"
family = "Test"
socket = "LGA-0"
"""

PSUS = """
[[psu]]
sku = "TEST-PSU"
name = "Test PSU"
source = "https://example.invalid/psu"
watts_high_line = 2000
"""

CHASSIS = """
sku = "SYS-TEST"
name = "Test chassis"
source = "https://example.invalid/chassis"
family = "X13"
gpu_form = "pcie"
cpu_sockets = 2
cpu_skus = ["TEST-CPU"]
gpu_skus = ["TEST-GPU"]
psu_skus = ["TEST-PSU"]
nvlink_groups = [["1", "2"]]

[[roots]]
id = "cpu1"
kind = "cpu"
socket = 1

[[roots]]
id = "sw1"
kind = "switch"
socket = 1
parent = "cpu1"

[[slots]]
id = "1"
label = "Slot 1"
root = "sw1"
gen = 5
lanes = 16

[[slots]]
id = "2"
label = "Slot 2"
root = "sw1"
gen = 5
lanes = 16
covers = "3"

[[slots]]
id = "3"
label = "Slot 3"
root = "cpu1"
gen = 5
lanes = 16
double_width = false
"""


def write_catalog(root: Path, **files: str) -> Path:
    """Write a catalog dir: keyword = file name with '/' as '__' and '.toml' dropped."""
    root.mkdir(parents=True, exist_ok=True)
    for key, text in files.items():
        path = root / (key.replace("__", "/") + ".toml")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


def base_catalog(root: Path, chassis: str = CHASSIS, **extra: str) -> Path:
    files = {"gpus": GPUS, "cpus": CPUS, "psus": PSUS, "chassis__SYS-TEST": chassis}
    files.update(extra)
    return write_catalog(root, **files)


@pytest.fixture(autouse=True)
def _no_user_overlay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CATALOG_ENV, raising=False)


def problems_of(bundled: Path, overlay: Path | None = None) -> list[Problem]:
    with pytest.raises(CatalogError) as info:
        load_catalog(overlay=overlay, bundled=bundled)
    problems = info.value.problems
    assert problems
    return problems


def the_problem(problems: list[Problem], fld: str) -> Problem:
    hits = [p for p in problems if p.field == fld]
    assert len(hits) == 1, f"expected one problem on {fld!r}, got {problems}"
    return hits[0]


def assert_named(p: Problem, file: str, record: str, fld: str, line: int | None = None) -> None:
    """The problem names the file, the record and the field, in its fields and in its text."""
    assert p.file.endswith(file), p
    assert p.record == record, p
    assert p.field == fld, p
    text = str(p)
    assert file in text and repr(record) in text and f"'{fld}'" in text
    if line is not None:
        assert p.line == line, p


def chassis_with(old: str, new: str) -> str:
    assert old in CHASSIS
    return CHASSIS.replace(old, new)


# ----------------------------------------------------------------------------- baseline


def test_the_synthetic_catalog_is_valid(tmp_path: Path) -> None:
    cat = load_catalog(bundled=base_catalog(tmp_path))
    assert set(cat.records) == {"TEST-GPU", "TEST-CPU", "TEST-PSU", "SYS-TEST"}
    assert cat.chassis["SYS-TEST"].slots[1].covers == "3"
    assert cat.origin["SYS-TEST"] == "parts/data/chassis/SYS-TEST.toml"


# ----------------------------------------------------------------------------- broken data


def test_duplicated_sku_in_one_file(tmp_path: Path) -> None:
    bundled = base_catalog(tmp_path, gpus=GPUS + GPUS)
    p = the_problem(problems_of(bundled), "sku")
    assert_named(p, "parts/data/gpus.toml", "TEST-GPU", "sku")
    assert "duplicate SKU" in p.message


def test_duplicated_sku_across_files(tmp_path: Path) -> None:
    bundled = base_catalog(tmp_path, more_gpus=GPUS)
    p = the_problem(problems_of(bundled), "sku")
    assert "duplicate SKU" in p.message
    assert p.record == "TEST-GPU"
    # one of the two files is named as the problem, the other as the first definition
    files = {"parts/data/gpus.toml", "parts/data/more_gpus.toml"}
    assert p.file in files
    (other,) = files - {p.file}
    assert f"first defined in {other}:2" in p.message


def test_slot_hanging_off_an_unknown_root(tmp_path: Path) -> None:
    chassis = chassis_with(
        'root = "cpu1"\ngen = 5\nlanes = 16\ndouble_width',
        'root = "sw9"\ngen = 5\nlanes = 16\ndouble_width',
    )
    p = the_problem(problems_of(base_catalog(tmp_path, chassis)), "slots[2].root")
    assert_named(p, "parts/data/chassis/SYS-TEST.toml", "SYS-TEST", "slots[2].root", line=1)
    assert "'sw9'" in p.message and "cpu1, sw1" in p.message


def test_switch_hanging_off_an_unknown_parent(tmp_path: Path) -> None:
    chassis = chassis_with('parent = "cpu1"', 'parent = "cpu7"')
    p = the_problem(problems_of(base_catalog(tmp_path, chassis)), "roots[1].parent")
    assert_named(p, "chassis/SYS-TEST.toml", "SYS-TEST", "roots[1].parent")


def test_covers_naming_a_missing_slot(tmp_path: Path) -> None:
    chassis = chassis_with('covers = "3"', 'covers = "14"')
    p = the_problem(problems_of(base_catalog(tmp_path, chassis)), "slots[1].covers")
    assert_named(p, "chassis/SYS-TEST.toml", "SYS-TEST", "slots[1].covers")
    assert "'14'" in p.message


def test_nvlink_group_naming_a_missing_slot(tmp_path: Path) -> None:
    chassis = chassis_with(
        'nvlink_groups = [["1", "2"]]', 'nvlink_groups = [["1", "2"], ["2", "9"]]'
    )
    p = the_problem(problems_of(base_catalog(tmp_path, chassis)), "nvlink_groups[1]")
    assert_named(p, "chassis/SYS-TEST.toml", "SYS-TEST", "nvlink_groups[1]")
    assert "'9'" in p.message


@pytest.mark.parametrize(
    ("fld", "old", "new", "says"),
    [
        ("roots[1].parent", 'parent = "cpu1"\n', "", "needs a parent root"),
        ("slots[1].covers", 'covers = "3"', 'covers = "2"', "cannot cover itself"),
        (
            "slots[0].requires_socket",
            'label = "Slot 1"',
            'label = "Slot 1"\nrequires_socket = 3',
            "needs socket 3",
        ),
        (
            "nvlink_groups[0]",
            'nvlink_groups = [["1", "2"]]',
            'nvlink_groups = [["1", "1"]]',
            "same slot twice",
        ),
        (
            "psu_default_count",
            "cpu_sockets = 2",
            "cpu_sockets = 2\npsu_bays = 2\npsu_default_count = 4",
            "only 2 PSU bays",
        ),
    ],
)
def test_inconsistent_topology(tmp_path: Path, fld, old, new, says) -> None:
    p = the_problem(problems_of(base_catalog(tmp_path, chassis_with(old, new))), fld)
    assert_named(p, "chassis/SYS-TEST.toml", "SYS-TEST", fld)
    assert says in p.message


def test_nvlink_group_of_three_is_refused(tmp_path: Path) -> None:
    chassis = chassis_with('nvlink_groups = [["1", "2"]]', 'nvlink_groups = [["1", "2", "3"]]')
    p = the_problem(problems_of(base_catalog(tmp_path, chassis)), "nvlink_groups[0]")
    assert "2 or 4" in p.message


@pytest.mark.parametrize(
    ("fld", "old", "new", "what"),
    [
        (
            "cpu_skus",
            'cpu_skus = ["TEST-CPU"]',
            'cpu_skus = ["TEST-CPU", "XEON-NOPE"]',
            "CPU 'XEON-NOPE'",
        ),
        ("psu_skus", 'psu_skus = ["TEST-PSU"]', 'psu_skus = ["PWS-NOPE"]', "PSU 'PWS-NOPE'"),
        ("gpu_skus", 'gpu_skus = ["TEST-GPU"]', 'gpu_skus = ["GPU-NOPE"]', "GPU 'GPU-NOPE'"),
        # a SKU of the wrong kind is as unknown as a missing one
        ("gpu_skus", 'gpu_skus = ["TEST-GPU"]', 'gpu_skus = ["TEST-CPU"]', "GPU 'TEST-CPU'"),
    ],
)
def test_chassis_allowing_a_part_not_in_the_catalog(tmp_path: Path, fld, old, new, what) -> None:
    p = the_problem(problems_of(base_catalog(tmp_path, chassis_with(old, new))), fld)
    assert_named(p, "chassis/SYS-TEST.toml", "SYS-TEST", fld, line=1)
    assert what in p.message and "not in the catalog" in p.message


def test_record_without_source(tmp_path: Path) -> None:
    gpus = GPUS.replace('source = "https://example.invalid/gpu"\n', "")
    p = the_problem(problems_of(base_catalog(tmp_path, gpus=gpus)), "source")
    assert_named(p, "parts/data/gpus.toml", "TEST-GPU", "source", line=2)


def test_chassis_without_source(tmp_path: Path) -> None:
    chassis = chassis_with('source = "https://example.invalid/chassis"\n', 'source = ""\n')
    p = the_problem(problems_of(base_catalog(tmp_path, chassis)), "source")
    assert_named(p, "chassis/SYS-TEST.toml", "SYS-TEST", "source", line=1)


def test_chassis_file_without_sku_is_one_clear_problem(tmp_path: Path) -> None:
    chassis = chassis_with('sku = "SYS-TEST"\n', "")
    problems = problems_of(base_catalog(tmp_path, chassis))
    assert [p.field for p in problems] == ["sku"], problems
    assert problems[0].file.endswith("chassis/SYS-TEST.toml")


def test_wrong_type_names_the_field(tmp_path: Path) -> None:
    chassis = chassis_with("cpu_sockets = 2", 'cpu_sockets = "two"')
    p = the_problem(problems_of(base_catalog(tmp_path, chassis)), "cpu_sockets")
    assert_named(p, "chassis/SYS-TEST.toml", "SYS-TEST", "cpu_sockets")


def test_unknown_field_names_the_field(tmp_path: Path) -> None:
    psus = PSUS.replace("watts_high_line = 2000", "watts_high_line = 2000\nwatts_at_moon = 3")
    p = the_problem(problems_of(base_catalog(tmp_path, psus=psus)), "watts_at_moon")
    assert_named(p, "psus.toml", "TEST-PSU", "watts_at_moon")


def test_malformed_toml_names_the_file(tmp_path: Path) -> None:
    problems = problems_of(base_catalog(tmp_path, psus="[[psu]\nsku = 1"))
    bad = [p for p in problems if p.file.endswith("psus.toml")]
    assert len(bad) == 1 and "malformed TOML" in bad[0].message
    # the PSU it held is then missing, and the chassis allowing it says so
    assert [p.field for p in problems if p not in bad] == ["psu_skus"]


def test_unknown_table_kind(tmp_path: Path) -> None:
    problems = problems_of(base_catalog(tmp_path, extra="[[gpuz]]\nsku = 'X'\nname = 'x'\n"))
    assert len(problems) == 1
    assert problems[0].record == "X" and "unknown table [[gpuz]]" in problems[0].message


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    chassis = chassis_with('covers = "3"', 'covers = "14"').replace(
        'gpu_skus = ["TEST-GPU"]', 'gpu_skus = ["NOPE"]'
    )
    problems = problems_of(base_catalog(tmp_path, chassis))
    assert {p.field for p in problems} == {"slots[1].covers", "gpu_skus"}
    with pytest.raises(CatalogError) as info:
        load_catalog(bundled=tmp_path)
    assert "2 problem(s)" in str(info.value)


# ----------------------------------------------------------------------------- overlays


def test_overlay_adds_an_internal_sku(tmp_path: Path) -> None:
    bundled = base_catalog(tmp_path / "bundled")
    internal = CHASSIS.replace('sku = "SYS-TEST"', 'sku = "ACME-INTERNAL-4U"')
    overlay = write_catalog(tmp_path / "overlay", chassis__acme=internal)
    cat = load_catalog(overlay=overlay, bundled=bundled)
    assert {"SYS-TEST", "ACME-INTERNAL-4U"} <= set(cat.chassis)
    assert cat.origin["ACME-INTERNAL-4U"] == f"{overlay}/chassis/acme.toml"
    assert cat.origin["SYS-TEST"].startswith("parts/data/")


def test_overlay_corrects_a_bundled_figure(tmp_path: Path) -> None:
    bundled = base_catalog(tmp_path / "bundled")
    overlay = write_catalog(tmp_path / "overlay", gpus=GPUS.replace("tdp_w = 350", "tdp_w = 400"))
    plain = load_catalog(bundled=bundled)
    fixed = load_catalog(overlay=overlay, bundled=bundled)
    assert plain.gpus["TEST-GPU"].tdp_w == 350
    assert fixed.gpus["TEST-GPU"].tdp_w == 400
    assert fixed.origin["TEST-GPU"] == f"{overlay}/gpus.toml"
    assert len(fixed) == len(plain)
    assert fixed.version != plain.version


def test_overlay_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundled = base_catalog(tmp_path / "bundled")
    overlay = write_catalog(tmp_path / "overlay", psus=PSUS.replace("2000", "2200"))
    monkeypatch.setenv(CATALOG_ENV, str(overlay))
    assert load_catalog(bundled=bundled).psus["TEST-PSU"].watts_high_line == 2200


def test_explicit_overlay_wins_over_the_environment(tmp_path: Path, monkeypatch) -> None:
    bundled = base_catalog(tmp_path / "bundled")
    env_dir = write_catalog(tmp_path / "env", psus=PSUS.replace("2000", "2200"))
    arg_dir = write_catalog(tmp_path / "arg", psus=PSUS.replace("2000", "2400"))
    monkeypatch.setenv(CATALOG_ENV, str(env_dir))
    assert load_catalog(overlay=arg_dir, bundled=bundled).psus["TEST-PSU"].watts_high_line == 2400


def test_overlay_data_goes_through_the_same_checks(tmp_path: Path) -> None:
    bundled = base_catalog(tmp_path / "bundled")
    broken = CHASSIS.replace('sku = "SYS-TEST"', 'sku = "ACME-BAD"').replace(
        'covers = "3"', 'covers = "14"'
    )
    broken = broken.replace('psu_skus = ["TEST-PSU"]', 'psu_skus = ["ACME-PSU-NOPE"]')
    overlay = write_catalog(
        tmp_path / "overlay", chassis__bad=broken, gpus=GPUS.replace("name = ", "#")
    )
    problems = problems_of(bundled, overlay)
    for p in problems:
        assert p.file.startswith(str(overlay)), p
    assert_named(
        the_problem(problems, "slots[1].covers"), "chassis/bad.toml", "ACME-BAD", "slots[1].covers"
    )
    assert_named(the_problem(problems, "psu_skus"), "chassis/bad.toml", "ACME-BAD", "psu_skus")
    assert_named(the_problem(problems, "name"), "gpus.toml", "TEST-GPU", "name")


def test_overlay_duplicate_within_the_overlay(tmp_path: Path) -> None:
    bundled = base_catalog(tmp_path / "bundled")
    overlay = write_catalog(tmp_path / "overlay", a=GPUS, b=GPUS)
    p = the_problem(problems_of(bundled, overlay), "sku")
    assert p.file.startswith(str(overlay)) and p.record == "TEST-GPU"


def test_overlay_that_is_not_a_directory(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    problems = problems_of(base_catalog(tmp_path / "bundled"), missing)
    assert problems[0].file == str(missing) and "not a directory" in problems[0].message


def test_overlay_on_the_bundled_catalog(tmp_path: Path) -> None:
    """A distributor's overlay on the real data: an internal chassis reusing bundled parts, and a
    corrected PSU figure."""
    internal = CHASSIS.replace('sku = "SYS-TEST"', 'sku = "ACME-8GPU-5U"')
    internal = internal.replace('"TEST-CPU"', '"XEON-6530"').replace(
        '"TEST-GPU"', '"NVIDIA-H200-NVL-141GB"'
    )
    internal = internal.replace('"TEST-PSU"', '"SMCI-PSU-2700W-TITANIUM"')
    psu = PSUS.replace("TEST-PSU", "PWS-3K02G-2R").replace("2000", "3000")
    overlay = write_catalog(tmp_path / "overlay", chassis__acme=internal, psus=psu)
    bundled = load_catalog(bundled=BUNDLED_DIR)
    cat = load_catalog(overlay=overlay, bundled=BUNDLED_DIR)
    assert cat.chassis["ACME-8GPU-5U"].gpu_skus == ("NVIDIA-H200-NVL-141GB",)
    assert bundled.psus["PWS-3K02G-2R"].watts_high_line == 2880
    assert cat.psus["PWS-3K02G-2R"].watts_high_line == 3000
    assert len(cat) == len(bundled) + 1


# ----------------------------------------------------------------------------- robustness

import tomllib  # noqa: E402

import tomli_w  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_VALUES = st.one_of(
    st.integers(-3, 40),
    st.text(max_size=6),
    st.booleans(),
    st.lists(st.text(max_size=4), max_size=3),
    st.just({"id": "x"}),
)


@st.composite
def broken_chassis(draw) -> dict:
    data = tomllib.loads(CHASSIS)
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.sampled_from(["top", "slot", "root"]))
        if where == "top":
            target = data
        else:
            items = data.get("slots" if where == "slot" else "roots")
            if isinstance(items, list) and items and all(isinstance(i, dict) for i in items):
                target = items[draw(st.integers(0, len(items) - 1))]
            else:
                target = data
        key = draw(st.sampled_from(sorted(target) + ["bogus_field"]))
        if draw(st.booleans()):
            target.pop(key, None)
        else:
            target[key] = draw(_VALUES)
    return data


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=broken_chassis())
def test_any_broken_chassis_gives_problems_never_a_traceback(tmp_path: Path, data: dict) -> None:
    root = tmp_path / "cat"
    base_catalog(root, chassis=tomli_w.dumps(data))
    try:
        load_catalog(bundled=root)
    except CatalogError as exc:
        assert exc.problems
        for p in exc.problems:
            assert p.file.startswith("parts/data/") and p.message
        assert str(exc).startswith("the parts catalog has")
