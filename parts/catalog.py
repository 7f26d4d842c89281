"""Load the bundled catalog (and an optional user overlay), validate it as a whole, index by SKU.

Layout of a catalog directory (the bundled one is ``parts/data``)::

    chassis/*.toml      one chassis per file, top-level keys are the Chassis fields
    gpus.toml           [[gpu]] tables         baseboards.toml  [[baseboard]]
    bridges.toml        [[bridge]]             cpus.toml        [[cpu]]
    memory.toml         [[dimm]]               nics.toml        [[nic]]
    storage.toml        [[drive]]              psus.toml        [[psu]]
    models.toml         [[model]]

Any ``*.toml`` file may hold tables of any kind; the file names above are a convention.  An
overlay directory uses the same layout: a record whose SKU exists in the bundled catalog replaces
it (a distributor correcting a figure), a new SKU is added.  Every problem is reported as a
:class:`CatalogError` naming the file, the line, the record and the field.

Input limits (:mod:`parts.safe_io`): only regular files are read (a FIFO, a device, a directory
named ``x.toml``, a symlink loop or a dangling symlink is a problem naming the file, never a hang
or a traceback), each at most ``MAX_CATALOG_FILE_BYTES``, nested at most ``safe_io.MAX_DEPTH``
deep; values quoted in messages are shortened.
"""

from __future__ import annotations

import hashlib
import os
import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from pydantic import ValidationError

from slotwise.parts.safe_io import (
    MAX_FILE_BYTES,
    InputError,
    loads_toml,
    read_bytes,
    read_text,
    shorten,
    shorten_path,
    shorten_text,
)
from slotwise.parts.schema import (
    MAX_SKU_CHARS,
    MODEL_BY_KIND,
    PART_KINDS,
    Baseboard,
    Bridge,
    Chassis,
    Cpu,
    Dimm,
    Drive,
    Gpu,
    ModelPreset,
    Nic,
    Psu,
    Record,
)

BUNDLED_DIR = Path(__file__).parent / "data"
#: The bundled files are 2-40 kB; an overlay file over this is not a catalog file.
MAX_CATALOG_FILE_BYTES = MAX_FILE_BYTES
CATALOG_ENV = "SLOTWISE_CATALOG"


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    record: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = shorten_path(self.file) + (f":{self.line}" if self.line else "")
        rec = f" record {shorten(self.record)}" if self.record else ""
        fld = f" field '{shorten_text(self.field)}'" if self.field else ""
        return f"{where}:{rec}{fld}: {shorten_text(self.message, 600)}"


class CatalogError(Exception):
    """The catalog data is invalid; ``problems`` lists each one with file, record and field."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"the parts catalog has {len(problems)} problem(s):\n{lines}")


@dataclass(frozen=True)
class _Loaded:
    record: Record
    file: str
    line: int | None


@dataclass(frozen=True)
class Catalog:
    """An immutable, validated index of every record, by kind and by SKU."""

    records: dict[str, Record]
    origin: dict[str, str] = field(default_factory=dict)  # sku -> file
    version: str = ""

    # --- typed views --------------------------------------------------------------------------
    def _of(self, cls: type) -> dict:
        return {k: v for k, v in self.records.items() if isinstance(v, cls)}

    # Views are computed once per Catalog on first use and kept in the instance's __dict__
    # (functools.cached_property writes there directly, so the frozen dataclass allows it): they
    # are read on every rule lookup, and a cached view is then a plain attribute read.
    @cached_property
    def chassis(self) -> dict[str, Chassis]:
        return self._of(Chassis)

    @cached_property
    def gpus(self) -> dict[str, Gpu]:
        return self._of(Gpu)

    @cached_property
    def baseboards(self) -> dict[str, Baseboard]:
        return self._of(Baseboard)

    @cached_property
    def bridges(self) -> dict[str, Bridge]:
        return self._of(Bridge)

    @cached_property
    def cpus(self) -> dict[str, Cpu]:
        return self._of(Cpu)

    @cached_property
    def dimms(self) -> dict[str, Dimm]:
        return self._of(Dimm)

    @cached_property
    def nics(self) -> dict[str, Nic]:
        return self._of(Nic)

    @cached_property
    def drives(self) -> dict[str, Drive]:
        return self._of(Drive)

    @cached_property
    def psus(self) -> dict[str, Psu]:
        return self._of(Psu)

    @cached_property
    def models(self) -> dict[str, ModelPreset]:
        return self._of(ModelPreset)

    def get(self, sku: str) -> Record | None:
        return self.records.get(sku)

    def of_kind(self, kind: str) -> list[Record]:
        return [r for r in self.records.values() if r.kind == kind]

    def __iter__(self) -> Iterator[Record]:
        return iter(self.records.values())

    def __len__(self) -> int:
        return len(self.records)


def onboard_nics(catalog: Catalog, ch: Chassis) -> tuple[tuple[str | None, Nic], ...]:
    """One (root, Nic) per device the chassis has on board; SKUs not in the catalog are skipped
    (the catalog loader rejects them for the bundled data)."""
    out: list[tuple[str | None, Nic]] = []
    for onb in ch.onboard_nics:
        nic = catalog.nics.get(onb.sku)
        if nic is None:
            continue
        for i in range(onb.count):
            root = None
            if len(onb.roots) == 1:
                root = onb.roots[0]
            elif len(onb.roots) == onb.count:
                root = onb.roots[i]
            out.append((root, nic))
    return tuple(out)


# ------------------------------------------------------------------------------ loading


def _line_of(text: str, sku: str | None) -> int | None:
    if not sku or len(sku) > MAX_SKU_CHARS:
        return None
    m = re.search(r'^\s*sku\s*=\s*["\']' + re.escape(sku) + r'["\']', text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _read_dir(directory: Path, label: str) -> tuple[list[_Loaded], list[Problem]]:
    loaded: list[_Loaded] = []
    problems: list[Problem] = []
    files = sorted(directory.glob("*.toml")) + sorted(directory.glob("chassis/*.toml"))
    for path in files:
        shown = f"{label}/{path.relative_to(directory).as_posix()}"
        try:
            text = read_text(path, max_bytes=MAX_CATALOG_FILE_BYTES, what="catalog file")
            data = loads_toml(text, shown, what="catalog file")
        except InputError as exc:
            problems.append(Problem(shown, None, None, None, exc.reason))
            continue
        except tomllib.TOMLDecodeError as exc:
            problems.append(Problem(shown, None, None, None, f"malformed TOML: {exc}"))
            continue
        for kind, raw, idx in _tables(data, path):
            sku = raw.get("sku") if isinstance(raw, dict) else None
            line = _line_of(text, sku if isinstance(sku, str) else None)
            rec_label = sku if isinstance(sku, str) else f"{kind}[{idx}]"
            if kind not in MODEL_BY_KIND:
                problems.append(
                    Problem(
                        shown,
                        line,
                        rec_label,
                        None,
                        f"unknown table [[{kind}]]; expected one of {', '.join(PART_KINDS)}",
                    )
                )
                continue
            if isinstance(raw, dict) and not raw.get("source"):
                problems.append(
                    Problem(
                        shown,
                        line,
                        rec_label,
                        "source",
                        "every record needs a source (datasheet or product page URL)",
                    )
                )
                continue
            try:
                rec = MODEL_BY_KIND[kind].model_validate(raw)
            except ValidationError as exc:
                for err in exc.errors():
                    loc = ".".join(str(x) for x in err["loc"])
                    problems.append(Problem(shown, line, rec_label, loc, err["msg"]))
                continue
            loaded.append(_Loaded(rec, shown, line))
    return loaded, problems


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):  # a name too long, a NUL byte
        return False


def _tables(data: dict, path: Path) -> Iterable[tuple[str, dict, int]]:
    # A file under chassis/ is one chassis (top-level keys = its fields), even when it lacks
    # "sku": then validation names the missing field instead of calling each key a table.
    if path.parent.name == "chassis" and ("sku" in data or not set(data) & set(MODEL_BY_KIND)):
        yield "chassis", {k: v for k, v in data.items() if k != "kind"}, 0
        return
    for kind, value in data.items():
        if isinstance(value, list):
            for i, raw in enumerate(value):
                yield kind, raw, i
        else:
            yield kind, value, 0


def load_catalog(overlay: Path | str | None = None, *, bundled: Path | None = None) -> Catalog:
    """Load and cross-check the catalog.

    ``overlay`` (or env ``SLOTWISE_CATALOG`` when None) is a directory of the same layout whose
    records add to or replace the bundled ones.  Raises :class:`CatalogError` on any problem.
    """
    bundled = bundled or BUNDLED_DIR
    if overlay is None and os.environ.get(CATALOG_ENV):
        overlay = os.environ[CATALOG_ENV]
    layers: list[tuple[Path, str]] = [(bundled, "parts/data")]
    if overlay:
        op = Path(overlay).expanduser()
        if not _is_dir(op):
            raise CatalogError(
                [Problem(str(op), None, None, None, "catalog overlay is not a directory")]
            )
        layers.append((op, str(op)))

    problems: list[Problem] = []
    by_sku: dict[str, _Loaded] = {}
    digest = hashlib.sha256()
    for directory, label in layers:
        loaded, probs = _read_dir(directory, label)
        problems += probs
        seen_here: dict[str, _Loaded] = {}
        for item in loaded:
            sku = item.record.sku
            if sku in seen_here:
                first = seen_here[sku]
                problems.append(
                    Problem(
                        item.file,
                        item.line,
                        sku,
                        "sku",
                        f"duplicate SKU (first defined in {first.file}:{first.line}); "
                        "rename one or remove it",
                    )
                )
                continue
            seen_here[sku] = item
            by_sku[sku] = item  # overlay replaces bundled
        for path in sorted(directory.rglob("*.toml")):
            try:  # a file that cannot be read is a problem reported above (or not a catalog file)
                digest.update(read_bytes(path, max_bytes=MAX_CATALOG_FILE_BYTES))
            except InputError:
                continue

    problems += _cross_check(by_sku)
    if problems:
        raise CatalogError(problems)
    return Catalog(
        records={k: v.record for k, v in by_sku.items()},
        origin={k: v.file for k, v in by_sku.items()},
        version=digest.hexdigest()[:12],
    )


def _cross_check(by_sku: dict[str, _Loaded]) -> list[Problem]:
    problems: list[Problem] = []

    def need(item: _Loaded, fld: str, skus: Iterable[str], cls: type, what: str) -> None:
        for s in skus:
            target = by_sku.get(s)
            if target is None or not isinstance(target.record, cls):
                problems.append(
                    Problem(
                        item.file,
                        item.line,
                        item.record.sku,
                        fld,
                        f"{what} {s!r} is not in the catalog; add it or remove it from {fld}",
                    )
                )

    for item in by_sku.values():
        rec = item.record
        if isinstance(rec, Chassis):
            need(item, "cpu_skus", rec.cpu_skus, Cpu, "CPU")
            need(item, "psu_skus", rec.psu_skus, Psu, "PSU")
            need(item, "gpu_skus", rec.gpu_skus, Gpu, "GPU")
            need(item, "dimm_skus", rec.dimm_skus, Dimm, "DIMM")
            need(item, "baseboard_skus", rec.baseboard_skus, Baseboard, "baseboard")
            need(item, "onboard_nics", [o.sku for o in rec.onboard_nics], Nic, "NIC")
            problems += _check_topology(item, rec)
        elif isinstance(rec, Baseboard):
            need(item, "gpu_sku", [rec.gpu_sku], Gpu, "GPU")
        elif isinstance(rec, Bridge):
            need(item, "gpu_skus", rec.gpu_skus, Gpu, "GPU")
    return problems


def _check_topology(item: _Loaded, ch: Chassis) -> list[Problem]:
    out: list[Problem] = []

    def bad(fld: str, msg: str) -> None:
        out.append(Problem(item.file, item.line, ch.sku, fld, msg))

    root_ids = [r.id for r in ch.roots]
    for dup in {r for r in root_ids if root_ids.count(r) > 1}:
        bad("roots", f"root id {dup!r} is used twice")
    roots = set(root_ids)
    for i, r in enumerate(ch.roots):
        if r.parent is not None and r.parent not in roots:
            bad(f"roots[{i}].parent", f"root {r.id!r} hangs off unknown root {r.parent!r}")
        if r.socket > ch.cpu_sockets:
            bad(f"roots[{i}].socket", f"socket {r.socket} but the chassis has {ch.cpu_sockets}")
        if r.kind == "switch" and r.parent is None:
            bad(f"roots[{i}].parent", f"switch {r.id!r} needs a parent root (the CPU it hangs off)")
    slot_ids = [s.id for s in ch.slots]
    for dup in {s for s in slot_ids if slot_ids.count(s) > 1}:
        bad("slots", f"slot id {dup!r} is used twice")
    slots = set(slot_ids)
    for i, s in enumerate(ch.slots):
        if s.root not in roots:
            bad(
                f"slots[{i}].root",
                f"slot {s.id!r} hangs off unknown root {s.root!r}; known roots: "
                + (", ".join(sorted(roots)) or "none"),
            )
        if s.covers is not None and s.covers not in slots:
            bad(f"slots[{i}].covers", f"slot {s.id!r} covers unknown slot {s.covers!r}")
        if s.covers == s.id:
            bad(f"slots[{i}].covers", f"slot {s.id!r} cannot cover itself")
        if s.requires_socket is not None and s.requires_socket > ch.cpu_sockets:
            bad(
                f"slots[{i}].requires_socket",
                f"slot {s.id!r} needs socket {s.requires_socket} but the chassis has "
                f"{ch.cpu_sockets}",
            )
        if s.lanes > s.mechanical:
            bad(f"slots[{i}].lanes", f"slot {s.id!r}: {s.lanes} lanes in a x{s.mechanical} slot")
    for i, onb in enumerate(ch.onboard_nics):
        for rid in onb.roots:
            if rid not in roots:
                bad(
                    f"onboard_nics[{i}].roots", f"on-board {onb.sku} hangs off unknown root {rid!r}"
                )
        if len(onb.roots) not in (0, 1, onb.count):
            bad(
                f"onboard_nics[{i}].roots",
                f"{len(onb.roots)} roots for {onb.count} on-board {onb.sku}: give one root for "
                "all, or one per device",
            )
    for i, group in enumerate(ch.nvlink_groups):
        for sid in group:
            if sid not in slots:
                bad(f"nvlink_groups[{i}]", f"NVLink group names unknown slot {sid!r}")
        if len(group) not in (2, 4):
            bad(f"nvlink_groups[{i}]", f"an NVLink group joins 2 or 4 slots, not {len(group)}")
        elif len(set(group)) != len(group):
            bad(f"nvlink_groups[{i}]", "an NVLink group names the same slot twice")
    if ch.psu_default_count and ch.psu_bays and ch.psu_default_count > ch.psu_bays:
        bad(
            "psu_default_count",
            f"{ch.psu_default_count} PSUs by default but only {ch.psu_bays} PSU bays",
        )
    return out
