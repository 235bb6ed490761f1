"""What ``bpe view``'s page draws of each token: the simple definition, and a table that answers it fast.

It serves ``bpe.Tokenizer.readable_tokens`` and ``token_texts`` to the page, token by token.

``drawn_tokens`` is the definition: the readable form of the tokens read
together (``bpelab.text.readable.token_parts``), a character cut between
tokens drawn once under the tokens that share it. Reading every token of a
long text anew at each keystroke takes the page's server a second for six
tokenizers, so ``TokenTable`` answers the same from what never changes: a
token whose bytes are whole characters by themselves is drawn as it is
alone (UTF-8 reads the same from any character's first byte on, so its
neighbours cannot change how it reads), worked out once per ID; only a run
of tokens that hold parts of characters is read together, by
``drawn_tokens`` itself (the tokens either side of the run end and start
whole characters, so the run reads as it does within the whole text). At
the character level a token is the stretch of text it covers, drawn once
per stretch. The tests hold the table to ``drawn_tokens``,
``Tokenizer.readable_tokens`` and ``Tokenizer.token_texts``.
"""

from bpelab.byte_level import replace_lone_surrogates
from bpelab.text.readable import (decodes_bytes, held_mark, plain_text, readable_texts, token_parts, token_stream,
                                  visible)


KEPT_RUNS = 100_000
"""The most runs a ``TokenTable`` keeps (a text of ``bpelab.commands.view.MAX_CHARS`` characters has fewer)."""


def drawn_tokens(tokenizer, ids, text):
    """How the page draws the tokens ``ids`` of ``text``, in the readable form (``bpelab.text.readable``).

    ``shown``: each token's readable form. A character cut between tokens is
    drawn once, across the chips that share it: ``split`` lists each such
    character as ``[first token, last token, the character]``; ``parts`` is,
    for each token that holds part of one (None for the others), its pieces
    in order, a string of whole characters or ``[the bytes held]`` of one
    cut (``["1-2/3"]``); ``around`` is, for such a token, ``[the
    characters it lies in, the byte where it starts in them]``, which the
    page sends back to have its tree read in place (``merge_tree``'s context).
    """
    if not decodes_bytes(tokenizer):  # characters are never cut between tokens
        return {"shown": readable_texts(tokenizer, ids, text), "split": [], "parts": [None] * len(ids),
                "around": [None] * len(ids)}
    every = token_parts(tokenizer, ids, text)
    owners = {}
    for index, parts in enumerate(every):
        for part in parts:
            if part.held is not None:
                owners.setdefault(part.unit, [index, index, part.text])[1] = index
    number = {unit: at for at, unit in enumerate(unit for unit, (first, last, _) in owners.items() if first != last)}
    split = [owners[unit] for unit in number]
    drawn = {"shown": ["".join(map(str, parts)) for parts in every], "split": split,
             "parts": [None] * len(ids), "around": [None] * len(ids)}
    if not split:
        return drawn
    stream, starts = token_stream(tokenizer, ids)
    for index, parts in enumerate(every):
        if any(part.unit in number for part in parts):
            drawn["parts"][index] = [[held_mark(part.held)[1:-1]] if part.unit in number else str(part)
                                     for part in parts]
            first, last = stream.units[parts[0].unit][0], stream.units[parts[-1].unit][1]
            drawn["around"][index] = [stream.data[first:last].decode("utf-8", "replace"), starts[index] - first]
    return drawn


class TokenTable:
    """One tokenizer's tokens as the page draws them, each worked out once (see the module's docstring)."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer
        self.decodes_bytes = decodes_bytes(tokenizer)
        self.specials = set(tokenizer.special_tokens.values())
        self.known = {}  # an ID (bytes) or a stretch of text (characters) -> (piece, shown); shown None: read on
        self.lengths = {}  # at the character level, an ID -> how many characters it covers
        self.runs = {}  # a run of IDs that hold parts of characters -> drawn_tokens of it alone

    def answer(self, text, start=0, count=None):
        """What the page draws for ``text``: all its IDs and the counts, and for the ``count`` tokens from ``start``
        on (all by default; a run of tokens that share characters is never cut) their pieces and readable forms,
        the lists of ``drawn_tokens`` from ``start`` on (``split`` counts tokens from the first of all)."""
        tokenizer = self.tokenizer
        ids = tokenizer.encode(text, allowed_special="all")
        seen = replace_lone_surrogates(text) if tokenizer.byte_level else text
        end = len(ids) if count is None else min(len(ids), start + count)
        drawn = self.by_bytes(ids, start, end) if self.decodes_bytes else self.by_characters(ids, seen, start, end)
        return {"ids": ids, "start": start, **drawn,
                "unknown": [token_id == 0 and not tokenizer.byte_level for token_id in ids],
                "special": [index for index, token_id in enumerate(ids) if token_id in self.specials],
                "characters": len(text), "bytes": len(seen.encode("utf-8"))}

    def by_characters(self, ids, text, start, end):
        """At the character level: each token is the stretch of ``text`` it covers (``readable.token_spans``)."""
        lengths, known, pieces, shown = self.lengths, self.known, [], []
        for token_id in ids[:end]:
            if token_id not in lengths:
                lengths[token_id] = len(self.tokenizer.decode([token_id]))
        at = sum(lengths[token_id] for token_id in ids[:start])
        for token_id in ids[start:end]:
            span = text[at:at + lengths[token_id]]
            at += lengths[token_id]
            if span not in known:
                known[span] = plain_text(span), visible(span)
            pieces.append(known[span][0])
            shown.append(known[span][1])
        return {"pieces": pieces, "shown": shown, "split": [], "parts": [None] * len(shown),
                "around": [None] * len(shown)}

    def token(self, token_id):
        """An ID's piece, and its readable form when its bytes are whole characters by themselves (else None)."""
        if token_id not in self.known:
            data = self.tokenizer.decode_bytes([token_id])
            try:
                alone = visible(data.decode("utf-8"))
            except UnicodeDecodeError:
                alone = None
            self.known[token_id] = plain_text(data.decode("utf-8", "surrogateescape")), alone
        return self.known[token_id]

    def run(self, ids):
        """``drawn_tokens`` of a run of IDs that hold parts of characters, kept (at most ``KEPT_RUNS`` of them)."""
        if ids not in self.runs:
            if len(self.runs) >= KEPT_RUNS:
                self.runs.clear()
            self.runs[ids] = drawn_tokens(self.tokenizer, ids, None)
        return self.runs[ids]

    def by_bytes(self, ids, start, end):
        """Where tokens stand for bytes: each whole one as it is alone, each run of the others read together; from
        ``start`` to ``end``, or on to the end of a run they cut."""
        while start < end < len(ids) and self.token(ids[end - 1])[1] is None and self.token(ids[end])[1] is None:
            end += 1
        found = [self.token(token_id) for token_id in ids[start:end]]
        drawn = {"pieces": [piece for piece, _ in found], "shown": [shown for _, shown in found], "split": [],
                 "parts": [None] * len(found), "around": [None] * len(found)}
        first = start
        while 0 < first < len(ids) and self.token(ids[first])[1] is None and self.token(ids[first - 1])[1] is None:
            first -= 1  # the run cut by start begins earlier: read it whole, keep what lies from start on
        at = first
        while at < end:
            if at >= start and found[at - start][1] is not None:
                at += 1
                continue
            after = at + 1
            while after < end and self.token(ids[after])[1] is None:
                after += 1
            run, keep = self.run(tuple(ids[at:after])), max(0, start - at)
            for key in ("shown", "parts", "around"):
                drawn[key][at + keep - start:after - start] = run[key][keep:]
            drawn["split"] += [[low + at, high + at, char] for low, high, char in run["split"] if high + at >= start]
            at = after
        return drawn
