"""Where a tokenizer's text may be cut into blocks that encode to the IDs of the whole: ``bpe.Tokenizer.encode``.

Long text is encoded a block at a time, each block ending at a *safe cut*,
where cutting cannot change what ``encode`` does:

- the chunks may not change: the lab's pattern's rule
  (``patterns.SAFE_CUTS``), or for an imported model the rule its pipeline
  is proven to keep (``bpelab.imported.safe_cuts``: GPT-2's, Llama 3's and
  Gemma 3's files have one; a normalizer other than one-character
  replacements, such as Llama 2's ``Prepend`` or Qwen 3's NFC, has none);
- no special (or added) token may span the cut: no occurrence of any of
  their texts, allowed or not, reaches across it. Then finding them
  leftmost and longest in each part finds what it finds in the whole;
- with a prefix space, the text after the cut begins with a space, so
  ``encode`` puts none in front of it, as it would not in the whole.

``safe_cut(tokenizer)`` gives the function that finds the last such cut in
a block, for ``blocks.safe_blocks``; the token files, the counts of tokens
and the stream encoder all read their text through it.
"""

import re

from bpelab.imported.safe_cuts import cut_rule
from bpelab.text.patterns import last_cut_found, safe_cut_rule, template_regex
from bpelab.text.specials import special_finder

TRIES = 8
"""How many candidate cuts a block tries when special tokens span them, before it waits for more text."""


def safe_cut(tokenizer):
    """A function giving the last safe cut in a block of text for ``tokenizer`` (see above), or -1; None for a
    tokenizer whose pipeline has no rule the lab can prove."""
    pipeline = tokenizer.pipeline
    if pipeline is None:
        before, after = safe_cut_rule(tokenizer.pattern)
        search = template_regex((" " if tokenizer.add_prefix_space else after) + before).search
        texts = tokenizer.special_tokens
    else:
        rule = cut_rule(pipeline, tokenizer.ids)
        if rule is None:
            return None
        search, texts = re.compile(rule[1] + rule[0]).search, [token.content for token in pipeline.added_tokens]
    return special_safe(lambda text: last_cut_found(text, search), frozenset(texts))


def special_safe(rule_cut, texts):
    """``rule_cut``, but never where an occurrence of one of ``texts`` spans the cut (-1 when none is found).

    A cut is taken only with the longest text's length but one of the block
    on each side of it, so every occurrence that could span it is in view.
    """
    if not texts:
        return rule_cut
    longest = max(map(len, texts))
    starts = re.compile(f"(?=({special_finder(texts).pattern}))").finditer  # each occurrence, overlapping too

    def cut(text):
        limit = len(text) - longest + 1
        for _ in range(TRIES):
            at = rule_cut(text[:limit + 1]) if limit >= longest - 1 else -1
            if at < longest - 1:
                return -1
            spanning = [found.start() for found in starts(text, at - longest + 1, at + longest - 1)
                        if found.start() < at < found.start() + len(found.group(1))]
            if not spanning:
                return at
            limit = min(spanning)
        return -1

    return cut
