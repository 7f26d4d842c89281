"""engine/estimate/checkpoint.py: the stored-weight format read from config.json.

The quantization_config blocks are copied from real checkpoints' config.json (URL per case).
"""

from __future__ import annotations

import pytest

from slotwise.engine.estimate.checkpoint import checkpoint_format

CASES = [
    # https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json
    ({"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
      "weight_block_size": [128, 128]}, "fp8", "fp8"),
    # https://huggingface.co/meta-llama/Llama-3.1-405B-Instruct-FP8/blob/main/config.json
    ({"quant_method": "fbgemm_fp8", "activation_scale_ub": 1200.0,
      "modules_to_not_convert": []}, "fp8", "fbgemm_fp8"),
    # https://huggingface.co/RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8/blob/main/config.json
    ({"quant_method": "compressed-tensors", "format": "float-quantized", "config_groups": {
        "group_0": {"targets": ["Linear"], "weights": {"type": "float", "num_bits": 8,
                                                        "strategy": "tensor"}}}}, "fp8", "FP8"),
    # https://huggingface.co/hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4
    ({"quant_method": "awq", "bits": 4, "group_size": 128, "version": "gemm"}, None,
     "4-bit awq"),
    # https://huggingface.co/TheBloke/Llama-2-7B-GPTQ/blob/main/config.json
    ({"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False}, None,
     "4-bit gptq"),
    # a checkpoint saved after bitsandbytes 4-bit loading
    ({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4"},
     None, "bitsandbytes 4-bit"),
    # compressed-tensors W4A16 (RedHatAI ...-quantized.w4a16)
    ({"quant_method": "compressed-tensors", "config_groups": {
        "group_0": {"weights": {"type": "int", "num_bits": 4}}}}, None, "4-bit"),
]  # fmt: skip


@pytest.mark.parametrize(("qc", "precision", "said"), CASES)
def test_quantization_config_maps_to_a_precision_or_a_note(qc, precision, said):
    fmt = checkpoint_format({"model_type": "llama", "quantization_config": qc})
    assert fmt.precision == precision
    assert fmt.note and said in fmt.note


def test_plain_and_odd_configs_say_nothing():
    assert checkpoint_format({"model_type": "llama"}).note is None
    assert checkpoint_format({"quantization_config": "fp8"}).precision is None
    assert checkpoint_format({"quantization_config": {"quant_method": "mystery"}}).note is None
    odd = {"quant_method": "compressed-tensors", "config_groups": {"g": "not a dict"}}
    assert checkpoint_format({"quantization_config": odd}) == checkpoint_format({})


def test_multimodal_text_config_is_read():
    cfg = {"model_type": "llava", "text_config": {"quantization_config": {"quant_method": "fp8"}}}
    assert checkpoint_format(cfg).precision == "fp8"
