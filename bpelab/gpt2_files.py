"""GPT-2's pair of files (``vocab.json`` + ``merges.txt``) and course material's vocabulary in memory, both ways.

``bpe.Tokenizer(alphabet, merges)`` rebuilds its IDs from the merges. Two
other forms give the IDs instead, each an ID -> token table and a merge list:

- **The pair of files** of GPT-2, RoBERTa, BART, CodeGen and Hugging Face's
  ``ByteLevelBPETokenizer``: ``vocab.json``, one JSON object of token (in
  GPT-2's display characters, ``"Ġthe"``) -> ID, in any ID order (RoBERTa's
  ``<s>`` is ID 0); ``merges.txt``, an optional first line ``#version: ...``
  then one merge a line, its two tokens separated by one space, in rank order.
- **The in-memory form** of course material: ``vocab`` a ``dict[int, bytes]``
  in any ID order (GPT-2's byte ``!`` is ID 0), ``merges`` a list of
  ``(bytes, bytes)`` pairs in the order learned, and the special tokens a
  list of strings.

Neither says how text is cut before merging. The pair of files means GPT-2's
``ByteLevel`` pre-tokenizer as ``tokenizers`` 0.23.3 has it (its regex,
``hf_pipeline.GPT2_REGEX``, without a prefix space unless asked), and
``load_vocab_merges`` gives the IDs ``tokenizers.ByteLevelBPETokenizer(vocab,
merges)`` gives; ``pattern=`` names a built-in pattern instead (to read back
what the lab's own tokenizer saved). The in-memory form takes a named
pattern, ``"gpt2"`` unless told: GPT-2's regex is what course material cuts
with (and the lab's byte-level default), and a named pattern is exact in
Python and has safe cuts for ``encode_iterable``.

Neither says which tokens are special either: ``vocab.json`` lists
``<|endoftext|>`` or ``<s>`` among the others, and ``tokenizers`` leaves them
ordinary until ``add_special_tokens``. So ``special_tokens=`` names them:
each is then cut out of the text whole (not merged into), with the ID its
bytes have in the vocabulary; in the in-memory form one not in ``vocab``
takes the next free ID, as course material does. A special token that a
merge makes, or that is a single byte, is refused: it would need two kinds
at one ID.

Both forms build on the given vocabulary of ``bpelab.vocabulary``
(``format3.given_or_lab_arguments``): IDs laid out as the lab's own (the 256
bytes, then one per merge, then the special tokens) with a named pattern
give the lab's kind of tokenizer (special tokens follow tiktoken's rule:
refused in text unless allowed); any other layout gives an imported one,
which encodes as Hugging Face does (every special token matched by default).
"""

import json
from typing import Mapping, Optional, Sequence

from bpelab.added_tokens import AddedToken
from bpelab.byte_level import BYTE_TO_CHAR, CHAR_TO_BYTE, bytes_to_display
from bpelab.files import PathLike, check_output_path, parse_json, read_file_bytes, write_text_atomic
from bpelab.format3 import given_or_lab_arguments
from bpelab.hf_pipeline import GPT2_REGEX
from bpelab.messages import named, shown
from bpelab.patterns import check_pattern
from bpelab.pipeline import Pipeline
from bpelab.vocabulary import MAX_ID, token_bytes

BYTE_LEVEL_SPLIT = {"step": "split", "pattern": {"regex": GPT2_REGEX}, "behavior": "isolated", "invert": False}
"""The pre-tokenizer the pair of files implies: Hugging Face's ``ByteLevel`` with its regex, as a lab step."""

PREFIX_SPACE = {"step": "prefix_space"}

VERSION_LINE = "#version: 0.2"
"""The first line of the ``merges.txt`` that ``tokenizers`` and GPT-2 write."""


def named_split(pattern):
    """The pre-tokenizer step that cuts by a built-in pattern."""
    check_pattern(pattern)
    return {"step": "split", "pattern": {"name": pattern}, "behavior": "isolated", "invert": False}


def build(cls, tokens, merges, specials, pre_tokenizer):
    """The tokenizer of ``tokens`` (ID -> display token, specials excluded), display ``merges`` and ``specials``
    (text -> ID), cutting text with ``pre_tokenizer`` (lab steps), built with ``cls``; the lab's kind if it is one."""
    present = set(tokens.values())
    missing = next((char for char in BYTE_TO_CHAR if char not in present), None)
    if missing is not None:
        raise ValueError(f"a byte-level vocab needs all 256 byte tokens; {shown(missing)} (byte "
                         f"{CHAR_TO_BYTE[missing]}) is missing, or special")
    model = [None] * (max(tokens, default=-1) + 1)
    for token_id, token in tokens.items():
        model[token_id] = token
    added = [AddedToken(token_id, text, True, False, False, False, False)
             for text, token_id in sorted(specials.items(), key=lambda item: item[1])]
    pipeline = Pipeline(added_tokens=added, pre_tokenizer=pre_tokenizer)
    return cls(**given_or_lab_arguments(model, merges, pipeline))


def check_own_ids(specials, made, single, where):
    """Refuse a special token whose ID is a merge's (``made``: merged ID -> the first merge making it) or a single
    byte's (``single(text)``)."""
    for text, token_id in specials.items():
        if token_id in made or single(text):
            what = "a single byte" if single(text) else f"made by merge {made[token_id]}"
            raise ValueError(f"special token {shown(text)} is {where} entry {token_id}, which is {what}; a special "
                             "token must be a token of its own")


# -- the in-memory form ------------------------------------------------------


def from_bytes(cls, vocab: Mapping[int, bytes], merges: Sequence[tuple[bytes, bytes]],
               special_tokens: Sequence[str] = (), *, pattern: str = "gpt2"):
    """A byte-level tokenizer from course material's form: ``vocab`` ID -> bytes, ``merges`` as byte pairs.

    (``Tokenizer.from_bytes``.) ``vocab`` may list its IDs in any order and
    leave gaps, but needs the 256 single bytes; each merge's two parts and
    their join must be in it. ``special_tokens`` (strings) take the IDs
    their bytes have in ``vocab``, or, if absent, the next free IDs in
    order. ``pattern`` names the chunk pattern (``bpe.PATTERNS``; GPT-2's by
    default, see the module's docstring). ``tok.to_bytes()`` gives the form
    back.
    """
    check_pattern(pattern)
    by_id = checked_byte_vocab(vocab)
    specials = special_ids(special_tokens, by_id)
    display = {value: bytes_to_display(value) for value in by_id.values()}
    pairs, made = checked_byte_merges(merges, {value: token_id for token_id, value in by_id.items()}, display)
    check_own_ids(specials, made, lambda text: len(text.encode("utf-8")) == 1, "vocab")
    special_id = set(specials.values())
    tokens = {token_id: display[value] for token_id, value in by_id.items() if token_id not in special_id}
    return build(cls, tokens, pairs, specials, [named_split(pattern)])


def checked_byte_vocab(vocab):
    """``vocab`` as a dict of ID -> bytes, refusing IDs that are not ints from 0 to ``MAX_ID``, values that are not
    non-empty bytes, and bytes given twice."""
    if not isinstance(vocab, Mapping):
        raise TypeError(f"vocab must be a dict of ID -> bytes, not {type(vocab).__name__}")
    seen = {}
    for token_id, value in vocab.items():
        if type(token_id) is not int or not 0 <= token_id <= MAX_ID:
            raise ValueError(f"vocab has the key {shown(token_id)}; IDs must be ints from 0 to {MAX_ID:,}")
        if type(value) is not bytes or not value:
            raise ValueError(f"vocab entry {token_id} is {shown(value)}; each token must be non-empty bytes")
        if value in seen:
            raise ValueError(f"vocab entries {seen[value]} and {token_id} are both {shown(value)}; each token once")
        seen[value] = token_id
    return dict(vocab)


def special_ids(special_tokens, by_id):
    """Each special token -> its ID: that of its UTF-8 bytes in ``by_id``, or the next free one, in order."""
    if isinstance(special_tokens, (str, bytes)) or not isinstance(special_tokens, (list, tuple)):
        raise TypeError(f"special_tokens must be a list of strings, not {shown(special_tokens)}")
    id_of = {value: token_id for token_id, value in by_id.items()}
    specials, next_id = {}, max(by_id, default=-1) + 1
    for text in special_tokens:
        if type(text) is not str or not text:
            raise ValueError(f"special token {shown(text)} must be a non-empty string")
        if text in specials:
            raise ValueError(f"special token {shown(text)} is given twice")
        token_id = id_of.get(text.encode("utf-8"))
        if token_id is None:
            token_id, next_id = next_id, next_id + 1
        specials[text] = token_id
    return specials


def checked_byte_merges(merges, id_of, display):
    """The merges as display pairs (``display``: bytes -> display token), and each made ID -> the rank of the
    merge that makes it first; a merge that is not two bytes values in ``id_of`` whose join is there too is refused."""
    if not isinstance(merges, (list, tuple)):
        raise TypeError(f"merges must be a list of (bytes, bytes) pairs, not {type(merges).__name__}")
    try:  # the quick way; a malformed merge is found below
        pairs = [(display[left], display[right]) for left, right in merges]
        made = {}
        for rank, (left, right) in enumerate(merges):
            made.setdefault(id_of[left + right], rank)
        if all(type(left) is bytes is type(right) for left, right in merges):
            return pairs, made
    except (KeyError, TypeError, ValueError):
        pass
    for rank, merge in enumerate(merges):
        if not isinstance(merge, (tuple, list)) or len(merge) != 2 or not all(type(part) is bytes for part in merge):
            raise ValueError(f"merge {rank} is {shown(merge)}; each merge must be a pair of bytes values")
        for part in (merge[0], merge[1], merge[0] + merge[1]):
            if part not in id_of:
                raise ValueError(f"merge {rank} ({shown(merge[0])}, {shown(merge[1])}) needs {shown(part)}, "
                                 "which is not in vocab")
    raise AssertionError("a merge was refused, but none is malformed")


def to_bytes(tokenizer) -> tuple:
    """``(vocab, merges, special_tokens)`` in course material's form, as ``Tokenizer.from_bytes`` takes them.

    (``Tokenizer.to_bytes``.) ``vocab`` maps every ID to its bytes (special
    tokens' as their UTF-8 text), ``merges`` lists the byte pairs in rank
    order, ``special_tokens`` the texts cut out whole, by ID (an imported
    model's added tokens, special or not: the form has one kind). What the
    form cannot hold (an imported model's normalizer, its regex) is not in
    it; a character-level tokenizer has no bytes and is refused.
    """
    if not tokenizer.byte_level:
        raise ValueError("the in-memory form holds bytes: only a byte-level tokenizer (byte_level=True) has it")
    vocab = {token_id: token_bytes(token) for token, token_id in tokenizer.ids.items()}
    specials = added_texts(tokenizer)
    vocab.update((token_id, tokenizer.token_bytes(token_id)) for token_id in specials.values())
    merges = [(token_bytes(left), token_bytes(right)) for left, right in tokenizer.merges]
    return dict(sorted(vocab.items())), merges, list(specials)


def added_texts(tokenizer):
    """The texts a tokenizer cuts out whole -> their IDs, by ID: its special tokens, or its pipeline's added tokens."""
    if tokenizer.pipeline is None:
        return dict(sorted(tokenizer.special_tokens.items(), key=lambda item: item[1]))
    return {token.content: token.id for token in sorted(tokenizer.pipeline.added_tokens, key=lambda token: token.id)}


# -- the pair of files -------------------------------------------------------


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
