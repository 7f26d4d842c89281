"""The workload form: model (searchable presets, or a config.json path / Hugging Face id),
trainer, method, precision, sequence length, batch, parallelism, LoRA rank and targets,
tokens, target days, MFU override, loss implementation and the memory knobs (checkpointing mode,
activation offload, optimizer in backward, longest sample, torch.compile).

The trainer names a trainer profile (engine/workload/trainers.toml): every knob left at
"default" takes the profile's value, and a read-only panel under the select lists what the
profile sets differently from ``generic`` (with its source); choosing a trainer resets those
knobs to "default" so the profile shows through.  The form starts from the loaded workload:
fields it does not show (gradient accumulation, DoRA, LoRA dropout, trainer overrides, ...)
are kept as they were across every edit.  Text fields are parsed by the engine's one workload-text parser
(engine.workload.text), the same one the CLI uses.

Every change builds an ``engine.workload.Workload`` and posts ``WorkloadForm.Changed``; the
screen puts it on the build and the engine's verdict is shown above the form.  A value that
does not parse is reported next to the form (field name and what to type), never raised.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Grid, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Label, Select, Static

from slotwise.engine.check.report import Report
from slotwise.engine.check.verdict import verdict
from slotwise.engine.workload import (
    LORA_MODULES,
    LORA_TARGET_SETS,
    LOSSES,
    METHODS,
    OFFLOADS,
    OPTIMIZERS,
    PRECISIONS,
    SERVING_ENGINES,
    Workload,
)
from slotwise.engine.workload.text import WorkloadTextError, build_workload, parse_field
from slotwise.engine.workload.trainers import (
    differences_from_generic,
    load_profiles,
    trainer_names,
)
from slotwise.tui.input_labels import app_words
from slotwise.tui.widgets.budgets import budget_text, fmt_amount
from slotwise.tui.widgets.findings import finding_text
from slotwise.tui.widgets.ordered_input import Input
from slotwise.tui.widgets.preset_select import PresetSelect

OFFLOAD = OFFLOADS
CHECKPOINTING = (
    ("auto (on for training)", "auto"),
    ("on, full", "on"),
    ("on, selective", "selective"),
    ("off", "off"),
)
TRAINERS = (("generic (none named)", "none"), *((r, r) for r in trainer_names()))
ON_OFF = (("default", "default"), ("on", "on"), ("off", "off"))
# Knobs a trainer profile fills; choosing a trainer resets them so its values show through.
TRAINER_SELECTS = (
    "#wl-ckpt",
    "#wl-loss",
    "#wl-actoff",
    "#wl-optbwd",
    "#wl-compile",
)
PARALLEL = (
    ("auto (zero3 when >1 GPU)", "auto"),
    ("ddp", "ddp"),
    ("zero1", "zero1"),
    ("zero2", "zero2"),
    ("zero3 / fsdp", "zero3"),  # engine.workload.PARALLEL_ALIASES
)
LORA_TARGETS_HELP = f"{', '.join(LORA_TARGET_SETS)} or a comma list of {','.join(LORA_MODULES)}"


# Loss implementations and serving engines come from engine.workload; blank (None) = the
# engine's default.
LOSS_CHOICES = (("default", "default"), *((v, v) for v in LOSSES))
# Workload field -> the form's label, so validation messages name what the user sees.
FIELD_LABELS = {
    "seq_len": "Sequence length",
    "micro_batch": "Micro-batch",
    "tp": "Tensor parallel",
    "lora_rank": "LoRA rank",
    "lora_targets": "LoRA targets",
    "tokens": "Tokens to train",
    "target_days": "Target days",
    "mfu": "MFU override",
    "loss": "Loss",
    "users": "Users (serving)",
    "tokens_per_user_s": "Tokens/s per user",
    "margin": "Planning margin %",
    "serving_engine": "Serving engine",
    "longest_sample": "Longest sample",
    "trainer": "Trainer",
    "trainer_overrides": "Trainer overrides",
}


def fmt_targets(targets: tuple[str, ...]) -> str:
    """('q', 'v') -> 'qv' (a named set when it is one), else 'q,k,v'."""
    for name, members in LORA_TARGET_SETS.items():
        if tuple(targets) == members:
            return name
    return ",".join(targets)


class WorkloadForm(Vertical):
    class Changed(Message):
        def __init__(self, workload: Workload | None, problem: str | None) -> None:
            super().__init__()
            self.workload = workload
            self.problem = problem

    class Fetch(Message):
        """Enter in the config / HF id field: resolve it (may download) off the event loop."""

        def __init__(self, workload: Workload) -> None:
            super().__init__()
            self.workload = workload

    def __init__(self, presets: list[tuple[str, str]], **kw) -> None:
        super().__init__(**kw)
        self.presets = presets  # (label, id)
        self._loaded: Workload | None = None  # the workload the fields started from

    def compose(self) -> ComposeResult:
        yield Static("", id="verdict")
        with VerticalScroll(id="wl-scroll"), Grid(id="wl-grid"):
            yield Label("Model preset")
            yield PresetSelect(
                self.presets, prompt="type to search presets", id="wl-model", type_to_search=True
            )
            yield Label("or config / HF id")
            yield Input(placeholder="config.json path or org/model, then Enter", id="wl-config")
            yield Label("Trainer")
            yield Select(TRAINERS, value="none", allow_blank=False, id="wl-trainer")
            yield Label("Trainer details")
            yield Static("", id="wl-trainer-details")
            yield Label("Method")
            yield Select(
                [(m, m) for m in METHODS], value="inference", allow_blank=False, id="wl-method"
            )
            yield Label("Precision")
            yield Select(
                [(p, p) for p in PRECISIONS], value="auto", allow_blank=False, id="wl-precision"
            )
            yield Label("Sequence length")
            yield Input("2048", type="integer", id="wl-seq")
            yield Label("Micro-batch / GPU")
            yield Input("1", type="integer", id="wl-batch")
            yield Label("Parallelism")
            yield Select(PARALLEL, value="auto", allow_blank=False, id="wl-parallel")
            yield Label("Tensor parallel")
            yield Input("", placeholder="auto", type="integer", id="wl-tp")
            yield Label("Optimizer")
            yield Select(
                [("default", "default"), *((o, o) for o in OPTIMIZERS)],
                value="default",
                allow_blank=False,
                id="wl-optimizer",
            )
            yield Label("CPU offload")
            yield Select(
                [(o, o) for o in OFFLOAD], value="none", allow_blank=False, id="wl-offload"
            )
            yield Label("Grad checkpointing")
            yield Select(CHECKPOINTING, value="auto", allow_blank=False, id="wl-ckpt")
            yield Label("LoRA rank")
            yield Input("16", type="integer", id="wl-rank")
            yield Label("LoRA targets")
            yield Input("all-linear", placeholder=LORA_TARGETS_HELP, id="wl-targets")
            yield Label("Tokens to train")
            yield Input(placeholder="e.g. 2B, 300M", id="wl-tokens")
            yield Label("Target days")
            yield Input(placeholder="e.g. 7", type="number", id="wl-days")
            yield Label("MFU override")
            yield Input(placeholder="blank = estimator default", type="number", id="wl-mfu")
            yield Label("Loss")
            yield Select(LOSS_CHOICES, value="default", allow_blank=False, id="wl-loss")
            yield Label("Users (serving)")
            yield Input(placeholder="concurrent users, blank = 1", type="integer", id="wl-users")
            yield Label("Tokens/s per user")
            yield Input(placeholder="e.g. 30: sizes servers", type="number", id="wl-rate")
            yield Label("Planning margin %")
            yield Input(placeholder="blank = held-out error", id="wl-margin")
            yield Label("Serving engine")
            yield Select(
                [(e, e) for e in SERVING_ENGINES],
                value="optimized",
                allow_blank=False,
                id="wl-engine",
            )
            yield Label("Activation offload")
            yield Select(ON_OFF, value="default", allow_blank=False, id="wl-actoff")
            yield Label("Optimizer in bwd")
            yield Select(ON_OFF, value="default", allow_blank=False, id="wl-optbwd")
            yield Label("Longest sample")
            yield Input(placeholder="tokens; blank = every sequence full", id="wl-longest")
            yield Label("torch.compile")
            yield Select(ON_OFF, value="default", allow_blank=False, id="wl-compile")

    def load(self, w: Workload | None) -> None:
        """Show ``w`` in the fields without posting Changed."""
        with self.prevent(Input.Changed, Select.Changed):
            # a new workload's precision is "auto": the checkpoint's format decides (engine)
            w = w or Workload(precision="auto")
            self._loaded = w
            ids = {v for _, v in self.presets}
            self.query_one("#wl-model", Select).value = w.model if w.model in ids else Select.NULL
            self.query_one("#wl-config", Input).value = w.config or ""
            self.query_one("#wl-method", Select).value = w.method
            self.query_one("#wl-precision", Select).value = w.precision
            self.query_one("#wl-seq", Input).value = str(w.seq_len)
            self.query_one("#wl-batch", Input).value = str(w.micro_batch)
            self.query_one("#wl-parallel", Select).value = w.parallel or "auto"
            self.query_one("#wl-tp", Input).value = "" if w.tp is None else str(w.tp)
            self.query_one("#wl-optimizer", Select).value = w.optimizer
            self.query_one("#wl-offload", Select).value = w.offload
            self.query_one("#wl-trainer", Select).value = w.trainer or "none"
            self.query_one("#wl-ckpt", Select).value = (
                "auto"
                if w.grad_checkpointing is None
                else (
                    ("selective" if w.checkpoint_mode == "selective" else "on")
                    if w.grad_checkpointing
                    else "off"
                )
            )
            for fid, value in (
                ("#wl-actoff", w.activation_offload),
                ("#wl-optbwd", w.optimizer_in_backward),
                ("#wl-compile", w.compile),
            ):
                self.query_one(fid, Select).value = (
                    "default" if value is None else ("on" if value else "off")
                )
            self.query_one("#wl-longest", Input).value = (
                "" if w.longest_sample is None else str(w.longest_sample)
            )
            self.query_one("#wl-rank", Input).value = str(w.lora_rank)
            self.query_one("#wl-targets", Input).value = fmt_targets(w.lora_targets)
            self.query_one("#wl-tokens", Input).value = fmt_count(w.tokens)
            self.query_one("#wl-days", Input).value = (
                "" if w.target_days is None else f"{w.target_days:g}"
            )
            self.query_one("#wl-mfu", Input).value = "" if w.mfu is None else f"{w.mfu:g}"
            self.query_one("#wl-loss", Select).value = w.loss or "default"
            self.query_one("#wl-users", Input).value = "" if w.users is None else str(w.users)
            self.query_one("#wl-rate", Input).value = (
                "" if w.tokens_per_user_s is None else f"{w.tokens_per_user_s:g}"
            )
            self.query_one("#wl-engine", Select).value = w.serving_engine or "optimized"
            self.query_one("#wl-margin", Input).value = (
                "" if w.margin is None else f"{100 * w.margin:g}"
            )
        self._show_trainer(w.trainer, w.method, w.trainer_overrides)

    def _show_trainer(self, name: str | None, method: str, overrides: dict) -> None:
        """The read-only trainer-details panel: what the profile sets unlike ``generic``."""
        self.query_one("#wl-trainer-details", Static).update(
            trainer_details_text(name, method, overrides)
        )

    def read(self) -> tuple[Workload | None, str | None]:
        """The workload the fields describe, or (None, why not)."""
        model = self.query_one("#wl-model", Select).value
        config = self.query_one("#wl-config", Input).value.strip()
        if model == Select.NULL and not config:
            return None, None
        # Start from the loaded workload so fields the form does not show are kept.
        loaded = self._loaded or Workload()
        fields: dict = loaded.model_dump(exclude_none=True)
        for key in ("model", "config", "arch", "trainer"):
            fields.pop(key, None)
        if config:
            fields["config"] = config
            if model != Select.NULL:
                return None, "give a model preset or a config / HF id, not both (clear one)"
        else:
            fields["model"] = model
        fields["method"] = self.query_one("#wl-method", Select).value
        fields["precision"] = self.query_one("#wl-precision", Select).value
        par = self.query_one("#wl-parallel", Select).value
        fields["parallel"] = None if par == "auto" else par
        optimizer = self.query_one("#wl-optimizer", Select).value
        fields["optimizer"] = None if optimizer == "default" else optimizer
        fields["offload"] = self.query_one("#wl-offload", Select).value
        ckpt = self.query_one("#wl-ckpt", Select).value
        fields["grad_checkpointing"] = None if ckpt == "auto" else ckpt != "off"
        if ckpt == "selective":
            fields["checkpoint_mode"] = "selective"
        elif ckpt == "on" and fields.get("checkpoint_mode") == "selective":
            fields["checkpoint_mode"] = "full"
        loss = self.query_one("#wl-loss", Select).value
        fields["loss"] = None if loss == "default" else loss
        for fid, name in (
            ("#wl-actoff", "activation_offload"),
            ("#wl-optbwd", "optimizer_in_backward"),
            ("#wl-compile", "compile"),
        ):
            value = self.query_one(fid, Select).value
            fields[name] = None if value == "default" else value == "on"
        for fid, name, required in (
            ("#wl-seq", "seq_len", True),
            ("#wl-batch", "micro_batch", True),
            ("#wl-tp", "tp", False),
            ("#wl-rank", "lora_rank", False),
            ("#wl-targets", "lora_targets", False),
            ("#wl-tokens", "tokens", False),
            ("#wl-days", "target_days", False),
            ("#wl-mfu", "mfu", False),
            ("#wl-longest", "longest_sample", False),
            ("#wl-margin", "margin", False),
        ):
            text = self.query_one(fid, Input).value
            label = FIELD_LABELS.get(name, name)
            try:
                fields[name] = parse_field(name, text)
            except WorkloadTextError as exc:
                return None, f"{label}: {exc}"
            if required and fields[name] is None:
                return None, f"{label}: type a whole number"
        users = self.query_one("#wl-users", Input).value.strip()
        fields["users"] = fields["tokens_per_user_s"] = None
        if users:
            try:
                fields["users"] = int(users)
            except ValueError:
                return None, f"Users (serving): {users!r} is not a whole number"
        rate = self.query_one("#wl-rate", Input).value.strip()
        if rate:
            try:
                fields["tokens_per_user_s"] = float(rate)
            except ValueError:
                return None, f"Tokens/s per user: {rate!r} is not a number, e.g. 30"
        engine = self.query_one("#wl-engine", Select).value
        fields["serving_engine"] = None if engine == "optimized" else engine
        trainer = self.query_one("#wl-trainer", Select).value
        try:
            return build_workload(fields, None if trainer == "none" else str(trainer)), None
        except WorkloadTextError as exc:
            where = FIELD_LABELS.get(exc.field, exc.field) or "workload"
            return None, f"{where}: {exc}"

    def _by_user(self, widget) -> bool:
        """Only edits the user makes count: ``load()`` sets values programmatically, and the
        Changed messages it causes arrive later, when the fields may be half loaded."""
        focused = self.screen.focused
        return focused is not None and (focused is widget or widget in focused.ancestors)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._by_user(event.input):
            if event.input.id == "wl-config" and event.value.strip():
                # a config / HF id replaces the preset (the form takes one or the other)
                model = self.query_one("#wl-model", Select)
                if model.value != Select.NULL:
                    with self.prevent(Select.Changed):
                        model.value = Select.NULL
            self._emit()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "wl-config":
            w, problem = self.read()
            if w is not None and w.config:
                self.post_message(self.Fetch(w))

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if not self._by_user(event.select):
            return
        if event.select.id == "wl-model" and event.value != Select.NULL:
            # a preset replaces the config / HF id
            with self.prevent(Input.Changed):
                self.query_one("#wl-config", Input).value = ""
        if event.select.id == "wl-trainer":
            # let the new trainer's profile show through the knobs it governs
            with self.prevent(Input.Changed, Select.Changed):
                for fid in TRAINER_SELECTS:
                    self.query_one(fid, Select).value = "auto" if fid == "#wl-ckpt" else "default"
        self._emit()

    def _emit(self) -> None:
        w, problem = self.read()
        if w is not None:
            self._loaded = w
            self._show_trainer(w.trainer, w.method, w.trainer_overrides)
        self.post_message(self.Changed(w, problem))

    def show_verdict(
        self, report: Report | None, workload: Workload | None, problem: str | None = None
    ) -> None:
        self.query_one("#verdict", Static).update(verdict_text(report, workload, problem))


def trainer_details_text(name: str | None, method: str, overrides: dict) -> Text:
    """What trainer ``name`` sets unlike ``generic`` for ``method``, and the overrides."""
    t = Text()
    entry = load_profiles().profile[name or "generic"]
    t.append(f"{name or 'generic'}: {entry.title}\n", style="dim")
    shown_method = method if method != "inference" else "lora"
    diff = differences_from_generic(name or "generic", shown_method)
    for field, (_, value, _source) in diff.items():
        t.append(f"  {field} = {value}\n")
    for field, value in sorted(overrides.items()):
        t.append(f"  {field} = {value} (override)\n", style="bold")
    if not diff and not overrides:
        t.append("  the generic profile (slotwise trainers generic)\n", style="dim")
    return t


def fmt_count(value: float | None) -> str:
    """2e9 -> '2B' (the suffixes engine.workload.kinds.parse_count reads back)."""
    if value is None:
        return ""
    for mult, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if value >= mult:
            return f"{value / mult:g}{suffix}"
    return f"{value:g}"


def serving_text(sv, load: str | None = None) -> Text:
    """Two short lines of serving figures (engine.estimate.serving.Serving) and the load they
    hold under, 80 columns."""
    t = Text()
    t.append(
        f"Serving {load or f'{sv.users:,} user(s) on this server'}: "
        f"{sv.tokens_per_s_per_user:,.1f} tok/s each\n"
    )
    # first token at this load (queue + prefill batch, engine.estimate.serving), then idle
    t.append(
        f"  first token {sv.ttft_s * 1e3:,.0f} ms (idle {sv.ttft_idle_s * 1e3:,.0f} ms), "
        f"{sv.tokens_per_s_per_server:,.0f} tok/s per server"
    )
    if not sv.fits_users:
        t.append("  ✖ users do not fit", style="bold red")
    t.append("\n")
    return t


#: The verdict's status (engine.check.verdict.Verdict.status) as a mark: never a tick above a miss.
_STATUS = {
    "ok": ("✔ OK", "bold green"),
    "tight": ("▲ TIGHT", "bold yellow"),
    "miss": ("✖ NOT MET", "bold red"),
    "unknown": ("? UNKNOWN", "bold yellow"),
}


def verdict_text(
    report: Report | None, workload: Workload | None, problem: str | None = None
) -> Text:
    t = Text()
    if problem:
        # No verdict beside an input error: the last one was for other inputs (issue #14).
        t.append("✖ INPUT  ", style="bold red")
        t.append(app_words(problem) + "\n")
        t.append("The verdict returns when the field is fixed.\n", style="dim")
        return t
    if workload is None:
        t.append(
            "Choose a model preset (or a config.json / HF id) to see whether it fits.", style="dim"
        )
        return t
    if workload.config:
        t.append_text(config_source_text(workload.config))
    est = report.estimate if report is not None else None
    if est is not None:
        v = report.verdict if report is not None and report.verdict else verdict(est, workload)
        mark, style = _STATUS[v.status]
        t.append(mark, style=style)
        t.append(f"  {app_words(v.headline)}\n")
        t.append(f"Needs {fmt_amount(v.need_bytes, 'B')} per GPU")
        if v.low_bytes is not None and v.high_bytes is not None:
            # the range and its three-way verdict (engine/estimate/memory_range.py)
            t.append(f" (range {fmt_amount(v.low_bytes, 'B')} to {fmt_amount(v.high_bytes, 'B')}")
            t.append(f", {v.memory})" if v.memory != "fits" else ")")
        if v.capacity_bytes:
            t.append(f" of {fmt_amount(v.capacity_bytes, 'B')}")
        if v.gpus:
            t.append(f" on {v.gpus} × {v.gpu}")
        if v.min_gpus is not None and not v.fits:
            t.append(f"; at least {v.min_gpus} GPU{'s' if v.min_gpus != 1 else ''} needed")
        t.append("\n")
        if v.train_hours is not None:
            t.append(f"Time to train on this server: {fmt_amount(v.train_hours, 'h')}")
            if v.target is not None:
                t.append(f" (target {v.target.target_days:g} days)")
            t.append("\n")
        if v.sizing is not None and v.sizing.servers is not None:
            t.append(f"Sizing: {app_words(v.sizing.summary(short=True))}\n", style="dim")
        if v.sizing is not None and v.sizing.serving is not None:
            t.append(serving_text(v.sizing.serving, v.sizing.load))
        elif v.serving is not None:
            t.append(serving_text(v.serving))
        elif v.decode_tokens_per_s is not None:
            batch = workload.micro_batch
            t.append(
                f"Decode: about {v.decode_tokens_per_s:,.0f} tokens/s "
                f"({batch} sequence{'s' if batch != 1 else ''} at once)\n"
            )
    elif report is not None:
        t.append(no_estimate_reason(report) + "\n", style="dim")
    if report is not None:
        for f in report.findings:
            if f.rule.startswith(("workload", "fit", "estimate")):
                t.append_text(finding_text(f))
                t.append("\n")
        b = report.budget("gpu_memory")  # time to train is the line above; all bars: F3
        if b is not None:
            t.append_text(budget_text(b, 56))
    if est is not None:
        for n in est.assumptions.notes[:3]:
            t.append(f" · {app_words(n)}\n", style="dim")
    return t


def no_estimate_reason(report: Report) -> str:
    """Why the report has no estimate, from the engine's own findings."""
    rules = {f.rule for f in report.findings}
    if "workload_fit.no_gpu" in rules:
        return "No estimate yet: fit GPUs first (the map, F2)."
    if "workload_fit.unresolved" in rules:
        return "No estimate: the model could not be read (the finding below says why)."
    return "No estimate for this build (see the findings below)."


def config_source_text(ref: str) -> Text:
    """Where the app reads a config / HF id from, and how to get one it lacks.

    The app never goes online on its own: the engine resolves models from files and the local
    cache only (``workload_fit`` calls ``resolve_arch(offline=True)``); Enter in the field
    fetches from the Hub in a worker, unless SLOTWISE_OFFLINE / HF_HUB_OFFLINE forbids it
    (``slotwise.engine.store.local_paths``)."""
    from pathlib import Path

    from slotwise.engine.model.hub import cache_path, is_repo_id
    from slotwise.engine.store.local_paths import OFFLINE_ENVS, offline_from_env

    t = Text()
    try:
        is_file = Path(ref).expanduser().exists()
    except (OSError, ValueError):
        is_file = False
    if is_file or not is_repo_id(ref):
        return t  # a local file: the finding below names any problem with it
    cached = cache_path(ref)
    if cached.is_file():
        t.append(f"Model config of {ref}: from the local cache ({cached}).\n", style="dim")
        return t
    t.append("▲ ", style="bold yellow")
    t.append(f"{ref} is not in the local cache; the app reads cached configs only. ")
    if offline_from_env():
        names = " / ".join(OFFLINE_ENVS)
        t.append(
            f"Fetching is off ({names} is set): unset it and press Enter in the config field, "
            "or give the path of a config.json.\n"
        )
    else:
        t.append("Press Enter in the config field to fetch it from the Hugging Face Hub.\n")
    return t
