"""Vision towers of multimodal configs (weights the GPU holds besides the language model).

* SigLIP (``SiglipVisionConfig`` defaults: hidden 768, intermediate 3072, 12 layers, 3
  channels, image 224, patch 16; ``modeling_siglip.py``): patch ``Conv2d`` with bias, learned
  positions for (image / patch)² patches, per layer two LayerNorms, q/k/v/out with bias and a
  two-matrix MLP with bias, ``post_layernorm``; the attention-pooling head only when
  ``vision_use_head`` (default true; Gemma 3 turns it off).
* CLIP (``CLIPVisionConfig`` defaults: hidden 768, intermediate 3072, 12 layers, image 224,
  patch 32; ``modeling_clip.py``): patch ``Conv2d`` without bias, ``class_embedding``,
  positions for patches + 1, ``pre_layrnorm``, the same encoder layers, ``post_layernorm``.

Projectors: Gemma 3 ``Gemma3MultiModalProjector`` (``mm_input_projection_weight`` vision x text
and ``mm_soft_emb_norm``); LLaVA ``LlavaMultiModalProjector`` (two Linears with bias).
"""

from __future__ import annotations

from typing import Any

from slotwise.engine.estimate.arch.reader import ConfigReader


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


TOWERS = {"siglip_vision_model": siglip, "clip_vision_model": clip}


def vision_params(
    outer: dict[str, Any], text_hidden: int, source: str
) -> tuple[int, list[str], list[str]]:
    """(weights of the vision tower + projector, warnings, notes) for a multimodal config."""
    vc = outer.get("vision_config")
    if not isinstance(vc, dict):
        return 0, [], []
    kind = vc.get("model_type")
    tower = TOWERS.get(kind) if isinstance(kind, str) else None
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
    outer_type = outer.get("model_type")
    if outer_type == "gemma3":
        total += vh * text_hidden + vh
    elif outer_type == "llava":
        total += vh * text_hidden + text_hidden + text_hidden * text_hidden + text_hidden
    return total, [], [f"vision tower ({kind}) and projector counted: {total:,} weights"]
