"""Safe cuts of an imported pipeline: where its text may be cut without changing the IDs ``bpe.Tokenizer.encode`` gives.

The lab's named patterns come with their safe cuts (``patterns.SAFE_CUTS``):
a place between a character of one class and one of another where no chunk
is ever cut differently, so long text is encoded a block at a time with the
IDs of the whole. An imported pipeline says no such thing; this module
finds one, or says there is none it can prove, by reading the pipeline's
own steps. A rule is a pair of classes, ``(before, after)``: the text may be
cut between a character of ``before`` and one of ``after``. It holds if
every stage gives the same result on the two halves as on the whole:

- **normalizer**: only ``replace`` steps of one character by one character
  (Gemma 3's space by ``▁``): they change each character alone, so the
  rule, read through them, is the rule on the normalized text. Any other
  step (``prepend``, a Unicode form) has no rule here;
- **pre-tokenizer**: each ``split`` regex (GPT-2's ``ByteLevel`` regex too)
  is read as its tree (``bpelab.text.oniguruma``), and no match may hold
  a character of ``before`` followed by one of ``after``, nor look ahead, or
  at the end, right after one of ``before`` (``check_tree``), nor be empty:
  then its matches in each half are those of the whole. A split that keeps the
  matches and the text between them apart (``isolated``, ``removed``) and
  matches any one character of ``before`` (or ``after``) alone makes the cut
  a boundary between pieces; the other behaviours only glue pieces, which
  later steps may cut again. At least one step (or the model) must make the
  boundary. ``prefix_space`` needs ``after`` to be a space, so the second
  half gets none put in front;
- **model**: SentencePiece's kind cuts a chunk before each ``▁`` that
  follows a character no token holds before a ``▁``
  (``sentencepiece.safe_cuts``), which makes a boundary of its own;
- **added tokens**: no occurrence of one may span the cut (the caller's
  ``special_safe`` looks for that in the text itself).

The candidates tried, in order: the ``▁`` rule for SentencePiece's kind,
then non-whitespace before whitespace (GPT-2's), then a letter or a number
before whitespace (Llama 3's, as cl100k's), then a number before anything
else (SuperBPE's stage 2). ``tests/imported/test_safe_cuts.py`` holds every
rule found to encoding the whole text, on random texts cut everywhere.
"""

from bpelab.imported.pipeline import split_source
from bpelab.imported.sentencepiece import SPACE_MARK, before_space_mark
from bpelab.text import oniguruma
from bpelab.text.chunk_regex import bracket
from bpelab.text.oniguruma import complement, union
from bpelab.text.regex_cuts import (CANDIDATES, Unsafe, intersection, matched_alone, subset, text_set)


KEEPS_MATCHES_APART = ("isolated", "removed")
"""The split behaviours whose matches are pieces of their own (the others glue them to their neighbours)."""


def cut_rule(pipeline, ids):
    """The classes ``(before, after)`` (Python regex classes, in the text as given) between which ``pipeline``'s
    text may be cut without changing its IDs, or None where none is proven; ``ids`` is the model's vocabulary."""
    mapped = character_map(pipeline.normalizer)
    if mapped is None or (mapped and any(token.normalized for token in pipeline.added_tokens)):
        return None  # (an added token sought in the normalized text would need the rule read back through it)
    candidates = [(rule, False) for rule in CANDIDATES]
    if not pipeline.byte_level and SPACE_MARK in ids and not pipeline.ignore_merges:
        candidates.insert(0, ((complement(text_set(before_space_mark(ids))), text_set(SPACE_MARK)), True))
    for (before, after), cut_by_the_model in candidates:
        if pipeline.add_prefix_space:
            after = intersection(after, text_set(" "))
        try:
            boundaries = [step_holds(step, before, after) for step in pipeline.pre_tokenizer]
        except Unsafe:
            continue
        if (any(boundaries) or cut_by_the_model) and before and after:
            return tuple(bracket(read_back(ranges, mapped), oniguruma.TOP) for ranges in (before, after))
    return None


def step_holds(step, before, after):
    """Whether a pre-tokenizer step makes the cut a boundary (True) or only keeps both halves' pieces as the
    whole's (False); ``Unsafe`` where it would cut the halves otherwise than the whole."""
    if step["step"] == "prefix_space":
        return False  # (``after`` is a space: the second half gets none put in front, as in the whole)
    if step["step"] == "digits":
        source, keeps_apart = "\\p{N}", step["individual"]
    else:
        source, keeps_apart = split_source(step["pattern"]), step["behavior"] in KEEPS_MATCHES_APART
    alone = matched_alone(source, before, after)
    if alone is None:
        raise Unsafe
    return keeps_apart and (subset(before, alone) or subset(after, alone))


def character_map(normalizer):
    """What a normalizer of one-character ``replace`` steps does to each character it changes, as a dict (empty for
    no normalizer); None for any other normalizer."""
    mapped = {}
    for step in normalizer:
        if step["step"] != "replace" or len(step["old"]) != 1 or len(step["new"]) != 1:
            return None
        old, new = step["old"], step["new"]
        mapped = {char: new if result == old else result for char, result in mapped.items()}
        mapped.setdefault(old, new)
    return {char: result for char, result in mapped.items() if char != result}


def read_back(ranges, mapped):
    """The characters of the text as given that the normalizer ``mapped`` makes into one of ``ranges``."""
    changed = text_set("".join(mapped))
    kept = intersection(ranges, complement(changed))
    return union(kept, text_set("".join(char for char, result in mapped.items() if oniguruma.contains(ranges,
                                                                                                     ord(result)))))


