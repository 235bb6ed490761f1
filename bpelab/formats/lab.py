"""The lab's tokenizer files: format 1 (the lab's), format 2 (bytes, patterns, special tokens) and format 3, both ways.

``bpe.Tokenizer.to_json`` and ``from_json`` come here. Format 1 is the lab's:
``{"format_version": 1, "alphabet": [...], "merges": [[left, right], ...]}``.
Format 2 says what format 1 cannot: ``level`` ("bytes" or "characters"),
``pattern`` (a built-in pattern's *name*, never a regular expression), at
the byte level ``bytes`` when the 256 byte tokens are not in byte order
(their display characters in ID order), ``alphabet`` at the character
level, ``merges`` (byte tokens in display form), ``special_tokens`` (text
-> ID) and, for PickyBPE's tokenizers only, ``removals`` (``[after, token]``
each, see ``bpelab.merges.picky_model``). Both are written with
``json.dumps(body, indent=1)`` plus a newline, so the bytes are fixed by the
content. IDs are never stored: the
``Tokenizer`` rebuilds them from the alphabet and the merges. Format 3
(below) stores them, for an imported model, and holds what the others cannot
(a pipeline, a prefix space, a pattern given as a regex); it is written only
when needed.
"""

import json

from bpelab.byte_level import BYTE_TO_CHAR
from bpelab.checks import REPLACEMENT_CHARACTER, UNK, check_keys, check_list
from bpelab.imported.added_tokens import AddedToken
from bpelab.imported.pipeline import MODEL_OPTIONS, Pipeline
from bpelab.messages import shown
from bpelab.text.patterns import check_name, is_name


FORMAT_VERSION = 1
"""The version of the file the lab's kind of tokenizer is saved in (see ``Tokenizer.to_json``)."""


READABLE_FORMATS = (1, 2, 3)
"""The file versions ``Tokenizer.load`` reads."""


LEVELS = {"characters": False, "bytes": True}
"""A format-2 file's ``level`` -> the tokenizer's ``byte_level``."""


def file_body(tokenizer):
    """The JSON body of a tokenizer file: format 1 for the lab's kind (characters, lab pattern, no specials)."""
    if needs_format_3(tokenizer):
        if tokenizer.removals:
            raise ValueError("a tokenizer with removals (PickyBPE's) and a prefix space cannot be saved: format 3 "
                             "holds no removals; train it without add_prefix_space")
        return format_3_body(tokenizer)
    merges = [[left, right] for left, right in tokenizer.merges]
    if not tokenizer.byte_level and tokenizer.pattern == "lab" and not tokenizer.special_tokens \
            and not tokenizer.removals:
        return {"format_version": FORMAT_VERSION, "alphabet": list(tokenizer.alphabet), "merges": merges}
    level = "bytes" if tokenizer.byte_level else "characters"
    body = {"format_version": 2, "level": level, "pattern": tokenizer.pattern}
    if tokenizer.byte_level and tokenizer.alphabet != BYTE_TO_CHAR:
        body["bytes"] = list(tokenizer.alphabet)
    if not tokenizer.byte_level:
        body["alphabet"] = list(tokenizer.alphabet)
    body["merges"] = merges
    body["special_tokens"] = dict(tokenizer.special_tokens)
    if tokenizer.removals:  # PickyBPE's (bpelab.merges.picky_model): [after how many merges, token]
        body["removals"] = [[after, token] for after, token in tokenizer.removals]
    return body


def file_text(tokenizer):
    """The text of a tokenizer file: its body as ``json.dumps(body, indent=1)``, then a newline (format 3 writes its
    merges a pair to a line: see ``format_3_text``)."""
    body = file_body(tokenizer)
    return format_3_text(body) if body["format_version"] == 3 else json.dumps(body, indent=1) + "\n"


def tokenizer_arguments(data):
    """The arguments of ``bpe.Tokenizer`` that a file body describes; a body not matching its version is refused.

    (The arguments themselves are checked by the ``Tokenizer``, as any are.)
    """
    if not isinstance(data, dict):
        raise ValueError(f"a tokenizer must be a JSON object, not {type(data).__name__}")
    if "format_version" not in data:
        raise ValueError(
            "unsupported tokenizer format: no 'format_version' key, so this is no tokenizer file of this lab "
            "(a Hugging Face tokenizer.json or a .tiktoken file is imported with load_huggingface or load_tiktoken, "
            "or on the command line with bpe convert)"
        )
    version = data.get("format_version")
    if type(version) is not int or version not in READABLE_FORMATS:
        readable = " and ".join(str(number) for number in READABLE_FORMATS)
        raise ValueError(f"unsupported tokenizer format {shown(version)}: this reader understands formats {readable}")
    if version == 3:
        return format_3_arguments(data)
    if version == 1:
        check_keys(data, ["format_version", "alphabet", "merges"], "unsupported tokenizer format 1")
        return {"alphabet": data["alphabet"], "merges": data["merges"]}
    level = data.get("level")
    if not isinstance(level, str) or level not in LEVELS:
        raise ValueError(
            f"unsupported tokenizer format 2: 'level' is {shown(level)}, but format 2 says "
            "whether its tokens are 'bytes' or 'characters'"
        )
    keys = ["format_version", "level", "pattern"]
    if not LEVELS[level]:
        keys.append("alphabet")
    elif "bytes" in data:  # the byte tokens' order, written only when it is not byte order
        keys.append("bytes")
    check_keys(data, keys + ["merges", "special_tokens"] + ["removals"] * ("removals" in data),
               "unsupported tokenizer format 2")
    if not isinstance(data["pattern"], str):
        raise ValueError(f"'pattern' must be the name of a built-in pattern, not {shown(data['pattern'])}")
    check_name(data["pattern"])  # (a regex pattern is written in format 3)
    if not isinstance(data["special_tokens"], dict):
        raise ValueError("special_tokens must be an object mapping each special token to its int ID")
    alphabet = data.get("bytes") if LEVELS[level] else data["alphabet"]
    return {"alphabet": alphabet, "merges": data["merges"], "byte_level": LEVELS[level], "pattern": data["pattern"],
            "special_tokens": data["special_tokens"], "removals": data.get("removals", ())}


# -- format 3 --------------------------------------------------------------
#
# What formats 1 and 2 cannot hold, for imported models and prefix spaces.
# A format-3 body has exactly these keys, in this order, all required:
#
# - ``format_version``: 3;
# - ``level``: what a chunk starts as: ``"bytes"``, its UTF-8 bytes (Llama 3's
#   kind), or ``"characters"``, its characters (SentencePiece's kind: Llama 2,
#   Gemma 3; ``model`` says what becomes of one the vocabulary lacks);
# - ``vocab``: the model's tokens by ID (at the byte level in GPT-2's display form), ``null`` for
#   an ID the model has no token for (a gap, or an added token's ID); the IDs
#   are stored, not rebuilt;
# - ``merges``: the ranked merges, one flat list, ``[left, right, left,
#   right, ...]``, written a pair to a line; the joined token must be in
#   ``vocab``, and may be one an earlier merge made too;
# - ``added_tokens``: each ``{"id", "content", "special", "normalized",
#   "lstrip", "rstrip", "single_word"}``, as Hugging Face has them;
# - ``normalizer``, ``pre_tokenizer``, ``decoder``: lists of steps in the
#   lab's words (``bpelab.imported.pipeline``), e.g. ``{"step": "NFC"}``, ``{"step":
#   "prepend", "text": "▁"}``, ``{"step": "replace", "old": " ", "new": "▁"}``,
#   ``{"step": "split", "pattern": {"regex": "..."}, "behavior": "isolated",
#   "invert": false}``, ``{"step": "prefix_space"}``; the decoder
#   ``[{"step": "bytes"}]`` at the byte level, else steps such as
#   ``{"step": "byte_fallback"}``, ``{"step": "fuse"}``, ``{"step": "strip",
#   "char": " ", "start": 1, "stop": 0}``, ``{"step": "metaspace",
#   "replacement": "▁", "prepend_scheme": "always"}``;
# - ``model``: ``{"ignore_merges", "byte_fallback", "unk_token", "fuse_unk"}``
#   (the last three, for the character level only, say what becomes of a
#   character the vocabulary lacks: its bytes as ``<0xXX>`` tokens, else the
#   unknown token, a run of them one with ``fuse_unk``);
# - ``post_processor``: ``null``, or a template ``{"single": ["<s>", "$A"],
#   "pair": [...], "special_tokens": {"<s>": [1]}}``.
#
# A pattern is a built-in's name (``{"name": "o200k"}``) or a regex as its
# Hugging Face source (``{"regex": ...}``), translated on load by
# ``bpelab.text.chunk_regex`` and refused by name where it cannot be exactly. The
# body is written as ``json.dumps(body, indent=1)`` writes it, but for the
# merges, a pair to a line, and a newline at the end, so a second save is
# byte-identical. The merges are one flat list of strings rather than a list
# of pairs because ``json`` reads a list of two-item lists six times slower.


FORMAT_3_KEYS = ("format_version", "level", "vocab", "merges", "added_tokens", "normalizer", "pre_tokenizer", "model",
        "decoder", "post_processor")
"""The keys of a format-3 body, in the order written."""

FORMAT_3_LEVELS = ("bytes", "characters")
"""What a format-3 model's chunks start as: UTF-8 bytes, or characters (SentencePiece's kind)."""

FORMAT_3_PROBLEM = "unsupported tokenizer format 3"
"""How a refusal of a format-3 body that lacks or adds a key begins."""


def needs_format_3(tokenizer):
    """Whether a tokenizer needs format 3: a given vocabulary with its pipeline, a prefix space, or a regex pattern."""
    return tokenizer.pipeline is not None or tokenizer.add_prefix_space or not is_name(tokenizer.pattern)


def format_3_body(tokenizer):
    """The format-3 body of a tokenizer (see the module's docstring)."""
    pipeline = tokenizer.pipeline if tokenizer.pipeline is not None else lab_pipeline(tokenizer)
    model_vocab = [None] * (max(tokenizer.ids.values()) + 1)
    for token, token_id in tokenizer.ids.items():
        model_vocab[token_id] = token
    return {"format_version": 3, "level": "bytes" if tokenizer.byte_level else "characters", "vocab": model_vocab,
            "merges": [token for pair in tokenizer.merges for token in pair], **pipeline.to_json()}


def format_3_text(body):
    """A format-3 body as its file holds it: ``json.dumps(body, indent=1)``, but the merges a pair to a line."""
    pairs = body["merges"]
    written = json.dumps(dict(body, merges=[]), indent=1)
    lines = ",\n".join(f"  {json.dumps(pairs[at])}, {json.dumps(pairs[at + 1])}" for at in range(0, len(pairs), 2))
    return written.replace('\n "merges": [],', f'\n "merges": [\n{lines}\n ],' if pairs else '\n "merges": [],', 1) + "\n"


LAB_CHARACTERS = {"model": dict(MODEL_OPTIONS, unk_token=UNK),
                  "decoder": [{"step": "replace", "old": UNK, "new": REPLACEMENT_CHARACTER}, {"step": "fuse"}]}
"""The model options and decoder of the lab's kind at the character level: a character the alphabet lacks is
``<unk>`` (ID 0), decoded as U+FFFD (as ``to_huggingface`` writes it)."""


def lab_pipeline(tokenizer):
    """The pipeline that says what the lab's kind of tokenizer does: prefix space, pattern, bytes or characters."""
    steps = [{"step": "prefix_space"}] if tokenizer.add_prefix_space else []
    pattern = {"name" if is_name(tokenizer.pattern) else "regex": tokenizer.pattern}
    steps.append({"step": "split", "pattern": pattern, "behavior": "isolated", "invert": False})
    added = [AddedToken(token_id, text, True, False, False, False, False)
             for text, token_id in sorted(tokenizer.special_tokens.items(), key=lambda item: item[1])]
    level = {"model": MODEL_OPTIONS} if tokenizer.byte_level else LAB_CHARACTERS
    return Pipeline(added_tokens=added, pre_tokenizer=steps, **level)


def format_3_arguments(data):
    """The arguments of ``bpe.Tokenizer`` a format-3 body describes; a body not matching format 3 is refused."""
    check_keys(data, FORMAT_3_KEYS, FORMAT_3_PROBLEM)
    if data["level"] not in FORMAT_3_LEVELS:
        raise ValueError(f"{FORMAT_3_PROBLEM}: 'level' is {shown(data['level'])}; it must be one of "
                         f"{', '.join(FORMAT_3_LEVELS)}")
    flat = data["merges"]
    check_list(flat, "merges", "tokens, two per merge (left, right, left, right, ...)")
    if len(flat) % 2 or not set(map(type, flat)) <= {str}:
        raise ValueError(f"merges must be a flat list of tokens, two per merge (left, right, ...), not "
                         f"{len(flat):,} items" + ("" if len(flat) % 2 else " that are not all strings"))
    merges = list(zip(flat[0::2], flat[1::2]))
    pipeline = Pipeline(**{key: data[key] for key in FORMAT_3_KEYS[4:]})
    pipeline.check_level(data["level"] == "bytes")
    return given_or_lab_arguments(data["vocab"], merges, pipeline, regex_pattern=True)


def given_or_lab_arguments(vocab, merges, pipeline, regex_pattern=False):
    """The arguments of ``bpe.Tokenizer`` for a given vocabulary and pipeline: of the lab's kind if it says them exactly.

    That is what the lab's kind writes (format 3 for a prefix space, or
    ``to_huggingface``): a built-in pattern, perhaps a prefix space, no
    normalizer, template or ``ignore_merges``; the base tokens first (the 256
    bytes, or ``<unk>`` and the sorted alphabet with ``LAB_CHARACTERS``'
    model and decoder), one ID per merge in order, then special tokens
    matched as written, without whitespace. Such a tokenizer follows the lab's rules for special tokens.
    With ``regex_pattern`` (the lab's own format 3), the one split may be a
    regex, the lab's kind trained with that pattern.
    """
    check_list(vocab, "vocab", "tokens by ID (strings, or None for an unused ID)")
    byte_level = pipeline.byte_level
    pattern = pipeline.split_pattern if regex_pattern else pipeline.pattern
    if pattern is None or not says_lab_kind(vocab, merges, pipeline):
        return {"alphabet": None, "merges": merges, "byte_level": byte_level, "vocab": vocab, "pipeline": pipeline}
    return {"alphabet": vocab[:256] if byte_level else vocab[1:len(vocab) - len(merges)], "merges": merges,
            "byte_level": byte_level, "pattern": pattern, "add_prefix_space": pipeline.add_prefix_space,
            "special_tokens": {token.content: token.id for token in pipeline.added_tokens}}


def says_lab_kind(vocab, merges, pipeline):
    """Whether a given vocabulary and pipeline are exactly a tokenizer of the lab's kind (see above)."""
    if pipeline.normalizer or pipeline.ignore_merges or pipeline.post_processor:
        return False
    base = 256 if pipeline.byte_level else len(vocab) - len(merges)
    if not pipeline.byte_level and not says_lab_characters(vocab[:max(base, 0)], pipeline):
        return False
    if any(not token.special or token.normalized or token.id < len(vocab) or any(char.isspace() for char in token.content)
           for token in pipeline.added_tokens):
        return False
    return len(vocab) == base + len(merges) and all(
        isinstance(pair, (list, tuple)) and len(pair) == 2 and vocab[base + rank] == pair[0] + pair[1]
        for rank, pair in enumerate(merges))


def says_lab_characters(base, pipeline):
    """Whether a character-level model's base tokens and pipeline are the lab's: ``<unk>``, then the sorted
    alphabet, no prefix space, and the lab's model options and decoder (``LAB_CHARACTERS``)."""
    alphabet = base[1:]
    return base[:1] == [UNK] and not pipeline.add_prefix_space and all(
        isinstance(char, str) and len(char) == 1 for char in alphabet) and alphabet == sorted(set(alphabet)) \
        and {"model": pipeline.model, "decoder": pipeline.decoder} == LAB_CHARACTERS
