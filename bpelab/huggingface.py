"""Hugging Face's ``tokenizer.json``, both ways, for the BPE models the lab can match exactly.

Hugging Face's ``tokenizer.json`` describes a pipeline: added tokens, a
normalizer, a pre-tokenizer (the chunk patterns), a model (BPE: a
vocabulary and a merge list), a post-processor and a decoder.

Reading. A byte-level BPE model (its pre-tokenizer ends with ``ByteLevel``:
GPT-2's kind, Llama 3, Qwen 3, DeepSeek V3, gpt-oss) is read as
``tokenizers`` 0.23.3 reads it (``bpelab.hf_pipeline``): its IDs as given,
its merges ranked, its pipeline in the lab's words, and it encodes and
decodes as that library does. When the file is one the lab's kind of
tokenizer says exactly (one built-in pattern, IDs laid out as ours: the 256
bytes, one per merge in order, then special tokens; nothing else), it
becomes that kind: the lab wrote it. At the character level only the lab's
own files are read. Anything else is refused by name. ``load_huggingface``
builds the tokenizer with the class it is given (``bpe.Tokenizer``), so this
module never imports ``bpe``.

Writing. ``to_huggingface`` gives a file that ``tokenizers`` loads and that
gives our IDs: the lab's pattern as a ``Split`` (spelled with explicit
classes), or an imported pipeline as it was read.
"""

import json
from typing import Optional

from bpelab.checks import REPLACEMENT_CHARACTER, UNK
from bpelab.files import PathLike, parse_json, read_json, write_text_atomic
from bpelab.format3 import given_or_lab_arguments
from bpelab.hf_pipeline import PREFIX_SPACE, has_byte_level, read_pipeline, written_pipeline
from bpelab.messages import named, shown
from bpelab.patterns import PATTERNS, pattern_source

BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
"""Hugging Face's byte level with nothing else: the bytes of each piece, shown as GPT-2's characters."""


def to_huggingface(tokenizer) -> dict:
    """The tokenizer as a Hugging Face ``tokenizer.json`` dict, giving our IDs, tokens and text (``Tokenizer.to_huggingface``)."""
    if tokenizer.pipeline is not None:
        parts = written_pipeline(tokenizer.pipeline, tokenizer.vocab)
        added = [dict(token._asdict()) for token in tokenizer.pipeline.added_tokens]
        vocab = {token: token_id for token, token_id in tokenizer.ids.items()}
        model = {option: tokenizer.pipeline.model[option] for option in ("unk_token", "fuse_unk", "byte_fallback")}
    else:
        parts = lab_pipeline(tokenizer)
        added = [{"id": token_id, "content": text, "special": True, "normalized": False, "lstrip": False,
                  "rstrip": False, "single_word": False} for text, token_id in tokenizer.special_tokens.items()]
        vocab = dict(tokenizer.ids)
        model = {"unk_token": None if tokenizer.byte_level else UNK, "fuse_unk": False, "byte_fallback": False}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": token.pop("id"), "content": token.pop("content"), **token} for token in added],
        "normalizer": parts["normalizer"], "pre_tokenizer": parts["pre_tokenizer"],
        "post_processor": parts["post_processor"], "decoder": parts["decoder"],
        "model": {
            "type": "BPE", "dropout": None, "unk_token": model["unk_token"], "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": model["fuse_unk"], "byte_fallback": model["byte_fallback"],
            "ignore_merges": tokenizer.pipeline is not None and tokenizer.pipeline.ignore_merges,
            "vocab": vocab, "merges": [[left, right] for left, right in tokenizer.merges],
        },
    }


def lab_pipeline(tokenizer):
    """The Hugging Face steps of the lab's kind of tokenizer: a prefix space if asked, its pattern, the byte level."""
    split = lab_split(tokenizer.pattern)
    if tokenizer.byte_level:
        steps = ([dict(PREFIX_SPACE)] if tokenizer.add_prefix_space else []) + [split, dict(BYTE_LEVEL)]
        return {"normalizer": None, "pre_tokenizer": {"type": "Sequence", "pretokenizers": steps},
                "post_processor": None, "decoder": dict(BYTE_LEVEL)}
    decoder = {"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": UNK}, "content": REPLACEMENT_CHARACTER}, {"type": "Fuse"}]}
    return {"normalizer": None, "pre_tokenizer": split, "post_processor": None, "decoder": decoder}


def load_huggingface(cls, path: PathLike, *, raw: Optional[bytes] = None):
    """Import a Hugging Face ``tokenizer.json`` of a byte-level BPE model (Llama 3's, GPT-2's...), or one we saved.

    (``Tokenizer.load_huggingface``.) The tokenizer is built with ``cls``;
    what it cannot match exactly is refused, saying what. ``raw``, if given,
    is the file's bytes, already read (a pipe can be read only once).
    """
    data = read_json(path) if raw is None else parse_json(raw, path)
    try:
        return from_huggingface_body(cls, data)
    except ValueError as error:
        raise ValueError(f"{named(path)}: {error}") from None


def from_huggingface_body(cls, data):
    """The tokenizer a Hugging Face body describes, if it is one we can give the same IDs as."""
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise ValueError("not a Hugging Face tokenizer.json: no 'model' object")
    if is_lab_character_level(data):
        return character_level(cls, data)
    vocab, merges, pipeline = read_pipeline(data)
    return cls(**given_or_lab_arguments(vocab, merges, pipeline))


def is_lab_character_level(data):
    """Whether a body is a character-level file as the lab writes one: one of our patterns as a Split, ``<unk>``."""
    return not has_byte_level(data.get("pre_tokenizer")) and data["model"].get("unk_token") == UNK \
        and not data["model"].get("byte_fallback") and any(data.get("pre_tokenizer") == lab_split(name)
                                                           for name in PATTERNS)


def lab_split(pattern):
    """The Split step that cuts text by one of the lab's patterns."""
    return {"type": "Split", "pattern": {"Regex": pattern_source(pattern, "oniguruma")}, "behavior": "Isolated",
            "invert": False}


def character_level(cls, data):
    """A character-level file, as the lab writes one: plain BPE, our pattern as a Split, ``<unk>`` and the alphabet."""
    model = data["model"]
    if model.get("type") != "BPE":
        raise ValueError(f"model type {shown(model.get('type'))} is not supported: only BPE models can be imported")
    pre_tokenizer = data.get("pre_tokenizer")
    pattern = next(name for name in PATTERNS if pre_tokenizer == lab_split(name))
    for option, harmless in [("dropout", (None, 0, 0.0)), ("continuing_subword_prefix", (None, "")),
                             ("end_of_word_suffix", (None, "")), ("byte_fallback", (None, False)),
                             ("ignore_merges", (None, False))]:
        if model.get(option) not in harmless:
            raise ValueError(f"the model's {option} is {shown(model.get(option))}; only plain BPE is supported")
    if data.get("normalizer") not in (None, {"type": "Sequence", "normalizers": []}) or data.get("post_processor"):
        raise ValueError("a character-level file with a normalizer or a post-processor is not supported")
    vocab, merges = model.get("vocab"), model.get("merges")
    if not isinstance(vocab, dict) or not isinstance(merges, list):
        raise ValueError("the model needs a 'vocab' object and a 'merges' list")
    merges = [merge.split(" ") if isinstance(merge, str) else merge for merge in merges]
    specials = {}
    for added in data.get("added_tokens") or []:
        text = added.get("content") if isinstance(added, dict) else None
        if not isinstance(text, str) or text in specials:
            raise ValueError(f"added token {shown(added)} must have a string content, listed once")
        specials[text] = added.get("id")
    ordinary = {token: token_id for token, token_id in vocab.items() if specials.get(token) != token_id}
    by_id = {token_id: token for token, token_id in ordinary.items() if type(token_id) is int}
    base_size = len(by_id) - len(merges)
    if sorted(by_id) != list(range(len(ordinary))) or base_size < 1 or by_id[0] != UNK:
        raise ValueError(f"IDs are not laid out as supported at the character level: {UNK} as ID 0, the "
                         "alphabet, one ID per merge in order, then the added tokens")
    tokenizer = cls([by_id[token_id] for token_id in range(1, base_size)], merges, pattern=pattern,
                    special_tokens=specials)
    for token, token_id in ordinary.items():
        if tokenizer.ids.get(token) != token_id:
            raise ValueError(f"the merges do not make the vocabulary's tokens in ID order: {shown(token)} has ID "
                             f"{token_id}, but the merges make it {tokenizer.ids.get(token)}")
    return tokenizer


def save_huggingface(tokenizer, path: PathLike) -> None:
    """Write a ``tokenizer.json`` that ``tokenizers.Tokenizer.from_file`` loads, atomically (``Tokenizer.save_huggingface``)."""
    write_text_atomic(path, json.dumps(tokenizer.to_huggingface(), indent=1, ensure_ascii=False) + "\n")


def apply_template(tokenizer, ids, pair=None) -> list:
    """The IDs with the post-processor's tokens around them (``Tokenizer.apply_template``).

    A beginning-of-text token, say, as Hugging Face's ``encode(text,
    add_special_tokens=True)`` adds them; unchanged (``pair`` appended) when
    there is no template. ``encode`` itself never adds them.
    """
    if tokenizer.pipeline is None:
        return list(ids) + ([] if pair is None else list(pair))
    return tokenizer.pipeline.apply_template(ids, pair)
