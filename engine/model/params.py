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

Beyond the Llama layout, :class:`~parts.schema.ModelPreset` describes what a family changes and
the count follows it (``engine.model.arch`` fills the fields from a config.json, citing each
family's modeling code):

* two-matrix MLPs (``mlp_gated=False``: GPT-2, GPT-J, NeoX, OPT, Falcon, phi, StarCoder2,
  Nemotron-H) and biases on the MLP (``mlp_bias``), on q/k/v and on o separately
  (``attention_qkv_bias`` / ``attention_out_bias``), on the LM head (``lm_head_bias``: GPT-J,
  phi) and on every expert (``expert_bias``: gpt-oss);
* norms: LayerNorm with bias (``norm_bias``), none with weights (``norm_params=False``: OLMo),
  how many per layer (``norms_per_layer``: 1 for parallel blocks, 4 for Gemma 2/3) and whether
  a final one exists (``final_norm``: OPT-350m); q/k norms over ``head_dim`` or per head
  (``qk_norm``); gpt-oss's per-head ``attention_sinks``;
* learned absolute positions (``position_embeddings``: GPT-2 ``n_positions``, OPT
  ``max_position_embeddings + 2``) and OPT's ``project_in``/``project_out``
  (``embedding_proj_dim``); BLOOM's ``word_embeddings_layernorm`` (``embedding_norm``);
* per-layer FFN widths (``layer_intermediate_sizes``: DeciLM / Nemotron-NAS, whose blocks were
  searched one by one), a norm only before the blocks a layer has (``norms_per_sublayer``) and
  blocks replaced by one ``hidden x hidden`` Linear without bias (``linear_replacements``);
* per-layer layouts: ``layer_types`` (full, sliding or chunked attention, Mamba, Mamba-2, or no
  mixer) and ``mlp_layer_types`` (dense, MoE, none), so only attention layers get attention
  weights and only MoE layers experts; shared experts of their own width
  (``shared_expert_intermediate_size``, Qwen2-MoE's ``shared_expert_gate``) and router biases;
* DeepSeek Sparse Attention's lightning indexer (``indexer_layers`` / ``indexer_heads`` /
  ``indexer_head_dim``: DeepSeek-V3.2, GLM-5; see :func:`indexer_params`);
* Gated DeltaNet linear attention (``linear_attention``, see
  :func:`linear_attention_params_per_layer`) and gated softmax attention whose ``q_proj`` also
  yields the output gate (``attention_output_gate``: Qwen3-Next, Qwen3.5);
* LatentMoE (``moe_latent_size``: Nemotron 3 Super/Ultra; ``NemotronHMoE`` in transformers'
  ``models/nemotron_h/modular_nemotron_h.py``, code index id 51852120257): the router reads the
  full ``hidden`` token, ``fc1_latent_proj hidden -> latent`` and ``fc2_latent_proj latent ->
  hidden`` (bias from ``mlp_bias``) wrap the routed experts, which run ``latent -> inter ->
  latent``; the shared expert stays at ``hidden``.  The two projections run for every token;
* Mamba mixers (``ssm``, see :func:`ssm_params_per_layer`) and weights outside the decoder
  (``extra_params``: a vision tower and its projector).

"Active" parameters are those a token touches: everything except the routed experts that the
router did not pick (``num_experts_per_tok`` of ``num_experts`` run; shared experts always run).
The embedding and lm_head are counted as active, as Mistral (12.9B) and Qwen do; DeepSeek, Moonshot
and OpenAI leave the input embedding out of their activated figures (tests compare with
``active - embedding`` for those).  A vision tower is not active for text tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from slotwise.parts.schema import ModelPreset

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
    attention_layers: int = 0
    ssm_per_layer: int = 0  # one Mamba mixer
    ssm_layers: int = 0
    routed_expert: int = 0  # one routed expert's weights
    other: int = 0  # OPT's embedding projections, a vision tower (extra_params)
    linear_attention_per_layer: int = 0  # one Gated DeltaNet mixer
    linear_attention_layers: int = 0

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
    """``head_dim`` from the config, else ``hidden_size // num_attention_heads`` (HF default);
    0 for an attention-free model."""
    if arch.head_dim:
        return arch.head_dim
    return arch.hidden_size // arch.num_attention_heads if arch.num_attention_heads else 0


def is_mla(arch: ModelPreset) -> bool:
    """Multi-head latent attention (DeepSeek-V2/V3): the config has ``kv_lora_rank``."""
    return arch.kv_lora_rank is not None


def mixer_types(arch: ModelPreset) -> tuple[str, ...]:
    """Each layer's token mixer (``layer_types``; full attention everywhere when absent)."""
    return arch.layer_types or ("full_attention",) * arch.num_hidden_layers


def is_attention(mixer: str) -> bool:
    """Softmax attention (full, sliding, chunked); Gated DeltaNet's ``linear_attention`` is a
    recurrent mixer with a fixed state, not a KV cache."""
    return mixer.endswith("attention") and mixer != "linear_attention"


def linear_attention_layer_count(arch: ModelPreset) -> int:
    return sum(1 for m in arch.layer_types or () if m == "linear_attention")


def attention_layer_count(arch: ModelPreset) -> int:
    if arch.layer_types is None:
        return arch.num_hidden_layers
    return sum(1 for m in arch.layer_types if is_attention(m))


def mlp_types(arch: ModelPreset) -> tuple[str, ...]:
    """Each layer's FFN: ``mlp_layer_types``, else dense everywhere, or (MoE models) dense for
    the first ``first_k_dense_replace`` layers and MoE after them (DeepSeek's layout)."""
    if arch.mlp_layer_types:
        return arch.mlp_layer_types
    n = arch.num_hidden_layers
    if not arch.num_experts:
        return ("dense" if arch.intermediate_size else "none",) * n
    dense = min(arch.first_k_dense_replace or 0, n)
    return ("dense",) * dense + ("moe",) * (n - dense)


def layer_split(arch: ModelPreset) -> tuple[int, int]:
    """(layers with a dense MLP, layers with a MoE block)."""
    if arch.mlp_layer_types is None:  # fast path: called on every estimate keystroke
        n = arch.num_hidden_layers
        if not arch.num_experts:
            return (n, 0) if arch.intermediate_size else (0, 0)
        dense = min(arch.first_k_dense_replace or 0, n)
        return dense, n - dense
    kinds = arch.mlp_layer_types
    return kinds.count("dense"), kinds.count("moe")


def expert_intermediate(arch: ModelPreset) -> int:
    """FFN width of one routed expert (``moe_intermediate_size``, else ``intermediate_size``)."""
    return arch.moe_intermediate_size or arch.intermediate_size


def expert_width(arch: ModelPreset) -> int:
    """Width a routed expert reads and writes: ``moe_latent_size`` (LatentMoE), else hidden."""
    return arch.moe_latent_size or arch.hidden_size


def latent_projection_params(arch: ModelPreset) -> int:
    """LatentMoE's ``fc1_latent_proj`` + ``fc2_latent_proj`` in one MoE layer (0 without)."""
    latent = arch.moe_latent_size
    if not latent:
        return 0
    return 2 * arch.hidden_size * latent + ((latent + arch.hidden_size) if arch.mlp_bias else 0)


def shared_expert_intermediate(arch: ModelPreset) -> int:
    """Total width of the always-on shared expert(s): ``shared_expert_intermediate_size``
    (Qwen2-MoE, Llama 4) else ``n_shared_experts x moe_intermediate_size`` (DeepSeek)."""
    if arch.shared_expert_intermediate_size is not None:
        return arch.shared_expert_intermediate_size
    return (arch.n_shared_experts or 0) * expert_intermediate(arch)


def norms_per_layer(arch: ModelPreset) -> int:
    if arch.norms_per_layer is not None:
        return arch.norms_per_layer
    return 4 if arch.model_type in FOUR_NORM_MODEL_TYPES else 2


def norm_params(arch: ModelPreset, width: int) -> int:
    """One norm over ``width``: RMSNorm has a weight, LayerNorm a weight and a bias."""
    if not arch.norm_params:
        return 0
    return width * (2 if arch.norm_bias else 1)


def mlp_params(hidden: int, inter: int, *, gated: bool, bias: bool) -> int:
    """A gated MLP (gate, up: hidden->inter; down: inter->hidden) or a two-matrix one."""
    if inter <= 0:
        return 0
    mats = 3 if gated else 2
    biases = ((2 if gated else 1) * inter + hidden) if bias else 0
    return mats * hidden * inter + biases


def _qkv_bias(arch: ModelPreset) -> bool:
    if arch.attention_qkv_bias is not None:
        return arch.attention_qkv_bias
    return arch.attention_bias or arch.model_type in QKV_BIAS_MODEL_TYPES


def _o_bias(arch: ModelPreset) -> bool:
    if arch.attention_out_bias is not None:
        return arch.attention_out_bias
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
    q_out = nh * hd * (2 if arch.attention_output_gate else 1)  # Qwen3-Next: query and gate
    return {
        "q": (LinearShape("q_proj", h, q_out, layers, qkv_b),),
        "k": (LinearShape("k_proj", h, nkv * hd, layers, qkv_b),),
        "v": (LinearShape("v_proj", h, nkv * hd, layers, qkv_b),),
        "o": (LinearShape("o_proj", nh * hd, h, layers, _o_bias(arch)),),
    }


def linear_params_by_module(arch: ModelPreset) -> dict[str, tuple[LinearShape, ...]]:
    """The model's linear layers grouped by LoRA target (q, k, v, o, gate, up, down).

    Each value lists the :class:`LinearShape` families the target matches across the whole
    model (``count`` = how many such layers exist: attention layers, x experts for MoE FFNs).
    For MLA, ``q`` is q_a_proj + q_b_proj, ``k`` is kv_a_proj_with_mqa and ``v`` is kv_b_proj
    (the projections PEFT users target for DeepSeek).  MoE: ``gate``/``up``/``down`` cover the
    dense layers' MLP, every routed expert and the shared experts; the router (also named
    ``gate`` in the checkpoint) is excluded.  A two-matrix MLP (GPT-2, OPT, NeoX, Falcon, phi)
    has no ``gate``.  Fused checkpoints (GPT-2 ``c_attn``, NeoX ``query_key_value``, Phi-3
    ``qkv_proj``) are listed as their q/k/v parts; LoRA on the fused matrix has the same
    ``r x in`` A-matrix once instead of three times, a difference under 1 % of the adapter.
    ``ssm`` lists the Mamba mixers' projections (no attention/MLP name; only "all-linear"
    adapts them, see :func:`lora_params`).  Whether a LoRA library can adapt the
    experts depends on its version (recent ``transformers`` store experts as fused 3-D
    parameters, not Linears), so for MoE models the expert entries are an upper bound on what
    "all-linear" adapts.
    """
    h = arch.hidden_size
    dense, moe = layer_split(arch)
    out = _attention_linears(arch, attention_layer_count(arch))
    gate: list[LinearShape] = []
    up: list[LinearShape] = []
    down: list[LinearShape] = []

    def ffn(prefix: str, inter: int, count: int, bias: bool = False, width: int = h) -> None:
        if count <= 0 or inter <= 0:
            return
        if arch.mlp_gated:
            gate.append(LinearShape(f"{prefix}gate_proj", width, inter, count, bias))
        up.append(LinearShape(f"{prefix}up_proj", width, inter, count, bias))
        down.append(LinearShape(f"{prefix}down_proj", inter, width, count, bias))

    ffn("mlp.", arch.intermediate_size, dense, arch.mlp_bias)
    out["ssm"] = _ssm_linears(arch) + _linear_attention_linears(arch) + _indexer_linears(arch)
    if moe:
        n = moe * (arch.num_experts or 0)
        inter = expert_intermediate(arch)
        if arch.model_type == "mixtral":
            # MixtralBlockSparseTop2MLP names them w1 (gate), w3 (up), w2 (down).
            gate.append(LinearShape("experts.w1", h, inter, n))
            up.append(LinearShape("experts.w3", h, inter, n))
            down.append(LinearShape("experts.w2", inter, h, n))
        else:
            ffn("experts.", inter, n, arch.expert_bias, expert_width(arch))
        ffn("shared_experts.", shared_expert_intermediate(arch), moe)
        if arch.moe_latent_size:  # LatentMoE: only "all-linear" adapts them, like the SSM's
            latent, bias = arch.moe_latent_size, arch.mlp_bias
            out["ssm"] += (
                LinearShape("fc1_latent_proj", h, latent, moe, bias),
                LinearShape("fc2_latent_proj", latent, h, moe, bias),
            )
    out["gate"] = tuple(gate)
    out["up"] = tuple(up)
    out["down"] = tuple(down)
    return out


def _ssm_linears(arch: ModelPreset) -> tuple[LinearShape, ...]:
    """The Mamba mixers' Linear layers (``MambaMixer``: in_proj, x_proj, dt_proj, out_proj;
    ``Mamba2Mixer`` / ``NemotronHMamba2Mixer``: in_proj, out_proj), over every Mamba layer."""
    s = arch.ssm
    layers = sum(1 for m in arch.layer_types or () if m.startswith("mamba"))
    if s is None or not layers:
        return ()
    h, d, n = arch.hidden_size, s.d_inner, s.state_size
    if s.version == 1:
        return (
            LinearShape("in_proj", h, 2 * d, layers, s.proj_bias),
            LinearShape("x_proj", d, s.dt_rank + 2 * n, layers),
            LinearShape("dt_proj", s.dt_rank, d, layers, True),
            LinearShape("out_proj", d, h, layers, s.proj_bias),
        )
    proj = 2 * d + 2 * s.n_groups * n + s.n_heads
    return (
        LinearShape("in_proj", h, proj, layers, s.proj_bias),
        LinearShape("out_proj", d, h, layers, s.proj_bias),
    )


def _linear_attention_linears(arch: ModelPreset) -> tuple[LinearShape, ...]:
    """Gated DeltaNet's Linear layers (``Qwen3_5GatedDeltaNet``: in_proj_qkv, in_proj_z,
    in_proj_b, in_proj_a, out_proj; Qwen3-Next fuses the first four as in_proj_qkvz and
    in_proj_ba, the same weights), over every linear-attention layer."""
    la = arch.linear_attention
    layers = linear_attention_layer_count(arch)
    if la is None or not layers:
        return ()
    h, k, v, nv = arch.hidden_size, la.key_dim, la.value_dim, la.value_heads
    return (
        LinearShape("in_proj_qkv", h, 2 * k + v, layers),
        LinearShape("in_proj_z", h, v, layers),
        LinearShape("in_proj_b", h, nv, layers),
        LinearShape("in_proj_a", h, nv, layers),
        LinearShape("out_proj", v, h, layers),
    )


def _indexer_linears(arch: ModelPreset) -> tuple[LinearShape, ...]:
    """DeepSeek Sparse Attention's lightning indexer (``DeepseekV32Indexer``): ``wq_b``
    (``q_lora_rank -> heads x head_dim``), ``wk`` (hidden -> head_dim) and ``weights_proj``
    (hidden -> heads), none with bias, in every layer that runs one."""
    n = arch.indexer_layers
    if not n:
        return ()
    h, heads, hd = arch.hidden_size, arch.indexer_heads, arch.indexer_head_dim
    q_in = arch.q_lora_rank or h
    return (
        LinearShape("indexer.wq_b", q_in, heads * hd, n),
        LinearShape("indexer.wk", h, hd, n),
        LinearShape("indexer.weights_proj", h, heads, n),
    )


def indexer_params(arch: ModelPreset) -> int:
    """Every lightning indexer: its three projections and the ``k_norm`` LayerNorm over
    ``head_dim`` (weight and bias)."""
    linears = sum(s.weights for s in _indexer_linears(arch))
    return linears + arch.indexer_layers * 2 * arch.indexer_head_dim


def linear_attention_params_per_layer(arch: ModelPreset) -> int:
    """One Gated DeltaNet mixer (``Qwen3_5GatedDeltaNet`` / ``Qwen3NextGatedDeltaNet``): the
    projections above, a depthwise ``conv1d`` over q, k and v (``2 x key_dim + value_dim``
    channels x ``conv_kernel``, no bias), ``dt_bias`` and ``A_log`` per value head and the gated
    RMSNorm over ``value_head_dim``."""
    la = arch.linear_attention
    if la is None:
        return 0
    h, k, v, nv = arch.hidden_size, la.key_dim, la.value_dim, la.value_heads
    projections = h * (2 * k + v) + h * v + 2 * h * nv + v * h
    return projections + (2 * k + v) * la.conv_kernel + 2 * nv + la.value_head_dim


def lora_params(arch: ModelPreset, targets: tuple[str, ...] | list[str], rank: int) -> int:
    """Trainable LoRA weights for ``targets`` (subset of q,k,v,o,gate,up,down) at ``rank``.

    LoRA (Hu et al. 2021, arXiv:2106.09685) adds A (in x r) and B (r x out) per adapted Linear.
    The full set of seven is PEFT's ``target_modules="all-linear"``, which adapts every
    ``nn.Linear`` except the output layer (``peft.tuners.tuners_utils``
    ``_maybe_include_all_linear_layers``): for Mamba and hybrid models that includes the Mamba
    mixers' projections, which have no attention/MLP name.
    """
    by_mod = linear_params_by_module(arch)
    total = 0
    for t in dict.fromkeys(targets):
        if t not in LORA_MODULE_NAMES:
            raise ValueError(f"unknown LoRA target {t!r}; use {', '.join(LORA_MODULE_NAMES)}")
        total += sum(s.lora_params(rank) for s in by_mod[t])
    if set(LORA_MODULE_NAMES) <= set(targets):
        total += sum(s.lora_params(rank) for s in by_mod["ssm"])
    return total


def _adapted_shapes(arch: ModelPreset, targets: tuple[str, ...] | list[str]) -> list[LinearShape]:
    """The linear-layer families ``targets`` adapt (the Mamba projections too for all-linear,
    as :func:`lora_params` counts them)."""
    by_mod = linear_params_by_module(arch)
    shapes = [s for t in dict.fromkeys(targets) if t in by_mod for s in by_mod[t]]
    if set(LORA_MODULE_NAMES) <= set(targets):
        shapes += list(by_mod["ssm"])
    return shapes


def dora_params(arch: ModelPreset, targets: tuple[str, ...] | list[str]) -> int:
    """DoRA's trained magnitude vectors: one entry per output feature of each adapted layer
    (PEFT ``DoraLinearLayer.weight``, the column norms of ``W + BA``)."""
    return sum(s.count * s.out_features for s in _adapted_shapes(arch, targets))


def adapted_weight_elements(arch: ModelPreset, targets: tuple[str, ...] | list[str]) -> int:
    """Elements of the frozen weights that ``targets`` adapt, over the whole model."""
    return sum(s.count * s.in_features * s.out_features for s in _adapted_shapes(arch, targets))


def lora_target_names(arch: ModelPreset, targets: tuple[str, ...] | list[str]) -> str:
    """The adapted layers as the model has them, for the user: the chosen targets this model
    has (a two-matrix MLP has no ``gate``, a pure Mamba model has no attention or MLP), plus,
    for "all-linear", the Mamba / linear-attention projections :func:`lora_params` adds
    (``in_proj``, ``x_proj``, ...), so a Mamba model never reads as LoRA on q,k,v."""
    by_mod = linear_params_by_module(arch)
    names = [t for t in dict.fromkeys(targets) if any(s.count for s in by_mod.get(t, ()))]
    if set(LORA_MODULE_NAMES) <= set(targets):
        names += list(dict.fromkeys(s.hf_name.rsplit(".", 1)[-1] for s in by_mod["ssm"] if s.count))
    return ",".join(names) or "no layer of this model"


# ------------------------------------------------------------------------------ counting


def attention_params_per_layer(arch: ModelPreset) -> int:
    """One attention layer: q/k/v/o (with their biases), q/k norms, MLA's two internal
    RMSNorms (``q_a_layernorm``, ``kv_a_layernorm``) and gpt-oss's per-head sinks."""
    if not arch.num_attention_heads:
        return 0
    per = sum(s.weights for shapes in _attention_linears(arch, 1).values() for s in shapes)
    if is_mla(arch):
        per += (arch.q_lora_rank or 0) + (arch.kv_lora_rank or 0)
    hd = head_dim(arch)
    if arch.qk_norm == "head":  # Qwen3, Gemma 3: RMSNorm(head_dim) shared by every head
        per += 2 * hd
    elif arch.qk_norm == "full":  # OLMo 2, Cohere, StableLM: a weight per head and channel
        per += (arch.num_attention_heads + arch.num_key_value_heads) * hd
    if arch.attention_sinks:
        per += arch.num_attention_heads
    return per


def ssm_params_per_layer(arch: ModelPreset) -> int:
    """One Mamba mixer, as ``MambaMixer`` / ``Mamba2Mixer`` / ``JambaMambaMixer`` /
    ``NemotronHMamba2Mixer`` build it (see the module docstring)."""
    s = arch.ssm
    if s is None:
        return 0
    h, d, n, k = arch.hidden_size, s.d_inner, s.state_size, s.conv_kernel
    if s.version == 1:
        in_proj = h * 2 * d + (2 * d if s.proj_bias else 0)
        conv = d * k + (d if s.conv_bias else 0)
        x_proj = d * (s.dt_rank + 2 * n)
        dt_proj = s.dt_rank * d + d
        a_log_d = d * n + d
        out_proj = d * h + (h if s.proj_bias else 0)
        inner = (s.dt_rank + 2 * n) if s.inner_norms else 0
        return in_proj + conv + x_proj + dt_proj + a_log_d + out_proj + inner
    conv_dim = d + 2 * s.n_groups * n
    proj = d + conv_dim + s.n_heads
    in_proj = h * proj + (proj if s.proj_bias else 0)
    conv = conv_dim * k + (conv_dim if s.conv_bias else 0)
    heads = 3 * s.n_heads  # dt_bias, A_log, D
    out_proj = d * h + (h if s.proj_bias else 0)
    return in_proj + conv + heads + d + out_proj  # + the gated RMSNorm over d_inner


def dense_mlp_params(arch: ModelPreset) -> int:
    """Every dense MLP of the model, each at its own width when ``layer_intermediate_sizes``
    lists them (DeciLM / Nemotron-NAS), else ``intermediate_size`` in every dense layer."""
    h = arch.hidden_size
    widths = arch.layer_intermediate_sizes or (arch.intermediate_size,) * arch.num_hidden_layers
    return sum(
        mlp_params(h, w, gated=arch.mlp_gated, bias=arch.mlp_bias)
        for w, kind in zip(widths, mlp_types(arch), strict=True)
        if kind == "dense"
    )


def count_params(arch: ModelPreset) -> ParamCounts:
    """Count the parameters of ``arch`` (see the module docstring for each formula's origin)."""
    h = arch.hidden_size
    v = arch.vocab_size
    dense, moe = layer_split(arch)
    attn_layers = attention_layer_count(arch)
    ssm_layers = sum(1 for m in arch.layer_types or () if m.startswith("mamba"))

    emb_dim = arch.embedding_proj_dim or h
    embedding = v * emb_dim + arch.position_embeddings * h
    lm_head = 0 if arch.tie_word_embeddings else v * emb_dim
    lm_head += v if arch.lm_head_bias else 0
    other = arch.extra_params
    if emb_dim != h:  # OPT-350m: project_in and project_out (no bias)
        other += 2 * emb_dim * h
    attention = attention_params_per_layer(arch)
    ssm = ssm_params_per_layer(arch)
    linear = linear_attention_params_per_layer(arch)
    linear_layers = linear_attention_layer_count(arch)
    mlp = mlp_params(h, arch.intermediate_size, gated=arch.mlp_gated, bias=arch.mlp_bias)
    dense_mlp = dense_mlp_params(arch) if arch.layer_intermediate_sizes else dense * mlp
    other += arch.linear_replacements * h * h
    other += indexer_params(arch)  # DeepSeek-V3.2 / GLM-5 lightning indexers (active)

    moe_total = moe_active = expert = 0
    if moe:
        experts = arch.num_experts or 0
        expert = mlp_params(
            expert_width(arch),
            expert_intermediate(arch),
            gated=arch.mlp_gated,
            bias=arch.expert_bias,
        )
        router_bias = arch.router_bias or arch.model_type in ROUTER_BIAS_MODEL_TYPES
        router = experts * h + (experts if router_bias else 0)
        shared = mlp_params(h, shared_expert_intermediate(arch), gated=arch.mlp_gated, bias=False)
        shared += h if arch.shared_expert_gate else 0
        shared += latent_projection_params(arch)  # LatentMoE: run for every token
        k = min(arch.num_experts_per_tok or experts, experts)
        moe_total = router + experts * expert + shared
        moe_active = router + k * expert + shared

    if arch.norms_per_sublayer:  # DeciLM: a norm before each block present
        norms = (attn_layers + dense + moe + arch.linear_replacements) * norm_params(arch, h)
    else:
        norms = arch.num_hidden_layers * norms_per_layer(arch) * norm_params(arch, h)
    norms += norm_params(arch, h) if arch.final_norm else 0
    norms += norm_params(arch, h) if arch.embedding_norm else 0  # BLOOM word_embeddings_layernorm
    total = (
        embedding
        + lm_head
        + attn_layers * attention
        + ssm_layers * ssm
        + linear_layers * linear
        + dense_mlp
        + moe * moe_total
        + norms
        + other
    )
    active = total - moe * (moe_total - moe_active) - arch.extra_params
    return ParamCounts(
        total=total,
        active=active,
        embedding=embedding,
        lm_head=lm_head,
        attention_per_layer=attention,
        mlp_per_layer=mlp if dense else 0,
        moe_per_layer=moe_total,
        moe_active_per_layer=moe_active,
        norms=norms,
        dense_layers=dense,
        moe_layers=moe,
        attention_layers=attn_layers,
        ssm_per_layer=ssm,
        ssm_layers=ssm_layers,
        routed_expert=expert,
        other=other,
        linear_attention_per_layer=linear,
        linear_attention_layers=linear_layers,
    )
