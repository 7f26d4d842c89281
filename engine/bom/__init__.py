"""The bill of materials: a versioned TOML document for a Build, and its other exports.

- ``schema``: the TOML BOM's format (schema version, keys, limits, shared models);
  ``write``: export and atomic write; ``read``: import and validation
- ``toml_writer``: the canonical TOML writer (byte-identical re-export)
- ``meta``: header and clock, ``locate``: key -> line (the line items themselves are
  ``engine.build.items``: plans price them too)
- ``markdown``, ``csv_export``: customer-facing summaries; ``cluster_doc``: the cluster document

The package re-exports the document API, so ``from engine.bom import read_bom`` keeps working.
"""

from slotwise.engine.bom.meta import BomMeta
from slotwise.engine.bom.read import import_bom, read_bom
from slotwise.engine.bom.schema import (
    BAD_INPUT_PREFIX,
    COUNTED,
    HEADER,
    SCHEMA_VERSION,
    TOP_KEYS,
    BomExistsError,
    BomFinding,
    LoadedBom,
)
from slotwise.engine.bom.write import bom_document, export_bom, write_bom

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
