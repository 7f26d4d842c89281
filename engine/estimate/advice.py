"""What to change when the workload does not fit: each alternative re-estimated, as a typed
:class:`Advice`."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from slotwise.engine.estimate.checkpoint import served_workload
from slotwise.engine.estimate.constants import GIB
from slotwise.engine.estimate.fit import layout_memory, usable_bytes
from slotwise.engine.inputs import ref
from slotwise.engine.model.params import count_params
from slotwise.engine.workload import Workload
from slotwise.parts.schema import Gpu, ModelPreset


class Advice(BaseModel):
    """One change to the workload and what it gives, re-estimated (never a guess)."""

    model_config = ConfigDict(frozen=True)

    #: The change in words ("turn on gradient checkpointing").
    change: str
    #: Peak memory per GPU after the change, GiB.
    gib_per_gpu: float
    #: Whether the workload then fits the GPU's usable memory.
    fits: bool


def suggest_changes(workload: Workload, gpu: Gpu, gpus: int, *, arch: ModelPreset) -> list[Advice]:
    """What to change when the workload does not fit: one :class:`Advice` per change.

    Each alternative is re-estimated, so the advice is never a guess.
    """
    workload, _ = served_workload(workload, arch)  # "auto" precision (engine.estimate.checkpoint)
    counts = count_params(arch)
    cap = usable_bytes(gpu)
    out: list[Advice] = []

    def trial(label: str, n: int = gpus, **changes) -> None:
        try:
            w = workload.model_copy(update=changes)
            w = Workload.model_validate(w.model_dump())
        except ValueError:
            return
        total = layout_memory(w, n, arch, counts)[0].total_bytes
        out.append(Advice(change=label, gib_per_gpu=total / GIB, fits=total <= cap))

    if workload.training and not workload.checkpointing:
        trial("turn on gradient checkpointing", grad_checkpointing=True)
    if workload.method in ("full", "pretrain"):
        trial("use LoRA instead of full fine-tuning", method="lora")
    if workload.method in ("full", "pretrain", "lora"):
        trial("use QLoRA (4-bit base)", method="qlora")
    if workload.training and workload.offload == "none":
        trial("offload optimizer state to CPU", offload="optimizer")
    if workload.training and gpus > 1 and workload.parallel_for(gpus) != "zero3":
        trial("shard everything with ZeRO-3 / FSDP", parallel="zero3")
    if workload.micro_batch > 1:
        trial("micro-batch 1", micro_batch=1)
    now = layout_memory(workload, gpus, arch, counts)[0]
    seq_heavy = now.activations_bytes + now.kv_cache_bytes > 0.3 * now.total_bytes
    if workload.seq_len >= 256 and (seq_heavy or workload.seq_len > 8192):
        trial(f"sequence length {workload.seq_len // 2}", seq_len=workload.seq_len // 2)
    if workload.training and workload.tp_or_1 == 1:
        n = max(gpus, 8)
        trial(f"tensor parallel 8 inside one server ({n} GPUs)", n=n, tp=8)
    if (
        workload.training
        and workload.loss != "chunked"
        and now.logits_bytes > 0.1 * now.total_bytes
    ):
        trial(
            f"chunked cross-entropy ({ref('loss', 'chunked')}, as torchtune computes it)",
            loss="chunked",
        )
    if not workload.training and workload.precision in ("bf16", "fp16", "fp32"):
        trial("serve in FP8", precision="fp8")
    return out
