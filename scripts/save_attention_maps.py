#!/usr/bin/env python3
"""Saves a Hugging Face ALiBi model's attention maps in the layouts `alibi fit` and the explorers
open. Not run by the tests (no weights can be downloaded there); run it where you have
`torch`, `transformers` and `safetensors` installed and the model at hand:

    python3 scripts/save_attention_maps.py bigscience/bloom-560m "The quick brown fox" bloom.safetensors
    python3 scripts/save_attention_maps.py mosaicml/mpt-7b "Some text" mpt.npy
    alibi fit bloom.safetensors --preset bloom-560m

`output_attentions=True` gives one (B, H, Q, K) tensor of probabilities per layer.
  - .safetensors: one tensor per layer named `attentions.N` (alibi numbers layers by that N),
    and the tokens in the __metadata__: "tokens", a JSON list of each token's text (decoded
    alone), and "token_ids", a JSON list of their ids; the explorers label the axes and the
    read-out with them;
  - .npy: one stacked (L, H, Q, K) array of the first batch element (np.save), without tokens.
bf16 models: the maps are converted to float32 (np.save has no bfloat16; safetensors keeps
BF16 if you pass --keep-dtype). MPT needs `attn_config.attn_impl = "torch"` for attentions.
"""

import argparse
import json

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", help="a Hugging Face model id or folder (BLOOM, MPT, Falcon-RW, Baichuan-13B, ...)")
    ap.add_argument("text", help="the input text")
    ap.add_argument("output", help="FILE.safetensors or FILE.npy")
    ap.add_argument("--keep-dtype", action="store_true", help="safetensors: keep the model's dtype (e.g. BF16)")
    args = ap.parse_args()

    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    config = AutoConfig.from_pretrained(args.model, trust_remote_code=True)
    if getattr(config, "attn_config", None) is not None:  # MPT: only the torch path returns attentions
        config.attn_config["attn_impl"] = "torch"
    tokenizer = AutoTokenizer.from_pretrained(args.model, trust_remote_code=True)
    model = AutoModelForCausalLM.from_pretrained(args.model, config=config, trust_remote_code=True)
    model.eval()
    inputs = tokenizer(args.text, return_tensors="pt")
    with torch.no_grad():
        out = model(**inputs, output_attentions=True)
    attentions = out.attentions  # tuple of L tensors, each (B, H, Q, K)

    if args.output.endswith(".safetensors"):
        from safetensors.torch import save_file
        tensors = {f"attentions.{n}": (a if args.keep_dtype else a.float()).contiguous()
                   for n, a in enumerate(attentions)}
        ids = [int(i) for i in inputs["input_ids"][0].tolist()]
        metadata = {
            "model": args.model,
            "text": args.text[:200],
            # One string per key position, as the explorers show tokens (alibi/io/attention_maps.hpp).
            "tokens": json.dumps([tokenizer.decode([i]) for i in ids], ensure_ascii=False),
            "token_ids": json.dumps(ids),
        }
        save_file(tensors, args.output, metadata=metadata)
    else:
        np.save(args.output, torch.stack([a[0].float() for a in attentions]).numpy())
    print(f"wrote {args.output}: {len(attentions)} layers of {tuple(attentions[0].shape)}")


if __name__ == "__main__":
    main()
