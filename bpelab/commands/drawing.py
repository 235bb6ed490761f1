"""Drawing: tokens drawn for a person, the same way in ``show``, ``explain``, ``inspect`` and the pages.

``bpelab.text.readable`` gives each token its readable form (as
``bpe.Tokenizer.readable_tokens`` does); this module draws with it:
``render_plain`` and ``render_colour`` draw a text with its token boundaries,
``made_from`` and ``format_table`` the rows of ``inspect``, and ``replay``
the merges encoding makes on a chunk, which ``explain_chunk`` writes step by
step for ``explain`` and ``merge_tree`` draws as the tree of a token for
``bpe view``. Merges are
numbered as the lessons number them: merge 1 is the first (the API's
``merge_rank`` counts from 0).
"""

import functools
import heapq
import sys
from collections import namedtuple

from bpelab.checks import UNK
from bpelab.imported.sentencepiece import token_byte
from bpelab.text.readable import (BOUNDARY, MARKS, Stream, char_width, decodes_bytes, described, display_width,
                                  id_form, readable_texts, token_parts, visible)

DEFAULT_TEXT = "the café baker bakes cakes, the café bakes soufflé"
"""The tutorial's review: the text both pages start with (``bpe view`` and ``bpe widget``)."""


def counted(number, noun):
    """A number and its noun, singular for one: ``1 token``, ``2 tokens``, ``1,234 special tokens``."""
    return f"{number:,} {noun}" if number == 1 else f"{number:,} {noun}s"


def pipeline_lines(tokenizer):
    """An imported tokenizer's pipeline in words, and at the character level its safe cuts (``Tokenizer.describe``)."""
    return described(tokenizer)["pipeline"]


def unknown_id(tokenizer):
    """The ID of the unknown-character token (``<unk>``), or None where there is none (the byte level)."""
    return described(tokenizer)["unknown_id"]


def removed_tokens(tokenizer):
    """How many tokens its training removed again (PickyBPE's; 0 for every other kind of model)."""
    return described(tokenizer)["removals"]


def base_kind(tokenizer):
    """What the base tokens are, in a few words, for ``inspect``."""
    return described(tokenizer)["base"]


PALETTE = ("\x1b[30;43m", "\x1b[30;46m", "\x1b[30;42m", "\x1b[30;45m", "\x1b[30;47m")
"""Background colours (black text) that ``show`` cycles through, so neighbours always differ."""

UNKNOWN_STYLES = ("\x1b[1;97;41m", "\x1b[1;97;101m")
"""Bold white on red and on bright red, alternating, for ``<unk>`` tokens; no palette colour is red."""

RESET = "\x1b[0m"


def render_plain(forms, unknown):
    """Tokens (their readable forms) between │ boundaries, ``<unk>`` for unknown characters.

    A newline mark is followed by a real newline so that lines stay lines.
    """
    newline = MARKS["\n"]
    return BOUNDARY.join(UNK if is_unknown else form.replace(newline, newline + "\n")
                         for form, is_unknown in zip(forms, unknown))


def render_colour(forms, unknown):
    """Tokens (their readable forms) on background colours that differ between neighbours; unknown ones on red.

    The colour shows where a space is, so spaces stay spaces; the colour is
    reset before each real newline so that it never runs on to the line's end.
    """
    newline, space = MARKS["\n"], MARKS[" "]
    painted = []
    for index, (form, is_unknown) in enumerate(zip(forms, unknown)):
        styles = UNKNOWN_STYLES if is_unknown else PALETTE
        style = styles[index % len(styles)]
        lines = form.replace(space, " ").replace(newline, newline + "\n").split("\n")
        painted.append("\n".join(style + line + RESET if line else "" for line in lines))
    return "".join(painted)


# -- replaying merges: what ``explain`` prints and ``bpe view`` draws ------


@functools.lru_cache(maxsize=4)
def merge_table(tokenizer):
    """Each merge by the IDs of its parts: ``(left ID, right ID) -> rank << ID_BITS | merged ID`` (one int, ordered
    as the ranks are), made once per tokenizer."""
    ids = tokenizer.ids
    return {(ids[left], ids[right]): rank << ID_BITS | ids[left + right]
            for rank, (left, right) in enumerate(tokenizer.merges)
            if left in ids and right in ids and left + right in ids}  # (PickyBPE's may name removed tokens)


ID_BITS = 32
"""``merge_table`` keeps a merge's rank above this many bits of the merged ID (IDs are below 2**24)."""


Replay = namedtuple("Replay", "ids parts roots")
"""The merges made on a chunk: ``ids[node]`` is each node's token ID, its leaves (the chunk's starting tokens) first,
then one node per merge in the order made; ``parts[node]`` is ``(left node, right node, rank)`` for a merged node
(None for a leaf); ``roots`` are the nodes the chunk ends as, in order."""


def replay(tokenizer, start_ids):
    """The merges encoding makes on a chunk's starting IDs: the lowest-ranked pair first, of equals the leftmost,
    one occurrence at a time, as ``ranked.reference_encode_leftmost`` defines it.

    Where the merges are ordered as training orders them this is also
    ``bpe.reference_encode``, whose step merges every occurrence of the
    pair at once: those occurrences come here one after another, leftmost
    first (``explain`` shows them as one step). A short chunk is merged by a
    plain loop (``engine.merge_few``'s), a long one with a heap of the pairs
    that are merges, under (rank, position), so that it stays n log n.

    >>> from bpe import Tokenizer
    >>> tok = Tokenizer(list("abk"), [("a", "k"), ("ak", "b")])
    >>> done = replay(tok, [tok.ids[char] for char in "akbak"])
    >>> [tok.vocab[token_id] for token_id in done.ids], done.parts[5:], done.roots
    (['a', 'k', 'b', 'a', 'k', 'ak', 'ak', 'akb'], [(0, 1, 0), (3, 4, 0), (5, 2, 1)], [7, 6])
    """
    made = Replay(list(start_ids), [None] * len(start_ids), None)
    merge = merge_few_recorded if len(start_ids) <= FEW else merge_heap_recorded
    return made._replace(roots=merge(made, merge_table(tokenizer)))


FEW = 32
"""Up to how many starting tokens ``replay`` merges by the plain loop."""

NO_MERGE = sys.maxsize
"""Stands for "this pair is not a merge" among ``merge_table``'s entries, so that ``min`` finds the lowest rank."""


def merge_few_recorded(made, table):
    """``replay`` on a short chunk: the leftmost of the lowest-ranked pairs, merged and looked for again; each merge
    recorded in ``made`` (its ``ids`` and ``parts``); the nodes it ends as."""
    ids, parts, get, mask = made.ids, made.parts, table.get, (1 << ID_BITS) - 1
    tokens, nodes = list(ids), list(range(len(ids)))
    ranks = [get(pair, NO_MERGE) for pair in zip(tokens, tokens[1:])]
    while ranks:
        best = min(ranks)
        if best == NO_MERGE:
            break
        at, new = ranks.index(best), best & mask
        ids.append(new)
        parts.append((nodes[at], nodes[at + 1], best >> ID_BITS))
        tokens[at], nodes[at] = new, len(ids) - 1
        del tokens[at + 1], nodes[at + 1], ranks[at]
        if at > 0:
            ranks[at - 1] = get((tokens[at - 1], new), NO_MERGE)
        if at < len(ranks):
            ranks[at] = get((new, tokens[at + 1]), NO_MERGE)
    return nodes


def merge_heap_recorded(made, table):
    """``replay`` on a long chunk, as ``merge_few_recorded`` but with a heap of the pairs that are merges, under
    (rank, position), and the chunk as a linked list: n log n."""
    ids, parts, size = made.ids, made.parts, len(made.ids)
    live = list(range(size))  # live[position]: the node that starts at this leaf position (None once merged away)
    after, before = list(range(1, size + 1)), list(range(-1, size - 1))
    heap = []

    def queue(position):  # the pair that starts at ``position``, if it is a merge
        if position >= 0 and after[position] < size:
            left, right = live[position], live[after[position]]
            found = table.get((ids[left], ids[right]))
            if found is not None:
                heapq.heappush(heap, (found, position, left, right))

    for position in range(size - 1):
        queue(position)
    while heap:
        found, position, left, right = heapq.heappop(heap)
        if live[position] != left or after[position] >= size or live[after[position]] != right:
            continue  # one of the two was merged with another neighbour first
        live[position], live[after[position]] = len(ids), None
        ids.append(found & ((1 << ID_BITS) - 1))
        parts.append((left, right, found >> ID_BITS))
        after[position] = after[after[position]]
        if after[position] < size:
            before[after[position]] = position
        queue(before[position])
        queue(position)
    return [node for node in live if node is not None]


def merges_one_at_a_time(tokenizer):
    """Whether this tokenizer's merges must be replayed one occurrence at a time (``ranked.reference_encode_leftmost``,
    Hugging Face's rule) rather than all occurrences of a pair at once (``bpe.reference_encode``): the two differ
    only when a merge may rebuild a token, or use one made later (see ``ranked.is_lab_ordered``)."""
    return described(tokenizer)["one_merge_at_a_time"]


def emitted_whole(tokenizer, chunk):
    """Whether ``encode`` gives ``chunk`` as one token without merging: ``ignore_merges`` and a chunk that is a token.

    (Llama 3 has 588 tokens that its merges would not make from their bytes.)
    """
    return whole_token(tokenizer, tokenizer.start_tokens(chunk)) is not None


def whole_token(tokenizer, tokens):
    """The ID of the token ``ignore_merges`` gives a chunk of these starting tokens whole, or None."""
    return tokenizer.ids.get("".join(tokens)) if described(tokenizer)["ignore_merges"] else None


def chunk_replay(tokenizer, chunk):
    """What ``explain`` shows of one chunk: ``(whole, replay)``, ``whole`` the ID of the token ``ignore_merges`` gives
    the chunk whole (the replay then holds only its starting tokens), else None and the ``replay`` of the merges
    encoding makes on it (see ``emitted_whole``)."""
    tokens = tokenizer.start_tokens(chunk)
    start, whole = [tokenizer.ids[token] for token in tokens], whole_token(tokenizer, tokens)
    if whole is not None:
        return whole, Replay(start, [None] * len(start), list(range(len(start))))
    return None, replay(tokenizer, start)


def token_chunk(tokenizer, token_id):
    """The text of a token if that text alone is one chunk (so ``explain`` replays it as the token's own), else None."""
    try:
        text = tokenizer.decode_bytes([token_id]).decode("utf-8")  # (token_bytes: the same, the ID checked twice)
    except UnicodeDecodeError:
        return None
    return text if tokenizer.chunks(text) == [text] else None


def taken_whole(tokenizer, token_id):
    """Whether encoding takes this token whole, unmerged (``ignore_merges``), where its text is a chunk of its own."""
    if not described(tokenizer)["ignore_merges"]:
        return False
    chunk = token_chunk(tokenizer, token_id)
    return chunk is not None and emitted_whole(tokenizer, chunk)


def token_replay(tokenizer, token_id):
    """The merges encoding makes on a token's own starting tokens (its bytes, or its characters), or None where one
    of its characters is no token (no merge can make it)."""
    token = tokenizer.vocab[token_id]
    if any(char not in tokenizer.ids for char in token):
        return None
    return replay(tokenizer, [tokenizer.ids[char] for char in token])


# -- a token's merge tree, for ``bpe view`` --------------------------------


MAX_TREE_NODES = 1000
"""``merge_tree`` lists at most this many nodes (a real token has a few dozen) and counts the rest."""


def merge_tree(tokenizer, token_id, most=MAX_TREE_NODES, context=None):
    """How the token with ID ``token_id`` is built: the merges encoding makes on its bytes (or characters), as
    ``bpe explain`` replays them, as a tree; or why it has none.

    Returns ``{"id", "text", "reason", "nodes", "more"}``: ``nodes`` is the
    tree in pre-order (a node, then its left part's tree, then its right
    part's), each ``{"depth", "id", "text", "merge", "pair"}``, where
    ``merge`` is the number of the merge that made it (merge 1 is the first)
    and ``pair`` its two parts, or None and None for a starting token;
    ``more`` counts the nodes past ``most``. ``reason`` is None for a token
    its merges build, else what it is: a base or special token, one that an
    ``ignore_merges`` model takes whole (with the tree its merges build
    inside a longer chunk, where they build it), one no merge builds. Texts
    are in the readable form, read in ``context``: ``(text, start)``, the
    characters around the token and the byte of their UTF-8 where it starts
    (the token alone if not given). Each kind of token is one case below.

    >>> from bpe import Tokenizer
    >>> tok = Tokenizer(list("abk"), [("a", "k"), ("ak", "b")])
    >>> [(node["depth"], node["text"], node["merge"]) for node in merge_tree(tok, tok.ids["akb"])["nodes"]]
    [(0, 'akb', 2), (1, 'ak', 1), (2, 'a', None), (2, 'k', None), (1, 'b', None)]
    """
    if isinstance(token_id, bool) or not isinstance(token_id, int) or not 0 <= token_id < len(tokenizer.vocab):
        raise ValueError(f"token_id must be an ID from 0 to {len(tokenizer.vocab) - 1}, not {token_id!r}")
    reason, done = token_build(tokenizer, token_id)
    draw = tree_drawer(tokenizer, token_id, done, context)
    built = {"id": token_id, "text": draw(None), "reason": reason, "nodes": [], "more": 0}
    if done is not None:
        built["nodes"], built["more"] = tree_nodes(done, draw, most)
    return built


def token_kind(tokenizer, token_id):
    """What kind of entry the token with ID ``token_id`` is, before any merge is replayed: ``"gap"`` (no token has
    the ID), ``"unknown"``, ``"special"`` (or another added token the model's merges never make), ``"base"``,
    ``"whole"`` (``ignore_merges`` takes it whole where its text is a chunk: ``taken_whole``) or ``"merged"``
    (encoding gives it, if at all, by merges)."""
    token = tokenizer.vocab[token_id]
    if token is None:
        return "gap"
    if token_id == unknown_id(tokenizer):
        return "unknown"
    if token not in tokenizer.ids or token_id in special_ids(tokenizer):
        return "special"
    if token in base_tokens(tokenizer):
        return "base"
    return "whole" if taken_whole(tokenizer, token_id) else "merged"


def token_build(tokenizer, token_id):
    """How encoding gives the token with ID ``token_id``: ``(reason, replay)``, ``reason`` None and the ``replay``
    of its own starting tokens where its merges build it; else why not, with the replay where its merges build it
    all the same (a token ``ignore_merges`` takes whole, which its merges build inside a longer chunk)."""
    kind = token_kind(tokenizer, token_id)
    if kind in REASONS:
        return REASONS[kind], None
    if kind == "base":
        byte_token = token_byte(tokenizer.vocab[token_id]) is not None and decodes_bytes(tokenizer)
        made_of = "one of the 256 bytes" if tokenizer.byte_level else "a byte, for byte fallback" if byte_token \
            else "a character of the alphabet"
        return f"a base token ({made_of}): no merge makes it", None
    if removed_tokens(tokenizer):  # (encoding replays removals too, which a tree of merges cannot show)
        return REASONS["picky"], None
    done = token_replay(tokenizer, token_id)
    rebuilt = done is not None and len(done.roots) == 1 and done.ids[done.roots[0]] == token_id
    made = "no token" if done is None else counted(len(done.roots), "token")
    if kind == "whole":
        return ("taken whole: with ignore_merges a chunk that is a token is that token, unmerged; " +
                ("inside a longer chunk its merges build it so" if rebuilt else f"its merges would make {made} of it"),
                done if rebuilt else None)
    if not rebuilt:
        return (f"no merge builds it: its merges make {made} of its bytes, so it comes only whole (an added token, "
                "or ignore_merges)", None)
    return None, done


REASONS = {"gap": "no token has this ID: it is a gap before the special tokens",
           "unknown": "the unknown token: it stands for any character the alphabet lacks",
           "special": "a special token: it stands for its text, whole, and no merge makes it",
           "picky": "a token of PickyBPE's, whose parts its training may have removed since: it has no tree of IDs"}
"""Why a token of these kinds (``token_kind``) has no merge tree."""


@functools.lru_cache(maxsize=4)
def base_tokens(tokenizer):
    """The tokenizer's base tokens, as a set (its alphabet never changes)."""
    return frozenset(tokenizer.alphabet)


@functools.lru_cache(maxsize=4)
def special_ids(tokenizer):
    """The IDs of the tokenizer's special tokens, as a set."""
    return frozenset(tokenizer.special_tokens.values())


def tree_nodes(done, draw, most):
    """The nodes of a ``replay`` that ends in one token, in pre-order with their depths, at most ``most`` of them
    (each drawn by ``draw(node)``), and how many more there are."""
    nodes, stack = [], [(done.roots[0], 0)]
    while stack and len(nodes) < most:
        node, depth = stack.pop()
        shown = {"depth": depth, "id": done.ids[node], "text": draw(node), "merge": None, "pair": None}
        if done.parts[node] is not None:
            left, right, rank = done.parts[node]
            shown["merge"], shown["pair"] = rank + 1, [draw(left), draw(right)]
            stack += [(right, depth + 1), (left, depth + 1)]
        nodes.append(shown)
    return nodes, len(done.ids) - len(nodes)


def tree_drawer(tokenizer, token_id, done, context):
    """A function: a node of the token's ``replay`` ``done`` (None: the token itself) -> its readable form; where
    tokens stand for bytes, the node's bytes read among the characters of ``context`` (see ``merge_tree``)."""
    if tokenizer.vocab[token_id] is None:
        return lambda node: ""
    if not decodes_bytes(tokenizer) or done is None and context is None:
        return lambda node: id_form(tokenizer, token_id if node is None else done.ids[node])
    data = tokenizer.token_bytes(token_id)
    around, start = (data, 0) if context is None else checked_context(context, data, token_id)
    whole = Stream(around).text(start, start + len(data))
    draw = None if done is None else node_drawer(tokenizer, done, around, start)
    return lambda node: whole if node is None else draw(node)


def node_drawer(tokenizer, done, around=None, start=0):
    """A function: a node of the replay ``done`` -> its readable form, its bytes read where they are among the bytes
    of the replay's starting tokens, or in ``around`` (bytes they lie in, from byte ``start``); at the character
    level, its token's own form."""
    if not decodes_bytes(tokenizer):
        return lambda node: id_form(tokenizer, done.ids[node])
    spans = node_spans(tokenizer, done)
    if around is None:
        around = tokenizer.decode_bytes([token_id for token_id, parts in zip(done.ids, done.parts) if parts is None])
    stream = Stream(around)
    return lambda node: stream.text(start + spans[node][0], start + spans[node][1])


def checked_context(context, data, token_id):
    """``context`` (``(text, start)``, see ``merge_tree``) as ``(its UTF-8, start)``, once it holds the token."""
    if not (isinstance(context, (tuple, list)) and len(context) == 2 and isinstance(context[0], str)
            and type(context[1]) is int):
        raise TypeError(f"context must be (text, start byte), not {context!r}")
    text, start = context
    around = text.encode("utf-8", "replace")
    if not 0 <= start <= len(around) - len(data) or around[start:start + len(data)] != data:
        raise ValueError(f"the context {text!r} does not hold token {token_id} at byte {start}")
    return around, start


def node_spans(tokenizer, done):
    """The bytes each node of a replay covers, as ``(start, end)`` within the token."""
    spans, at = [], 0
    for node, parts in enumerate(done.parts):
        if parts is None:
            size = len(tokenizer.decode_bytes([done.ids[node]]))
            spans.append((at, at + size))
            at += size
        else:
            spans.append((spans[parts[0]][0], spans[parts[1]][1]))
    return spans


# -- inspect's rows ---------------------------------------------------------


def made_from(tokenizer, token_id):
    """What a vocabulary entry is: ``(merge number, "left + right")`` for a token its merges build (the merge that
    builds it last, as ``merge_tree`` shows; merge 1 is the first), ``("", "special")`` or ``("", "added")`` for
    an added token, ``("", "")`` for a base token, ``("", "taken whole")`` or ``("", "no merge builds it")`` for a
    token encoding gives only whole (``ignore_merges``: see ``emitted_whole``)."""
    kind = token_kind(tokenizer, token_id)
    if kind in ("special", "gap") or token_id in described(tokenizer)["added_ids"]:
        return "", "special" if token_id in special_ids(tokenizer) else "added"
    if kind in ("base", "unknown"):
        return "", ""
    _, done = token_build(tokenizer, token_id)
    if done is None:
        return "", "taken whole" if kind == "whole" else "PickyBPE's" if removed_tokens(tokenizer) else \
            "no merge builds it"
    left, right, rank = done.parts[done.roots[0]]
    draw = tree_drawer(tokenizer, token_id, done, None)
    return str(rank + 1), f"{draw(left)} + {draw(right)}"


@functools.lru_cache(maxsize=4)
def made_by_merges(tokenizer):
    """How many tokens the merges make (fewer than the merges where several make one: Llama 3's 280,147 make
    127,744)."""
    return len(set(map("".join, tokenizer.merges)))


def merge_row(tokenizer, rank):
    """The row of ``inspect --top`` for merge ``rank`` (0 for the first): the ID of the token it makes, its number,
    the token and its two parts, read together."""
    left, right = tokenizer.merges[rank]
    if any(token not in tokenizer.ids for token in (left, right, left + right)):  # (PickyBPE removed one since)
        return "", str(rank + 1), "(removed since)", f"{visible(left)} + {visible(right)}"
    left_id, right_id, token_id = tokenizer.ids[left], tokenizer.ids[right], tokenizer.ids[left + right]
    drawn = token_parts(tokenizer, [left_id, right_id])
    return (str(token_id), str(rank + 1), id_form(tokenizer, token_id),
            " + ".join("".join(map(str, parts)) for parts in drawn))


INSPECT_WIDTH = 24
"""``inspect`` pads a column (but the last) to its longest cell, but to no more than this; a longer cell is cut."""


def format_table(rows, numbers=1):
    """Rows of strings as columns, the first ``numbers`` right-aligned, by display width (a wide character counts
    two); a cell wider than ``INSPECT_WIDTH`` is cut to it, with ``…``, unless it is in the last column."""
    widths = [min(INSPECT_WIDTH, max(display_width(row[column]) for row in rows)) for column in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = []
        for column, (cell, width) in enumerate(zip(row, widths)):
            if column < len(row) - 1:
                cell = cut_to(cell, width)
            pad = " " * max(0, width - display_width(cell))
            cells.append(pad + cell if column < numbers else cell + pad)
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def cut_to(cell, width):
    """``cell`` if it fits in ``width`` columns, else as much of it as fits with ``…`` after it."""
    if display_width(cell) <= width:
        return cell
    kept, used = [], 0
    for char in cell:
        used += char_width(char)
        if used > width - 1:
            break
        kept.append(char)
    return "".join(kept) + "\N{HORIZONTAL ELLIPSIS}"


# -- explain's lines: the replay of a chunk, step by step ------------------


EXPLAIN_STEPS = 40
"""``explain`` shows at most this many merges of one chunk, then says the rest are not shown."""

EXPLAIN_TOKENS = 40
"""...and draws at most this many tokens on one line."""


def line_of(forms, count=None):
    """Tokens' readable forms side by side, at most ``EXPLAIN_TOKENS`` of them (of ``count``, if more are left)."""
    count = len(forms) if count is None else count
    shown = " ".join(forms[:EXPLAIN_TOKENS])
    if count > EXPLAIN_TOKENS:
        shown += f" ... (+{count - EXPLAIN_TOKENS:,} more)"
    return shown


def replayed_steps(tokenizer, done):
    """The lines ``explain`` shows of ``done``, the ``replay`` of a chunk: ``(label, tokens)`` from the starting
    tokens on, at most ``EXPLAIN_STEPS`` merges, and whether more follow.

    Where the merges are ordered as training orders them, a step merges
    every occurrence of a pair, as ``bpe.reference_encode`` does (``replay``
    makes them one after another); otherwise one occurrence, as
    ``ranked.reference_encode_leftmost`` does. Each token is read where it is
    in the chunk, so that a character cut between tokens shows.
    """
    draw = node_drawer(tokenizer, done)
    sequence = [node for node, parts in enumerate(done.parts) if parts is None]
    steps = [("start", line_of([draw(node) for node in sequence[:EXPLAIN_TOKENS]], len(sequence)))]
    made, one_at_a_time = len(sequence), merges_one_at_a_time(tokenizer)
    while made < len(done.ids):
        if len(steps) > EXPLAIN_STEPS:
            return steps, True
        left, right, rank = done.parts[made]
        label = f"merge {rank + 1}: {draw(left)} + {draw(right)}"
        joined, gone = {}, set()
        while made < len(done.ids) and (not joined or not one_at_a_time and done.parts[made][2] == rank):
            joined[done.parts[made][0]] = made
            gone.add(done.parts[made][1])
            made += 1
        sequence = [joined.get(node, node) for node in sequence if node not in gone]
        steps.append((label, line_of([draw(node) for node in sequence[:EXPLAIN_TOKENS]], len(sequence))))
    return steps, False


def explain_chunk(tokenizer, chunk, title):
    """The lines showing the merges encoding makes on one chunk (``replay``), from its starting tokens to its IDs.

    At most ``EXPLAIN_STEPS`` merges are shown; the tokens and IDs at the
    end always come from the full (fast) encoder, which gives the same
    result. A chunk that ``ignore_merges`` gives whole is not replayed.
    """
    whole, done = chunk_replay(tokenizer, chunk)
    steps, stopped = replayed_steps(tokenizer, done)
    if whole is not None:
        steps.append(("whole: a token (ignore_merges)", id_form(tokenizer, whole)))
    ids = tokenizer.chunk_ids(chunk)
    steps.append(("tokens", line_of(readable_texts(tokenizer, ids))))
    width = max(len(label) for label, _ in steps)
    lines = [title]
    lines += [f"  {label:<{width}}  {tokens}" for label, tokens in steps[:-1]]
    if stopped:
        lines.append(f"  {'...':<{width}}  (more merges follow; only the first {EXPLAIN_STEPS} are shown)")
    lines.append(f"  {steps[-1][0]:<{width}}  {steps[-1][1]}")
    lines.append(f"  {'IDs':<{width}}  {' '.join(map(str, ids))}")
    return lines
