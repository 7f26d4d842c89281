"""Inference memory over one ``generate()`` call: the prefill peak or the end-of-generation peak.

A request is a *prefill* of its prompt (P tokens, one forward pass over the whole prompt) and
then ``output_len`` decode steps of one token each (Pope et al. 2022, "Efficiently Scaling
Transformer Inference", arXiv:2211.05102, section 2).  Hugging Face ``transformers`` runs it so
(``GenerationMixin._sample``, generation/utils.py, v4.45 to v4.51): the first forward gets the
whole ``input_ids``, the following ones the last token and the cache; ``DynamicCache.update``
appends each step's keys and values (``torch.cat``), so the cache holds P tokens when the
prefill runs and P + output tokens at the end; and ``generate`` passes
``num_logits_to_keep=1`` (``logits_to_keep`` from v4.50) to models that accept it, so the
prefill computes the logits of the last position only, not P x vocab of them.

So the allocator's peak is the larger of two moments, not their sum:

* **prefill**: weights + KV cache of the prompt + the prefill's layer working set over the P
  prompt tokens (:func:`engine.estimate.activations.inference_activation_bytes`);
* **end of generation**: weights + KV cache of the whole context + one decode step's working
  set (one token per sequence).

slotwise reports the KV cache of the whole context (``kv_cache_bytes``) and, as activations,
whatever the prefill needs beyond it (or the decode step's working set, when that is larger):
the total is the larger of the two moments.

**Legacy tuple caches** (``legacy_kv_cache``): model code that returns a *new* tuple of past
keys and values from every forward (transformers before v4.36, e.g. ``LlamaAttention``'s
``past_key_value = (key_states, value_states)`` after ``torch.cat``; and remote code that kept
the tuple, Qwen (v1) ``modeling_qwen.py`` ``present = (key, value)``, ChatGLM2
``kv_cache = (key_layer, value_layer)``).  ``generate`` keeps the previous step's tuple in
``model_kwargs["past_key_values"]`` (and ``model_inputs``) until
``_update_model_kwargs_for_generation`` replaces it after the forward, so when the forward
ends the old cache (one token shorter) and the new one are both alive: the end-of-generation
moment holds two caches, counted in ``kv_cache_bytes``.  The prefill builds the first cache
from nothing, so it holds one.  Evidence: Qwen (v1) README, KV-cache quantization table
(Qwen-7B-Chat BF16, batch 1): from 512 to 8192 generated tokens the peak grows 8.0 GiB =
1.04 MiB per token, twice the 0.5 MiB/token of its bf16 cache (tests/evidence/memory_cases.py).

How the two moments compare with the Qwen2.5 and Qwen3 speed-benchmark peaks: docs/evidence.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from slotwise.engine.estimate.activations import inference_activation_bytes
from slotwise.engine.estimate.serving_constants import DEFAULT_OUTPUT_SHARE
from slotwise.engine.workload import Workload
from slotwise.parts.schema import ModelPreset


def split_lengths(workload: Workload) -> tuple[int, int]:
    """(prompt tokens, output tokens) of one request: ``--seq-len`` is the whole context and
    ``--output-len`` (default: ``DEFAULT_OUTPUT_SHARE`` of it) the generated part."""
    total = workload.seq_len
    out = workload.output_len or max(1, round(total * DEFAULT_OUTPUT_SHARE))
    out = min(out, max(1, total - 1)) if total > 1 else 1
    return max(1, total - out), out


@dataclass(frozen=True)
class GenerationPeak:
    """The KV cache held at the end of generation, the working set on top of it at the peak,
    and which moment the peak is."""

    kv_bytes: float  # the whole context's cache; twice (old + new tuple) with legacy caches
    working_bytes: float  # bytes on top of weights + ``kv_bytes`` (+ the logits) at the peak
    phase: str  # "prefill" or "decode": the moment with the larger total
    prompt_tokens: int
    output_tokens: int


def generation_peak(
    arch: ModelPreset,
    workload: Workload,
    e: float,
    tp: int,
    kv_bytes_at: dict[int, float],
) -> GenerationPeak:
    """The larger of the prefill and the end-of-generation moments (module docstring).

    ``kv_bytes_at`` maps a context length to the KV cache (and recurrent state) bytes of
    ``micro_batch`` sequences of that length on one GPU; it must hold the prompt length,
    ``workload.seq_len`` and, for legacy tuple caches, ``workload.seq_len - 1``.
    """
    prompt, output = split_lengths(workload)
    batch = workload.micro_batch
    kv_end = kv_bytes_at[workload.seq_len]
    if workload.legacy_kv_cache:
        kv_end += kv_bytes_at[max(1, workload.seq_len - 1)]  # the previous step's tuple
    prefill = kv_bytes_at[prompt] + inference_activation_bytes(arch, e, tp, tokens=prompt * batch)
    decode_working = inference_activation_bytes(arch, e, tp, tokens=batch)
    if prefill > kv_end + decode_working:
        return GenerationPeak(kv_end, prefill - kv_end, "prefill", prompt, output)
    return GenerationPeak(kv_end, decode_working, "decode", prompt, output)
