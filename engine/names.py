""" "Did you mean ...": the catalog names closest to what someone typed.  One function for the
CLI's --gpu / --model errors and the app's preset search.

Matching is done on a normalised form (lower case, letters and digits only), so "H200",
"h200 nvl", "llama 3.1 70" and "Llama-3.1-70B" meet their SKUs.  Order: names that contain
every typed word (shortest first), then ``difflib.get_close_matches`` (Ratcliff/Obershelp
similarity, Python standard library) at ``cutoff``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def normalise(text: str) -> str:
    """'Llama-3.1 70B' -> 'llama3170b'."""
    return _NON_ALNUM.sub("", text.lower())


def words(text: str) -> list[str]:
    """'llama 3.1-70' -> ['llama', '31', '70'] (dots inside numbers dropped, as normalise)."""
    return [w for w in (normalise(x) for x in re.split(r"[\s_\-/]+", text)) if w]


def matches_all_words(query: str, *texts: str) -> bool:
    """True when every typed word occurs in one of ``texts`` (normalised); "" matches all."""
    hay = " ".join(normalise(t) for t in texts)
    return all(w in hay for w in words(query))


def close_names(query: str, names: Iterable[str], n: int = 4, cutoff: float = 0.5) -> list[str]:
    """Up to ``n`` of ``names`` that ``query`` most likely meant (empty if none is close)."""
    names = list(names)
    if not words(query):
        return []
    containing = sorted((x for x in names if matches_all_words(query, x)), key=len)
    norm = {normalise(x): x for x in names}
    similar = [
        norm[c] for c in difflib.get_close_matches(normalise(query), list(norm), n=n, cutoff=cutoff)
    ]
    out: list[str] = []
    for x in containing + similar:
        if x not in out:
            out.append(x)
    return out[:n]
