"""The planning margin: how much better than the target an estimate must be before it counts.

An estimate that meets a target by 1 % does not meet it: the estimates themselves are off by
more than that.  By default each kind of figure gets its own margin, the median |error| of that
estimate on the published measurements HELD OUT from fitting (split by source before any
fitting, scored through the inputs a user gives):

* memory per GPU: 4.1 % (``python bench/memory_accuracy.py``, view 3 "leave-one-source-out
  (named)": 213 measured peaks through the trainer name and user-level fields, median |error|
  4.1 %; it was 3.6 % on 106 hash-held-out cases that also set trainer internals, before
  issue 23);
* time to train: 10.4 % (``python bench/perf_accuracy.py``: 19 held-out published training
  times, median |error| 10.4 %, sources held out whole since issue 24; 17.0 % at issue 24's
  first by-source refit);
* serving speed: 11.2 % (``python bench/serving_accuracy.py``: 78 held-out published serving
  figures, median |error| 11.2 %, sources held out whole since issue 24; 8.6 % on 33 before
  the 45 L40S rows of session 9).

``tests/engine/check/test_sizing.py`` re-runs the memory, time and serving benches and fails when these constants
drift from what they print.  A user-set margin (``Workload.margin``) replaces all three.

How a margin applies (:mod:`engine.check.sizing`): memory needed x (1 + margin) must fit the
usable memory; training hours x (1 + margin) must be within the target; each user must get the
asked tokens/s x (1 + margin), and the users' KV cache x (1 + memory margin) must fit.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from slotwise.engine.workload import Workload

#: Held-out median |error| of each estimate (see the module doc for the commands and counts).
MEMORY_HELD_OUT_ERROR = 0.041
TIME_HELD_OUT_ERROR = 0.104
SERVING_HELD_OUT_ERROR = 0.112


class Margin(BaseModel):
    """Fractions added to what is needed before a target counts as met."""

    model_config = ConfigDict(frozen=True)

    memory: float
    time: float
    serving: float
    #: True when the user set it (one figure for all three), False for the held-out defaults.
    user_set: bool = False

    def describe(self) -> str:
        """In words, e.g. 'margin 4 % on memory, 15 % on time, 9 % on serving (the estimates'
        held-out median error)'."""
        if self.user_set:
            return f"margin {_pct(self.memory)} (set for this workload)"
        return (
            f"margin {_pct(self.memory)} on memory, {_pct(self.time)} on time, "
            f"{_pct(self.serving)} on serving (the estimates' held-out median error)"
        )

    def short(self) -> str:
        """'4 % memory, 15 % time, 17 % serving' (or '10 %' when one figure was set)."""
        if self.user_set:
            return _pct(self.memory)
        return f"{_pct(self.memory)} memory, {_pct(self.time)} time, {_pct(self.serving)} serving"


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %" if 100 * x >= 1 or x == 0 else f"{100 * x:.1f} %"


DEFAULT_MARGIN = Margin(
    memory=MEMORY_HELD_OUT_ERROR, time=TIME_HELD_OUT_ERROR, serving=SERVING_HELD_OUT_ERROR
)


def margin_for(workload: Workload | None) -> Margin:
    """The workload's own margin (one figure for all three), else the held-out defaults."""
    if workload is None or workload.margin is None:
        return DEFAULT_MARGIN
    m = float(workload.margin)
    return Margin(memory=m, time=m, serving=m, user_set=True)
