"""How many servers of ONE build a workload needs, and why: the one sizing answer.

``size_servers`` answers "how many servers like this one, for this workload" once, and every
front end renders that answer: ``validate``, ``estimate``, ``suggest``, ``compare``, the app and
the Markdown export all read it (``Report.verdict.sizing`` for a build; ``estimate`` calls it with
the GPU alone).  Each *need* gets its own count, and the answer is the largest:

* **memory**: the fewest servers whose GPUs hold the model with the planning margin
  (:mod:`engine.check.margin`): memory per GPU x (1 + margin) <= usable memory.  Memory per GPU
  only falls as GPUs are added (sharding, model splitting), so doubling then bisecting finds it.
  For serving this is the size of one *replica group* (the servers one copy of the model spans).
* **time**: training with a token count and a target: the fewest servers whose estimated hours
  x (1 + margin) are within the target (time falls as data-parallel GPUs are added).  A GPU
  without a dense figure has no time: the need is *unknown*, never met.
* **serving**: inference for N users: replicas of the model, each with as many users as get the
  asked tokens/s x (1 + margin) and whose KV cache x (1 + memory margin) fits; replica groups
  are independent (no fabric between them), so the servers are groups x replica-group size.
* **the three-way memory verdict** (issue 23, :mod:`engine.estimate.memory_range`): at the sized
  count, does the whole range of the memory estimate fit (``fits``), only the estimate or its
  low end (``tight``: what the trainer or the serving engine does decides it), or not even the
  low end?  The count is set with the margin above; a ``tight`` answer is said (the headline,
  ``compare``) and ranks below a ``fits`` one (``suggest``), never hidden behind "fits".
* **fabric**: a count above one for training, or a replica spanning servers, needs the build's
  scale-out NICs.  A build without any gets no count: an error and a fix (which NICs, which
  slots), with the count that fix would give; removing NICs therefore never lowers the count.
  The rail-optimised fabric for a given count is :mod:`engine.plan.cluster`'s job; this module
  is the only one that decides the count.

A search stops at ``max_servers`` (the node limit) and then says so, with the count it would
take (searched on past the limit up to ``HARD_LIMIT``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from slotwise.engine.check.margin import Margin, margin_for
from slotwise.engine.estimate import Estimate, estimate
from slotwise.engine.estimate.fit import MemoryMemo
from slotwise.engine.estimate.links import Links, default_links
from slotwise.engine.estimate.memory_range import MemoryFit
from slotwise.engine.estimate.serving import Serving
from slotwise.engine.inputs import ref
from slotwise.engine.workload import Workload
from slotwise.parts.schema import Gpu, ModelPreset

GIB = 1024**3
#: The node limit of a build search unless the user sets one.
DEFAULT_MAX_SERVERS = 1024
#: Past the node limit the search goes on this far, to say what the workload would take.
HARD_LIMIT = 1 << 17

NeedKind = Literal["memory", "time", "serving"]
Estimator = Callable[..., Estimate]


class Need(BaseModel):
    """One reason for servers: how many it takes with the margin (``servers``) and without it
    (``bare``); None = unknown (``known`` False) or out of reach."""

    model_config = ConfigDict(frozen=True)

    kind: NeedKind
    servers: int | None
    bare: int | None
    text: str
    known: bool = True

    @property
    def tight(self) -> bool:
        """Met without the margin on fewer servers than with it."""
        return self.servers is not None and self.bare is not None and self.bare < self.servers


class Fabric(BaseModel):
    """The scale-out network of one server of the build, as sizing needs it."""

    model_config = ConfigDict(frozen=True)

    nics: int
    min_gbps: int
    #: What makes the server a cluster node (which NICs, which slots), in words.
    fix: str | None = None
    #: The server's links with that fix, to size the cluster it would make.
    fix_links: Links | None = None


class Sizing(BaseModel):
    """Servers of one build for one workload, each need's count and what stops it."""

    model_config = ConfigDict(frozen=True)

    gpu: str
    gpus_per_server: int
    servers: int | None
    needs: tuple[Need, ...]
    margin: Margin
    #: Servers beyond the first must be joined by a scale-out fabric (training, or a replica
    #: spanning servers); replicas that each fit one server need none.
    fabric_needed: bool = False
    problem: str | None = None
    #: The problem in a few words, for a headline.
    short_problem: str | None = None
    fix: str | None = None
    #: The count the workload would take past ``cap`` or with ``fix``.
    would_take: int | None = None
    cap: int | None = None
    #: Serving figures at the sized load, and that load in words.
    serving: Serving | None = None
    load: str | None = None
    fabric_assumed: str | None = None
    #: The three-way memory verdict at the sized count and load (None: not sized).
    memory_fit: MemoryFit | None = None
    #: The memory range's high end per GPU there, bytes (what "tight" fails to hold).
    #: "tight in memory: ... ; what to change" (None unless the verdict is tight).
    memory_tight_text: str | None = None

    def need(self, kind: NeedKind) -> Need | None:
        return next((n for n in self.needs if n.kind == kind), None)

    @property
    def memory_tight(self) -> bool:
        """The estimate fits, the high end of its range does not (the three-way verdict)."""
        return self.memory_fit == "tight"

    @property
    def tight(self) -> bool:
        """Tight in memory (the range), or a need met only inside the margin on fewer servers."""
        return self.memory_tight or any(n.tight for n in self.needs)

    def tight_words(self) -> str | None:
        """What 'tight in memory' means here and what to change, or None when it is not."""
        return self.memory_tight_text if self.memory_tight else None

    @property
    def unknown(self) -> tuple[str, ...]:
        return tuple(n.text for n in self.needs if not n.known)

    @property
    def deciding(self) -> Need | None:
        """The need that sets the count (the largest; memory on a tie)."""
        known = [n for n in self.needs if n.servers is not None]
        return max(known, key=lambda n: n.servers or 0) if known else None

    def summary(self, short: bool = False) -> str:
        """One line: 'N servers of 8 x GPU, set by time; margin ...' or the problem."""
        if self.servers is None:
            return f"cannot size: {self.problem}" + (f"; fix: {self.fix}" if self.fix else "")
        d = self.deciding
        by = f", set by {d.kind}" if d is not None and self.servers > 1 else ""
        return (
            f"{self.servers:,} server{'s' if self.servers != 1 else ''} of "
            f"{self.gpus_per_server} x {self.gpu}{by}"
            + ("; tight in memory" if self.memory_tight else "")
            + "; "
            + (f"margin {self.margin.short()}" if short else self.margin.describe())
        )

    def lines(self) -> list[str]:
        """The summary, then one line per need (and what is unknown), for text front ends."""
        out = [self.summary()]
        out += [f"  {n.text}" for n in self.needs]
        tight = self.tight_words()
        if tight:
            out.append(f"  {tight}")
        if self.load:
            out.append(f"  serving figures hold at {self.load}")
        if self.fabric_assumed:
            out.append(f"  {self.fabric_assumed}")
        return out

    def to_json(self) -> dict:
        return {
            "servers": self.servers,
            "gpu": self.gpu,
            "gpus_per_server": self.gpus_per_server,
            "tight": self.tight,
            "memory_fit": self.memory_fit,
            "margin": self.margin.model_dump(),
            "margin_text": self.margin.describe(),
            "needs": [n.model_dump() | {"tight": n.tight} for n in self.needs],
            "fabric_needed": self.fabric_needed,
            "problem": self.problem,
            "fix": self.fix,
            "would_take": self.would_take,
            "cap": self.cap,
            "load": self.load,
            "serving": self.serving.to_json() if self.serving else None,
            "summary": self.summary(),
        }


#: What to say about a tight fit: what narrows the range or makes room (training).
TIGHT_ADVICE = (
    "name the trainer (and era) to narrow the range, state gradient checkpointing and the loss "
    "kernel, or leave room: a smaller micro-batch or more GPUs"
)
#: The same for serving: the KV cache of the users and the context are what make room.
SERVING_TIGHT_ADVICE = (
    "leave room: fewer users per replica, a shorter context, an FP8 KV cache or more GPUs"
)


def tight_advice(training: bool) -> str:
    """What to change when the memory verdict is tight, for training or serving."""
    return TIGHT_ADVICE if training else SERVING_TIGHT_ADVICE


def _fewest(ok: Callable[[int], bool], limit: int = HARD_LIMIT) -> int | None:
    """Smallest k in [1, limit] with ``ok(k)`` (``ok`` monotone), or None."""
    if ok(1):
        return 1
    lo, hi = 1, 2
    while not ok(hi):
        if hi >= limit:
            return None
        lo, hi = hi, min(hi * 2, limit)
    return first_passing(ok, lo, hi)


def first_passing(ok: Callable[[int], bool], lo: int, hi: int) -> int:
    """Smallest k in (``lo``, ``hi``] with ``ok(k)``, where ``ok(lo)`` fails, ``ok(hi)`` holds
    and ``ok`` is monotone: bisection (the second half of a doubling search; also
    engine.plan.node_search)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _s(n: int) -> str:
    return f"{n:,} server{'s' if n != 1 else ''}"


def replica_workload(workload: Workload) -> Workload:
    """One copy of the model being served: no users, one sequence (what a replica must hold)."""
    return workload.model_copy(update={"users": None, "tokens_per_user_s": None, "micro_batch": 1})


def size_servers(
    workload: Workload,
    gpu: Gpu,
    gpus_per_server: int,
    *,
    arch: ModelPreset,
    links: Links | None = None,
    fabric: Fabric | None = None,
    margin: Margin | None = None,
    max_servers: int | None = None,
    estimator: Estimator = estimate,
    memory: MemoryMemo | None = None,
) -> Sizing:
    """Servers of ``gpus_per_server`` x ``gpu`` for ``workload``; see the module doc.

    ``links``: one server's links (the build's; default: the GPU's own record and one 400 Gb/s
    NIC per GPU).  ``fabric``: the build's scale-out NICs (None: no build, the default NICs are
    assumed and the answer says so).  ``max_servers``: the node limit (None: none)."""
    m = margin or margin_for(workload)
    per = max(1, int(gpus_per_server))
    links = links or default_links(gpu, per)
    no_nics = fabric is not None and fabric.nics == 0
    if no_nics and fabric is not None and fabric.fix_links is not None:
        links = fabric.fix_links  # counts above one are for the server with the fix
    kw = {} if memory is None else {"memo": memory}  # memory per GPU (engine.estimate.fit)
    memo: dict[tuple[int, str], Estimate] = {}
    variants: dict[str, Workload] = {"base": workload}

    def est(k: int, tag: str = "base") -> Estimate:
        key = (k, tag)
        if key not in memo:
            memo[key] = estimator(
                variants[tag], gpu, per * k, arch=arch, gpus_per_server=per, links=links, **kw
            )
        return memo[key]

    serving = not workload.training
    if serving:
        variants["replica"] = replica_workload(workload) if workload.users else workload
    mem_tag = "replica" if serving else "base"
    needs: list[Need] = [_memory_need(est, mem_tag, m, per, gpu)]
    k_mem = needs[0].servers
    if workload.training and workload.tokens and workload.target_days:
        needs.append(_time_need(est, workload, m, per, gpu))
    if serving and workload.users and k_mem is not None:
        needs.append(_serving_need(est, variants, workload, m, k_mem))
    out_of_reach = [n for n in needs if n.known and n.servers is None]
    counts = [n.servers for n in needs if n.servers is not None]
    servers = max(counts) if counts and not out_of_reach else None
    fabric_needed = servers is not None and servers > 1 and (workload.training or (k_mem or 1) > 1)
    problem = fix = short = None
    would = cap = None
    if out_of_reach:
        problem = "; ".join(n.text for n in out_of_reach)
        short = f"{' and '.join(n.kind for n in out_of_reach)} out of reach"
    elif servers is not None and max_servers is not None and servers > max_servers:
        cap, would = max_servers, servers
        problem = f"it takes {_s(servers)}, more than {ref('max_nodes', str(max_servers))} allows"
        fix = f"raise it to {ref('max_nodes', str(servers))}, relax the target or use faster GPUs"
        short = f"{_s(servers)} needed, over the limit of {max_servers:,}"
        servers = None
    elif servers is not None and fabric_needed and no_nics and fabric is not None:
        would = servers
        problem = (
            f"{_s(servers)} are needed, and this server has no scale-out NIC "
            f"({fabric.min_gbps} Gb/s or more) to join them in one job"
        )
        fix = fabric.fix or f"fit one {fabric.min_gbps} Gb/s NIC per GPU"
        short = f"{_s(servers)} needed, and no scale-out NIC to join them"
        servers = None
    sv = load = None
    if serving and workload.users and k_mem is not None:
        sv, load = _at_load(est, variants, workload, servers or would, k_mem, per)
    fit = tight_text = None
    at = _memory_at(est, variants, workload, servers or would, k_mem, mem_tag)
    if at is not None:
        fit = at.memory_fit
        m_ = at.memory_per_gpu
        high = m_.total_bytes if m_.high_bytes is None else m_.high_bytes
        if fit == "tight":
            tight_text = (
                f"tight in memory: the estimate fits, the high end of its range "
                f"({high / GIB:,.1f} GiB per GPU) does not fit the {at.usable_bytes / GIB:,.1f} "
                f"GiB usable; {tight_advice(workload.training)}"
            )
    assumed = None
    if fabric is None and servers is not None and fabric_needed:
        assumed = (
            f"between servers: {links.nic_gbps_per_gpu:g} Gb/s per GPU assumed ({links.nic_source})"
        )
    return Sizing(
        gpu=gpu.sku,
        gpus_per_server=per,
        servers=servers,
        needs=tuple(needs),
        margin=m,
        fabric_needed=fabric_needed,
        problem=problem,
        short_problem=short,
        fix=fix,
        would_take=would,
        cap=cap,
        serving=sv,
        load=load,
        fabric_assumed=assumed,
        memory_fit=fit,
        memory_tight_text=tight_text,
    )


def _memory_at(
    est,
    variants: dict[str, Workload],
    w: Workload,
    servers: int | None,
    k_mem: int | None,
    mem_tag: str,
) -> Estimate | None:
    """The estimate the three-way memory verdict is read from: serving, one replica group at
    its share of the users (the sized load); training, the sized count of servers."""
    if k_mem is None:
        return None
    if "at-load" in variants:
        return est(k_mem, "at-load")
    if w.training:
        return est(servers or k_mem, mem_tag)
    return est(k_mem, mem_tag)


def _fits(e: Estimate, margin: float) -> bool:
    return bool(e.fits) and e.memory_per_gpu.total_bytes * (1 + margin) <= e.usable_bytes


def _memory_need(est, tag: str, m: Margin, per: int, gpu: Gpu) -> Need:
    k = _fewest(lambda k: _fits(est(k, tag), m.memory))
    bare = _fewest(lambda k: bool(est(k, tag).fits))
    if k is None:
        return Need(
            kind="memory",
            servers=None,
            bare=bare,
            text=f"memory: no count of {per} x {gpu.sku} servers up to {HARD_LIMIT:,} holds it",
        )
    e = est(k, tag)
    need = e.memory_per_gpu.total_bytes
    spare = 1 - need / e.usable_bytes if e.usable_bytes else 0.0
    return Need(
        kind="memory",
        servers=k,
        bare=bare,
        text=f"memory: {_s(k)} ({need / GIB:,.1f} of {e.usable_bytes / GIB:,.1f} GiB usable "
        f"per GPU on {k * per} GPUs, {100 * spare:.0f} % spare)",
    )


def _time_need(est, w: Workload, m: Margin, per: int, gpu: Gpu) -> Need:
    target_h = float(w.target_days or 0) * 24
    if est(1).train_hours is None:
        return Need(
            kind="time",
            servers=None,
            bare=None,
            known=False,
            text=f"time: unknown ({gpu.sku} has no dense throughput figure), so the "
            f"{w.target_days:g}-day target cannot be shown to be met",
        )

    def within(k: int, margin: float) -> bool:
        h = est(k).train_hours
        return h is not None and h * (1 + margin) <= target_h

    k = _fewest(lambda k: within(k, m.time))
    bare = _fewest(lambda k: within(k, 0.0))
    if k is None:
        return Need(
            kind="time",
            servers=None,
            bare=bare,
            text=f"time: no count of servers up to {HARD_LIMIT:,} trains in {w.target_days:g} days",
        )
    h = est(k).train_hours or 0.0
    spare = target_h / h - 1 if h else 0.0
    return Need(
        kind="time",
        servers=k,
        bare=bare,
        text=f"time: {_s(k)} train in {h / 24:,.1f} days (target {w.target_days:g} days, "
        f"{100 * spare:.0f} % to spare)",
    )


def _per_group(est, tag: str, k_mem: int, kv_margin: float) -> tuple[int, Serving | None]:
    """Users one replica group (``k_mem`` servers) serves at the variant's rate: users per
    replica at the rate (the KV cache with ``kv_margin`` capping it) x replicas in the group."""
    sv = est(k_mem, tag).serving
    if sv is None:
        return 0, None
    replicas = max(1, sv.replicas)
    cap = math.floor((sv.max_users // replicas) / (1 + kv_margin))
    if sv.tokens_per_user_s_target:
        per_rep = min(sv.max_users_per_replica_at_target or 0, cap)
    else:
        per_rep = cap
    return max(0, per_rep) * replicas, sv


def _serving_need(est, variants: dict[str, Workload], w: Workload, m: Margin, k_mem: int) -> Need:
    users = int(w.users or 0)
    rate = w.tokens_per_user_s
    variants["rate+margin"] = (
        w.model_copy(update={"tokens_per_user_s": rate * (1 + m.serving)}) if rate else w
    )
    per_group, sv = _per_group(est, "rate+margin", k_mem, m.memory)
    bare_group, _ = _per_group(est, "base", k_mem, 0.0)
    if sv is None:
        return Need(
            kind="serving",
            servers=None,
            bare=None,
            known=False,
            text="serving: speed unknown (the GPU's bandwidth or peak FLOP/s is not in the "
            "catalog), so the users cannot be sized",
        )
    bare = k_mem * math.ceil(users / bare_group) if bare_group else None
    if not per_group:
        why = (
            f"no replica gives one user {rate:g} tokens/s with the margin "
            f"(one user alone gets {sv.single_user_tokens_per_s:,.1f})"
            if rate
            else "not even one user's KV cache fits beside the weights"
        )
        return Need(kind="serving", servers=None, bare=bare, text=f"serving: {why}")
    servers = k_mem * math.ceil(users / per_group)
    at = f" at {rate:g} tokens/s each" if rate else ""
    group = "server" if k_mem == 1 else f"group of {k_mem} servers"
    return Need(
        kind="serving",
        servers=servers,
        bare=bare,
        text=f"serving: {_s(servers)} for {users:,} users{at} (up to {per_group:,} per "
        f"{group}, {sv.replicas} replica(s) of {_replica_gpus(est(k_mem, 'rate+margin'))} "
        "GPUs each)",
    )


def _replica_gpus(e: Estimate) -> int:
    """GPUs of one serving replica: tensor parallel x pipeline stages."""
    return e.tp * e.pp


def _at_load(
    est, variants: dict[str, Workload], w: Workload, servers: int | None, k_mem: int, per: int
) -> tuple[Serving | None, str | None]:
    """Serving figures with the users spread over ``servers`` (the sized count), and that load."""
    users = int(w.users or 0)
    groups = max(1, (servers or k_mem) // k_mem)
    share = math.ceil(users / groups)
    variants["at-load"] = w.model_copy(update={"users": share})
    sv = est(k_mem, "at-load").serving
    where = "server" if k_mem == 1 else f"{k_mem} servers ({k_mem * per} GPUs)"
    load = f"{share:,} user(s) per {where}"
    if groups > 1:
        load += f" ({users:,} over {groups * k_mem:,} servers)"
    return sv, load
