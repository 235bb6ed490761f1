"""GPT-2's files, both ways: Hugging Face's pair (``vocab.json`` + ``merges.txt``) and OpenAI's own (``vocab.bpe`` + ``encoder.json``).

``bpe.Tokenizer(alphabet, merges)`` rebuilds its IDs from the merges. These
files give the IDs instead, an ID -> token table and a merge list:

- **Hugging Face's pair**, of GPT-2, RoBERTa, BART, CodeGen and
  ``ByteLevelBPETokenizer``: ``vocab.json``, one JSON object of token (in
  GPT-2's display characters, ``"Ġthe"``) -> ID, in any ID order (RoBERTa's
  ``<s>`` is ID 0); ``merges.txt``, an optional first line ``#version: ...``
  then one merge a line, its two tokens separated by one space, in rank
  order (``Tokenizer.load_vocab_merges`` and ``save_vocab_merges``).
- **OpenAI's own pair**, read for the official ``gpt2`` encoding
  (``bpelab.formats.official``): ``vocab.bpe`` (the merges) and
  ``encoder.json`` (each token's ID).

Hugging Face's pair does not say how text is cut before merging: it means
GPT-2's ``ByteLevel`` pre-tokenizer as ``tokenizers`` 0.23.3 has it (its
regex, ``bpelab.imported.pipeline.GPT2_REGEX``, without a prefix space
unless asked), and ``load_vocab_merges`` gives the IDs
``tokenizers.ByteLevelBPETokenizer(vocab, merges)`` gives; ``pattern=``
names a built-in pattern instead (to read back what the lab's own tokenizer
saved). Nor does it say which tokens are special: ``vocab.json`` lists
``<|endoftext|>`` or ``<s>`` among the others, and ``tokenizers`` leaves
them ordinary until ``add_special_tokens``. So ``special_tokens=`` names
them: each is then cut out of the text whole, with the ID its bytes have in
the vocabulary. The tokenizer is built as the in-memory form builds its own
(``bpelab.formats.in_memory``).
"""

import json
from typing import Optional, Sequence

from bpelab.byte_level import CHAR_TO_BYTE
from bpelab.formats.in_memory import added_texts, build, check_own_ids, named_split
from bpelab.imported.pipeline import GPT2_REGEX
from bpelab.imported.vocabulary import MAX_ID
from bpelab.merges.picky_model import refuse_removals
from bpelab.messages import named, shown
from bpelab.reading import PathLike, parse_json, read_file_bytes
from bpelab.writing import check_output_path, write_text_atomic

BYTE_LEVEL_SPLIT = {"step": "split", "pattern": {"regex": GPT2_REGEX}, "behavior": "isolated", "invert": False}
"""The pre-tokenizer the pair of files implies: Hugging Face's ``ByteLevel`` with its regex, as a lab step."""

PREFIX_SPACE = {"step": "prefix_space"}

VERSION_LINE = "#version: 0.2"
"""The first line of the ``merges.txt`` that ``tokenizers`` and GPT-2 write."""


def load_vocab_merges(cls, vocab_path: PathLike, merges_path: PathLike, *, special_tokens: Sequence[str] = (),
                      add_prefix_space: bool = False, pattern: Optional[str] = None):
    """Import GPT-2's pair of files, ``vocab.json`` and ``merges.txt``, as ``tokenizers`` 0.23.3 reads them.

    (``Tokenizer.load_vocab_merges``.) The IDs are ``vocab.json``'s; text is
    cut by GPT-2's ``ByteLevel`` pre-tokenizer, with a space put in front of
    text lacking one if ``add_prefix_space`` (RoBERTa's and BART's use), or
    by the built-in ``pattern`` if one is named. ``special_tokens`` names the
    entries of ``vocab.json`` that are special (``["<|endoftext|>"]`` for
    GPT-2, ``["<s>", "<pad>", "</s>", "<unk>", "<mask>"]`` for RoBERTa); by
    default none is, as in ``ByteLevelBPETokenizer(vocab, merges)``. A
    malformed file is a ``ValueError`` naming it and the entry or line.
    """
    if type(add_prefix_space) is not bool:
        raise TypeError(f"add_prefix_space must be True or False, not {shown(add_prefix_space)}")
    if isinstance(special_tokens, (str, bytes)) or not isinstance(special_tokens, (list, tuple)):
        raise TypeError(f"special_tokens must be a list of vocab.json's entries, not {shown(special_tokens)}")
    steps = ([PREFIX_SPACE] if add_prefix_space else []) + [BYTE_LEVEL_SPLIT if pattern is None
                                                              else named_split(pattern)]
    tokens = read_vocab_json(vocab_path)
    merges, first_line = read_merges_txt(merges_path)
    id_of = {token: token_id for token_id, token in tokens.items()}
    specials = {}
    for text in special_tokens:
        if text not in id_of:
            raise ValueError(f"special token {shown(text)} is not an entry of {named(vocab_path)}")
        specials[text] = id_of[text]
    made = {}
    for rank, (left, right) in enumerate(merges if specials else ()):
        if left + right in specials:
            made.setdefault(specials[left + right], rank)
    check_own_ids(specials, made, CHAR_TO_BYTE.__contains__, named(vocab_path))
    for text, token_id in specials.items():
        del tokens[token_id], id_of[text]
    try:
        return build(cls, tokens, merges, specials, steps)
    except ValueError as error:
        raise merge_problem(merges, id_of, merges_path, first_line) or ValueError(
            f"{named(vocab_path)} and {named(merges_path)}: {error}") from None


def read_vocab_json(path):
    """``vocab.json`` as ID -> token; an entry that is not a non-empty string with a distinct int ID is refused."""
    data = parse_json(read_file_bytes(path, "vocab_path"), path)
    if not isinstance(data, dict):
        raise ValueError(f"{named(path)}: expected a JSON object of token -> ID, found {type(data).__name__}")
    tokens = {}
    for token, token_id in data.items():
        if type(token_id) is not int or not 0 <= token_id <= MAX_ID or not token:
            raise ValueError(f"{named(path)}: entry {shown(token)}: {shown(token_id)} is no ID; each entry is a "
                             f"non-empty token with an int ID from 0 to {MAX_ID:,}")
        if token_id in tokens:
            raise ValueError(f"{named(path)}: entries {shown(tokens[token_id])} and {shown(token)} share ID {token_id}")
        tokens[token_id] = token
    return tokens


def read_merges_txt(path):
    """``merges.txt`` as display pairs (two-item lists), and the number of the first merge line (2 after a
    ``#version`` line).

    Lines end with ``\\n`` or ``\\r\\n``; only the first line may be
    ``#version ...``; every other is two tokens and one space between.
    """
    data = read_file_bytes(path, "merges_path")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{named(path)}: not valid UTF-8 (byte {error.start:,}: {error.reason})") from None
    lines = text.replace("\r\n", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    first_line = 2 if lines and lines[0].startswith("#version") else 1
    merges = [line.split(" ") for line in lines[first_line - 1:]]
    if all(len(pair) == 2 and pair[0] and pair[1] and not pair[0].startswith("#version") for pair in merges):
        return merges, first_line
    for number, line in enumerate(lines[first_line - 1:], first_line):  # find the first line that is not
        if line.startswith("#version"):
            raise ValueError(f"{named(path)}: line {number}: only the first line may be #version, found {shown(line)}")
        pair = line.split(" ")
        if len(pair) != 2 or not all(pair):
            raise ValueError(f"{named(path)}: line {number}: expected two tokens and one space between, "
                             f"found {shown(line)}")
    return merges, first_line


def merge_problem(merges, id_of, path, first_line):
    """The error for the first merge whose parts or join is not an entry of ``vocab.json``, naming its line; or None."""
    for rank, (left, right) in enumerate(merges):
        missing = next((token for token in (left, right, left + right) if token not in id_of), None)
        if missing is not None:
            return ValueError(f"{named(path)}: line {rank + first_line}: the merge {shown(left)} {shown(right)} needs "
                              f"{shown(missing)}, which is not an ordinary entry of vocab.json")
    return None


def save_vocab_merges(tokenizer, vocab_path: PathLike, merges_path: PathLike) -> None:
    """Write ``vocab.json`` and ``merges.txt``, each atomically (``Tokenizer.save_vocab_merges``).

    ``vocab.json`` holds every token by ID (special tokens as their text),
    ``merges.txt`` ``#version: 0.2`` and the merges. The files cannot say a
    pre-tokenizer, so only a tokenizer that ``load_vocab_merges`` can give
    back is written: the lab's byte-level kind (load it with ``pattern=`` its
    pattern and ``special_tokens=``), or one with GPT-2's ``ByteLevel``
    cutting and nothing more; any other is refused, saying why.
    """
    targets = check_output_path(vocab_path, "vocab_path"), check_output_path(merges_path, "merges_path")
    if targets[0] == targets[1]:
        raise ValueError(f"vocab_path and merges_path are one file, {named(targets[0])}; two are needed")
    check_savable(tokenizer)
    entries = dict(sorted(((token, token_id) for token, token_id in tokenizer.ids.items()), key=lambda item: item[1]))
    for text, token_id in added_texts(tokenizer).items():
        if entries.setdefault(text, token_id) != token_id:
            raise ValueError(f"special token {shown(text)} is spelled as the ordinary token {entries[text]}; "
                             "vocab.json can hold that text once")
    lines = [VERSION_LINE] + [f"{left} {right}" for left, right in tokenizer.merges]
    write_text_atomic(vocab_path, json.dumps(dict(sorted(entries.items(), key=lambda item: item[1])),
                                             ensure_ascii=False) + "\n")
    write_text_atomic(merges_path, "\n".join(lines) + "\n")


def check_savable(tokenizer):
    """Refuse a tokenizer that ``vocab.json`` and ``merges.txt`` cannot give back (see ``save_vocab_merges``)."""
    if not tokenizer.byte_level:
        raise ValueError("vocab.json and merges.txt hold byte-level tokens: only a byte-level tokenizer is saved so")
    refuse_removals(tokenizer, "vocab.json and merges.txt")
    pipeline = tokenizer.pipeline
    if pipeline is not None:
        steps = pipeline.pre_tokenizer[1:] if pipeline.add_prefix_space else pipeline.pre_tokenizer
        plain = pipeline.pattern is not None or steps == [BYTE_LEVEL_SPLIT]
        if not plain or pipeline.normalizer or pipeline.ignore_merges or pipeline.post_processor \
                or any(not token.special or token.normalized for token in pipeline.added_tokens):
            raise ValueError("this tokenizer's pipeline (its normalizer, pre-tokenizer, template or added tokens) "
                             "is more than vocab.json and merges.txt can say; save it with save or save_huggingface")
    for left, right in tokenizer.merges:
        if any(char in part for part in (left, right) for char in " \r\n"):
            raise ValueError(f"the merge {shown(left)} {shown(right)} holds a space or a line break, which "
                             "merges.txt cannot hold")


def gpt2_pair(cls, vocab_bpe, encoder_json, encoding):
    """GPT-2's own pair of files, each ``(path, bytes)``, as the tokenizer they describe.

    ``vocab.bpe`` is ``#version: 0.2`` then one merge per line (two tokens in
    GPT-2's display characters, separated by a space); merge i makes ID 256 + i,
    and IDs 0-255 are the bytes in ``encoder.json``'s order, which must give
    every token the ID the merges do.
    """
    path, data = vocab_bpe
    lines = data.decode("utf-8").split("\n")
    merges = [tuple(line.split(" ")) for line in lines[1:-1]]
    ids = parse_json(encoder_json[1], encoder_json[0])
    specials = dict(encoding.special_tokens)
    alphabet = sorted((token for token in ids if ids[token] < 256), key=ids.__getitem__)
    made = {token: token_id for token_id, token in enumerate(alphabet + [left + right for left, right in merges])}
    if made != {token: token_id for token, token_id in ids.items() if token not in specials}:
        raise ValueError(f"{named(encoder_json[0])}: its IDs are not those {named(path)}'s merges give")
    return cls(alphabet, merges, byte_level=True, pattern=encoding.pattern, special_tokens=specials)
