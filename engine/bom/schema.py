"""Bills of materials: a build as a versioned, diff-friendly TOML file (the saved build's truth).

This module holds the format: its schema version, keys, limits, and the models the reader and
writer share (:class:`LoadedBom`, :class:`BomFinding`).  Writing is :mod:`engine.bom.write`,
reading :mod:`engine.bom.read`; :mod:`engine.bom` re-exports both.

API::

    text = export_bom(build, catalog, meta, report=None, prices=None, currency=None,
                      price_note=None)
    loaded = import_bom(text, catalog, filename="x.toml")   # LoadedBom(build, meta, problems, ...)
    loaded = read_bom(path, catalog)                         # never raises on a bad file
    write_bom(path, text, force=False)                       # atomic; BomExistsError if it exists

``export -> import -> export`` gives identical bytes: keys are written in one fixed order, the
build's slots / bridges / drives in canonical order (:func:`engine.build.items.canonical_build`),
floats with Python's shortest round-trip ``repr``.  ``export_bom`` never reads the clock: give
it a :class:`BomMeta` (``BomMeta.new(clock=...)`` / ``meta.touched(clock)`` set the times).

Layout (schema 1)::

    schema = 1
    [meta]          customer, project, engineer, created, updated (ISO 8601 UTC),
                    slotwise_version, catalog_version (the tool and catalog that wrote [summary]),
                    quote_date, valid_until (YYYY-MM-DD, optional), notes (optional free text),
                    services (the service lines the user chose: Supermicro codes such as
                    "EWCSC", engine.build.companions.SERVICES; never added otherwise)
    [chassis]       sku, description
    [environment]   input_voltage, ambient_c, redundancy, ... (engine.build.Environment fields)
    [cpu] [memory] [psu]   sku, count          [baseboard]  sku
    [slots]         "<slot id>" = "<GPU or NIC SKU>", in the chassis manual's slot order
    [[bridges]]     sku, slots = [..], count    [[drives]]  bay, sku, count
    [workload]      engine.workload.Workload fields (unset ones left out); ``trainer`` names
                    the trainer profile, [workload.trainer_overrides] its overridden fields
                    (a file with the older per-field trainer knobs, or ``recipe``, still
                    loads: they become trainer_overrides / trainer)
    [pricing]       currency, total, unpriced, note (e.g. "example prices, not a quote")
    [[line_items]]  sku, part_number ("PN needed" where no public source gives one; "included"
                    for a part built into the chassis), part_number_vendor / _confidence,
                    maker_part_number, description, quantity, unit_power_w, total_power_w,
                    power_note (why a companion line has no figure), unit_price,
                    extended_price; the parts first, then the companion lines their rules
                    derive (cords, transceivers, required lines) and the chosen services
    [summary]       errors, warnings, infos, GPUs, power, heat, [[summary.budgets]],
                    [[summary.findings]], [summary.workload]

``[line_items]``, ``[pricing]`` and ``[summary]`` are derived: on import they are not trusted
(only the unit prices are kept, so a re-export does not lose them) and they are recomputed on
export.  Everything else is what the user chose.

Bad files never raise and never lose data.  ``import_bom`` loads whatever it can and lists each
problem as a :class:`BomFinding` (an ``engine.check.report.Finding`` with ``file``, ``line``, ``field``),
severity error unless noted, rule ids:

==========================  =====================================================================
``bom.unreadable``          the file cannot be read (missing, permissions, not UTF-8, not a regular
                            file such as a FIFO or /dev/zero, over ``MAX_BOM_BYTES``)
``bom.malformed``           not valid TOML (line and column from tomllib), nested deeper than
                            ``safe_io.MAX_DEPTH``, or a number too long to read; nothing is loaded
``bom.schema_newer``        ``schema`` is newer than this slotwise reads; loaded as far as possible
``bom.missing_field``       a required field is absent (``schema``, ``chassis.sku``, ...)
``bom.bad_value``           a value has the wrong type or range (the value is quoted)
``bom.unknown_field``       a key this schema does not know (typo?) - it would be dropped on save
``bom.unknown_sku``         a SKU not in the catalog (kept in the build, so nothing is lost)
``bom.wrong_kind``          a SKU of the wrong kind for where it sits (a CPU in a GPU slot)
``bom.unknown_slot``        a card or bridge in a slot the chassis does not have (kept)
``bom.unknown_bay``         drives in a bay the chassis does not have (kept; with no bay layout
                            in the catalog any bay is taken and the storage rule says so)
``bom.line_items_stale``    warning: hand-edited line items disagree with the build
``bom.config_outside``      ``workload.config`` names a file outside the BOM's folder (absolute,
                            ``~``, ``..`` or a link out): not read (engine.bom.config_path)
==========================  =====================================================================
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from slotwise.engine.bom.meta import BomMeta
from slotwise.engine.build import Build
from slotwise.engine.check.report import Finding
from slotwise.parts.safe_io import (
    MAX_FILE_BYTES,
)

SCHEMA_VERSION = 1
HEADER = (
    "# slotwise bill of materials. Edit freely; [line_items], [pricing] and [summary] are\n"
    "# recomputed from the build on every save. Check it: slotwise validate FILE\n"
)


TOP_KEYS = (
    "schema",
    "meta",
    "chassis",
    "environment",
    "cpu",
    "memory",
    "psu",
    "baseboard",
    "slots",
    "bridges",
    "drives",
    "workload",
    "pricing",
    "line_items",
    "summary",
)
#: A BOM is ~20 kB; the cap only stops a wrong file (a disk image, /dev/zero) from filling memory.
MAX_BOM_BYTES = MAX_FILE_BYTES
MAX_SLOT_CHARS = 64
#: Entries read from [slots], [[bridges]] and [[drives]]: the largest chassis has ~30 slots and
#: bays; a file with more lists is not a build (60,000 bogus slots took the app a minute and
#: ~1 GB).  The rest is one finding, not one per entry.
MAX_ENTRIES = 256
#: A problem's message is cut here (it quotes values, which are shortened already).
MAX_MESSAGE = 2000
COUNTED = {"cpu": ("cpu", "CPU"), "memory": ("dimm", "DIMM"), "psu": ("psu", "PSU")}
BAD_INPUT_PREFIX = "bom."


class BomFinding(Finding):
    """A problem with the BOM file itself, located in the file."""

    file: str = ""
    line: int | None = None
    field: str | None = None


class BomExistsError(FileExistsError):
    """``write_bom`` refused to overwrite an existing file (message says to use --force)."""


class LoadedBom(BaseModel):
    """What :func:`import_bom` could load.  ``build`` is None only when there is no usable
    chassis (or no TOML at all); ``problems`` lists everything that was wrong."""

    model_config = ConfigDict(frozen=True)

    filename: str
    build: Build | None
    meta: BomMeta = BomMeta()
    problems: tuple[BomFinding, ...] = ()
    prices: dict[str, float] = Field(default_factory=dict)
    currency: str | None = None
    price_note: str | None = None
    schema_version: int | None = None
    #: The file's ``workload.config`` when the path policy refused it (engine.bom.config_path:
    #: absolute, ``~`` or out of the BOM's folder); the build was loaded without it.  The app
    #: asks whether to read it; on the command line the user gives the config instead.
    refused_config: str | None = None

    @property
    def errors(self) -> list[BomFinding]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def ok(self) -> bool:
        """True when the file loaded faithfully (no errors; warnings allowed)."""
        return self.build is not None and not self.errors
