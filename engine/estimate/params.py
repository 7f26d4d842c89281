"""Parameter counts of a decoder-only transformer, from its config.json-style architecture.

Every formula follows the Hugging Face ``transformers`` modeling code of the architecture (the
module that builds the weights, so the count is what ``sum(p.numel() for p in model.parameters())``
gives for the checkpoint):

* Llama / Mistral / Qwen2 / Phi-3 (``modeling_llama.py``, ``modeling_mistral.py``,
  ``modeling_qwen2.py``, ``modeling_phi3.py``): embedding ``vocab x hidden``; per layer
  ``q_proj hidden -> heads*head_dim``, ``k_proj`` / ``v_proj hidden -> kv_heads*head_dim`` (GQA),
  ``o_proj heads*head_dim -> hidden``; SwiGLU MLP ``gate_proj``, ``up_proj hidden -> intermediate``
  and ``down_proj intermediate -> hidden``; two RMSNorm weights of ``hidden`` per layer plus the
  final norm; ``lm_head hidden -> vocab`` unless ``tie_word_embeddings``.  Phi-3 fuses
  ``qkv_proj`` and ``gate_up_proj``; the fused matrices hold the same number of weights.
* Biases: ``Qwen2Attention`` hard-codes ``bias=True`` on q/k/v (``o_proj`` has none), whatever the
  config says; ``LlamaAttention`` puts ``bias=config.attention_bias`` on q, k, v *and* o.
* Gemma 2 (``modeling_gemma2.py``): ``head_dim`` is its own field (256, not hidden/heads), four
  RMSNorms per layer (input, post-attention, pre- and post-feed-forward), embeddings tied.
* Mixtral (``modeling_mixtral.py``): every layer's MLP is a sparse MoE block: a router
  ``gate hidden -> num_local_experts`` (no bias) and ``num_local_experts`` SwiGLU experts of
  ``intermediate_size``; ``num_experts_per_tok`` (2) of them run per token.
* DeepSeek-V3 (``modeling_deepseek_v3.py`` / the checkpoint's ``modeling_deepseek.py``):
  multi-head latent attention: ``q_a_proj hidden -> q_lora_rank``, ``q_a_layernorm``,
  ``q_b_proj q_lora_rank -> heads*(qk_nope_head_dim+qk_rope_head_dim)``,
  ``kv_a_proj_with_mqa hidden -> kv_lora_rank+qk_rope_head_dim``, ``kv_a_layernorm``,
  ``kv_b_proj kv_lora_rank -> heads*(qk_nope_head_dim+v_head_dim)``,
  ``o_proj heads*v_head_dim -> hidden``.  The first ``first_k_dense_replace`` layers have a dense
  SwiGLU MLP of ``intermediate_size``; the others a MoE block: router weight ``n_routed_experts x
  hidden`` plus its ``e_score_correction_bias`` (``n_routed_experts``), routed experts and
  ``n_shared_experts`` shared experts of ``moe_intermediate_size`` (the shared MLP is one SwiGLU of
  ``moe_intermediate_size * n_shared_experts``).  The multi-token-prediction module shipped in
  the checkpoint (``num_nextn_predict_layers``, 14B extra weights) is **not** counted: it is not
  used for ordinary inference or fine-tuning, and DeepSeek's published 671B excludes it.

"Active" parameters are those a token touches: everything except the routed experts that the
router did not pick (``num_experts_per_tok`` of ``num_experts`` run; shared experts always run).
The embedding and lm_head are counted as active, as DeepSeek and Mistral do for 37B / 12.9B.
"""

from __future__ import annotations

from dataclasses import dataclass

from parts.schema import ModelPreset

# Architectures whose attention hard-codes bias on q/k/v only (not on o_proj).
QKV_BIAS_MODEL_TYPES = frozenset({"qwen2", "qwen2_moe"})
# Architectures with four RMSNorms per decoder layer (input, post-attn, pre-ffw, post-ffw).
FOUR_NORM_MODEL_TYPES = frozenset({"gemma2", "gemma3", "gemma3_text"})
# Router with a learned per-expert score-correction bias (DeepSeek-V3 "noaux_tc" routing).
ROUTER_BIAS_MODEL_TYPES = frozenset({"deepseek_v3"})

LORA_MODULE_NAMES = ("q", "k", "v", "o", "gate", "up", "down")


@dataclass(frozen=True)
class ParamCounts:
    """Parameter counts (numbers of weights, not bytes) of one model.

    ``attention_per_layer`` includes the attention's own biases and, for MLA, its two internal
    RMSNorms.  ``mlp_per_layer`` is a dense layer's FFN (0 when every layer is MoE);
    ``moe_per_layer`` is a MoE layer's router + every routed expert + the shared experts;
    ``moe_active_per_layer`` the part of it one token uses.  ``norms`` is the total of every
    decoder-layer norm plus the final norm.
    """

    total: int
    active: int
    embedding: int
    lm_head: int
    attention_per_layer: int
    mlp_per_layer: int
    moe_per_layer: int
    moe_active_per_layer: int
    norms: int
    dense_layers: int
    moe_layers: int

    @property
    def layers(self) -> int:
        return self.dense_layers + self.moe_layers

    @property
    def non_embedding(self) -> int:
        """Everything except the input embedding and the (untied) output head."""
        return self.total - self.embedding - self.lm_head

    @property
    def is_moe(self) -> bool:
        return self.moe_layers > 0


@dataclass(frozen=True)
class LinearShape:
    """A family of identical ``nn.Linear`` layers: ``count`` of them in the whole model.

    ``hf_name`` is the module name in the Hugging Face checkpoint (what a PEFT ``target_modules``
    entry matches).  LoRA of rank r on one such layer adds ``r * (in_features + out_features)``
    weights (A: in x r, B: r x out).
    """

    hf_name: str
    in_features: int
    out_features: int
    count: int
    bias: bool = False

    @property
    def weights(self) -> int:
        """Weights of all ``count`` layers, biases included."""
        return self.count * (
            self.in_features * self.out_features + (self.out_features if self.bias else 0)
        )

    def lora_params(self, rank: int) -> int:
        return self.count * rank * (self.in_features + self.out_features)


# ------------------------------------------------------------------------------ helpers


def head_dim(arch: ModelPreset) -> int:
    """``head_dim`` from the config, else ``hidden_size // num_attention_heads`` (HF default)."""
    return arch.head_dim or arch.hidden_size // arch.num_attention_heads


def is_mla(arch: ModelPreset) -> bool:
    """Multi-head latent attention (DeepSeek-V2/V3): the config has ``kv_lora_rank``."""
    return arch.kv_lora_rank is not None


def layer_split(arch: ModelPreset) -> tuple[int, int]:
    """(dense layers, MoE layers).  MoE models: the first ``first_k_dense_replace`` are dense."""
    n = arch.num_hidden_layers
    if not arch.num_experts:
        return n, 0
    dense = min(arch.first_k_dense_replace or 0, n)
    return dense, n - dense


def expert_intermediate(arch: ModelPreset) -> int:
    """FFN width of one routed expert (``moe_intermediate_size``, else ``intermediate_size``)."""
    return arch.moe_intermediate_size or arch.intermediate_size


def _norms_per_layer(arch: ModelPreset) -> int:
    return 4 if arch.model_type in FOUR_NORM_MODEL_TYPES else 2


def _qkv_bias(arch: ModelPreset) -> bool:
    return arch.attention_bias or arch.model_type in QKV_BIAS_MODEL_TYPES


def _o_bias(arch: ModelPreset) -> bool:
    return arch.attention_bias and arch.model_type not in QKV_BIAS_MODEL_TYPES


def _attention_linears(arch: ModelPreset, layers: int) -> dict[str, tuple[LinearShape, ...]]:
    h = arch.hidden_size
    nh = arch.num_attention_heads
    if is_mla(arch):
        nope = arch.qk_nope_head_dim or 0
        rope = arch.qk_rope_head_dim or 0
        v_dim = arch.v_head_dim or head_dim(arch)
        kv_rank = arch.kv_lora_rank or 0
        q: tuple[LinearShape, ...]
        if arch.q_lora_rank:
            q = (
                LinearShape("q_a_proj", h, arch.q_lora_rank, layers, arch.attention_bias),
                LinearShape("q_b_proj", arch.q_lora_rank, nh * (nope + rope), layers),
            )
        else:
            q = (LinearShape("q_proj", h, nh * (nope + rope), layers),)
        return {
            "q": q,
            "k": (
                LinearShape("kv_a_proj_with_mqa", h, kv_rank + rope, layers, arch.attention_bias),
            ),
            "v": (LinearShape("kv_b_proj", kv_rank, nh * (nope + v_dim), layers),),
            "o": (LinearShape("o_proj", nh * v_dim, h, layers, arch.attention_bias),),
        }
    hd = head_dim(arch)
    nkv = arch.num_key_value_heads
    qkv_b = _qkv_bias(arch)
    return {
        "q": (LinearShape("q_proj", h, nh * hd, layers, qkv_b),),
        "k": (LinearShape("k_proj", h, nkv * hd, layers, qkv_b),),
        "v": (LinearShape("v_proj", h, nkv * hd, layers, qkv_b),),
        "o": (LinearShape("o_proj", nh * hd, h, layers, _o_bias(arch)),),
    }


def linear_params_by_module(arch: ModelPreset) -> dict[str, tuple[LinearShape, ...]]:
    """The model's linear layers grouped by LoRA target (q, k, v, o, gate, up, down).

    Each value lists the :class:`LinearShape` families the target matches across the whole
    model (``count`` = how many such layers exist: layers, x experts for MoE FFNs).  For MLA,
    ``q`` is q_a_proj + q_b_proj, ``k`` is kv_a_proj_with_mqa and ``v`` is kv_b_proj (the
    projections PEFT users target for DeepSeek).  MoE: ``gate``/``up``/``down`` cover the dense
    layers' MLP, every routed expert and the shared experts; the router (also named ``gate`` in
    the checkpoint) is excluded.  Whether a LoRA library can adapt the experts depends on its
    version (recent ``transformers`` store experts as fused 3-D parameters, not Linears), so for
    MoE models the expert entries are an upper bound on what "all-linear" adapts.
    """
    h = arch.hidden_size
    dense, moe = layer_split(arch)
    out = _attention_linears(arch, arch.num_hidden_layers)
    gate: list[LinearShape] = []
    up: list[LinearShape] = []
    down: list[LinearShape] = []

    def ffn(prefix: str, inter: int, count: int) -> None:
        if count <= 0 or inter <= 0:
            return
        gate.append(LinearShape(f"{prefix}gate_proj", h, inter, count))
        up.append(LinearShape(f"{prefix}up_proj", h, inter, count))
        down.append(LinearShape(f"{prefix}down_proj", inter, h, count))

    ffn("mlp.", arch.intermediate_size, dense)
    if moe:
        if arch.model_type == "mixtral":
            # MixtralBlockSparseTop2MLP names them w1 (gate), w3 (up), w2 (down).
            n = moe * (arch.num_experts or 0)
            inter = expert_intermediate(arch)
            gate.append(LinearShape("experts.w1", h, inter, n))
            up.append(LinearShape("experts.w3", h, inter, n))
            down.append(LinearShape("experts.w2", inter, h, n))
        else:
            ffn("experts.", expert_intermediate(arch), moe * (arch.num_experts or 0))
        shared = arch.n_shared_experts or 0
        if shared:
            ffn("shared_experts.", expert_intermediate(arch) * shared, moe)
    out["gate"] = tuple(gate)
    out["up"] = tuple(up)
    out["down"] = tuple(down)
    return out


def lora_params(arch: ModelPreset, targets: tuple[str, ...] | list[str], rank: int) -> int:
    """Trainable LoRA weights for ``targets`` (subset of q,k,v,o,gate,up,down) at ``rank``.

    LoRA (Hu et al. 2021, arXiv:2106.09685) adds A (in x r) and B (r x out) per adapted Linear.
    """
    by_mod = linear_params_by_module(arch)
    total = 0
    for t in dict.fromkeys(targets):
        if t not in by_mod:
            raise ValueError(f"unknown LoRA target {t!r}; use {', '.join(LORA_MODULE_NAMES)}")
        total += sum(s.lora_params(rank) for s in by_mod[t])
    return total


# ------------------------------------------------------------------------------ counting


def _attention_per_layer(arch: ModelPreset) -> int:
    per = sum(s.weights for shapes in _attention_linears(arch, 1).values() for s in shapes)
    if is_mla(arch):
        # q_a_layernorm (q_lora_rank) and kv_a_layernorm (kv_lora_rank) weights.
        per += (arch.q_lora_rank or 0) + (arch.kv_lora_rank or 0)
    return per


def count_params(arch: ModelPreset) -> ParamCounts:
    """Count the parameters of ``arch`` (see the module docstring for each formula's origin)."""
    h = arch.hidden_size
    v = arch.vocab_size
    dense, moe = layer_split(arch)

    embedding = v * h
    lm_head = 0 if arch.tie_word_embeddings else v * h
    attention = _attention_per_layer(arch)
    mlp = 3 * h * arch.intermediate_size if dense else 0

    moe_total = moe_active = 0
    if moe:
        experts = arch.num_experts or 0
        per_expert = 3 * h * expert_intermediate(arch)
        router = experts * h + (experts if arch.model_type in ROUTER_BIAS_MODEL_TYPES else 0)
        shared = (arch.n_shared_experts or 0) * per_expert
        k = min(arch.num_experts_per_tok or experts, experts)
        moe_total = router + experts * per_expert + shared
        moe_active = router + k * per_expert + shared

    norms = arch.num_hidden_layers * _norms_per_layer(arch) * h + h
    total = (
        embedding
        + lm_head
        + arch.num_hidden_layers * attention
        + dense * mlp
        + moe * moe_total
        + norms
    )
    active = total - moe * (moe_total - moe_active)
    return ParamCounts(
        total=total,
        active=active,
        embedding=embedding,
        lm_head=lm_head,
        attention_per_layer=attention,
        mlp_per_layer=mlp,
        moe_per_layer=moe_total,
        moe_active_per_layer=moe_active,
        norms=norms,
        dense_layers=dense,
        moe_layers=moe,
    )
