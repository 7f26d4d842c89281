"""Which ways of laying a model over GPUs real engines accept, and which one to use.

A *layout* is ``tp x pp x dp``: ``tp`` GPUs split every layer (tensor parallel, Megatron-LM,
Shoeybi et al. 2019, arXiv:1909.08053), ``pp`` groups of them hold consecutive layers
(pipeline parallel, GPipe, Huang et al. 2019, arXiv:1811.06965) and ``dp`` copies of that
``tp x pp`` group run side by side (data-parallel replicas, for serving: independent engines).

**Valid tensor-parallel sizes** (:func:`tp_is_valid`, :func:`valid_tp_sizes`).  Tensor
parallelism gives each GPU whole attention heads, so

* ``tp`` must divide the attention (query) heads: vLLM ``LlamaAttention.__init__``
  (``assert self.total_num_heads % tp_size == 0``), TensorRT-LLM and Megatron-LM
  (``num_attention_heads must be divisible by tensor_model_parallel_size``) check the same;
* ``tp`` must divide the key/value heads, or, when it exceeds them, be a multiple of them (each
  KV head is then copied to ``tp / kv_heads`` GPUs): vLLM ``LlamaAttention``
  (``if total_num_kv_heads >= tp_size: assert total_num_kv_heads % tp_size == 0 else: assert
  tp_size % total_num_kv_heads == 0``).  A 4-KV-head model therefore runs at TP 8 only when its
  query heads also divide by 8;
* models with multi-head latent attention (DeepSeek-V2/V3: ``kv_lora_rank`` set) keep one
  latent KV per token on every rank, so only the query heads constrain ``tp``;
* attention-free models (0 heads) are not constrained by heads.

**Choosing a layout** (:func:`choose_layout`), in this order (the reason is returned in words):

1. An explicit ``tp`` is kept if it is valid; ``--tp 1 --gpus 8`` is eight replicas of one GPU.
   An invalid one is replaced by the largest valid size below it, and the reason says so (the
   CLI refuses an invalid ``--tp`` before this is reached, exit 2).
2. Without ``tp``, training keeps ``tp = 1`` (data parallel over every GPU: ZeRO/FSDP shard the
   model instead).  Serving splits the model over the *fast-link group* (an NVSwitch server, an
   NVLink-bridge pair or quad, one GPU when only PCIe joins them): the largest valid ``tp`` that
   fits that group and divides the GPU count, with the other GPUs as replicas, when one replica
   holds the model there (``fits(tp, pp)``, a memory test supplied by the caller).
3. When it does not, the smallest valid ``tp`` inside one server that holds the model (TP over
   PCIe or across bridge groups: slower links, stated), and past one server pipeline stages
   (``pp``) of whole-server TP groups, as vLLM / TensorRT-LLM deploy models larger than a
   server (TP inside the node, PP across nodes: vLLM docs, "Distributed inference and
   serving").
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from slotwise.parts.schema import ModelPreset


class Layout(BaseModel):
    """``tp`` x ``pp`` GPUs per model copy, ``dp`` copies; ``reason`` says why, in words."""

    model_config = ConfigDict(frozen=True)

    tp: int
    pp: int = 1
    dp: int = 1
    reason: str = ""

    @property
    def gpus_per_replica(self) -> int:
        return self.tp * self.pp

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp


def _heads(arch: ModelPreset) -> tuple[int, int, bool]:
    latent = getattr(arch, "kv_lora_rank", None) is not None
    heads = int(arch.num_attention_heads or 0)
    kv = int(arch.num_key_value_heads or 0) or heads
    return heads, kv, latent


def tp_problem(arch: ModelPreset, tp: int) -> str | None:
    """Why ``tp`` cannot split this model's attention (None: it can).  See the module docstring
    for the engines' rules."""
    if tp < 1:
        return f"tensor parallel {tp} is not a positive whole number"
    if tp == 1:
        return None
    heads, kv, latent = _heads(arch)
    if heads == 0:
        return None
    if heads % tp:
        return f"tensor parallel {tp} does not divide the model's {heads} attention heads"
    if latent:
        return None
    if kv >= tp and kv % tp:
        return f"tensor parallel {tp} does not divide the model's {kv} key/value heads"
    if kv < tp and tp % kv:
        return (
            f"tensor parallel {tp} is neither a divisor nor a multiple of the model's "
            f"{kv} key/value heads"
        )
    return None


def tp_is_valid(arch: ModelPreset, tp: int) -> bool:
    """Whether engines accept tensor parallel ``tp`` for this model (heads split evenly)."""
    return tp_problem(arch, tp) is None


def _divisors(n: int) -> list[int]:
    """Every divisor of ``n`` >= 1 (trial division up to its square root: a cluster of thousands
    of GPUs has a few dozen, where scanning every stage count was the estimate's slowest step)."""
    small = [d for d in range(1, int(n**0.5) + 1) if n % d == 0]
    return small + [n // d for d in reversed(small) if d * d != n]


def valid_tp_sizes(arch: ModelPreset, up_to: int) -> list[int]:
    """Every valid tensor-parallel size from 1 to ``up_to``, ascending."""
    return [t for t in range(1, max(1, up_to) + 1) if tp_is_valid(arch, t)]


def choose_layout(
    arch: ModelPreset,
    gpus: int,
    *,
    tp: int | None = None,
    training: bool = False,
    fast_group: int = 1,
    gpus_per_server: int = 8,
    fits: Callable[[int, int], bool] | None = None,
) -> Layout:
    """The layout for ``gpus`` GPUs (see the module docstring for the rules).

    ``tp``: the tensor-parallel size asked for (None: choose).  ``fast_group``: GPUs one
    NVLink domain joins (NVSwitch server, bridge pair/quad; 1 for PCIe only).
    ``fits(tp, pp)``: whether one replica of ``tp x pp`` GPUs holds the model (None: always).
    """
    gpus = max(1, gpus)
    per_server = max(1, gpus_per_server)
    fast = max(1, min(fast_group, per_server, gpus))

    def ok(t: int, p: int = 1) -> bool:
        return fits is None or fits(t, p)

    if tp is not None:
        asked = max(1, tp)
        problem = tp_problem(arch, asked)
        usable = min(asked, gpus)
        if problem is None and usable == asked:
            dp = max(1, gpus // asked)
            return Layout(tp=asked, dp=dp, reason=_explicit_reason(asked, dp, gpus, fast))
        sizes = [t for t in valid_tp_sizes(arch, usable) if gpus % t == 0] or [1]
        t = sizes[-1]
        why = problem or f"tensor parallel {asked} needs {asked} GPUs, only {gpus} given"
        return Layout(tp=t, dp=max(1, gpus // t), reason=f"{why}; using tensor parallel {t}")

    if training:
        return Layout(tp=1, dp=gpus)  # data parallel over every GPU: nothing to explain

    sizes = valid_tp_sizes(arch, min(gpus, per_server))
    inside = [t for t in sizes if t <= fast and gpus % t == 0]
    if inside and ok(inside[-1]):
        t = inside[-1]
        dp = gpus // t
        where = "one GPU" if t == 1 else f"a fast-link group of {fast}"
        return Layout(
            tp=t,
            dp=dp,
            reason=f"tensor parallel {t} (largest that divides the heads inside {where}), "
            f"{dp} replica(s)",
        )
    for t in sizes:
        if t > fast and gpus % t == 0 and ok(t):
            dp = gpus // t
            return Layout(
                tp=t,
                dp=dp,
                reason=f"tensor parallel {t}: the model does not fit in "
                f"{inside[-1] if inside else 1} GPU(s) of a fast-link group, so it crosses "
                f"slower links; {dp} replica(s)",
            )
    # Pipeline stages: the fewest GPUs per model copy that hold it, wider TP first (TP stays
    # inside a server, stages cross servers).
    layers = max(1, int(arch.num_hidden_layers or 1))
    splits = sorted(
        (
            (t, pp)
            for t in sizes
            if gpus % t == 0
            for pp in _divisors(gpus // t)
            if 2 <= pp <= layers
        ),
        key=lambda tp_pp: (tp_pp[0] * tp_pp[1], -tp_pp[0]),
    )
    for t, pp in splits:
        if ok(t, pp):
            dp = gpus // (t * pp)
            return Layout(
                tp=t,
                pp=pp,
                dp=dp,
                reason=f"tensor parallel {t} x {pp} pipeline stages (the model does not fit "
                f"in fewer GPUs with a tensor-parallel size that divides its heads); "
                f"{dp} replica(s)",
            )
    # Nothing fits: split as far as possible and let the memory verdict say so.
    widest = splits + [(t, 1) for t in sizes if gpus % t == 0] or [(1, 1)]
    t, pp = max(widest, key=lambda tp_pp: (tp_pp[0] * tp_pp[1], tp_pp[0]))
    return Layout(
        tp=t,
        pp=pp,
        dp=max(1, gpus // (t * pp)),
        reason=f"tensor parallel {t} x {pp} pipeline stage(s): the widest split of {gpus} GPUs",
    )


def _explicit_reason(tp: int, dp: int, gpus: int, fast: int) -> str:
    out = f"tensor parallel {tp} as asked, {dp} replica(s)"
    if tp > fast:
        out += f"; tp crosses slower links (fast-link group: {fast} GPU(s))"
    if tp * dp != gpus:
        out += f"; {gpus} GPUs is not a multiple of {tp}: {tp * dp} of them are used"
    return out
