"""tiktoken's files, both ways: a ``.tiktoken`` ranks file in, ``tiktoken.Encoding`` arguments out.

tiktoken keeps no merge list. Its file ranks every token (one line
``base64(token bytes) rank``), and to encode a chunk it repeatedly joins the
two adjacent pieces whose *joined bytes* have the lowest rank. Importing
means recovering a merge pair for every token: the two pieces tiktoken's
own replay of the token's bytes, restricted to lower ranks, ends with. Then
``bpe.reference_encode`` with those pairs gives tiktoken's IDs (the proof
is below). ``load_tiktoken`` builds the tokenizer with the class it is
given (``bpe.Tokenizer``), so this module never imports ``bpe``.

That replay is ordinary pair-by-pair BPE in disguise. Suppose every token
below rank r is built by its replay from exactly two pieces, its pair.
Then whenever tiktoken's replay joins two pieces into a token T of rank
below r, those pieces are T's pair: they tile T's bytes, and every join
inside them happened in rank order with nothing crossing their edge, which
is T's own replay. So tiktoken's replay and ``encode_chunk`` with the pairs
recovered so far make the same choices. Taking the tokens in rank order,
each step may therefore reason about pairs, never about bytes.

Which pair? For T = A + B (both older tokens), replaying T's bytes runs
A's replay and B's side by side until a merge joins a piece of A's part to
a piece of B's, and it ends in [A, B] exactly when no such crossing ever
happens. The piece of A's part touching the edge is A's last piece, then
its right part, then that one's right part, down to one byte (A's "right
spine"), each there from the rank it was made until the rank of its
parent; B's edge pieces likewise go down B's left parts. A crossing is a
merge (X, Y) of rank w, below T's, with X and Y at the edge together when
w comes: w below X's parent and no later than Y's (on a tie, the merge on
the left, A's, goes first). ``keeps_pair`` walks the two spines down
together, one dictionary look-up per step. Of the ways to cut T into two
older tokens, at most one passes (the replay is deterministic), so an
import tries them, longest first part first, and a file where none passes
is refused. A long token is replayed with ``encode_chunk`` instead, since
trying each cut copies the token each time: time quadratic in its length.
An export checks each of our merges with ``keeps_pair``. Long spines
make a walk long; real vocabularies need a few steps (13 at most on
cl100k and o200k), and vocabularies built to defeat it cost quadratic time.
"""

import binascii
import sys
from typing import Mapping, Optional

from bpelab.byte_level import BYTE_TO_CHAR, SINGLE_BYTES, bytes_to_display, display_to_bytes
from bpelab.formats import vocabulary_cache
from bpelab.merges.engine import encode_chunk
from bpelab.merges.picky_model import refuse_removals
from bpelab.messages import listed, named, shown
from bpelab.reading import PathLike, gunzip, read_file_bytes
from bpelab.text.patterns import pattern_source


def keeps_pair(left, right, merged_id, parts, rank):
    """Whether tiktoken's replay of ``left + right``'s bytes, with the merges below ``rank``, ends in [left, right].

    IDs are ranks: 0-255 the single bytes (there from the start), then one
    per merge, whose parts are ``parts[id]``. ``merged_id`` holds the merges
    below ``rank`` only.
    """
    x, x_until = left, rank  # the edge piece of the left part, and when it gets merged into its parent
    y, y_until = right, sys.maxsize
    while x >= 256 or y >= 256:  # (left, right) itself is no merge yet: start one step down
        if x > y:  # made later: its parts were at the edge before it
            x, x_until = parts[x][1], x
        else:
            y, y_until = parts[y][0], y
        crossing = merged_id.get((x, y))
        if crossing is not None and crossing < x_until and crossing <= y_until:
            return False
    return True


def recover_pairs(token_bytes, path, line_numbers, replay_from=64):
    """Each token's merge pair (by rank: ``parts[rank]``), as tiktoken's replay builds it; or a ``ValueError``
    naming the file ``path`` and the token's line (``line_numbers[rank]``).

    A token shorter than ``replay_from`` bytes tries its cuts with
    ``keeps_pair`` (fast on real vocabularies); a longer one is replayed with
    ``encode_chunk``, which takes n log n time where trying every cut of a
    long token would take quadratic time. Both find the same pair (see above).
    """
    rank_of = {token: rank for rank, token in enumerate(token_bytes) if token is not None}
    single_ids = bytes(rank_of[byte] for byte in SINGLE_BYTES)  # a bytes.translate table: byte -> its rank
    parts = [None] * len(token_bytes)
    merged_id = {}
    for rank in range(256, len(token_bytes)):
        token = token_bytes[rank]
        if token is None:  # a rank no token has (a special token's ID, p50k's 50256)
            continue
        pair = _pair_by_cuts(token, rank, rank_of, merged_id, parts) if len(token) < replay_from else None
        if pair is None:
            pair = encode_chunk(token.translate(single_ids), merged_id)
            if len(pair) != 2:
                raise ValueError(
                    f"{named(path)}: line {line_numbers[rank]}: tiktoken builds {shown(token)} from {len(pair):,} pieces of "
                    f"lower rank ({listed((token_bytes[piece] for piece in pair), ' + ')}), not from a pair, so no "
                    "merge list can give the same tokens"
                )
        parts[rank] = tuple(pair)
        merged_id[parts[rank]] = rank
    return parts


def _pair_by_cuts(token, rank, rank_of, merged_id, parts):
    """The cut of ``token`` into two older tokens that tiktoken's replay keeps, longest first part first; or None."""
    for cut in range(len(token) - 1, 0, -1):
        left = rank_of.get(token[:cut], rank)
        if left < rank:
            right = rank_of.get(token[cut:], rank)
            if right < rank and (len(token) == 2 or keeps_pair(left, right, merged_id, parts, rank)):
                return left, right
    return None


def load_tiktoken(cls, path: PathLike, pattern: str, special_tokens: Optional[Mapping[str, int]] = None, *,
                  raw: Optional[bytes] = None):
    """Import a tiktoken ranks file (``.tiktoken``, or gzip-compressed ``.gz``) as a byte-level tokenizer.

    (``Tokenizer.load_tiktoken``.) ``pattern`` names the chunk pattern the
    vocabulary was made for (``"cl100k"`` for GPT-4's ``cl100k_base``,
    ``"o200k"`` for GPT-4o's); ``special_tokens`` is a dict of text -> ID, or
    None for none. Each token's merge pair is recovered as tiktoken itself
    would build it, and the tokenizer built with ``cls``. ``raw``, if given,
    is the file's bytes, already read (a pipe can be read only once). A
    file loaded before is read back from the cache of prepared vocabularies
    (``bpelab.formats.vocabulary_cache``), keyed by its bytes, the pattern and the
    special tokens.
    """
    pattern_source(pattern, "rust")  # (refuses a regex tiktoken would cut otherwise)
    if special_tokens is not None and not isinstance(special_tokens, dict):
        raise TypeError(f"special_tokens must be a dict of text -> ID, or None, not {type(special_tokens).__name__}")
    data = read_file_bytes(path) if raw is None else raw
    if data[:2] == b"\x1f\x8b":
        data = gunzip(data, path)
    arguments = {"pattern": pattern, "special_tokens": list(map(list, (special_tokens or {}).items()))}
    return vocabulary_cache.load(cls, data, "tiktoken", arguments,
                      lambda build: from_ranks(build, path, data, pattern, special_tokens))


def from_ranks(cls, path, data, pattern, special_tokens):
    """The tokenizer of a ``.tiktoken`` file's bytes (``data``, uncompressed), built with ``cls``."""
    token_bytes, line_numbers = _parse_ranks(data, path, len(special_tokens or ()))
    missing = next((rank for rank, token in enumerate(token_bytes)
                    if token is None and rank not in (special_tokens or {}).values()), None)
    if missing is not None:
        raise ValueError(f"{named(path)}: no token has rank {missing:,}, and no special token takes that ID; the "
                         "ranks are 0 to the number of tokens - 1, each once, but for the special tokens' IDs")
    display = [None if token is None else bytes_to_display(token) for token in token_bytes]
    merges = [(display[pair[0]], display[pair[1]]) for pair in recover_pairs(token_bytes, path, line_numbers)[256:]
              if pair is not None]
    try:
        return cls(display[:256], merges, byte_level=True, pattern=pattern, special_tokens=special_tokens or {})
    except ValueError as error:
        raise ValueError(f"{named(path)}: {error}") from None


def _parse_ranks(data, path, gaps=0):
    """The token bytes of a ``.tiktoken`` file and the line each is on, by rank; malformed lines are refused.

    Each line holds the canonical base64 of a token and its rank in ASCII
    digits, separated by whitespace (as tiktoken reads it: line ends may be
    ``\\r\\n``, and empty lines are skipped); the ranks are 0 to the number of
    tokens - 1, each once, but for up to ``gaps`` ranks no token has (None
    there, for special tokens' IDs), and ranks 0-255 are the 256 single
    bytes (in any order).
    """
    lines = [(number, line) for number, line in enumerate(data.splitlines(), 1) if line]
    token_bytes = [None] * (len(lines) + gaps)
    line_numbers = [None] * (len(lines) + gaps)
    for number, line in lines:
        fields = line.split()
        try:
            token = binascii.a2b_base64(fields[0])
            rank = int(fields[1]) if len(fields) == 2 and fields[1].isdigit() else None  # not "+1" or "1_0"
        except (binascii.Error, ValueError, IndexError):
            token = rank = None
        if not token or rank is None or binascii.b2a_base64(token, newline=False) != fields[0]:
            raise ValueError(f"{named(path)}: line {number}: expected 'base64-token rank', found {shown(line)}")
        if not 0 <= rank < len(token_bytes) or token_bytes[rank] is not None:
            raise ValueError(f"{named(path)}: line {number}: rank {shown(rank)} must be new and below "
                             f"{len(token_bytes):,} (the ranks are 0 to the number of tokens - 1, each once, "
                             "but for special tokens' IDs)")
        token_bytes[rank], line_numbers[rank] = token, number
    while token_bytes and token_bytes[-1] is None:  # (room left for gaps that were not used)
        token_bytes.pop()
        line_numbers.pop()
    if len(set(token_bytes)) != len(lines) + (None in token_bytes):
        line_of = {}
        for number, line in lines:
            token = binascii.a2b_base64(line.split()[0])
            if token in line_of:
                raise ValueError(f"{named(path)}: line {number}: the token {shown(token)} is on line "
                                 f"{line_of[token]} too; each token has one rank")
            line_of[token] = number
    if None in token_bytes[:256] or sorted(token_bytes[:256]) != SINGLE_BYTES:
        raise ValueError(f"{named(path)}: ranks 0-255 must be the 256 single bytes (in any order)")
    return token_bytes, line_numbers


def to_tiktoken(tokenizer) -> dict:
    """Keyword arguments for ``tiktoken.Encoding(**kwargs)`` that give the same IDs (``Tokenizer.to_tiktoken``).

    tiktoken is byte-level only, and ranks joined bytes rather than pairs
    (see above): a hand-made merge list can build a token from two
    different splits, and such a list is refused. So are special tokens
    where one begins another (``<a`` and ``<a>``): which one tiktoken
    matches depends on the order its table happens to hold.
    """
    if not tokenizer.byte_level:
        raise ValueError("tiktoken works on bytes: only a byte-level tokenizer (byte_level=True) can be exported")
    refuse_removals(tokenizer, "tiktoken's ranks")
    specials = sorted(tokenizer.special_tokens)
    for shorter, longer in zip(specials, specials[1:]):
        if longer.startswith(shorter):
            raise ValueError(
                f"special token {shown(shorter)} begins {shown(longer)}: tiktoken has no fixed rule for which "
                "of the two it matches, so this tokenizer cannot be exported to it"
            )
    ids = tokenizer.ids
    token_bytes = {token_id: display_to_bytes(token) for token, token_id in ids.items()}  # an ID is a rank
    byte_ids = bytes(ids[char] for char in BYTE_TO_CHAR)  # a bytes.translate table: byte -> its ID
    parts = {ids[left + right]: (ids[left], ids[right]) for left, right in tokenizer.merges}
    merged_id = {}
    for rank in sorted(parts):
        left, right = parts[rank]
        if not keeps_pair(left, right, merged_id, parts, rank):
            pieces = encode_chunk(token_bytes[rank].translate(byte_ids), merged_id)
            raise ValueError(
                f"tiktoken would build {shown(tokenizer.vocab[rank])} as "
                f"{listed((tokenizer.vocab[piece] for piece in pieces), ' + ')}, not "
                f"{shown(tokenizer.vocab[left])} + {shown(tokenizer.vocab[right])}: it ranks joined bytes, not "
                "pairs, so this merge list cannot be exported"
            )
        merged_id[(left, right)] = rank
    return {
        "name": "bpe-lab",
        "pat_str": pattern_source(tokenizer.pattern, "rust"),
        "mergeable_ranks": {token: rank for rank, token in sorted(token_bytes.items())},
        "special_tokens": dict(tokenizer.special_tokens),
    }

