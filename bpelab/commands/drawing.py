"""Drawing: tokens drawn for a person, the same way in ``show``, ``explain``, ``inspect`` and the pages.

``bpelab.text.readable`` gives each token as readable text (as
``bpe.Tokenizer.token_texts`` does); this module draws with it: ``render_plain`` and ``render_colour`` draw a text with its
token boundaries, ``made_from`` and ``format_table`` the rows of
``inspect``, and ``merge_tree`` says how a token was built, for ``bpe
view``. Merges are numbered as the lessons number them: merge 1 is the
first (the API's ``merge_rank`` counts from 0).
"""

import functools

from bpelab.checks import UNK
from bpelab.imported.sentencepiece import token_byte
from bpelab.text.readable import BOUNDARY, MARKS, decodes_bytes, id_text, token_text, visible

DEFAULT_TEXT = "the café baker bakes cakes, the café bakes soufflé"
"""The tutorial's review: the text both pages start with (``bpe view`` and ``bpe widget``)."""


def pipeline_lines(tokenizer):
    """An imported tokenizer's pipeline in words, and at the character level its safe cuts (``Tokenizer.describe``)."""
    return tokenizer.describe()["pipeline"]


def unknown_id(tokenizer):
    """The ID of the unknown-character token (``<unk>``), or None where there is none (the byte level)."""
    return tokenizer.describe()["unknown_id"]


def base_kind(tokenizer):
    """What the base tokens are, in a few words, for ``inspect``."""
    return tokenizer.describe()["base"]


PALETTE = ("\x1b[30;43m", "\x1b[30;46m", "\x1b[30;42m", "\x1b[30;45m", "\x1b[30;47m")
"""Background colours (black text) that ``show`` cycles through, so neighbours always differ."""

UNKNOWN_STYLES = ("\x1b[1;97;41m", "\x1b[1;97;101m")
"""Bold white on red and on bright red, alternating, for ``<unk>`` tokens; no palette colour is red."""

RESET = "\x1b[0m"


def render_plain(spans, unknown):
    """Tokens between │ boundaries, whitespace as marks, ``<unk>`` for unknown characters.

    A newline mark is followed by a real newline so that lines stay lines.
    """
    newline = MARKS["\n"]
    return BOUNDARY.join(
        UNK if is_unknown else visible(span).replace(newline, newline + "\n")
        for span, is_unknown in zip(spans, unknown)
    )


def render_colour(spans, unknown):
    """Tokens on background colours that differ between neighbours; unknown ones on red.

    The colour shows where a space is, so spaces stay spaces; the colour is
    reset before each real newline so that it never runs on to the line's end.
    """
    newline, space = MARKS["\n"], MARKS[" "]
    painted = []
    for index, (span, is_unknown) in enumerate(zip(spans, unknown)):
        styles = UNKNOWN_STYLES if is_unknown else PALETTE
        style = styles[index % len(styles)]
        lines = visible(span).replace(space, " ").replace(newline, newline + "\n").split("\n")
        painted.append("\n".join(style + line + RESET if line else "" for line in lines))
    return "".join(painted)


INSPECT_WIDTH = 24
"""``inspect`` pads the token column to the longest token shown, but to no more than this."""


def made_from(tokenizer, token_id, first_merges=None):
    """What a vocabulary entry is: ``(merge number, "left + right")`` for a merged token (merge 1 is the first;
    the first merge that makes it), ``("", "special")`` or ``("", "added")`` for an added token, ``("", "")`` for a
    base token, ``("", "no merge")`` for a token that no merge makes (it comes only whole: see ``emitted_whole``).

    ``first_merges`` is ``first_merge_of(tokenizer)``, worked out here if not given.
    """
    if token_id in tokenizer.special_tokens.values():
        return "", "special"
    token = tokenizer.vocab[token_id]
    if token not in tokenizer.ids:
        return "", "added"
    rank = (first_merge_of(tokenizer) if first_merges is None else first_merges).get(token_id)
    if rank is not None:
        left, right = tokenizer.merges[rank]
        return str(rank + 1), f"{token_text(tokenizer, left)} + {token_text(tokenizer, right)}"
    if token_id in tokenizer.describe()["added_ids"]:
        return "", "added"
    return "", "" if token in tokenizer.alphabet or token == UNK else "no merge"


@functools.lru_cache(maxsize=4)
def first_merge_of(tokenizer):
    """Each merged token's ID -> the rank of the first merge that makes it (several may: Llama 3's do); made once
    per tokenizer (its merges never change)."""
    ids, found = tokenizer.ids, {}
    for rank, (left, right) in enumerate(tokenizer.merges):
        found.setdefault(ids[left + right], rank)
    return found


def merges_one_at_a_time(tokenizer):
    """Whether this tokenizer's merges must be replayed one occurrence at a time (``ranked.reference_encode_leftmost``,
    Hugging Face's rule) rather than all occurrences of a pair at once (``bpe.reference_encode``): the two differ
    only when a merge may rebuild a token, or use one made later (see ``ranked.is_lab_ordered``)."""
    return tokenizer.describe()["one_merge_at_a_time"]


def emitted_whole(tokenizer, chunk):
    """Whether ``encode`` gives ``chunk`` as one token without merging: ``ignore_merges`` and a chunk that is a token.

    (Llama 3 has 588 tokens that its merges would not make from their bytes.)
    """
    return tokenizer.describe()["ignore_merges"] and "".join(tokenizer.start_tokens(chunk)) in tokenizer.ids


MAX_TREE_NODES = 1000
"""``merge_tree`` lists at most this many nodes (a real token has a few dozen) and counts the rest."""


def merge_tree(tokenizer, token_id, most=MAX_TREE_NODES):
    """How the token with ID ``token_id`` was built: its merge tree, down to bytes or characters, or why it has none.

    Returns ``{"id", "text", "reason", "nodes", "more"}``: ``reason`` is None
    for a merged token, whose ``nodes`` are its tree in pre-order (a node,
    then its left part's tree, then its right part's), each
    ``{"depth", "id", "text", "merge", "pair"}``, where ``merge`` is the
    number of the merge that made it (merge 1 is the first) and ``pair`` its
    two parts drawn as ``explain`` draws them, or None and None for a byte or
    a character; ``more`` counts the nodes past ``most``. For a token no merge
    makes, ``reason`` says what it is and ``nodes`` is empty. Each kind of
    token is one case below.

    >>> from bpe import Tokenizer
    >>> tok = Tokenizer(list("abk"), [("a", "k"), ("ak", "b")])
    >>> [(node["depth"], node["text"], node["merge"]) for node in merge_tree(tok, tok.ids["akb"])["nodes"]]
    [(0, 'akb', 2), (1, 'ak', 1), (2, 'a', None), (2, 'k', None), (1, 'b', None)]
    """
    vocab, first = tokenizer.vocab, first_merge_of(tokenizer)
    if isinstance(token_id, bool) or not isinstance(token_id, int) or not 0 <= token_id < len(vocab):
        raise ValueError(f"token_id must be an ID from 0 to {len(vocab) - 1}, not {token_id!r}")
    text = "" if vocab[token_id] is None else id_text(tokenizer, token_id)
    built = {"id": token_id, "text": text, "reason": None, "nodes": [], "more": 0}
    if vocab[token_id] is None:
        built["reason"] = "no token has this ID: it is a gap before the special tokens"
    elif token_id == unknown_id(tokenizer):
        built["reason"] = "the unknown token: it stands for any character the alphabet lacks"
    elif vocab[token_id] not in tokenizer.ids or token_id in tokenizer.special_tokens.values():
        built["reason"] = "a special token: it stands for its text, whole, and no merge makes it"
    elif token_id not in first:
        byte_token = token_byte(vocab[token_id]) is not None and decodes_bytes(tokenizer)
        kind = "one of the 256 bytes" if tokenizer.byte_level else "a byte, for byte fallback" if byte_token \
            else "a character of the alphabet"
        built["reason"] = f"a base token ({kind}): no merge makes it" if vocab[token_id] in tokenizer.alphabet \
            else "no merge makes it: it comes only whole (an added token, or ignore_merges)"
    else:
        parts = merge_parts(tokenizer)
        stack = [(token_id, 0)]
        while stack and len(built["nodes"]) < most:
            node_id, depth = stack.pop()
            node = {"depth": depth, "id": node_id, "text": token_text(tokenizer, vocab[node_id]), "merge": None,
                    "pair": None}
            if node_id in first:
                left, right = parts(node_id)
                node["merge"] = first[node_id] + 1
                node["pair"] = [token_text(tokenizer, vocab[left]), token_text(tokenizer, vocab[right])]
                stack += [(right, depth + 1), (left, depth + 1)]
            built["nodes"].append(node)
        if stack:
            built["more"] = tree_size(token_id, first, parts) - len(built["nodes"])
    return built


def merge_parts(tokenizer):
    """A function: the ID of a merged token -> the IDs of the two tokens the first merge making it joined."""
    ids, merges, first = tokenizer.ids, tokenizer.merges, first_merge_of(tokenizer)

    def parts(token_id):
        left, right = merges[first[token_id]]
        return ids[left], ids[right]

    return parts


def tree_size(token_id, merged, parts):
    """How many nodes the merge tree of ``token_id`` has (``merged``: the IDs a merge makes), worked out once per
    distinct token in it."""
    sizes, stack = {}, [token_id]
    while stack:
        node = stack[-1]
        if node not in merged:
            sizes[node] = 1
        else:
            missing = [part for part in parts(node) if part not in sizes]
            if missing:
                stack += missing
                continue
            sizes[node] = 1 + sum(sizes[part] for part in parts(node))
        stack.pop()
    return sizes[token_id]


def format_table(rows, numbers=1):
    """Rows of strings as columns, the first ``numbers`` right-aligned; no column padded past ``INSPECT_WIDTH``."""
    widths = [min(INSPECT_WIDTH, max(len(row[column]) for row in rows)) for column in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell.rjust(width) if column < numbers else cell.ljust(width)
                 for column, (cell, width) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"
