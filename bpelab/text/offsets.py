"""Offsets: each token's span of the text it was encoded from, in UTF-8 bytes or in characters.

``bpe.Tokenizer.encode_with_offsets(text)`` gives ``(id, start, end)`` for
each token of ``encode(text)``. In bytes (``unit="bytes"``) the spans partition
the text's UTF-8: the first starts at 0, each starts where the one before
ends, the last ends at the end, so every byte belongs to exactly one token.
They are found by reading the tokens off the text, layer by layer:

1. the text is cut into stretches around its special (or added) tokens, as
   ``encode`` cuts it (``stretches``); a special token spans the text it
   matched;
2. a tokenizer with a normalizer encodes each stretch normalized; the
   normalizer says where each byte of what it made came from
   (``Pipeline.normalize_aligned``): kept text byte for byte, changed text
   whole to the token holding the first byte of what it became;
3. each chunk's tokens span the bytes ``token_sizes`` says (a byte-level
   token its bytes, a character's token its character, a byte-fallback token
   its byte, an unknown token the characters it stands for); a space the
   tokenizer puts before a chunk (``add_prefix_space``) spans nothing, and so
   does Llama 2's prepended ``▁``.

At the byte level the text's UTF-8 is that of the text ``encode`` encodes:
a lone surrogate is U+FFFD's three bytes, a surrogate pair its one
character's four. In characters (the default unit) each span is the byte
span widened to whole characters, so a token holding part of a character
gets that character's span, as Hugging Face gives it.
"""

from bpelab import checks
from bpelab.byte_level import character_spans_of_bytes, replace_lone_surrogates
from bpelab.messages import shown

UNITS = ("characters", "bytes")
"""What ``encode_with_offsets`` counts its spans in."""


def check_unit(unit):
    """Refuse a ``unit`` that is not one of ``UNITS``."""
    if not isinstance(unit, str) or unit not in UNITS:
        raise ValueError(f"unit is {shown(unit)}; it must be {' or '.join(map(repr, UNITS))}")


def token_offsets(model, text, unit, allowed_special, disallowed_special):
    """``(id, start, end)`` for each token of ``text``, by ``model``, in ``unit`` (both checked first)."""
    check_unit(unit)
    checks.check_text(text)
    if unit == "bytes" and not model.byte_level:  # (for characters, a surrogate here is 3 bytes at one position)
        checks.check_no_surrogate(text, "text", "; byte offsets count UTF-8 bytes (replace it with U+FFFD)")
    written = replace_lone_surrogates(text) if model.byte_level else text
    ids, ends = token_ends(model, written, allowed_special, disallowed_special)
    spans = list(zip([0] + ends[:-1], ends))
    if unit == "characters":
        spans = character_spans(text, spans, model.byte_level)
    return [(token_id, start, end) for token_id, (start, end) in zip(ids, spans)]


def utf8_size(text):
    """How many UTF-8 bytes ``text`` has (a surrogate, which has none, as the three ``surrogatepass`` gives it)."""
    return len(text.encode("utf-8", "surrogatepass"))


def token_ends(model, text, allowed_special, disallowed_special):
    """The IDs of ``text`` and where each token ends in its UTF-8 bytes (so the next one starts there)."""
    ids, ends, done = [], [], 0
    for written, segments in model.stretches(text, allowed_special, disallowed_special):
        encoded = "".join(segment for segment, _ in segments)
        bounds = None
        if encoded != written:
            normalized, bounds = model.pipeline.normalize_aligned(written)
            if normalized != encoded:
                raise ValueError(f"the stretch {shown(written)} was encoded as {shown(encoded)}, which is not what "
                                 "its normalizer makes of it")
        at, stops = 0, []
        for segment, token_id in segments:
            if token_id is None:
                stops += chunk_ends(model, segment, ids, at)
            else:
                ids.append(token_id)
                stops.append(at + utf8_size(segment))
            at += utf8_size(segment)
        ends += [done + stop for stop in stops] if bounds is None else [done + bounds[stop] for stop in stops]
        done += utf8_size(written)
    return ids, ends


def chunk_ends(model, segment, ids, at):
    """Where each token of ``segment`` (text between special tokens, ``at`` bytes into its stretch) ends; its IDs
    are appended to ``ids``. A space the model put before a chunk ends where it stands: it spans nothing."""
    data, position, stops = segment.encode("utf-8", "surrogatepass"), 0, []
    cache = model.cache
    for chunk in model.chunks(segment):
        piece = chunk.encode("utf-8", "surrogatepass")
        added = 0
        if not data.startswith(piece, position):
            if not (piece[:1] == b" " and data.startswith(piece[1:], position)):
                raise ValueError(f"the chunk {shown(chunk)} is not the text at byte {position} of {shown(segment)}")
            added = 1  # (a prefix space: ``add_prefix_space``)
        chunk_ids = cache[chunk]
        sizes = model.token_sizes(chunk, chunk_ids)
        if sum(sizes) != len(piece):
            raise ValueError(f"the tokens of the chunk {shown(chunk)} span {sum(sizes)} bytes, not its {len(piece)}")
        ids += chunk_ids
        end = 0
        for size in sizes:
            end += size
            stops.append(at + position + max(end - added, 0))
        position += len(piece) - added
    model.cache = cache.renewed()
    if position != len(data):
        raise ValueError(f"the chunks of {shown(segment)} end at byte {position} of its {len(data)}")
    return stops


def character_spans(text, spans, byte_level):
    """Byte spans of ``text`` widened to whole characters, as positions in ``text`` (a surrogate pair is two)."""
    starts, ends = character_spans_of_bytes(text, byte_level)
    found = []
    for start, end in spans:
        if end > start:
            found.append((starts[start], ends[end - 1]))
        else:
            place = starts[start] if start < len(starts) else len(text)
            found.append((place, place))
    return found
