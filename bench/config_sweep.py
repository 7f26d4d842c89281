"""Read every config.json under a folder the way ``--config`` does, and count what is counted.

    python bench/config_sweep.py DIR [DIR ...]

Run by hand against a collection of real Hub config.json files (for example the raw configs
vendored in hlky/dinoml_v2 under agents/plans/transformers/*/_sources/).  Each file is read with
:func:`arch_from_config` and counted with :func:`count_params`; the script prints how many were
counted, how many were refused with a clear :class:`ArchConfigError` message (per model_type), and
every file that raised anything else (a bug: bad input must get a message, never a traceback).
Exit status 1 when any file crashed.  Files that are not model configs (tokenizer, generation,
preprocessor configs, JSON that is not an object with a model_type) are skipped.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from slotwise.engine.model.arch import arch_from_config  # noqa: E402
from slotwise.engine.model.arch.reader import ArchConfigError  # noqa: E402
from slotwise.engine.model.params import count_params  # noqa: E402

_NOT_MODEL = ("preprocessor", "tokenizer", "generation", "processor", "adapter", "quant")


def _config_files(folders: list[Path]) -> list[Path]:
    return sorted(
        p
        for folder in folders
        for p in folder.rglob("*.json")
        if "config" in p.name and not any(word in p.name for word in _NOT_MODEL)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    args = parser.parse_args(argv)
    outcome: collections.Counter[str] = collections.Counter()
    refused: collections.Counter[str] = collections.Counter()
    crashed: list[str] = []
    for path in _config_files(args.folders):
        try:
            cfg = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            outcome["skipped"] += 1
            continue
        text = cfg.get("text_config") if isinstance(cfg, dict) else None
        if not isinstance(cfg, dict) or not ("model_type" in cfg or isinstance(text, dict)):
            outcome["skipped"] += 1
            continue
        try:
            arch, _ = arch_from_config(cfg, source=str(path), name=path.stem)
            count_params(arch)
        except ArchConfigError:
            outcome["refused"] += 1
            refused[str(cfg.get("model_type"))] += 1
        except Exception as exc:  # noqa: BLE001 - every other exception is the bug we look for
            outcome["crashed"] += 1
            crashed.append(f"{path}: {exc!r}")
        else:
            outcome["counted"] += 1
    print(
        f"counted {outcome['counted']}, refused {outcome['refused']}, "
        f"crashed {outcome['crashed']}, skipped {outcome['skipped']}"
    )
    print("refused by model_type:", ", ".join(f"{k} {n}" for k, n in refused.most_common()))
    for line in crashed:
        print("CRASH", line)
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
