"""Streams: text encoded lazily (``encode_iterable``, equal to ``bpe.Tokenizer.encode`` of it joined), IDs decoded a few at a time.

``DecodeStream`` (``Tokenizer.decode_stream``, at the end) gives text only
once it is whole characters, as Hugging Face's ``DecodeStream`` does.

An open file, a generator of lines, a list of pieces cut anywhere (inside a
word, a character's combining marks, a ``\\r\\n``, a special token): the IDs
come out as the text comes in, and they are exactly those ``encode`` gives
for the concatenation. The pieces are gathered into blocks of about
``blocks.BLOCK_SIZE`` characters, and each block is encoded up to its last
*safe cut*, where cutting cannot change what ``encode`` does
(``bpelab.corpora.cuts``: the pattern's rule or the one an imported
pipeline is proven to keep, never inside a special or added token, and
with a prefix space only before a space).

What follows the last cut waits for the next block. Memory holds a few
blocks, except where the text has no safe cut for a long stretch: that
stretch is held until one comes. With GPT-2's pattern a run of letters
(ten megabytes of ``a``) is one chunk, which ``encode`` must see whole
anyway, so it is held whole; so is text with no digits for SuperBPE's
second stage. A tokenizer whose cuts are not known (an imported model whose
normalizer is more than one-character replacements, such as Llama 2's or
Qwen 3's) is refused, and so is dropout, whose one random stream ``encode``
draws across the whole text.
"""

from typing import Iterable, Iterator

from bpelab.corpora.cuts import safe_cut
from bpelab.messages import shown
from bpelab.text import blocks
from bpelab.text.blocks import safe_blocks, text_blocks
from bpelab.text.specials import SpecialChoice


def encode_iterable(tokenizer, texts: Iterable[str], *, allowed_special: SpecialChoice = None,
                    disallowed_special: SpecialChoice = None, dropout: float = 0.0, seed=None) -> Iterator[int]:
    """The IDs of the text of ``texts`` (strings: an open file, say), lazily; those ``encode`` gives for it joined.

    (``Tokenizer.encode_iterable``.) ``allowed_special`` and
    ``disallowed_special`` are ``encode``'s; a disallowed special token is
    an error when its block is reached, after the IDs before it. Memory holds
    a few blocks of text (see ``bpelab.corpora.streaming`` for what is held whole).
    A tokenizer with no known safe cuts, ``dropout`` and a ``str`` (pass
    ``[text]``, or use ``encode``) are refused before anything is read.
    """
    if isinstance(texts, (str, bytes)) or not hasattr(texts, "__iter__"):
        raise TypeError(f"texts must be an iterable of strings (an open file, a list), not {type(texts).__name__}"
                        + ("; pass [text], or use encode" if isinstance(texts, str) else ""))
    if dropout or seed is not None:
        raise ValueError("encode_iterable does not support dropout: encode draws one random stream across the "
                         "whole text, so use encode(text, dropout=p, seed=s) on it")
    cut = safe_cut(tokenizer)
    if cut is None:
        raise ValueError("encode_iterable needs places where text may be cut without changing its IDs, and this "
                         "tokenizer's pipeline has none the lab can prove (its normalizer is more than "
                         "one-character replacements, or its pre-tokenizer may join what a cut would part); use "
                         "encode on the whole text")
    tokenizer.encode("", allowed_special=allowed_special, disallowed_special=disallowed_special)  # checks them now
    return block_ids(tokenizer, safe_blocks(sized_blocks(texts, blocks.BLOCK_SIZE), last_cut=cut),
                     allowed_special, disallowed_special)


def block_ids(tokenizer, text_blocks, allowed_special, disallowed_special):
    """The IDs of each block in turn."""
    for block in text_blocks:
        yield from tokenizer.encode(block, allowed_special=allowed_special, disallowed_special=disallowed_special)


def sized_blocks(texts, block_size):
    """The text of ``texts`` in blocks of at least ``block_size`` characters (the last may be shorter), none longer
    than twice that; an item that is not a string is refused."""
    pending, size = [], 0
    for position, text in enumerate(texts):
        if type(text) is not str:
            raise TypeError(f"texts must hold strings; item {position:,} is {shown(text)[:60]}, a "
                            f"{type(text).__name__} (open a file with encoding='utf-8', not 'rb')")
        pending.append(text)
        size += len(text)
        if size >= block_size:
            yield from text_blocks("".join(pending), block_size) if size >= 2 * block_size else ["".join(pending)]
            pending, size = [], 0
    if pending:
        yield "".join(pending)


def decode_stream(tokenizer, ids: Iterable[int] = (), *, skip_special_tokens=None) -> "DecodeStream":
    """A ``DecodeStream`` of ``tokenizer`` (``Tokenizer.decode_stream``), starting after ``ids``.

    >>> from bpe import Tokenizer
    >>> stream = Tokenizer(None, [], byte_level=True).decode_stream()
    >>> [stream.step(byte) for byte in "é!".encode("utf-8")], stream.finish()
    ([None, 'é', '!'], '')

    ``skip_special_tokens`` is ``decode``'s (by default, as ``decode`` does).
    """
    return DecodeStream(tokenizer, () if ids is None else ids, skip_special_tokens)


class DecodeStream:
    """Decoding a stream of IDs a few at a time (``Tokenizer.decode_stream``): text only once it is whole.

    A chat program decodes each ID as a model gives it, and must never print
    half a character. ``step(id)`` (or ``step(ids)``) gives the new text, or
    None while the IDs so far end inside a character; the steps are those of
    Hugging Face ``tokenizers``' ``decoders.DecodeStream`` 0.23.3, step for
    step. It holds a window of IDs and the text that window decoded to
    (``prefix``): each step decodes the window with the new IDs, and once that
    is longer than the prefix and does not end in U+FFFD, gives the difference
    and moves the window on past the prefix. A window is what a decoder needs
    to see to decode the next IDs as it decodes them in the whole (a space a
    SentencePiece decoder strips only at the start, say). ``finish()`` gives
    what is left, an incomplete character as U+FFFD, so the steps joined and
    ``finish()`` give ``decode`` of all the IDs. An ID outside the vocabulary
    is the error ``decode`` gives, and the stream is left as it was.
    """

    def __init__(self, tokenizer, ids=(), skip_special_tokens=None):
        self.tokenizer, self.skip_special_tokens = tokenizer, skip_special_tokens
        self.ids = list(ids)
        self.decoded(self.ids)  # checks them
        self.prefix, self.prefix_index = "", 0

    def decoded(self, ids):
        """``decode`` of ``ids`` with the stream's choice of special tokens."""
        return self.tokenizer.decode(ids, skip_special_tokens=self.skip_special_tokens)

    def step(self, ids):
        """The text that the ID (or list of IDs) ``ids`` completes, or None while a character is still open."""
        new = [ids] if isinstance(ids, int) and not isinstance(ids, bool) else list(ids)
        self.decoded(new)  # an unknown ID is refused before the window changes
        if not self.prefix and self.ids:
            earlier = self.decoded(self.ids)
            if not earlier.endswith("\ufffd"):
                self.prefix, self.prefix_index = earlier, len(self.ids)
        self.ids += new
        text = self.decoded(self.ids)
        if len(text.encode("utf-8", "surrogatepass")) <= len(self.prefix.encode("utf-8", "surrogatepass")) \
                or text.endswith("\ufffd"):
            return None
        new_text = self.after_prefix(text)
        later = len(self.ids) - self.prefix_index
        self.ids = self.ids[self.prefix_index:]
        self.prefix, self.prefix_index = self.decoded(self.ids), later
        return new_text

    def after_prefix(self, text):
        """What ``text``, the window decoded, adds to the text the window gave before."""
        if not text.startswith(self.prefix):
            raise ValueError(f"decoding the stream's window gave {shown(text[:40])}, which does not begin with "
                             f"the text it gave before, {shown(self.prefix[:40])}: this decoder cannot stream")
        return text[len(self.prefix):]

    def finish(self):
        """What the IDs since the last text decode to (an incomplete character as U+FFFD); the stream is emptied."""
        left = self.after_prefix(self.decoded(self.ids))
        self.ids, self.prefix, self.prefix_index = [], "", 0
        return left
