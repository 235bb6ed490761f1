"""Character-level given vocabularies: SentencePiece's kind of BPE as Hugging Face stores it (Llama 2, Gemma 3).

``bpelab.imported.vocabulary`` holds byte-level imported models, whose chunks start
as UTF-8 bytes. SentencePiece's BPE starts from characters instead, with
``▁`` (U+2581) standing for a space, and the lab's character-level
``Tokenizer`` is the same idea: ``bpe.Tokenizer(alphabet, merges)`` makes
an unknown character ``<unk>``. Such a model, given with its IDs and
pipeline (``Tokenizer(None, merges, vocab=..., pipeline=...)``, with
``byte_level=False``), encodes and decodes as ``tokenizers`` 0.23.3 does:

- a chunk starts as the IDs of its characters; a character the vocabulary
  lacks becomes, with ``byte_fallback``, the tokens ``<0xXX>`` of its UTF-8
  bytes (Llama 2 has all 256: ``€`` is ``<0xE2> <0x82> <0xAC>``), else the
  ``unk_token`` (a run of them one token with ``fuse_unk``);
- merges are replayed one occurrence at a time, lowest rank first, then
  leftmost (``ranked.reference_encode_leftmost``), in n log n for a long
  chunk: there is no chunk pattern, so a whole line between added tokens
  may be one chunk;
- long chunks are cut at safe cuts found in the vocabulary (``safe_cuts``):
  before a ``▁`` wherever no token holds the character before it followed by
  ``▁``, since no token, and so no merge, can cross such a place;
- the decoder's steps (``decode_tokens``) turn tokens back into text:
  ``replace`` (``▁`` by a space), ``byte_fallback`` (runs of ``<0xXX>`` as
  UTF-8), ``fuse``, ``strip``, ``metaspace``.
"""

import functools
import re
from itertools import accumulate

from bpelab.checks import decoded_values
from bpelab.imported.vocabulary import GivenVocabulary
from bpelab.merges.prepared import derived
from bpelab.messages import shown

SPACE_MARK = "\N{LOWER ONE EIGHTH BLOCK}"
"""``▁``, U+2581: SentencePiece's sign for a space, so that a space can sit inside a token."""

BYTE_TOKEN = re.compile("<0x([0-9A-Fa-f]{2}|\\+[0-9A-Fa-f])>")
"""A byte token's text as Hugging Face's ByteFallback decoder reads it (Rust's ``u8::from_str_radix``, base 16)."""


def byte_token(byte):
    """The token that stands for one byte: ``<0xE2>`` (uppercase hexadecimal, as models write them).

    >>> byte_token(0xE2), byte_token(9)
    ('<0xE2>', '<0x09>')
    """
    return f"<0x{byte:02X}>"


def token_byte(token):
    """The byte a byte token stands for, or None for any other token.

    >>> token_byte("<0xE2>"), token_byte("<0xe2>"), token_byte("<0xE2"), token_byte("▁the")
    (226, 226, None, None)
    """
    found = BYTE_TOKEN.fullmatch(token) if len(token) == 6 else None
    return None if found is None else int(found.group(1), 16)


class CharacterVocabulary(GivenVocabulary):
    """An imported character-level model's vocabulary, merges and pipeline, checked; it encodes and decodes with
    them (``vocabulary.GivenVocabulary``'s checks and interface, the character level's rules)."""

    def find_base(self, merges=()):
        """Check the unknown token and note the IDs of the byte tokens (None for each missing one), and find the safe
        cuts (``merges`` may give them: see ``bpelab.merges.prepared``)."""
        model = self.pipeline.model
        self.unk_id = None if model["unk_token"] is None else self.ids.get(model["unk_token"])
        if model["unk_token"] is not None and self.unk_id is None:
            raise ValueError(f"the model's unk_token {shown(model['unk_token'])} is not a token of the vocab")
        if self.unk_id is None:
            raise ValueError("a character-level model without an unk_token drops every character its vocabulary "
                             "lacks (Hugging Face does so silently); unsupported: it would lose text")
        self.byte_ids = [self.ids.get(byte_token(byte)) if model["byte_fallback"] else None for byte in range(256)]
        cuts = None if self.pipeline.ignore_merges else derived(merges, "safe_cuts", lambda: safe_cuts_regex(self.ids))
        self.cuts = None if cuts is None else re.compile(cuts)  # (ignore_merges: whole chunks)

    def base_tokens(self):
        """The tokens no merge makes: the one-character tokens and the byte tokens."""
        return [token for token in self.ordinary if token is not None and (
            len(token) == 1 or token.startswith("<0x") and token_byte(token) is not None)]

    def prepare(self, merges=()):
        """Make what encoding and decoding use, as ``GivenVocabulary.prepare``: the pre-tokenizer is followed by the
        safe cuts, and each token's text for the decoder is kept (an added token's normalized, as Hugging Face
        decodes it)."""
        self.texts = list(self.vocab)
        for token in self.pipeline.added_tokens:
            if token.normalized:
                self.texts[token.id] = self.pipeline.normalize(token.content)
        super().prepare(merges)
        pre_tokenizer, cuts = self.cut, self.cuts
        if cuts is not None:
            self.cut = lambda text: [piece for chunk in pre_tokenizer(text) for piece in cuts.split(chunk)]

    def start_ids(self, chunk):
        """The IDs of a chunk before any merge: its characters', or a missing one's bytes or ``unk_token``."""
        try:
            return list(map(self.ids.__getitem__, chunk))
        except KeyError:
            return start_ids(chunk, self.ids, self.byte_ids, self.unk_id, self.pipeline.model["fuse_unk"])

    def encode_chunk(self, chunk):
        """A chunk's IDs, as a tuple: the token it is, with ``ignore_merges``, else its characters merged."""
        whole = self.whole.get(chunk) if self.whole else None
        return (whole,) if whole is not None else tuple(self.merge(self.start_ids(chunk)))

    def token_sizes(self, chunk, ids):
        """How many of ``chunk``'s UTF-8 bytes each of its tokens ``ids`` spans, read off the chunk token by token:
        a byte token one byte (its own), a token its text's, the unknown token the characters it stands for (a run
        of them with ``fuse_unk``). A token that does not spell the chunk where it stands is refused."""
        data, sizes, at = chunk.encode("utf-8"), [], 0
        place_of = None  # (the byte where each character starts -> its place: made only for an unknown token)
        for token_id in ids:
            text = self.vocab[token_id].encode("utf-8")
            size = 0
            if data[at:at + 1] == self.byte_of.get(token_id):
                size = 1
            elif data.startswith(text, at):
                size = len(text)
            elif token_id == self.unk_id:
                place_of = place_of or {start: place for place, start in enumerate(
                    accumulate((len(char.encode("utf-8")) for char in chunk), initial=0))}
                if at in place_of:
                    start = place_of[at]
                    size = len(chunk[start:start + self.unknown_run(chunk, start)].encode("utf-8"))
            if not size:
                raise ValueError(f"the token {shown(self.vocab[token_id])} does not spell the text at byte {at} of the "
                                 f"chunk {shown(chunk)}, so its tokens have no spans in it (Hugging Face puts an "
                                 "unknown character's token after the byte tokens of the characters that follow it)")
            sizes.append(size)
            at += size
        return sizes

    def unknown_run(self, chunk, start):
        """How many characters of ``chunk`` from ``start`` the unknown token stands for: one, or with ``fuse_unk``
        every unknown character in a row."""
        model, end = self.pipeline.model, start
        while end < len(chunk) and start_ids(chunk[end], self.ids, self.byte_ids, self.unk_id, False) == [self.unk_id]:
            end += 1
            if not model["fuse_unk"]:
                break
        return end - start

    @functools.cached_property
    def byte_of(self):
        """Each byte token's ID -> the one byte it stands for, as ``bytes`` (with ``byte_fallback``)."""
        return {token_id: bytes([byte]) for byte, token_id in enumerate(self.byte_ids) if token_id is not None}

    def decoded_values(self):
        """The bytes each ID stands for (None where no token has the ID): the decoder's steps on its token alone,
        but a byte token gives its byte (with ``byte_fallback``), a ``metaspace`` always a space."""
        texts = self.texts
        for step in self.pipeline.decoder:
            if step["step"] in ("replace", "metaspace"):
                old, new = (step["old"], step["new"]) if step["step"] == "replace" else (step["replacement"], " ")
                texts = [None if text is None else text.replace(old, new) for text in texts]
        decoded = [None if text is None else text.encode("utf-8") for text in texts]
        if {"step": "byte_fallback"} in self.pipeline.decoder:
            for token_id, text in enumerate(self.texts):
                if text is not None and text.startswith("<0x") and token_byte(text) is not None:
                    decoded[token_id] = bytes([token_byte(text)])
        return decoded

    def decode(self, ids, skip_special_tokens):
        """The text of ``ids`` as Hugging Face's ``decode`` gives it: the decoder's steps on the tokens' texts."""
        skipped = set(self.special_tokens.values()) if skip_special_tokens else ()
        return "".join(decode_tokens(decoded_values(ids, self.texts, skipped), self.pipeline.decoder))

    def base_words(self):
        """What the base tokens are, in a few words."""
        model = self.pipeline.model
        return "characters" + (" and <0xXX> byte tokens (byte_fallback)" if model["byte_fallback"] else "") + \
            (f" + {model['unk_token']}" if model["unk_token"] is not None else "")

    def unknown_id(self):
        """The ID of the unknown-character token (``unk_token``)."""
        return self.unk_id

    def pipeline_words(self):
        """The pipeline in words, and where a long chunk is cut (``safe_cuts``), for ``bpe inspect``."""
        return self.pipeline.describe() + [self.safe_cut_words()]

    def safe_cut_words(self):
        """Where a long chunk is cut (``safe_cuts``), in words."""
        before = before_space_mark(self.ids) - {SPACE_MARK} if SPACE_MARK in self.ids else None
        if before is None or self.pipeline.ignore_merges:
            why = "▁ is not a token" if before is None else "ignore_merges looks at whole chunks"
            return f"safe cuts: none ({why}): each stretch between added tokens is one chunk"
        others = f" or {', '.join(map(shown, sorted(before)))}" if before else ""
        return (f"safe cuts: before each ▁ that follows a character other than ▁{others} (no token holds one "
                "there), so a long text is encoded a word at a time")


def start_ids(chunk, ids, byte_ids, unk_id, fuse_unk):
    """A chunk's IDs before any merge, as ``tokenizers``' BPE model finds them, character by character.

    A character that is a token is its ID; else its UTF-8 bytes' tokens if
    there are all of them (``byte_ids``, None where missing); else it waits
    as an unknown one, given as ``unk_id`` before the next known character
    (with ``fuse_unk`` a run of unknown characters is one). As there, the
    bytes do not end a waiting run.

    >>> start_ids("a€b", {"a": 0, "b": 1}, [None] * 256, 9, True)
    [0, 9, 1]
    """
    found, waiting = [], False
    for char in chunk:
        token_id = ids.get(char)
        if token_id is not None:
            if waiting:
                found.append(unk_id)
                waiting = False
            found.append(token_id)
            continue
        if "\ud800" <= char <= "\udfff":
            raise ValueError(f"the text holds the lone surrogate {shown(char)}, which has no UTF-8 bytes; "
                             "remove it or replace it (U+FFFD)")
        fallback = [byte_ids[byte] for byte in char.encode("utf-8")]
        if None not in fallback:
            found += fallback
            continue
        if waiting and not fuse_unk:
            found.append(unk_id)
        waiting = True
    if waiting:
        found.append(unk_id)
    return found


def safe_cuts(ids):
    """A regex finding the safe cuts of a chunk: before a ``▁`` after a character no token has before a ``▁``.

    No token, and so no merge, can cross such a place, so encoding the
    pieces apart gives the same IDs as the whole (a long line costs no more
    than its words, and the cache sees words). None where ``▁`` is not a
    token. Llama 2 has no token with a ``▁`` after another character (but
    runs of ``▁``); Gemma 3 has one, ``>▁</``, so it never cuts after ``>``.

    >>> safe_cuts({"▁": 0, "a": 1, "b": 2, "b▁": 3}).split("▁a▁▁ab▁a")
    ['▁a', '▁▁ab▁a']
    """
    source = safe_cuts_regex(ids)
    return None if source is None else re.compile(source)


def safe_cuts_regex(ids):
    """The regex of ``safe_cuts``, as text (None where ``▁`` is not a token)."""
    if SPACE_MARK not in ids:
        return None
    return f"(?<=[^{re.escape(''.join(sorted(before_space_mark(ids))))}])(?={SPACE_MARK})"


def before_space_mark(ids):
    """Every character a token has right before a ``▁`` (including ``▁`` itself, as runs of them are tokens)."""
    found = {SPACE_MARK}
    for token in [token for token in ids if token.find(SPACE_MARK, 1) > 0]:
        at = token.find(SPACE_MARK, 1)
        while at > 0:
            found.add(token[at - 1])
            at = token.find(SPACE_MARK, at + 1)
    return found


def decode_tokens(tokens, steps):
    """Tokens' texts through a character-level decoder's steps, in order (each step takes and gives a list).

    >>> steps = [{"step": "replace", "old": "▁", "new": " "}, {"step": "byte_fallback"}, {"step": "fuse"},
    ...          {"step": "strip", "char": " ", "start": 1, "stop": 0}]
    >>> decode_tokens(["▁caf", "<0xC3>", "<0xA9>", "▁", "<0xC3>"], steps)
    ['café \\ufffd']
    """
    for step in steps:
        name = step["step"]
        if name == "replace":
            tokens = [token.replace(step["old"], step["new"]) for token in tokens]
        elif name == "byte_fallback":
            tokens = bytes_as_text(tokens)
        elif name == "fuse":
            tokens = ["".join(tokens)]
        elif name == "strip":
            tokens = [stripped(token, step["char"], step["start"], step["stop"]) for token in tokens]
        elif name == "metaspace":
            keep_first = step["prepend_scheme"] == "never"
            tokens = [token.replace(step["replacement"], " " if at or keep_first else "")
                      for at, token in enumerate(tokens)]
    return tokens


def bytes_as_text(tokens):
    """Each run of byte tokens as the text its bytes spell, or, if they are not valid UTF-8, one U+FFFD per byte.

    (Not Python's ``decode("utf-8", "replace")``: Hugging Face replaces the
    whole run, its valid part too.)

    >>> bytes_as_text(["<0x41>", "<0xFF>", "x", "<0xE2>", "<0x82>", "<0xAC>"])
    ['\ufffd', '\ufffd', 'x', '€']
    """
    found, run = [], []
    for token in tokens + [None]:
        byte = None if token is None else token_byte(token)
        if byte is not None:
            run.append(byte)
            continue
        if run:
            try:
                found.append(bytes(run).decode("utf-8"))
            except UnicodeDecodeError:
                found += ["\ufffd"] * len(run)
            run = []
        if token is not None:
            found.append(token)
    return found


def stripped(token, char, start, stop):
    """``token`` without up to ``start`` leading and ``stop`` trailing ``char``.

    >>> stripped("  hi ", " ", 1, 0)
    ' hi '
    """
    begin = 0
    while begin < min(start, len(token)) and token[begin] == char:
        begin += 1
    end = len(token)
    while len(token) - end < stop and end > begin and token[end - 1] == char:
        end -= 1
    return token[begin:end]
