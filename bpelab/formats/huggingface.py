"""Hugging Face's ``tokenizer.json``, both ways, for the BPE models the lab can match exactly.

Hugging Face's ``tokenizer.json`` describes a pipeline: added tokens, a
normalizer, a pre-tokenizer (the chunk patterns), a model (BPE: a
vocabulary and a merge list), a post-processor and a decoder.

Reading. A byte-level BPE model (its pre-tokenizer ends with ``ByteLevel``:
GPT-2's kind, Llama 3, Qwen 3, DeepSeek V3, gpt-oss) is read as
``tokenizers`` 0.23.3 reads it (the second half of this module): its IDs as given,
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

from bpelab.checks import REPLACEMENT_CHARACTER, UNK, check_list
from bpelab.formats import vocabulary_cache
from bpelab.formats.lab import given_or_lab_arguments
from bpelab.imported.added_tokens import AddedToken, FLAGS
from bpelab.imported.pipeline import GPT2_REGEX, MODEL_OPTIONS, Pipeline, UNICODE_FORMS
from bpelab.imported.vocabulary import MAX_ID
from bpelab.merges.picky_model import refuse_removals
from bpelab.messages import named, shown
from bpelab.reading import PathLike, parse_json, read_file_bytes
from bpelab.text.patterns import PATTERNS, pattern_source
from bpelab.writing import write_text_atomic

BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
"""Hugging Face's byte level with nothing else: the bytes of each piece, shown as GPT-2's characters."""


def to_huggingface(tokenizer) -> dict:
    """The tokenizer as a Hugging Face ``tokenizer.json`` dict, giving our IDs, tokens and text (``Tokenizer.to_huggingface``)."""
    refuse_removals(tokenizer, "Hugging Face's tokenizer.json")
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
    is the file's bytes, already read (a pipe can be read only once). A
    file loaded before is read back from the cache of prepared vocabularies
    (``bpelab.formats.vocabulary_cache``), keyed by its bytes.
    """
    raw = read_file_bytes(path) if raw is None else raw
    return vocabulary_cache.load(cls, raw, "huggingface", {}, lambda build: from_huggingface_file(build, path, raw))


def from_huggingface_file(cls, path, raw):
    """The tokenizer of a ``tokenizer.json`` file's bytes, built with ``cls``; a refusal names the file."""
    data = parse_json(raw, path)
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


# -- the pipeline's parts ----------------------------------------------------
#
# The pipeline's parts, both ways: a ``tokenizer.json`` read into the lab's words, and written back.
#
# The functions above read and write the files (``bpe.Tokenizer.load_huggingface``); these translate
# their parts, as ``tokenizers`` 0.23.3 reads them, into a ``bpelab.imported.pipeline``
# ``Pipeline`` and a given vocabulary (``bpelab.imported.vocabulary``), and back:
#
# - normalizers ``NFC``, ``NFD``, ``NFKC``, ``NFKD`` and ``Sequence``;
# - pre-tokenizers ``Split`` (any ``behavior``, ``invert``, a regex that
#   ``bpelab.text.chunk_regex`` translates exactly, or a plain string; a built-in
#   pattern as ``to_huggingface`` spells it is read as its name), ``Digits``,
#   ``Sequence``, and ``ByteLevel`` as the last step (its ``add_prefix_space``
#   is the lab's ``prefix_space`` step, its ``use_regex`` a split by GPT-2's
#   regex, and its byte mapping the byte level itself); ``Metaspace`` only as
#   the lab writes a prefix space: a space put before a piece that lacks one;
# - the BPE model: its vocabulary (any ID order, gaps), its merges (``"a b"``
#   strings or pairs) and ``ignore_merges``;
# - decoders ``ByteLevel`` (alone or in a ``Sequence``);
# - post-processors ``ByteLevel`` (which adds nothing to the IDs),
#   ``TemplateProcessing`` (kept as a template for ``apply_template``), and a
#   ``Sequence`` of them;
# - added tokens, whose IDs follow the library's rule rather than the file's
#   ``id``: a text that is a token of the model has that token's ID, any other
#   the next ID from the size of the model's vocabulary on.
#
# Anything else is refused with a ``ValueError`` that names it.


BEHAVIOR_NAMES = {"Isolated": "isolated", "Removed": "removed", "MergedWithPrevious": "merged_with_previous",
                  "MergedWithNext": "merged_with_next", "Contiguous": "contiguous"}
"""A Split's ``behavior`` in tokenizer.json -> the lab's word for it."""

PREFIX_SPACE = {"type": "Metaspace", "replacement": " ", "prepend_scheme": "always", "split": False}
"""The Hugging Face step that puts a space before a piece that lacks one, as the lab's ``prefix_space`` does."""

HARMLESS_MODEL_OPTIONS = {"dropout": (None, 0, 0.0), "continuing_subword_prefix": (None, ""),
                          "end_of_word_suffix": (None, "")}
"""Options of Hugging Face's BPE model that change nothing at these values (any other is refused)."""


def typed(value, kind, name):
    """``value`` if it is a dict with this ``type``; a refusal naming ``name`` otherwise."""
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        raise ValueError(f"{name} {shown(value)} is not an object with a 'type'")
    return value["type"]


def flattened(value, name, key):
    """The steps of a normalizer, pre-tokenizer, decoder or post-processor: a Sequence's, or the one step."""
    if value is None:
        return []
    if typed(value, "Sequence", name) == "Sequence":
        steps = value.get(key)
        check_list(steps, f"{name} Sequence's {key}", "steps")
        return [step for inner in steps for step in flattened(inner, name, key)]
    return [value]


def normalizer_steps(normalizer):
    """The lab's normalizer steps for a tokenizer.json ``normalizer``."""
    steps = []
    for step in flattened(normalizer, "normalizer", "normalizers"):
        kind = typed(step, "", "normalizer")
        if kind == "Prepend" and isinstance(step.get("prepend"), str) and step["prepend"]:
            steps.append({"step": "prepend", "text": step["prepend"]})
        elif kind == "Replace":
            steps.append(dict(replaced(step, "normalizer"), step="replace"))
        elif kind in UNICODE_FORMS:
            steps.append({"step": kind})
        else:
            raise ValueError(f"normalizer {shown(kind)} is not supported (supported: {', '.join(UNICODE_FORMS)}, "
                             "Prepend, Replace of a string, and Sequence)")
    return steps


def replaced(step, name):
    """A Replace step's ``{"old", "new"}``: a literal text, replaced as ``str.replace`` does."""
    pattern, content = step.get("pattern"), step.get("content")
    if not isinstance(pattern, dict) or list(pattern) != ["String"] or not isinstance(pattern["String"], str) \
            or not pattern["String"] or not isinstance(content, str):
        raise ValueError(f"{name} Replace {shown(step)} is not supported: only a Replace of a string "
                         "({'String': text}) by a string")
    return {"old": pattern["String"], "new": content}


def pre_tokenizer_steps(pre_tokenizer, byte_level=True):
    """The lab's pre-tokenizer steps for a tokenizer.json ``pre_tokenizer``, which ends with ByteLevel at the byte
    level and has none at the character level."""
    given = flattened(pre_tokenizer, "pre_tokenizer", "pretokenizers")
    kinds = [typed(step, "", "pre_tokenizer") for step in given]
    if byte_level and kinds.index("ByteLevel") != len(kinds) - 1:
        raise ValueError("ByteLevel must be the pre_tokenizer's last step (later steps would see its byte "
                         "characters); unsupported")
    steps = []
    for step, kind in zip(given, kinds):
        if kind == "ByteLevel":
            if step.get("add_prefix_space", True):
                steps.append({"step": "prefix_space"})
            if step.get("use_regex", True):
                steps.append({"step": "split", "pattern": {"regex": GPT2_REGEX}, "behavior": "isolated", "invert": False})
        elif kind == "Split":
            steps.append(split_step(step))
        elif kind == "Digits":
            steps.append({"step": "digits", "individual": bool(step.get("individual_digits", False))})
        elif step == PREFIX_SPACE:
            steps.append({"step": "prefix_space"})
        else:
            raise ValueError(f"pre_tokenizer {shown(kind)} is not supported (supported: Split, Digits, Sequence, "
                             "ByteLevel as the last step)" + (" (Metaspace only as a prefix space)"
                                                              if kind == "Metaspace" else ""))
    return steps


def split_step(step):
    """The lab's split step for a tokenizer.json Split."""
    pattern, behavior = step.get("pattern"), step.get("behavior")
    if not isinstance(pattern, dict) or len(pattern) != 1 or not set(pattern) <= {"Regex", "String"} \
            or not isinstance(next(iter(pattern.values())), str):
        raise ValueError(f"Split pattern {shown(pattern)} must be {{'Regex': ...}} or {{'String': ...}}")
    if behavior not in BEHAVIOR_NAMES:
        raise ValueError(f"Split behavior {shown(behavior)} is unknown (known: {', '.join(BEHAVIOR_NAMES)})")
    invert = step.get("invert", False)
    if not isinstance(invert, bool):
        raise ValueError(f"Split invert must be true or false, not {shown(invert)}")
    (kind, text), = pattern.items()
    named = next((name for name in PATTERNS if kind == "Regex" and "\\x{" in text  # (as ours are spelled)
                  and text == pattern_source(name, "oniguruma")), None)
    return {"step": "split", "pattern": {"name": named} if named else {kind.lower(): text},
            "behavior": BEHAVIOR_NAMES[behavior], "invert": invert}


def decoder_steps(decoder, byte_level=True):
    """The lab's decoder steps: a byte-level model decodes with ByteLevel, a character-level one with Replace,
    ByteFallback, Fuse, Strip and Metaspace steps."""
    steps = flattened(decoder, "decoder", "decoders")
    kinds = [typed(step, "", "decoder") for step in steps]
    if byte_level:
        if kinds != ["ByteLevel"]:
            raise ValueError(f"decoder {shown(decoder)} is not supported: a byte-level model decodes with ByteLevel")
        return [{"step": "bytes"}]
    if not steps:
        raise ValueError("decoder is null: Hugging Face would join the tokens with spaces; unsupported")
    found = []
    for step, kind in zip(steps, kinds):
        if kind == "Replace":
            found.append(dict(replaced(step, "decoder"), step="replace"))
        elif kind in ("ByteFallback", "Fuse"):
            found.append({"step": {"ByteFallback": "byte_fallback", "Fuse": "fuse"}[kind]})
        elif kind == "Strip" and set(step) == {"type", "content", "start", "stop"}:
            found.append({"step": "strip", "char": step["content"], "start": step["start"], "stop": step["stop"]})
        elif kind == "Metaspace" and isinstance(step.get("split", True), bool):
            found.append({"step": "metaspace", "replacement": step.get("replacement"),
                          "prepend_scheme": step.get("prepend_scheme")})
        else:
            raise ValueError(f"decoder {shown(kind)} is not supported at the character level (supported: Replace, "
                             "ByteFallback, Fuse, Strip, Metaspace, Sequence)")
    return found


def template(post_processor):
    """The lab's template for a tokenizer.json post-processor (None when it adds no token)."""
    found = None
    for step in flattened(post_processor, "post_processor", "processors"):
        kind = typed(step, "", "post_processor")
        if kind == "ByteLevel":
            continue  # it only trims offsets
        if kind != "TemplateProcessing" or found is not None:
            raise ValueError(f"post_processor {shown(kind)} is not supported (supported: ByteLevel, "
                             "TemplateProcessing, Sequence)")
        found = {"single": template_items(step.get("single")), "pair": template_items(step.get("pair")),
                 "special_tokens": template_specials(step.get("special_tokens"))}
    return found


def template_items(items):
    """A TemplateProcessing template as the lab writes it: ``"$A"``, ``"$B"``, or a special token's name."""
    check_list(items, "TemplateProcessing template", "pieces")
    words = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("Sequence"), dict) and item["Sequence"].get("id") in ("A", "B"):
            words.append("$" + item["Sequence"]["id"])
        elif isinstance(item, dict) and isinstance(item.get("SpecialToken"), dict) \
                and isinstance(item["SpecialToken"].get("id"), str) and not item["SpecialToken"]["id"].startswith("$"):
            words.append(item["SpecialToken"]["id"])
        else:
            raise ValueError(f"TemplateProcessing piece {shown(item)} is not understood")
    return words


def template_specials(specials):
    """A TemplateProcessing's special tokens: name -> IDs."""
    if not isinstance(specials, dict) or not all(isinstance(value, dict) for value in specials.values()):
        raise ValueError(f"TemplateProcessing special_tokens {shown(specials)} must be an object of objects")
    return {name: value.get("ids") for name, value in specials.items()}


def model_parts(model, byte_level=True):
    """``(vocab by ID, merges as pairs, options)`` of a tokenizer.json BPE model (at the byte level, the options for
    characters the vocabulary lacks are left out)."""
    if not isinstance(model, dict) or model.get("type", "BPE") != "BPE":
        raise ValueError(f"model type {shown(model.get('type') if isinstance(model, dict) else model)} is not "
                         "supported: only BPE models can be imported")
    for option, harmless in HARMLESS_MODEL_OPTIONS.items():
        if model.get(option) not in harmless:
            raise ValueError(f"the model's {option} is {shown(model.get(option))}; unsupported")
    vocab, merges = model.get("vocab"), model.get("merges")
    if not isinstance(vocab, dict) or not isinstance(merges, list):
        raise ValueError("the model needs a 'vocab' object and a 'merges' list")
    token_ids = list(vocab.values())
    if not set(map(type, token_ids)) <= {int} or (token_ids and min(token_ids) < 0) \
            or len(set(token_ids)) != len(token_ids):
        seen = set()
        for token, token_id in vocab.items():
            if type(token_id) is not int or token_id < 0 or token_id in seen:
                raise ValueError(f"vocab entry {shown(token)} has ID {shown(token_id)}; IDs must be distinct ints "
                                 "from 0")
            seen.add(token_id)
    highest = max(token_ids, default=-1)
    if highest > MAX_ID:  # (before the list of every ID is made: an ID of 2**63 would ask for exabytes)
        token = next(token for token, token_id in vocab.items() if token_id == highest)
        raise ValueError(f"vocab entry {shown(token)} has ID {highest:,}; at most {MAX_ID:,} is supported")
    listed = [None] * (highest + 1)
    for token, token_id in vocab.items():
        listed[token_id] = token
    kinds = set(map(type, merges))
    pairs = [merge.split(" ") for merge in merges] if kinds == {str} else merges if kinds <= {list} else \
        [merge.split(" ") if isinstance(merge, str) else merge for merge in merges]
    options = {option: model.get(option, MODEL_OPTIONS[option]) for option in MODEL_OPTIONS}
    options = {option: MODEL_OPTIONS[option] if value is None else value for option, value in options.items()}
    for option, value in options.items():
        if not (value is None or isinstance(value, str) if option == "unk_token" else isinstance(value, bool)):
            raise ValueError(f"the model's {option} is {shown(value)}; it must be "
                             + ("null or a token" if option == "unk_token" else "true or false"))
    if byte_level:
        # unk_token, byte_fallback and fuse_unk act on characters missing from the vocabulary, which at the byte
        # level (all 256 byte tokens present: bpelab.imported.vocabulary checks it) never happens.
        options.update(byte_fallback=False, unk_token=None, fuse_unk=False)
    return listed, pairs, options


def added_tokens(items, vocab):
    """The added tokens with the IDs ``tokenizers`` gives them (the file's ``id`` is not used, as there)."""
    check_list(items, "added_tokens", "objects")
    ids = {token: token_id for token, token_id in vocab.items()} if isinstance(vocab, dict) else {}
    next_id, found, seen = len(ids), [], set()
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("content"), str):
            raise ValueError(f"added token {shown(item)}: its content must be a string")
        if not item["content"]:
            continue  # as tokenizers does
        if item["content"] in seen:
            raise ValueError(f"added token {shown(item['content'])} is listed twice")
        seen.add(item["content"])
        missing = [flag for flag in FLAGS if flag not in item]
        if missing:
            raise ValueError(f"added token {shown(item['content'])} lacks the flag {missing[0]!r}")
        token_id = ids.get(item["content"])
        if token_id is None:
            token_id, next_id = next_id, next_id + 1
        found.append(AddedToken(token_id, item["content"], *(item[flag] for flag in FLAGS)))
    return found


def has_byte_level(pre_tokenizer):
    """Whether a pre-tokenizer has a ``ByteLevel`` step (a byte-level model; the step must come last)."""
    if isinstance(pre_tokenizer, dict) and pre_tokenizer.get("type") == "Sequence" \
            and isinstance(pre_tokenizer.get("pretokenizers"), list):
        return any(map(has_byte_level, pre_tokenizer["pretokenizers"]))
    return isinstance(pre_tokenizer, dict) and pre_tokenizer.get("type") == "ByteLevel"


def read_pipeline(data):
    """``(vocab, merges, Pipeline)`` of a tokenizer.json body of a BPE model: byte-level if its pre-tokenizer has a
    ByteLevel step, else character-level (``pipeline.byte_level`` says which); refusals name what is not supported."""
    for option in ("truncation", "padding"):
        if data.get(option) is not None:
            raise ValueError(f"{option} is {shown(data.get(option))}; it changes the IDs encode gives: unsupported")
    byte_level = has_byte_level(data.get("pre_tokenizer"))
    vocab, merges, model = model_parts(data.get("model"), byte_level)
    pipeline = Pipeline(added_tokens=added_tokens(data.get("added_tokens", []), data["model"]["vocab"]),
                        normalizer=normalizer_steps(data.get("normalizer")),
                        pre_tokenizer=pre_tokenizer_steps(data.get("pre_tokenizer"), byte_level), model=model,
                        decoder=decoder_steps(data.get("decoder"), byte_level),
                        post_processor=template(data.get("post_processor")))
    return vocab, merges, pipeline


def sequence(steps, key):
    """Steps as tokenizer.json writes them: none as null, else a Sequence."""
    return {"type": "Sequence", key: steps} if steps else None


WRITTEN_STEPS = {"fuse": "Fuse", "byte_fallback": "ByteFallback", **{form: form for form in UNICODE_FORMS}}
"""The steps without options, by their tokenizer.json type."""


def written_step(step, kind="pre_tokenizer"):
    """A normalizer, pre-tokenizer or decoder step as tokenizer.json writes it."""
    if kind != "pre_tokenizer":
        name = step["step"]
        if name in WRITTEN_STEPS:
            return {"type": WRITTEN_STEPS[name]}
        if name == "prepend":
            return {"type": "Prepend", "prepend": step["text"]}
        if name == "replace":
            return {"type": "Replace", "pattern": {"String": step["old"]}, "content": step["new"]}
        if name == "strip":
            return {"type": "Strip", "content": step["char"], "start": step["start"], "stop": step["stop"]}
        return {"type": "Metaspace", "replacement": step["replacement"], "prepend_scheme": step["prepend_scheme"],
                "split": False}
    if step["step"] == "prefix_space":
        return dict(PREFIX_SPACE)
    if step["step"] == "digits":
        return {"type": "Digits", "individual_digits": step["individual"]}
    (kind, text), = step["pattern"].items()
    pattern = {"String": text} if kind == "string" else {"Regex": pattern_source(text, "oniguruma") if kind == "name"
                                                         else text}
    behavior = next(name for name, word in BEHAVIOR_NAMES.items() if word == step["behavior"])
    return {"type": "Split", "pattern": pattern, "behavior": behavior, "invert": step["invert"]}


def written_pipeline(pipeline, vocab):
    """The normalizer, pre-tokenizer, decoder and post-processor of a ``Pipeline`` as tokenizer.json has them.

    ``vocab`` (every token by ID) names the tokens of the template's IDs.
    """
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    normalizers = [written_step(step, "normalizer") for step in pipeline.normalizer]
    pre_tokenizers = [written_step(step) for step in pipeline.pre_tokenizer] + ([byte_level] if pipeline.byte_level
                                                                               else [])
    parts = {
        "normalizer": sequence(normalizers, "normalizers"),
        "pre_tokenizer": sequence(pre_tokenizers, "pretokenizers"),
        "post_processor": None,
        "decoder": byte_level if pipeline.byte_level else sequence([written_step(step, "decoder")
                                                                    for step in pipeline.decoder], "decoders"),
    }
    if pipeline.post_processor is not None:
        parts["post_processor"] = {"type": "TemplateProcessing", **{
            key: [{"Sequence": {"id": item[1:], "type_id": 0}} if item in ("$A", "$B")
                  else {"SpecialToken": {"id": item, "type_id": 0}} for item in pipeline.post_processor[key]]
            for key in ("single", "pair")}, "special_tokens": {
            name: {"id": name, "ids": ids, "tokens": [vocab[token_id] for token_id in ids]}
            for name, ids in pipeline.post_processor["special_tokens"].items()}}
    return parts
