"""Hugging Face's ``tokenizer.json``, both ways, for the BPE models the lab can match exactly.

Hugging Face's ``tokenizer.json`` describes a pipeline: a normalizer, a
pre-tokenizer (our chunk pattern), a model (BPE: a vocabulary and a merge
list), a post-processor and a decoder. We write BPE models with our own
pattern as a ``Split`` pre-tokenizer, and read those back, as well as the
GPT-2 kind: a ``ByteLevel`` pre-tokenizer with its built-in regex, which is
GPT-2's pattern (``gpt2`` here; its ``\\s`` leaves out U+001C-001F, which
Python's counts). IDs must be laid out as ours are: the 256 bytes (in any
order) or ``<unk>`` and the sorted alphabet, then one ID per merge in
order, then the special ("added") tokens. Anything else is refused by name.
``load_huggingface`` builds the tokenizer with the class it is given
(``bpe.Tokenizer``), so this module never imports ``bpe``.
"""

import json
from typing import Optional

from bpelab.checks import REPLACEMENT_CHARACTER, UNK
from bpelab.files import PathLike, parse_json, read_json, write_text_atomic
from bpelab.messages import named, shown
from bpelab.patterns import PATTERNS, pattern_source


def to_huggingface(tokenizer) -> dict:
    """The tokenizer as a Hugging Face ``tokenizer.json`` dict, giving our IDs, tokens and text (``Tokenizer.to_huggingface``)."""
    split = {
        "type": "Split",
        "pattern": {"Regex": pattern_source(tokenizer.pattern, "oniguruma")},
        "behavior": "Isolated",
        "invert": False,
    }
    if tokenizer.byte_level:
        byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
        pre_tokenizer = {"type": "Sequence", "pretokenizers": [split, byte_level]}
        decoder = byte_level
    else:
        pre_tokenizer = split
        decoder = {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": UNK}, "content": REPLACEMENT_CHARACTER},
            {"type": "Fuse"},
        ]}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": token_id, "content": text, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for text, token_id in tokenizer.special_tokens.items()
        ],
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": decoder,
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None if tokenizer.byte_level else UNK,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": dict(tokenizer.ids),
            "merges": [[left, right] for left, right in tokenizer.merges],
        },
    }


def load_huggingface(cls, path: PathLike, *, raw: Optional[bytes] = None):
    """Import a Hugging Face ``tokenizer.json`` of the byte-level BPE kind (GPT-2's), or one we saved.

    (``Tokenizer.load_huggingface``.) The tokenizer is built with ``cls``;
    what it cannot match exactly is refused, saying what. ``raw``, if given,
    is the file's bytes, already read (a pipe can be read only once).
    """
    data = read_json(path) if raw is None else parse_json(raw, path)
    try:
        return _from_huggingface_body(cls, data)
    except ValueError as error:
        raise ValueError(f"{named(path)}: {error}") from None


def _from_huggingface_body(cls, data):
    """The tokenizer a Hugging Face body describes, if it is one we can give the same IDs as."""
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise ValueError("not a Hugging Face tokenizer.json: no 'model' object")
    model = data["model"]
    _check_plain_bpe(data, model)
    byte_level, pattern = _huggingface_pre_tokenizer(data.get("pre_tokenizer"))
    vocab, merges = model.get("vocab"), model.get("merges")
    if not isinstance(vocab, dict) or not isinstance(merges, list):
        raise ValueError("the model needs a 'vocab' object and a 'merges' list")
    merges = [merge.split(" ") if isinstance(merge, str) else merge for merge in merges]
    specials = _huggingface_added_tokens(data.get("added_tokens", []))
    ordinary = {token: token_id for token, token_id in vocab.items() if specials.get(token) != token_id}
    alphabet = _huggingface_alphabet(ordinary, len(merges), byte_level)
    tokenizer = cls(alphabet, merges, byte_level=byte_level, pattern=pattern, special_tokens=specials)
    for token, token_id in ordinary.items():
        if tokenizer.ids.get(token) != token_id:
            raise ValueError(f"the merges do not make the vocabulary's tokens in ID order: {shown(token)} has ID "
                             f"{token_id}, but the merges make it {tokenizer.ids.get(token)}")
    return tokenizer


def _check_plain_bpe(data, model):
    """Refuse a pipeline that does more than plain byte-pair encoding: other models, options, text changes."""
    if model.get("type") != "BPE":
        raise ValueError(f"model type {shown(model.get('type'))} is not supported: only BPE models can be imported")
    for option, harmless in [("dropout", (None, 0, 0.0)), ("continuing_subword_prefix", (None, "")),
                             ("end_of_word_suffix", (None, "")), ("byte_fallback", (None, False)),
                             ("ignore_merges", (None, False))]:
        if model.get(option) not in harmless:
            raise ValueError(f"the model's {option} is {shown(model.get(option))}; only plain BPE is supported")
    if data.get("normalizer") not in (None, {"type": "Sequence", "normalizers": []}):
        raise ValueError(f"normalizer {shown(data.get('normalizer'))} changes the text before it is split; unsupported")
    post = data.get("post_processor")
    if post is not None and (not isinstance(post, dict) or post.get("type") != "ByteLevel"):
        raise ValueError(f"post_processor {shown(post)} adds or changes tokens after encoding; unsupported")


def _huggingface_alphabet(ordinary, merge_count, byte_level):
    """The base tokens of a vocabulary laid out as ours are: base tokens, then one ID per merge."""
    by_id = {}
    for token, token_id in ordinary.items():
        if isinstance(token_id, bool) or not isinstance(token_id, int) or token_id in by_id:
            raise ValueError(f"vocab entry {shown(token)} has ID {shown(token_id)}; IDs must be distinct ints")
        by_id[token_id] = token
    base_size = len(by_id) - merge_count
    if sorted(by_id) != list(range(len(by_id))) or base_size != (256 if byte_level else max(base_size, 1)):
        raise ValueError(
            "IDs are not laid out as supported: the base tokens (256 bytes, or <unk> and the alphabet), then one "
            "per merge in order, then the added tokens (a vocabulary in another order, such as RoBERTa's, is not)"
        )
    if byte_level:
        return [by_id[token_id] for token_id in range(256)]
    if by_id[0] != UNK:
        raise ValueError(f"a character-level model must have {UNK} as ID 0, not {shown(by_id[0])}")
    return [by_id[token_id] for token_id in range(1, base_size)]


def _huggingface_pre_tokenizer(pre_tokenizer):
    """``(byte_level, pattern)`` for a pre-tokenizer we can match: GPT-2's ByteLevel, or our own Split."""

    def pattern_named(split):
        regex = split.get("pattern", {}).get("Regex") if isinstance(split.get("pattern"), dict) else None
        for name in PATTERNS:
            if regex == pattern_source(name, "oniguruma") and split.get("behavior") == "Isolated" \
                    and not split.get("invert"):
                return name
        raise ValueError(f"Split pre-tokenizer {shown(split)} is not one of our built-in patterns; unsupported")

    def byte_level_step(step, use_regex):
        return (isinstance(step, dict) and step.get("type") == "ByteLevel" and not step.get("add_prefix_space")
                and step.get("use_regex", True) == use_regex)

    if byte_level_step(pre_tokenizer, True):
        return True, "gpt2"
    kind = pre_tokenizer.get("type") if isinstance(pre_tokenizer, dict) else None
    if kind == "Split":
        return False, pattern_named(pre_tokenizer)
    steps = pre_tokenizer.get("pretokenizers") if kind == "Sequence" else None
    if isinstance(steps, list) and len(steps) == 2 \
            and isinstance(steps[0], dict) and steps[0].get("type") == "Split" and byte_level_step(steps[1], False):
        return True, pattern_named(steps[0])
    raise ValueError(
        f"pre_tokenizer {shown(pre_tokenizer)} is not supported: only GPT-2's ByteLevel (without a prefix space) "
        "and the Split patterns this module writes"
    )


def _huggingface_added_tokens(added_tokens):
    """The added tokens as special tokens (text -> ID); ones that match unusually are refused."""
    if not isinstance(added_tokens, list):
        raise ValueError("added_tokens must be a list")
    specials = {}
    for added in added_tokens:
        if not isinstance(added, dict) or any(added.get(flag) for flag in ("single_word", "lstrip", "rstrip")):
            raise ValueError(f"added token {shown(added)} matches with extra rules (lstrip, rstrip, single_word); "
                             "unsupported")
        text = added.get("content")
        if not isinstance(text, str):
            raise ValueError(f"added token {shown(added)}: its content must be a string")
        if text in specials:  # Hugging Face keeps the first; a file that says both is not one we can trust
            raise ValueError(f"added token {shown(text)} is listed twice")
        specials[text] = added.get("id")
    return specials



def save_huggingface(tokenizer, path: PathLike) -> None:
    """Write a ``tokenizer.json`` that ``tokenizers.Tokenizer.from_file`` loads, atomically (``Tokenizer.save_huggingface``)."""
    write_text_atomic(path, json.dumps(tokenizer.to_huggingface(), indent=1, ensure_ascii=False) + "\n")
