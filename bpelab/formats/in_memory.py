"""Course material's vocabulary in memory, both ways: ``dict[int, bytes]`` and byte-pair merges.

``bpe.Tokenizer(alphabet, merges)`` rebuilds its IDs from the merges. The
in-memory form of course material gives them instead: ``vocab`` a
``dict[int, bytes]`` in any ID order (GPT-2's byte ``!`` is ID 0),
``merges`` a list of ``(bytes, bytes)`` pairs in the order learned, and the
special tokens a list of strings (``Tokenizer.from_bytes`` and
``to_bytes``). GPT-2's pair of files (``bpelab.formats.gpt2``) is the same
idea on disk, and builds its tokenizer here too.

The form does not say how text is cut before merging: it takes a named
pattern, ``"gpt2"`` unless told (GPT-2's regex is what course material cuts
with, and the lab's byte-level default; a named pattern is exact in Python
and has safe cuts for ``encode_iterable``). Nor does it say which tokens are
special: ``special_tokens=`` names them; each is then cut out of the text
whole (not merged into), with the ID its bytes have in the vocabulary, or,
if absent, the next free ID, as course material does. A special token that
a merge makes, or that is a single byte, is refused: it would need two
kinds at one ID.

Both forms build on the given vocabulary of ``bpelab.imported.vocabulary``
(``bpelab.formats.lab.given_or_lab_arguments``): IDs laid out as the lab's
own (the 256 bytes, then one per merge in order, then the special tokens)
with a named pattern give the lab's kind of tokenizer (special tokens follow
tiktoken's rule: refused in text unless allowed); any other layout gives an
imported one, which encodes as Hugging Face does (every special token
matched by default).
"""

from typing import Mapping, Sequence

from bpelab.byte_level import BYTE_TO_CHAR, CHAR_TO_BYTE, bytes_to_display
from bpelab.formats.lab import given_or_lab_arguments
from bpelab.imported.added_tokens import AddedToken
from bpelab.imported.pipeline import Pipeline
from bpelab.imported.vocabulary import MAX_ID, token_bytes
from bpelab.merges.picky_model import refuse_removals
from bpelab.messages import shown
from bpelab.text.patterns import check_pattern


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
    refuse_removals(tokenizer, "the in-memory form of vocab and merges")
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
