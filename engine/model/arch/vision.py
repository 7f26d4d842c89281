"""Vision towers of multimodal configs (weights the GPU holds besides the language model).

* SigLIP (``SiglipVisionConfig`` defaults: hidden 768, intermediate 3072, 12 layers, 3
  channels, image 224, patch 16; ``modeling_siglip.py``): patch ``Conv2d`` with bias, learned
  positions for (image / patch)² patches, per layer two LayerNorms, q/k/v/out with bias and a
  two-matrix MLP with bias, ``post_layernorm``; the attention-pooling head only when
  ``vision_use_head`` (default true; Gemma 3 turns it off).
* CLIP (``CLIPVisionConfig`` defaults: hidden 768, intermediate 3072, 12 layers, image 224,
  patch 32; ``modeling_clip.py``): patch ``Conv2d`` without bias, ``class_embedding``,
  positions for patches + 1, ``pre_layrnorm``, the same encoder layers, ``post_layernorm``.

* Qwen2-VL, Qwen2.5-VL and Qwen3-VL (dense and MoE): see :func:`qwen2_vl`, :func:`qwen2_5_vl`
  and :func:`qwen3_vl`; their
  mergers (the projectors) are part of the tower.

* Pixtral (``PixtralVisionConfig`` defaults: hidden 1024, intermediate 4096, 24 layers, 16
  heads, 3 channels, patch 16; ``models/pixtral/modeling_pixtral.py``): ``patch_conv`` Conv2d
  without bias, ``ln_pre`` RMSNorm, per layer ``attention_norm`` and ``ffn_norm`` RMSNorms,
  q/k/v/o ``hidden x hidden`` without bias and a gated MLP (gate/up/down, no bias); 2-D rotary
  positions (a buffer, no weights); no final norm.

* Llama 4 (``Llama4VisionModel``, ``models/llama4/modeling_llama4.py``): ``patch_embedding``
  (an unfold and a Linear ``channels x patch^2 -> hidden`` without bias), ``class_embedding``,
  ``positional_embedding_vlm`` for ``(image / patch)^2 + 1`` positions, ``layernorm_pre`` and
  ``layernorm_post`` (LayerNorm with bias), ``num_hidden_layers`` encoder layers (q/k/v/o with
  bias, ``fc1`` / ``fc2`` of ``intermediate_size`` with bias, two LayerNorms with bias) and the
  ``vision_adapter`` (pixel shuffle, then ``fc1`` ``intermediate_size -> projector_input_dim``
  and ``fc2`` ``-> projector_output_dim``, no bias); its projector is one Linear
  ``vision_output_dim -> text hidden`` without bias.  A published per-module table of
  Llama-4-Scout (code index id 41112263523) lists exactly these shapes, and the text model plus
  this tower is the Hub's Scout total (108,641,793,536).

Projectors: Gemma 3 ``Gemma3MultiModalProjector`` (``mm_input_projection_weight`` vision x text
and ``mm_soft_emb_norm``); LLaVA ``LlavaMultiModalProjector`` (two Linears with bias); Mistral 3
``Mistral3MultiModalProjector`` (``models/mistral3/modeling_mistral3.py``): an RMSNorm over the
vision width, ``Mistral3PatchMerger.merging_layer`` (``vision x spatial_merge_size^2`` ->
vision, no bias), ``linear_1`` (vision x feature layers -> text) and ``linear_2`` (text ->
text), with bias only when ``multimodal_projector_bias``.  Mistral-Small-3.1 / 3.2's 24B
total (24,011,361,280) is the text model plus this tower and projector exactly.
"""

from __future__ import annotations

import math
from typing import Any

from slotwise.engine.model.arch.reader import ConfigReader
from slotwise.parts.safe_io import shorten


def _encoder_layers(h: int, inter: int, layers: int) -> int:
    attn = 4 * (h * h + h)
    mlp = h * inter + inter + inter * h + h
    return layers * (attn + mlp + 2 * 2 * h)


def siglip(r: ConfigReader) -> int:
    h = r.num("hidden_size", default=768)
    inter = r.num("intermediate_size", default=3072)
    layers = r.num("num_hidden_layers", default=12)
    channels = r.num("num_channels", default=3)
    image = r.num("image_size", default=224)
    patch = r.num("patch_size", default=16)
    total = channels * patch * patch * h + h + (image // patch) ** 2 * h
    total += _encoder_layers(h, inter, layers) + 2 * h
    if r.flag("vision_use_head", default=True):
        # SiglipMultiheadAttentionPoolingHead: probe, nn.MultiheadAttention, LayerNorm, MLP.
        total += h + (3 * h * h + 3 * h) + (h * h + h) + 2 * h + (h * inter + inter + inter * h + h)
    return total


def clip(r: ConfigReader) -> int:
    h = r.num("hidden_size", default=768)
    inter = r.num("intermediate_size", default=3072)
    layers = r.num("num_hidden_layers", default=12)
    channels = r.num("num_channels", default=3)
    image = r.num("image_size", default=224)
    patch = r.num("patch_size", default=32)
    total = channels * patch * patch * h + h + ((image // patch) ** 2 + 1) * h
    return total + 2 * h + _encoder_layers(h, inter, layers) + 2 * h


def qwen3_vl(r: ConfigReader, deepstack_default: tuple[int, ...] = (8, 16, 24)) -> int:
    """Qwen3-VL vision model with its mergers (``Qwen3VLVisionModel``, ``modeling_qwen3_vl.py``;
    ``Qwen3VLVisionConfig`` / ``Qwen3VLMoeVisionConfig`` defaults): ``patch_embed`` Conv3d
    (``in_channels`` -> hidden over ``temporal_patch_size x patch x patch``, bias), ``pos_embed``
    of ``num_position_embeddings`` rows, ``depth`` blocks like CLIP's (two LayerNorms, fused qkv
    and proj with bias, two-matrix MLP with bias), the ``merger`` (LayerNorm over hidden, then
    ``hidden x merge^2`` -> same -> ``out_hidden_size``, with biases) and one more merger per
    ``deepstack_visual_indexes`` entry whose LayerNorm is over ``hidden x merge^2``
    (``use_postshuffle_norm``)."""
    h = r.num("hidden_size", default=1152)
    inter = r.num("intermediate_size", default=4304)
    depth = r.num("depth", default=27)
    channels = r.num("in_channels", default=3)
    patch = r.num("patch_size", default=16)
    frames = r.num("temporal_patch_size", default=2)
    merge = r.num("spatial_merge_size", default=2)
    out = r.num("out_hidden_size", default=3584)
    positions = r.num("num_position_embeddings", default=2304)
    deepstack = r.int_list("deepstack_visual_indexes")
    if deepstack is None:
        deepstack = list(deepstack_default)
        r.defaults_used.append(f"deepstack_visual_indexes={deepstack}")
    merged = h * merge * merge

    def merger(norm_width: int) -> int:
        return 2 * norm_width + merged * merged + merged + merged * out + out

    total = channels * frames * patch * patch * h + h + positions * h
    total += _encoder_layers(h, inter, depth) + merger(h) + len(deepstack) * merger(merged)
    return total


def qwen2_5_vl(r: ConfigReader) -> int:
    """Qwen2.5-VL vision transformer with its merger (``Qwen2_5_VisionTransformerPretrainedModel``,
    ``modeling_qwen2_5_vl.py``; ``Qwen2_5_VLVisionConfig`` defaults): ``patch_embed`` Conv3d
    without bias, no position weights (2-D rotary), ``depth`` blocks of two RMSNorms, fused qkv
    and proj with bias and a gated MLP (gate/up/down with bias), then the ``merger``: RMSNorm
    ``ln_q`` over hidden and ``hidden x merge^2`` -> same -> ``out_hidden_size`` with biases."""
    h = r.num("hidden_size", default=3584)
    inter = r.num("intermediate_size", default=3420)
    depth = r.num("depth", default=32)
    channels = r.num("in_channels", "in_chans", default=3)
    patch = r.num("patch_size", default=14)
    frames = r.num("temporal_patch_size", default=2)
    merge = r.num("spatial_merge_size", default=2)
    out = r.num("out_hidden_size", default=3584)
    merged = h * merge * merge
    block = 2 * h + (3 * h * h + 3 * h) + (h * h + h) + 2 * (h * inter + inter) + inter * h + h
    merger = h + merged * merged + merged + merged * out + out
    return channels * frames * patch * patch * h + depth * block + merger


def qwen2_vl(r: ConfigReader) -> int:
    """Qwen2-VL vision transformer with its merger (``Qwen2VisionTransformerPretrainedModel``,
    ``models/qwen2_vl/modeling_qwen2_vl.py``; ``Qwen2VLVisionConfig`` defaults: ``embed_dim``
    1280, ``depth`` 32, ``mlp_ratio`` 4, patch 14, 2 frames, merge 2, ``hidden_size`` 3584 = the
    language model's width the merger writes): ``patch_embed`` Conv3d without bias, no position
    weights (2-D rotary), ``depth`` blocks of two LayerNorms (weight and bias), fused qkv and
    proj with bias and a two-matrix QuickGELU MLP ``embed_dim x mlp_ratio`` with biases, then
    ``PatchMerger``: LayerNorm ``ln_q`` over ``embed_dim`` and ``embed_dim x merge^2`` -> same
    -> ``hidden_size``, with biases.  Unlike Qwen2.5-VL's, this config's ``hidden_size`` is the
    merger's output, not the tower's width."""
    e = r.num("embed_dim", default=1280)
    depth = r.num("depth", default=32)
    ratio = r.raw("mlp_ratio", default=4)
    if (
        isinstance(ratio, bool)
        or not isinstance(ratio, int | float)
        or not math.isfinite(ratio)
        or not 0 < ratio <= 64
    ):
        r.bad.append(f"mlp_ratio={shorten(ratio)} (must be a number above 0, at most 64)")
        ratio = 4
    inter = int(e * ratio)
    channels = r.num("in_channels", "in_chans", default=3)
    patch = r.num("patch_size", "spatial_patch_size", default=14)
    frames = r.num("temporal_patch_size", default=2)
    merge = r.num("spatial_merge_size", default=2)
    out = r.num("hidden_size", default=3584)
    merged = e * merge * merge
    block = 2 * 2 * e + (3 * e * e + 3 * e) + (e * e + e) + (e * inter + inter) + (inter * e + e)
    merger = 2 * e + merged * merged + merged + merged * out + out
    return channels * frames * patch * patch * e + depth * block + merger


def llama4_vision(r: ConfigReader) -> int:
    h = r.num("hidden_size")
    inter = r.num("intermediate_size")
    layers = r.num("num_hidden_layers")
    channels = r.num("num_channels", default=3)
    image = r.num("image_size")
    patch = r.num("patch_size")
    proj_in = r.num("projector_input_dim")
    proj_out = r.num("projector_output_dim")
    positions = (image // patch) ** 2 + 1
    layer = 4 * (h * h + h) + (h * inter + inter) + (inter * h + h) + 2 * 2 * h
    adapter = inter * proj_in + proj_in * proj_out
    return channels * patch * patch * h + h + positions * h + 2 * 2 * h + layers * layer + adapter


def pixtral(r: ConfigReader) -> int:
    h = r.num("hidden_size", default=1024)
    inter = r.num("intermediate_size", default=4096)
    layers = r.num("num_hidden_layers", default=24)
    channels = r.num("num_channels", default=3)
    patch = r.num("patch_size", default=16)
    layer = 2 * h + 4 * h * h + 3 * h * inter
    return channels * patch * patch * h + h + layers * layer


def mistral3_projector(
    outer: dict[str, Any], vision_hidden: int, text_hidden: int, source: str
) -> int:
    """``Mistral3MultiModalProjector`` (see the module docstring)."""
    r = ConfigReader(outer, source)
    merge = r.num("spatial_merge_size", default=2)
    layers = outer.get("vision_feature_layer", -1)
    feature_layers = len(layers) if isinstance(layers, list) and layers else 1
    bias = r.flag("multimodal_projector_bias", default=False)
    merged = vision_hidden * merge * merge
    linear_1 = vision_hidden * feature_layers * text_hidden + (text_hidden if bias else 0)
    linear_2 = text_hidden * text_hidden + (text_hidden if bias else 0)
    r.check()
    return vision_hidden + merged * vision_hidden + linear_1 + linear_2


def qwen3_5(r: ConfigReader) -> int:
    """Qwen3.5's vision model (``Qwen3_5VisionConfig`` / ``Qwen3_5MoeVisionConfig``): Qwen3-VL's
    tower without deepstack mergers (the config class has no ``deepstack_visual_indexes``)."""
    return qwen3_vl(r, deepstack_default=())


#: ``modeling_phi3_v.py`` CLIP_VIT_LARGE_PATCH14_336_CONFIG: the tower Phi-3-vision builds (its
#: config.json names it only as ``img_processor.model_name``).
CLIP_VIT_LARGE_PATCH14_336 = {
    "hidden_size": 1024,
    "intermediate_size": 4096,
    "num_hidden_layers": 24,
    "image_size": 336,
    "patch_size": 14,
}


def phi3_v_image_embedding(r: ConfigReader, text_hidden: int) -> int:
    """Phi-3 / Phi-3.5-vision's ``Phi3ImageEmbedding`` (remote ``modeling_phi3_v.py``): the whole
    CLIP ViT-L/14-336 vision model, the learnable separators ``glb_GN`` and ``sub_GN`` (``4 x
    image_dim_out`` each, with ``with_learnable_separator``) and ``img_projection``: a Linear
    (``projection_cls`` linear) or Linear-GELU-Linear to the text width, from ``4 x
    image_dim_out`` with the HD transform; 0 with a warning for another tower."""
    proc = r.cfg.get("img_processor")
    layer = r.cfg.get("embd_layer")
    if not isinstance(proc, dict) or not isinstance(layer, dict):
        return 0
    name, model = proc.get("name"), proc.get("model_name")
    if name != "clip_vision_model" or model != "openai/clip-vit-large-patch14-336":
        r.warnings.append(
            f"{r.source}: image processor {shorten(model or name)} not counted; the weights "
            "figure covers the language model only"
        )
        return 0
    dim = ConfigReader(proc, f"{r.source} img_processor").num("image_dim_out", default=1024)
    total = clip(ConfigReader(dict(CLIP_VIT_LARGE_PATCH14_336), "CLIP ViT-L/14-336"))
    hd = layer.get("use_hd_transform") is True
    if layer.get("with_learnable_separator") is True:
        total += 2 * 4 * dim
    if layer.get("projection_cls", "linear") == "mlp":
        width = 4 * dim if hd else dim
        total += width * text_hidden + text_hidden + text_hidden * text_hidden + text_hidden
    else:
        total += dim * text_hidden + text_hidden
    r.notes.append(f"image embedding (CLIP ViT-L/14-336 and projection) counted: {total:,} weights")
    return total


def moonvit(r: ConfigReader, text_hidden: int) -> int:
    """Kimi K2.5's MoonViT3d with its ``patchmerger`` projector (remote ``modeling_kimi_k25.py``;
    the config's ``vt_*`` fields): ``patch_embed`` Conv2d (3 -> hidden over ``patch_size``,
    bias), a learnable 2-D position grid of ``init_pos_emb_height x init_pos_emb_width``
    (``pos_emb_type`` divided_fixed: the time embedding is a fixed sin-cos table, no weights),
    ``vt_num_hidden_layers`` blocks like CLIP's (two LayerNorms, fused qkv and out with bias,
    two-matrix MLP with bias), a final LayerNorm, then the projector: LayerNorm over
    ``mm_hidden_size`` and Linear(4 x mm_hidden, same) - GELU - Linear(-, text hidden), biases.
    Any other position or projector type is refused (0 with the caller's warning)."""
    if r.text("pos_emb_type") != "divided_fixed" or r.text("mm_projector_type") != "patchmerger":
        return 0
    h = r.num("vt_hidden_size")
    inter = r.num("vt_intermediate_size")
    layers = r.num("vt_num_hidden_layers")
    patch = r.num("patch_size")
    grid = r.num("init_pos_emb_height") * r.num("init_pos_emb_width")
    kernel = r.int_list("merge_kernel_size") or [2, 2]
    mm = r.num("mm_hidden_size", default=h)
    out = r.num("text_hidden_size", default=text_hidden)
    merged = mm * kernel[0] * kernel[-1]
    tower = 3 * patch * patch * h + h + grid * h + _encoder_layers(h, inter, layers) + 2 * h
    return tower + 2 * mm + merged * merged + merged + merged * out + out


#: Multimodal configs whose vision_config names no model_type: the tower by the outer type.
OUTER_TOWERS = {
    "kimi_k25": moonvit,
    # Qwen2-VL's first configs: vision_config without model_type (Qwen2VLVisionConfig).
    "qwen2_vl": lambda r, _text_hidden: qwen2_vl(r),
}

TOWERS = {
    "qwen2_vl": qwen2_vl,
    "qwen2_5_vl": qwen2_5_vl,
    "pixtral": pixtral,
    "llama4_vision_model": llama4_vision,
    "siglip_vision_model": siglip,
    "clip_vision_model": clip,
    "qwen3_vl": qwen3_vl,
    "qwen3_vl_moe": qwen3_vl,
    "qwen3_vl_moe_vision": qwen3_vl,
    "qwen3_5": qwen3_5,
    "qwen3_5_vision": qwen3_5,
    "qwen3_5_moe": qwen3_5,
    "qwen3_5_moe_vision": qwen3_5,
}


def vision_params(
    outer: dict[str, Any], text_hidden: int, source: str
) -> tuple[int, list[str], list[str]]:
    """(weights of the vision tower + projector, warnings, notes) for a multimodal config."""
    vc = outer.get("vision_config")
    if not isinstance(vc, dict):
        return 0, [], []
    kind = vc.get("model_type")
    tower = TOWERS.get(kind) if isinstance(kind, str) else None
    outer_type = outer.get("model_type")
    by_outer = OUTER_TOWERS.get(outer_type) if isinstance(outer_type, str) else None
    if tower is None and by_outer is not None:
        r = ConfigReader(vc, f"{source} vision_config")
        total = by_outer(r, text_hidden)
        r.check()
        if total:
            note = f"vision tower ({outer_type}) and projector counted: {total:,} weights"
            return total, [], [note]
        kind = f"{outer_type} with pos_emb_type {vc.get('pos_emb_type')}"
    if tower is None:
        return (
            0,
            [
                f"{source}: vision tower ({kind or 'unknown type'}) not counted; the weights "
                "figure covers the language model only"
            ],
            [],
        )
    r = ConfigReader(vc, f"{source} vision_config")
    total = tower(r)
    r.check()
    vh = r.num("hidden_size", default=768)
    if outer_type == "gemma3":
        total += vh * text_hidden + vh
    elif outer_type == "llava":
        total += vh * text_hidden + text_hidden + text_hidden * text_hidden + text_hidden
    elif outer_type == "mistral3":
        total += mistral3_projector(outer, vh, text_hidden, source)
    elif outer_type == "llama4":  # Llama4MultiModalProjector.linear_1, no bias
        total += r.num("vision_output_dim") * text_hidden
        r.check()
    return total, [], [f"vision tower ({kind}) and projector counted: {total:,} weights"]
