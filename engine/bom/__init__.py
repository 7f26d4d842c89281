"""The bill of materials: a versioned TOML document for a Build, and its other exports.

- ``document``: export/import of the TOML BOM (schema version, validation, atomic write)
- ``toml_writer``: the canonical TOML writer (byte-identical re-export)
- ``items``: line items (what is quoted), ``meta``: header and clock, ``locate``: key -> line
- ``markdown``, ``csv_export``: customer-facing summaries; ``cluster``: cluster sizing and TCO

The package re-exports the document API, so ``from engine.bom import read_bom`` keeps working.
"""

from slotwise.engine.bom.document import (
    BAD_INPUT_PREFIX,
    COUNTED,
    HEADER,
    SCHEMA_VERSION,
    TOP_KEYS,
    BomExistsError,
    BomFinding,
    BomMeta,
    LoadedBom,
    bom_document,
    export_bom,
    import_bom,
    read_bom,
    write_bom,
)

__all__ = [
    "BAD_INPUT_PREFIX",
    "BomExistsError",
    "BomFinding",
    "BomMeta",
    "COUNTED",
    "HEADER",
    "LoadedBom",
    "SCHEMA_VERSION",
    "TOP_KEYS",
    "bom_document",
    "export_bom",
    "import_bom",
    "read_bom",
    "write_bom",
]
