"""The line ``bpe train`` prints once the tokenizer is saved: what it holds, why training stopped, how well it
compresses the training text.

The compression is counted from the chunk counts the tokenizer was trained
on, so the training text is never read again. Plain BPE lets its counts go
once the merge loop has coded them (bpelab.merges.learning.trained), so
for it the summary keeps two totals instead (``PlainTotals``): the
characters, and the base tokens, from which each merge of
``bpe.Tokenizer.history`` takes exactly its count (a merge seen n times
joins n pairs of tokens into one).
"""

from typing import NamedTuple

from bpelab.commands.drawing import counted


class PlainTotals(NamedTuple):
    """Plain BPE's chunk counts, as the summary needs them: the characters and base tokens of the chunks trained on."""

    characters: int  # in the chunks trained on, special tokens' text included
    base_tokens: int  # bytes or characters of those chunks, a special token counted as one
    distinct: int  # distinct chunks counted
    trained_on: int  # of those, the ones trained on (seen at least min_chunk_count times)


def heard_counts(counts, args):
    """What the summary keeps of the counts training hears (``on_counts``): plain BPE's ``PlainTotals``, read now,
    or a variant's counts themselves, which training leaves as they are."""
    if args.superbpe is not None or args.parity is not None or args.picky is not None:
        return counts
    least, specials = args.min_chunk_count or 1, set(args.special or ())
    characters = base_tokens = trained_on = 0
    for chunk, count in counts.items():
        if count >= least or chunk in specials:
            trained_on += chunk not in specials
            characters += len(chunk) * count
            base_tokens += count * (1 if chunk in specials else len(chunk.encode("utf-8")) if args.bytes else len(chunk))
    return PlainTotals(characters, base_tokens, len(counts) - len(specials.intersection(counts)), trained_on)


def training_summary(tokenizer, args, counts):
    """One line: what was saved, what it holds, why training stopped, how well it compresses.

    The character and token counts come from the chunk counts the tokenizer
    encodes by, so the training text is never read again: a variant's, each
    distinct chunk encoded once, as it is where it was cut from; plain BPE's,
    which training lets go, as ``PlainTotals`` read them when heard.
    """
    if isinstance(counts, PlainTotals):
        characters = counts.characters
        tokens = counts.base_tokens - sum(entry["count"] for entry in tokenizer.history)
    else:
        characters = sum(len(chunk) * count for chunk, count in counts.items())
        # (chunk_ids, not encode: alone, SuperBPE's chunk "a " of "a 1" would be cut in two)
        tokens = sum(count * (1 if chunk in tokenizer.special_tokens else len(tokenizer.chunk_ids(chunk)))
                     for chunk, count in counts.items())
    if len(tokenizer) >= args.vocab_size:
        stopped = f"reached the requested {args.vocab_size:,} entries"
    else:
        left = {1: "is left", 2: "occurs twice"}.get(args.min_count, f"occurs {args.min_count:,} times")
        stopped = f"stopped short of {args.vocab_size:,}: no pair {left}"
    kind = "bytes" if tokenizer.byte_level else "characters"
    ratio = f"{characters / tokens:.3f}" if tokens else "-"
    how = f"{counted(len(tokenizer.merges), 'merge')} learned"
    if args.picky is not None:
        how += f" (PickyBPE, {counted(len(tokenizer.removals), 'token')} removed again)"
    if args.parity is not None:
        how += f" (parity-aware ({args.parity}), {len(args.files)} languages)"
    return (
        f"{args.output}: {counted(len(tokenizer), 'token')}, alphabet of {counted(len(tokenizer.alphabet), kind[:-1])}, "
        f"{how}, {stopped}; {ratio} characters per token on the {trained_on(counts)} ({counted(characters, 'character')}, "
        f"{counted(tokens, 'token')})\n"
    )


def trained_on(counts):
    """What the compression was counted on: the training text, or with ``--min-chunk-count`` the chunks kept."""
    if isinstance(counts, PlainTotals) and counts.trained_on < counts.distinct:
        return f"chunks trained on ({counts.trained_on:,} of {counts.distinct:,} distinct)"
    return "training text"
