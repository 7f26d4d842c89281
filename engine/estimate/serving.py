"""Serving: time to first token, tokens/s per user and per server, and capacity for N users.

One *replica* is the group of ``tp`` GPUs that holds one copy of the model; the build runs
``dp`` replicas side by side.  For a replica the model computes two phases separately
(Pope et al. 2022, "Efficiently Scaling Transformer Inference", arXiv:2211.05102, section 2;
the prefill/decode split of DistServe, Zhong et al. 2024, arXiv:2401.09670):

* **Prefill** of a P-token prompt is compute-bound: ``P x (2 N + attention)`` FLOPs
  (N = matmul weights a token uses; attention over the causal half of the prompt) at
  ``SERVING_MFU`` of the dense peak (FP8 peak for FP8), but never faster than reading the
  weights once.  Time to first token = one prefill.
* **Decode** step of a batch of B sequences at context c is memory-bound: every step reads
  the weights (for MoE only the experts some token of the batch picks: with uniform top-k of E
  routing an expert is idle for all B tokens with probability (1 - k/E)^B, so the share read is
  1 - (1 - k/E)^B) plus B x c tokens of KV cache, at ``SERVING_MBU`` of the HBM bandwidth; it
  turns compute-bound when ``B x (2 N + attention)`` FLOPs take longer.
* **Tensor parallelism** adds two all-reduces per layer (Megatron-LM, arXiv:1909.08053) of
  B x hidden activations over the links of the build (engine.estimate.links: the NVSwitch
  domain, the NVLink-bridge group, PCIe between groups): latency ``ALLREDUCE_LATENCY_S`` (fitted
  on NVLink/NVSwitch engines) plus, when the group crosses slower links, the extra per-step
  latency of NCCL's ring model for those links; the ring volume ``2 (tp - 1) / tp`` x bytes runs
  level by level at the achieved bus bandwidth (engine.estimate.communication).
* **Latency floor**: a fixed time per layer per forward pass (``LAYER_FLOOR_S_OPTIMIZED``;
  without CUDA graphs plus ``LAYER_FLOOR_S_EAGER_EXTRA``) and per MoE layer
  (``MOE_LAYER_FLOOR_S``: the routed MLP's extra kernels).  It is what keeps eager decode of
  small models and TP decode of 70B models realistic.
* **MoE**: the routed experts' GEMMs reach ``MOE_GEMM_EFFICIENCY`` of the dense GEMMs' share
  of the peak in the compute-bound phases (few tokens per expert).

Under load (N concurrent users, closed loop as in NIM / genai-perf "concurrency"), each user's
request is a prefill then ``output_len`` decode steps; with in-flight batching the other
B - 1 users' prefills interleave with the decode steps, so the inter-token latency is
``t_step(B) + (B - 1) x t_prefill_compute / output_len`` and the replica produces
``B x output_len`` tokens per cycle of ``t_prefill + (B - 1) t_prefill_compute + output_len
t_step(B)``.

**The running batch is capped** at the users whose KV cache fits (B = min(N, capacity)); the
other N - B wait in the engine's queue (vLLM / TensorRT-LLM schedulers admit a request only
when its KV blocks are free), so tokens/s stops growing at capacity.  **Time to first token
under load** (``ttft_s``; ``ttft_idle_s`` is one prompt on an idle replica) adds up:

* queueing for a slot, by Little's law for the closed loop (Little 1961; requests complete at
  X = B x output / cycle per second, so N - B waiting users wait (N - B) / X);
* queueing behind other users' prefills: they arrive at X and each takes the prefill compute
  time t_p, a single server with utilisation rho = X t_p; the Pollaczek-Khinchine mean wait
  for deterministic service (M/D/1), rho t_p / (2 (1 - rho)), is the stated approximation;
* the prefill itself (``ttft_idle_s``);
* interference from the B - 1 running decodes: a chunked prefill (vLLM ``max_num_batched_tokens``
  = ``PREFILL_CHUNK_TOKENS``, Sarathi-Serve, Agrawal et al. 2024, arXiv:2403.02310) shares
  every iteration with one decode step of the running batch.

A fixed per-request cost (``REQUEST_OVERHEAD_S``: HTTP, tokenisation, scheduling, detokenising)
is added to the time to first token.  Constants and their sources:
engine.estimate.serving_constants.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from slotwise.engine.estimate.activations import layer_dims
from slotwise.engine.estimate.communication import allreduce_seconds
from slotwise.engine.estimate.compute import (
    attention_flops_fwd,
    decode_weight_params,
    matmul_params,
)
from slotwise.engine.estimate.generation import split_lengths
from slotwise.engine.estimate.links import Links, collective_latency_s, default_links
from slotwise.engine.estimate.memory_terms import (
    activation_element_bytes,
    kv_cache_bytes,
    weight_bytes_per_param,
)
from slotwise.engine.estimate.serving_constants import (
    ALLREDUCE_LATENCY_S,
    HOST_LAYER_FORWARD_S_EAGER,
    KV_DTYPE_BYTES,
    KV_POOL_FRACTION,
    LAYER_FLOOR_S_EAGER_EXTRA,
    LAYER_FLOOR_S_OPTIMIZED,
    MOE_GEMM_EFFICIENCY,
    MOE_LAYER_FLOOR_S,
    PCIE_GBS_PER_DIRECTION,
    PREFILL_CHUNK_TOKENS,
    REQUEST_OVERHEAD_S,
    SERVING_MBU,
    SERVING_MFU,
)
from slotwise.engine.model.params import ParamCounts
from slotwise.engine.workload import Workload
from slotwise.parts.schema import Gpu, ModelPreset

#: Bytes per activation element on the tensor-parallel all-reduce (bf16/fp16; FP8 serving
#: still reduces bf16 activations).
_ALLREDUCE_ELEMENT_BYTES = 2.0


def kv_cache_dtype(workload: Workload) -> str:
    """The KV cache's dtype: ``--kv-cache-dtype``, else FP8 where the engine stores it so with
    FP8 weights (TensorRT-LLM's FP8 recipe, ``quantize.py --qformat fp8 --kv_cache_dtype fp8``,
    which NIM's FP8 profiles ship), else the activations' dtype (vLLM's ``auto``; eager
    PyTorch)."""
    asked = workload.kv_cache_dtype
    if asked and asked != "auto":
        return asked
    if workload.precision == "fp8" and (workload.serving_engine or "optimized") == "optimized":
        return "fp8"
    return "fp32" if workload.precision == "fp32" else "bf16"


def kv_scale(workload: Workload) -> float:
    """KV bytes per element relative to what memory.kv_cache_bytes counts (the activations')."""
    return KV_DTYPE_BYTES[kv_cache_dtype(workload)] / activation_element_bytes(workload)


@dataclass(frozen=True)
class Constants:
    """The serving constants, as one value so ``bench/serving_accuracy.py --fit`` can try others."""

    mbu: float = SERVING_MBU
    mfu: float = SERVING_MFU
    layer_floor_s: float = LAYER_FLOOR_S_OPTIMIZED
    eager_extra_s: float = LAYER_FLOOR_S_EAGER_EXTRA
    moe_layer_floor_s: float = MOE_LAYER_FLOOR_S
    moe_gemm_efficiency: float = MOE_GEMM_EFFICIENCY
    allreduce_latency_s: float = ALLREDUCE_LATENCY_S


DEFAULTS = Constants()


@dataclass(frozen=True)
class StepTime:
    """One forward pass of a replica, split by what it costs (seconds)."""

    memory: float
    compute: float
    comm: float
    floor: float
    #: Host (CPU) time to launch the pass: it runs ahead of the GPU, so the pass takes the
    #: longer of the two (0 for engines that replay CUDA graphs or launch from C++).
    host: float = 0.0

    @property
    def total(self) -> float:
        return max(max(self.memory, self.compute) + self.comm + self.floor, self.host)


def link_gbs_per_direction(gpu: Gpu) -> float | None:
    """Per-direction GPU-to-GPU bandwidth for the all-reduce: NVLink (the catalog's figure is
    the bidirectional total, NVIDIA's convention) or the GPU's PCIe link."""
    if gpu.nvlink in ("nvswitch", "bridge") and gpu.nvlink_bw_gbs:
        return gpu.nvlink_bw_gbs / 2
    if gpu.pcie_gen:
        return PCIE_GBS_PER_DIRECTION.get(gpu.pcie_gen)
    return None


@dataclass(frozen=True)
class Replica:
    """The per-replica timing model for one (model, precision, GPU, tp)."""

    arch: ModelPreset
    counts: ParamCounts
    workload: Workload
    gpu: Gpu
    tp: int
    peak: float
    bandwidth: float
    link_bps: float | None
    eager: bool = False
    #: Host seconds per decoder layer per forward pass (plain PyTorch model code, "transformers").
    host_layer_s: float = 0.0
    k: Constants = DEFAULTS
    #: KV cache bytes relative to the workload's activation dtype (0.5 = an FP8 KV cache
    #: beside bf16 activations, as TensorRT-LLM's ``--fp8_kv_cache``).
    kv_scale: float = 1.0
    #: The links the tensor-parallel group runs over (None: ``link_bps`` alone, the old model).
    links: Links | None = None
    gpus_per_server: int = 8
    #: Pipeline stages of one replica (1: tensor parallel only).  Weights and KV split over
    #: ``tp x pp`` GPUs; one token passes the stages one after the other.
    pp: int = 1

    @property
    def layers(self) -> int:
        return max(1, self.arch.num_hidden_layers)

    @property
    def gpus(self) -> int:
        """GPUs of one replica: ``tp`` per pipeline stage x ``pp`` stages."""
        return self.tp * max(1, self.pp)

    def kv_bytes_per_gpu(self, context: float) -> float:
        """KV cache of one sequence on one GPU: a pipeline stage holds its layers' share."""
        return self.kv_bytes(context) / max(1, self.pp)

    def kv_bytes(self, context: float) -> float:
        """KV cache (and recurrent state) of one sequence of ``context`` tokens on one GPU of
        the replica; sliding-window layers stop growing at their window (memory.py)."""
        tokens = max(1, round(context))
        one = self.workload.model_copy(update={"seq_len": tokens, "micro_batch": 1})
        return kv_cache_bytes(self.arch, one, self.tp) * self.kv_scale

    def weight_bytes(self, tokens: int) -> float:
        """Weights one forward pass of ``tokens`` tokens reads on one GPU (embedding rows are
        a lookup, not a read of the table)."""
        params = decode_weight_params(self.arch, self.counts, tokens)
        if not self.arch.tie_word_embeddings:
            params -= self.counts.embedding
        return max(0.0, params) * weight_bytes_per_param(self.workload) / self.tp

    def _token_flops(self, context: float) -> float:
        """Forward FLOPs of one token attending over ``context`` tokens, on one GPU, as dense
        GEMM time: the routed MoE part (``moe_active_per_layer`` per MoE layer) weighs
        1 / ``moe_gemm_efficiency`` (grouped expert GEMMs run below dense ones)."""
        n = matmul_params(self.arch, self.counts)
        experts = float(self.counts.moe_active_per_layer * self.counts.moe_layers)
        dense_equiv = n - experts + experts / self.k.moe_gemm_efficiency
        return (2.0 * dense_equiv + attention_flops_fwd(self.arch, max(1, round(context)))) / (
            self.tp
        )

    def floor(self) -> float:
        per_layer = self.k.layer_floor_s + (self.k.eager_extra_s if self.eager else 0.0)
        return self.layers * per_layer + self.counts.moe_layers * self.k.moe_layer_floor_s

    def host(self) -> float:
        """Host time of one forward pass (the Python launching every kernel); 0 for engines."""
        return self.layers * self.host_layer_s

    def link_kind(self) -> str:
        """The slowest hop of the tensor-parallel group: nvlink, pcie or net."""
        if self.links is None:
            return "nvlink" if self.gpu.nvlink in ("nvswitch", "bridge") else "pcie"
        return self.links.slowest_kind(self.tp, self.gpus_per_server)

    def comm(self, tokens: int) -> float:
        if self.tp <= 1:
            return 0.0
        hidden = layer_dims(self.arch).hidden
        payload = tokens * hidden * _ALLREDUCE_ELEMENT_BYTES
        if self.links is None:
            volume = 2.0 * (self.tp - 1) / self.tp * payload
            per = self.k.allreduce_latency_s + (volume / self.link_bps if self.link_bps else 0.0)
            return 2 * self.layers * per
        per_server = min(self.tp, self.gpus_per_server)
        extra = collective_latency_s(self.link_kind(), self.tp) - collective_latency_s(
            "nvlink", self.tp
        )
        move = allreduce_seconds(
            payload,
            group=self.tp,
            per_server=per_server,
            per_island=min(per_server, max(1, self.links.island)),
            links=self.links,
            calls=0.0,  # the latency is the fitted one above, plus the slower links' extra
        )
        return 2 * self.layers * (self.k.allreduce_latency_s + extra + move)

    def decode_step(self, batch: int, context: float) -> StepTime:
        """One decode step of ``batch`` sequences whose context is ``context`` tokens."""
        read = self.weight_bytes(batch) + batch * self.kv_bytes(context)
        return StepTime(
            memory=read / (self.bandwidth * self.k.mbu),
            compute=batch * self._token_flops(context) / (self.peak * self.k.mfu),
            comm=self.comm(batch),
            floor=self.floor(),
            host=self.host(),
        )

    def prefill_compute(self, prompt: int) -> float:
        """GPU time of a prompt's prefill FLOPs alone (what it adds when it rides along with
        other sequences' decode steps)."""
        return prompt * self._token_flops(prompt / 2) / (self.peak * self.k.mfu)

    def prefill(self, prompt: int, batch: int = 1) -> StepTime:
        """Prefill of ``batch`` prompts of ``prompt`` tokens in one forward pass (causal
        attention: on average a prompt token attends to half the prompt)."""
        tokens = prompt * batch
        read = self.weight_bytes(tokens) + batch * self.kv_bytes(prompt)
        return StepTime(
            memory=read / (self.bandwidth * self.k.mbu),
            compute=batch * self.prefill_compute(prompt),
            comm=self.comm(tokens),
            floor=self.floor(),
            host=self.host(),
        )

    def loaded(self, users: int, prompt: int, output: int) -> tuple[float, float, float]:
        """(inter-token latency s, tokens/s of the replica, decode step s) with ``users``
        concurrent closed-loop users (see the module docstring)."""
        users = max(1, users)
        output = max(1, output)
        # Pipeline stages (pp > 1): the users form pp micro-batches that follow each other
        # through the stages, so each step runs users / pp sequences through the whole model
        # (the stages' times add up to the tp-GPU model's; inter-stage sends not counted).
        batch = math.ceil(users / max(1, self.pp))
        step = self.decode_step(batch, prompt + output / 2).total
        others = (users - 1) * self.prefill_compute(prompt)
        itl = step + others / output
        cycle = self.prefill(prompt).total + others + output * step
        return itl, users * output / cycle, step


def make_replica(
    arch: ModelPreset,
    counts: ParamCounts,
    workload: Workload,
    gpu: Gpu,
    tp: int,
    *,
    peak: float | None,
    link_gbs: float | None = None,
    constants: Constants = DEFAULTS,
    links: Links | None = None,
    gpus_per_server: int = 8,
) -> Replica | None:
    """The replica model, or None when the GPU's bandwidth or peak is unknown.  ``links``: the
    build's topology (None: the GPU's standard server, engine.estimate.links.default_links;
    an explicit ``link_gbs`` keeps the single-link model)."""
    if not gpu.memory_bw_gbs or not peak:
        return None
    link = link_gbs if link_gbs is not None else link_gbs_per_direction(gpu)
    if links is None and link_gbs is None:
        links = default_links(gpu, gpus_per_server)
    return Replica(
        links=links,
        gpus_per_server=max(1, gpus_per_server),
        arch=arch,
        counts=counts,
        workload=workload,
        gpu=gpu,
        tp=max(1, tp),
        peak=peak,
        bandwidth=gpu.memory_bw_gbs * 1e9,
        link_bps=link * 1e9 if link else None,
        eager=workload.serving_engine in ("eager", "transformers"),
        host_layer_s=HOST_LAYER_FORWARD_S_EAGER
        if workload.serving_engine == "transformers"
        else 0.0,
        k=constants,
        kv_scale=kv_scale(workload),
    )


def _engine_words(replica: Replica) -> str:
    if replica.host_layer_s:
        return (
            f"plain PyTorch model code (transformers generate): the host launches every kernel, "
            f"{replica.host() * 1e3:.1f} ms per forward pass at least"
        )
    return "eager (no CUDA graphs)" if replica.eager else "optimised engine (CUDA graphs)"


class Serving(BaseModel):
    """Serving figures for ``users`` concurrent users on the estimated GPUs."""

    model_config = ConfigDict(frozen=True)

    engine: str
    users: int
    users_per_replica: int
    replicas: int
    prompt_tokens: int
    output_tokens: int
    #: Time to first token with ``users`` concurrent users (queueing + prefill + interference).
    ttft_s: float
    inter_token_s: float
    tokens_per_s_per_user: float
    tokens_per_s: float
    tokens_per_s_per_server: float
    single_user_tokens_per_s: float
    latency_floor_s: float
    kv_cache_bytes_for_users: float
    kv_cache_bytes_per_gpu: float
    max_users: int
    tokens_per_user_s_target: float | None = None
    max_users_per_replica_at_target: int | None = None
    servers_for_users: int | None = None
    fits_users: bool = True
    #: Time to first token of one prompt on an idle replica.
    ttft_idle_s: float = 0.0
    #: Users decoded at once per replica (capped by the KV cache) and users waiting.
    running_users_per_replica: int = 0
    queued_users: int = 0
    #: End-to-end seconds of one request and requests completed per second (all replicas).
    request_latency_s: float = 0.0
    requests_per_s: float = 0.0
    kv_cache_dtype: str = "bf16"
    #: Latency objective (seconds) and what it allows: users per replica meeting it, replicas
    #: and servers for ``users`` (None: no objective given).
    ttft_target_s: float | None = None
    tpot_target_s: float | None = None
    max_users_per_replica_at_latency: int | None = None
    replicas_for_users_at_latency: int | None = None
    servers_for_users_at_latency: int | None = None

    def to_json(self) -> dict:
        return {
            "engine": self.engine,
            "users": self.users,
            "users_per_replica": self.users_per_replica,
            "replicas": self.replicas,
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            "ttft_s": self.ttft_s,
            "ttft_idle_s": self.ttft_idle_s,
            "inter_token_latency_s": self.inter_token_s,
            "output_tokens_per_s": self.tokens_per_s,
            "output_tokens_per_s_per_user": self.tokens_per_s_per_user,
            "output_tokens_per_s_per_server": self.tokens_per_s_per_server,
            "running_users_per_replica": self.running_users_per_replica,
            "queued_users": self.queued_users,
            "request_latency_s": self.request_latency_s,
            "requests_per_s": self.requests_per_s,
            "kv_cache_dtype": self.kv_cache_dtype,
            "ttft_target_s": self.ttft_target_s,
            "tpot_target_s": self.tpot_target_s,
            "max_users_per_replica_at_latency": self.max_users_per_replica_at_latency,
            "replicas_for_users_at_latency": self.replicas_for_users_at_latency,
            "servers_for_users_at_latency": self.servers_for_users_at_latency,
            "inter_token_s": self.inter_token_s,
            "tokens_per_s_per_user": self.tokens_per_s_per_user,
            "tokens_per_s": self.tokens_per_s,
            "tokens_per_s_per_server": self.tokens_per_s_per_server,
            "single_user_tokens_per_s": self.single_user_tokens_per_s,
            "latency_floor_s": self.latency_floor_s,
            "kv_cache_bytes_for_users": round(self.kv_cache_bytes_for_users),
            "kv_cache_bytes_per_gpu": round(self.kv_cache_bytes_per_gpu),
            "max_users": self.max_users,
            "fits_users": self.fits_users,
            "tokens_per_user_s_target": self.tokens_per_user_s_target,
            "max_users_per_replica_at_target": self.max_users_per_replica_at_target,
            "servers_for_users": self.servers_for_users,
        }


def max_users_per_replica(free_bytes_per_gpu: float, kv_per_user_per_gpu: float) -> int:
    """Users whose KV cache fits in the engine's KV pool: ``KV_POOL_FRACTION`` of what the
    weights and runtime leave free on each GPU."""
    if kv_per_user_per_gpu <= 0:
        return 0
    return max(0, math.floor(free_bytes_per_gpu * KV_POOL_FRACTION / kv_per_user_per_gpu))


def _most_users(ok: Callable[[int], bool], cap: int) -> int:
    """The largest user count in 1..``cap`` that ``ok`` accepts (0 if not even one), for an
    ``ok`` that holds up to a boundary and fails beyond it: a binary search."""
    if cap < 1 or not ok(1):
        return 0
    lo, hi = 1, cap
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def users_at_rate(replica: Replica, prompt: int, output: int, rate: float, cap: int) -> int:
    """Most users one replica serves with each getting ``rate`` tokens/s (0 if not even one).
    Per-user speed falls as users are added, so a binary search finds the boundary."""

    def ok(b: int) -> bool:
        return 1.0 / replica.loaded(b, prompt, output)[0] >= rate

    return _most_users(ok, cap)


def users_at_latency(
    replica: Replica,
    prompt: int,
    output: int,
    ttft_s: float | None,
    tpot_s: float | None,
    cap: int,
) -> int:
    """Largest concurrency per replica (up to the KV capacity ``cap``) whose time to first token
    under load and time per output token meet ``ttft_s`` / ``tpot_s`` (0: not even one user).
    Both grow with the users, so a binary search finds the boundary."""

    def ok(b: int) -> bool:
        itl, tps, _ = replica.loaded(b, prompt, output)
        if tpot_s is not None and itl > tpot_s:
            return False
        return ttft_s is None or ttft_under_load(replica, b, b, prompt, output, tps)[0] <= ttft_s

    return _most_users(ok, cap)


def ttft_under_load(
    replica: Replica, users: int, running: int, prompt: int, output: int, replica_tps: float
) -> tuple[float, tuple[float, float, float, float]]:
    """(time to first token, (slot queue, prefill queue, prefill, interference)) for ``users``
    closed-loop users on one replica that decodes ``running`` at once (module docstring)."""
    output = max(1, output)
    completions = replica_tps / output  # requests per second (X)
    slot_wait = max(0, users - running) / completions if completions > 0 else 0.0
    t_p = replica.prefill_compute(prompt)
    rho = min(0.95, completions * t_p) if running > 1 else 0.0
    prefill_wait = rho * t_p / (2.0 * (1.0 - rho))
    prefill = replica.prefill(prompt).total
    interference = 0.0
    if running > 1:
        chunks = math.ceil(prompt / PREFILL_CHUNK_TOKENS)
        interference = chunks * replica.decode_step(running - 1, prompt + output / 2).total
    total = slot_wait + prefill_wait + prefill + interference + REQUEST_OVERHEAD_S
    return total, (slot_wait, prefill_wait, prefill, interference)


def serving_estimate(
    replica: Replica,
    *,
    dp: int,
    gpus_per_server: int,
    free_bytes_per_gpu: float,
) -> tuple[Serving, list[str]]:
    """Serving figures for the workload's ``users`` (default: ``micro_batch`` per replica).

    ``free_bytes_per_gpu``: usable GPU memory less everything but the KV cache (weights,
    activations, runtime), which bounds the users that fit.
    """
    w = replica.workload
    prompt, output = split_lengths(w)
    dp = max(1, dp)
    users = w.users or w.micro_batch * dp
    per_replica = math.ceil(users / dp)
    kv_user_gpu = replica.kv_bytes_per_gpu(prompt + output)
    cap = max_users_per_replica(free_bytes_per_gpu, kv_user_gpu)
    running = min(per_replica, cap) if cap >= 1 else per_replica
    queued = max(0, per_replica - running) * dp
    itl, replica_tps, _ = replica.loaded(running, prompt, output)
    single_itl = replica.loaded(1, prompt, output)[0]
    ttft_idle = replica.prefill(prompt).total + REQUEST_OVERHEAD_S
    ttft, parts = ttft_under_load(replica, per_replica, running, prompt, output, replica_tps)
    gpus = replica.gpus * dp
    servers = max(1, math.ceil(gpus / max(1, gpus_per_server)))
    notes = [
        f"serving: {prompt} prompt + {output} output tokens per request, {users} user(s) "
        f"= {per_replica} per replica of {replica.gpus} GPU(s) x {dp}"
        + (
            f" (tensor parallel {replica.tp} x {replica.pp} pipeline stages)"
            if replica.pp > 1
            else ""
        )
        + "; "
        + _engine_words(replica),
        f"decode reads weights + KV at {replica.k.mbu:.0%} of {replica.gpu.memory_bw_gbs:g} "
        f"GB/s, prefill at {replica.k.mfu:.0%} of peak; latency floor "
        f"{replica.floor() * 1e3:.2f} ms per forward pass"
        + (f" (incl. {replica.counts.moe_layers} MoE layers)" if replica.counts.moe_layers else ""),
    ]
    if replica.tp > 1:
        link = replica.link_bps / 1e9 if replica.link_bps else None
        notes.append(
            f"tensor parallel {replica.tp}: 2 all-reduces per layer, "
            f"{replica.k.allreduce_latency_s * 1e6:.0f} us each"
            + (f" + payload at {link:g} GB/s per direction" if link else "")
        )
    target = w.tokens_per_user_s
    at_target = servers_needed = None
    if target:
        at_target = users_at_rate(replica, prompt, output, target, cap)
        if at_target:
            replicas_needed = math.ceil(users / at_target)
            servers_needed = math.ceil(replicas_needed * replica.gpus / max(1, gpus_per_server))
            notes.append(
                f"{users} users at {target:g} tokens/s each: {at_target} per replica of "
                f"{replica.gpus} GPU(s), {replicas_needed} replica(s) before any planning margin"
            )
        else:
            notes.append(
                f"no replica of {replica.gpus} x {replica.gpu.sku} gives one user "
                f"{target:g} tokens/s (single user: {1 / single_itl:,.0f} tokens/s)"
            )
    notes.append(
        f"KV cache {kv_cache_dtype(w)}"
        + (" (FP8 weights on an optimised engine: TensorRT-LLM's FP8 recipe)"
           if w.kv_cache_dtype in (None, "auto") and kv_cache_dtype(w) == "fp8" else "")
    )  # fmt: skip
    at_latency = replicas_lat = servers_lat = None
    if w.ttft_target_s or w.tpot_target_s:
        at_latency = users_at_latency(
            replica, prompt, output, w.ttft_target_s, w.tpot_target_s, cap
        )
        goal = " and ".join(
            f"{name} <= {v * 1e3:,.0f} ms"
            for name, v in (("TTFT", w.ttft_target_s), ("TPOT", w.tpot_target_s))
            if v
        )
        if at_latency:
            replicas_lat = math.ceil(users / at_latency)
            servers_lat = math.ceil(replicas_lat * replica.gpus / max(1, gpus_per_server))
            notes.append(
                f"latency objective {goal} (met by the mean; tails not modelled): "
                f"{at_latency} users per replica, {users} users need {replicas_lat} "
                f"replica(s) of {replica.gpus} GPU(s) = {servers_lat} server(s)"
            )
        else:
            notes.append(f"latency objective {goal}: not met even by one user per replica")
    if per_replica > cap >= 1:
        notes.append(
            f"{per_replica} users per replica, the KV cache holds {cap}: {cap} decode at once "
            f"and {per_replica - cap} wait in the queue ({cap * dp} at once on these GPUs); "
            "tokens/s stays at capacity, the time to first token grows"
        )
    elif cap < 1:
        notes.append("the KV cache of even one user does not fit next to the weights")
    notes.append(
        f"time to first token with {users} user(s): {ttft:.3g} s = queue {parts[0]:.3g} + "
        f"prefill queue {parts[1]:.3g} (M/D/1) + prefill {parts[2]:.3g} + decode "
        f"interference {parts[3]:.3g} + request overhead {REQUEST_OVERHEAD_S:g} "
        f"(idle: {ttft_idle:.3g} s; Little's law for the closed loop)"
    )
    serving = Serving(
        engine=w.serving_engine or "optimized",
        users=users,
        users_per_replica=per_replica,
        replicas=dp,
        prompt_tokens=prompt,
        output_tokens=output,
        ttft_s=ttft,
        ttft_idle_s=ttft_idle,
        running_users_per_replica=running,
        queued_users=queued,
        request_latency_s=ttft + itl * max(0, output - 1),
        requests_per_s=replica_tps * dp / output,
        kv_cache_dtype=kv_cache_dtype(w),
        ttft_target_s=w.ttft_target_s,
        tpot_target_s=w.tpot_target_s,
        max_users_per_replica_at_latency=at_latency,
        replicas_for_users_at_latency=replicas_lat,
        servers_for_users_at_latency=servers_lat,
        inter_token_s=itl,
        tokens_per_s_per_user=1.0 / itl,
        tokens_per_s=replica_tps * dp,
        tokens_per_s_per_server=replica_tps * dp / servers,
        single_user_tokens_per_s=1.0 / single_itl,
        latency_floor_s=replica.floor(),
        kv_cache_bytes_for_users=kv_user_gpu * replica.gpus * users,
        kv_cache_bytes_per_gpu=kv_user_gpu * running,
        max_users=cap * dp,
        tokens_per_user_s_target=target,
        max_users_per_replica_at_target=at_target,
        servers_for_users=servers_needed,
        fits_users=per_replica <= cap,
    )
    return serving, notes
