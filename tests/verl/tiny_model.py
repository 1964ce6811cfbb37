"""A model directory with no weights, for verl's config code: a one-layer Qwen2 `config.json` and
a word-level tokenizer, written with the release's own transformers. verl's start-up reads a
model's config and tokenizer (HFModelConfig, hf_tokenizer) but loads weights only inside the
workers, which the harness does not start."""

import os
import tempfile


def make_tiny_model(directory=None):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, Qwen2Config

    directory = directory or tempfile.mkdtemp(prefix="rpverl-model-")
    words = ["<pad>", "<s>", "</s>", "<unk>"] + [chr(c) for c in range(ord("a"), ord("z") + 1)]
    vocab = {w: i for i, w in enumerate(words)}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>")
    fast.chat_template = "{% for m in messages %}{{ m['content'] }} {% endfor %}"
    fast.save_pretrained(directory)
    Qwen2Config(
        vocab_size=64,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=256,
        architectures=["Qwen2ForCausalLM"],
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=0,
    ).save_pretrained(directory)
    return os.path.abspath(directory)
