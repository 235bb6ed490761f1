"""Training input: the options of a run, checked once, chunk counts, and the base tokens of each chunk.

Training sees the text only as chunk counts (each distinct chunk with how
often it occurs), as ``bpe.reference_train`` and ``engine.train_merges``
take it. This module checks a run's options (``training_options`` for
plain BPE and SuperBPE; ``shared_options``, the part every trainer takes,
the variants included), counts chunks in a text given block by block
(``count_chunks``, equal to counting ``bpe.chunks`` of the whole text),
checks counts made elsewhere, and turns counts into the sequences of base
tokens that training merges.
"""

import functools
from collections import Counter
from collections.abc import Mapping
from typing import Callable, Iterable, NamedTuple, Optional, Union

from bpelab.byte_level import replace_lone_surrogates
from bpelab.checks import (UNK, check_callback, check_choice, check_flag, check_no_surrogate, check_positive_int,
                           check_prefix_space, check_vocab_size, check_workers)
from bpelab.merges.rules import TIE_RULES
from bpelab.messages import shown
from bpelab.text.blocks import safe_blocks
from bpelab.text.patterns import DEFAULT_PATTERN, check_pattern, chunker, last_safe_cut
from bpelab.text.specials import check_special_text, special_finder, special_token_ids

Progress = Optional[Callable[[int, int], None]]
"""A trainer's ``progress(merges_done, merge_target)``, called about a hundred times (see ``rules.report_progress``)."""

OnMerge = Optional[Callable[[int, dict], None]]
"""A trainer's ``on_merge(rank, entry)``, called with each history entry as soon as it is learned."""


CountProgress = Optional[Callable[[int, int], None]]
"""A trainer's ``count_progress(bytes_done, bytes_total)``, called as the text is counted (``bytes_total`` is 0 when
not known beforehand, as for a stream)."""


class SuperBPE(NamedTuple):
    """SuperBPE's choices, as ``superbpe=SuperBPE(t, ...)`` takes them; ``superbpe=t`` takes these defaults, which
    are the official code's (``bpelab.merges.superbpe``; the last three False, with ``t + 1``, give the lab's SuperBPE of
    before, with ``pattern="o200k"``, ``ties="smallest"`` and ``min_count=2``).

    - ``t``: as the official scripts' ``num_inherit_merges``: ``head -n t merges.txt`` keeps t lines of stage 1's
      merges file, its header among them, so stage 2 inherits stage 1's first t - 1 merges (none for 0 or 1).
    - ``split``: ``"repository"``, the patterns its scripts have used since November 2025, or ``"paper"``, those
      of the paper's experiments: stage 1's and stage 2's, in ``SPLITS`` (``pattern=`` may name another stage 1).
    - ``by_line``: count the chunks of each line on its own, in both stages, as the official trainer reads its
      files line by line; False counts the whole text.
    - ``limits``: stage 2 passes over a merge whose token holds ``": "`` or more than four words (pieces between
      spaces), as the fork has since its commit "limit to 4-word tokens and special case colon".
    - ``drop_unseen``: stage 2 leaves out an inherited merge whose pair never occurs in its chunks.
    """

    t: int
    split: str = "repository"
    by_line: bool = True
    limits: bool = True
    drop_unseen: bool = True


DEFAULT_TIES = {False: "smallest", True: "huggingface"}
"""The tie rule when none is given, by whether the run is SuperBPE's (whose official trainer is Hugging Face's)."""

DEFAULT_MIN_COUNT = {False: 2, True: 1}
"""``min_count`` when none is given, by whether the run is SuperBPE's (``BpeTrainer`` merges pairs seen once)."""

SuperBPEChoice = Union[None, int, SuperBPE]
"""What ``superbpe=`` takes: None (plain BPE), ``t``, or a ``SuperBPE``."""

SPLITS = {"repository": ("superbpe-words", "superbpe"), "paper": ("superbpe-paper-words", "superbpe-paper")}
"""SuperBPE's splits by name: (stage 1's pattern, stage 2's, which its tokenizers encode with)."""


class TrainingOptions(NamedTuple):
    """Every option of a training run, checked once, where the public API receives them: by ``training_options``, or
    by a variant's own (``parity.parity_options``, ``picky.picky_options``), each through ``shared_options``."""

    vocab_size: int  # the vocabulary's size to reach, special tokens included
    byte_level: bool  # base tokens: the 256 bytes (True) or the characters seen
    pattern: str  # the chunk pattern, a name or a regex (``patterns.regex_pattern``; stage 1's, for SuperBPE)
    specials: list  # the special tokens' texts, in order
    ties: Optional[str]  # the tie rule (``bpe.best_pair``; PickyBPE's ``picky.PICKY_TIES``), or None: the variant's
    min_count: int  # the fewest times a pair must occur to be merged
    superbpe: Optional[SuperBPE]  # SuperBPE's choices, or None
    add_prefix_space: bool  # a space before text that lacks one (byte level)
    workers: int  # the processes that count chunks
    progress: Progress  # progress(merges_done, merge_target)
    on_merge: OnMerge  # on_merge(rank, history entry)
    count_progress: CountProgress  # count_progress(bytes_done, bytes_total)
    on_counts: Optional[Callable[[dict], None]]  # on_counts(the chunk counts the tokenizer encodes by)
    parity: Optional[object] = None  # parity-aware BPE's ``parity.ParitySettings``, or None
    threshold: Optional[float] = None  # PickyBPE's threshold (``picky``), or None
    min_chunk_count: int = 1  # the fewest times a chunk must occur to be trained on (plain BPE)

    @property
    def by_line(self):
        """Whether chunks are counted line by line (SuperBPE's default)."""
        return self.superbpe is not None and self.superbpe.by_line


def training_options(vocab_size: int, *, ties: Optional[str] = None, min_count: Optional[int] = None,
                     superbpe: SuperBPEChoice = None, add_prefix_space: bool = False, workers: int = 1,
                     pattern: Optional[str] = None, min_chunk_count: int = 1, **shared) -> TrainingOptions:
    """Check every option of a plain BPE or SuperBPE run, before any work; return them as ``TrainingOptions``.

    This is the one place such an option is checked (and given its default):
    ``bpe.Tokenizer.train``, ``train_from_files`` and ``train_from_counts``
    and the command line's ``train`` all come here. Besides those every
    trainer takes (``shared_options``: ``byte_level``, ``special_tokens``,
    ``progress``, ``on_merge``, ``count_progress``, ``on_counts``), what is
    not given is the level's default: the pattern ``"lab"`` or ``"gpt2"``,
    ties ``"smallest"``, ``min_count`` 2; for SuperBPE (``superbpe=t`` or a
    ``SuperBPE``) the official trainer's: its split's stage 1,
    ``"huggingface"``, 1. ``min_chunk_count`` (plain BPE) trains only on the
    chunks seen at least that often (``TrainingChunks``).
    """
    superbpe = check_superbpe(superbpe, add_prefix_space)
    check_positive_int(min_chunk_count, "min_chunk_count")
    if min_chunk_count > 1 and superbpe is not None:
        raise ValueError("min_chunk_count is for plain BPE: SuperBPE's stage 2 learns from every span; "
                         "leave min_chunk_count at 1")
    if pattern is None and superbpe is not None:
        pattern = SPLITS[superbpe.split][0]
    min_count = DEFAULT_MIN_COUNT[superbpe is not None] if min_count is None else min_count
    options = shared_options(vocab_size, min_count, pattern=pattern, **shared)
    check_prefix_space(add_prefix_space, options.byte_level)
    check_workers(workers)
    if add_prefix_space and workers > 1:
        raise ValueError("add_prefix_space=True counts in one process: the prefix space depends on what comes "
                         "before each block; leave workers at 1")
    ties = DEFAULT_TIES[superbpe is not None] if ties is None else ties
    check_choice(ties, TIE_RULES, "ties")
    return options._replace(ties=ties, superbpe=superbpe, add_prefix_space=add_prefix_space, workers=workers,
                            min_chunk_count=min_chunk_count)


def shared_options(vocab_size: int, min_count: int, *, byte_level: bool = False, pattern: Optional[str] = None,
                   special_tokens: Iterable[str] = (), progress: Progress = None, on_merge: OnMerge = None,
                   count_progress: CountProgress = None,
                   on_counts: Optional[Callable[[dict], None]] = None) -> TrainingOptions:
    """Check the options every trainer takes (plain BPE, SuperBPE and the variants), each once.

    ``min_count`` is given by the trainer, whose default it is (2 for plain
    BPE, 1 for the variants, as their sources merge). The options returned
    have no tie rule, no SuperBPE, no prefix space and one worker, until the
    trainer's own check (``training_options``, or a variant's) says otherwise.
    """
    check_vocab_size(vocab_size)
    check_flag(byte_level, "byte_level")
    pattern = DEFAULT_PATTERN[byte_level] if pattern is None else pattern
    check_pattern(pattern)
    check_positive_int(min_count, "min_count")
    for name, callback in (("progress", progress), ("on_merge", on_merge), ("count_progress", count_progress),
                           ("on_counts", on_counts)):
        check_callback(callback, name)
    if isinstance(special_tokens, dict):
        raise TypeError("special_tokens must be a list when training: their IDs follow the merges, in order")
    specials = special_token_ids(special_tokens, [], byte_level)
    return TrainingOptions(vocab_size, byte_level, pattern, list(specials), None, min_count, None, False, 1,
                           progress, on_merge, count_progress, on_counts)


def check_superbpe(superbpe, add_prefix_space):
    """``superbpe`` as a ``SuperBPE`` (None stays None); refuse what is neither, bad choices, or a prefix space."""
    if superbpe is None:
        return None
    if not isinstance(superbpe, SuperBPE):
        if isinstance(superbpe, bool) or not isinstance(superbpe, int):
            raise TypeError(f"superbpe must be None, t (an int, 0 or more: head -n t of stage 1's merges.txt) or "
                            f"a SuperBPE(t, ...), not {shown(superbpe)}")
        superbpe = SuperBPE(superbpe)
    if isinstance(superbpe.t, bool) or not isinstance(superbpe.t, int):
        raise TypeError(f"SuperBPE's t must be an int, 0 or more, not {shown(superbpe.t)}")
    if superbpe.t < 0:
        raise ValueError(f"SuperBPE's t must be 0 or more (head -n t of stage 1's merges.txt), not {superbpe.t}")
    check_choice(superbpe.split, tuple(SPLITS), "SuperBPE's split")
    for name in ("by_line", "limits", "drop_unseen"):
        check_flag(getattr(superbpe, name), f"SuperBPE's {name}")
    if add_prefix_space is True:
        raise ValueError("superbpe=t does not take add_prefix_space=True: SuperBPE trains without a prefix space; "
                         "leave add_prefix_space out")
    return superbpe


def check_chunk_counts(chunk_counts, pattern, special_tokens):
    """Refuse chunk counts whose keys are not single chunks or whose counts are not positive ints.

    A key may be a special token's text (a count of that special token); any
    other key holding one is refused: ``count_chunks`` keeps special tokens
    whole, so whoever counted must do the same.
    """
    if not isinstance(chunk_counts, dict):
        raise TypeError(f"chunk_counts must be a dict of chunk -> count, not {type(chunk_counts).__name__}")
    cut = chunker(pattern)
    specials = frozenset(special_tokens)
    finder = special_finder(specials) if specials else None
    for chunk, count in chunk_counts.items():
        if not isinstance(chunk, str):
            raise ValueError(f"chunk_counts key {shown(chunk)} must be a str, not {type(chunk).__name__}")
        if chunk not in specials:
            special = finder.search(chunk) if finder else None
            if special:
                raise ValueError(
                    f"chunk_counts key {shown(chunk)} holds the special token {special.group()!r}; "
                    "count special tokens on their own (as bpe.count_chunks does)"
                )
            pieces = cut(chunk)
            # (SuperBPE's chunk "a " of "a 1" is cut as "a", " " alone: a key may also be a chunk before a digit.)
            if pieces != [chunk] and cut(chunk + "0") != [chunk, "0"]:
                raise ValueError(f"chunk_counts key {shown(chunk)} is not exactly one chunk: the {pattern!r} "
                                 f"pattern cuts it into {shown(pieces)} (see bpe.chunks)")
            check_no_surrogate(chunk, f"chunk_counts key {shown(chunk)}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"chunk_counts[{shown(chunk)}] is {shown(count)}; counts must be positive ints")


def count_chunks(blocks: Iterable[str], pattern: str = "lab", *, special_tokens: Iterable[str] = (),
                 add_prefix_space: bool = False, by_line: bool = False) -> Counter:
    """Count each distinct chunk of a text given as blocks, which may be cut anywhere.

    >>> count_chunks(["the cat", " the h", "at"])
    Counter({'the': 1, ' cat': 1, ' the': 1, ' hat': 1})

    The text of each special token is counted whole, under its own text,
    and never cut into chunks: a special token stays out of training. The
    chunks come out in the order they first appear. With ``add_prefix_space``
    the text, and the text after each special token, gets a space in front
    unless it starts with one, as ``encode`` gives it. With ``by_line`` each
    line (to and with its ``\\n``) is cut on its own, as a trainer that reads
    its files line by line cuts them (SuperBPE's official one): no chunk then
    holds a line break followed by more text.
    """
    if isinstance(special_tokens, (str, bytes)):
        raise TypeError(f"special_tokens must be a list of strings, not a single {type(special_tokens).__name__}")
    special_tokens = frozenset(special_tokens)
    for text in special_tokens:
        check_special_text(text, byte_level=True)  # (counting has no <unk>, whatever the level)
    cut, last_cut = chunker(pattern), None
    if by_line:
        cut, last_cut = line_chunker(cut), functools.partial(last_line_cut, pattern=pattern)
    counts = Counter()
    finder = special_finder(special_tokens) if special_tokens else None
    fresh = add_prefix_space  # the next ordinary text starts a stretch that gets a prefix space
    for block in safe_blocks(blocks, pattern, last_cut):
        start = 0
        for found in finder.finditer(block) if finder else ():
            counts.update(cut(prefixed(block[start:found.start()], fresh)))
            fresh = fresh and start == found.start()
            counts[found.group()] += 1
            start, fresh = found.end(), add_prefix_space
        counts.update(cut(prefixed(block[start:], fresh)))
        fresh = fresh and start == len(block)
    return counts


def line_chunker(cut):
    """``cut`` (a ``patterns.chunker``) applied to each line of a text on its own, a line ending after its ``\\n``."""
    def cut_lines(text):
        lines = text.split("\n")
        found = []
        for line in lines[:-1]:
            found += cut(line + "\n")
        return found + cut(lines[-1]) if lines[-1] else found

    return cut_lines


def last_line_cut(text, pattern):
    """The last place inside ``text`` where it may be cut when counted line by line: after its last ``\\n`` but a
    final one, or at the pattern's last safe cut if that comes later (safe within a line too); -1 if neither."""
    end = text.rfind("\n", 0, len(text) - 1)
    return max(end + 1 if end >= 0 else -1, last_safe_cut(text, pattern))


def training_text(text, byte_level, argument="text"):
    """``text`` as training reads it: at the byte level a lone surrogate is U+FFFD (as ``encode`` reads it); at the
    character level one is refused, since no file could hold it."""
    if byte_level:
        return replace_lone_surrogates(text)
    check_no_surrogate(text, argument, "; remove it, or train with byte_level=True, which reads it as U+FFFD")
    return text


def reported(blocks, options, start=0, total=0):
    """Pass ``blocks`` through, telling ``options.count_progress`` how many bytes have gone by (from ``start``, of
    ``total``: 0 when not known)."""
    if options.count_progress is None:
        yield from blocks
        return
    done = start
    for block in blocks:
        yield block
        done += len(block.encode("utf-8", "surrogatepass"))
        options.count_progress(done, total)


def prefixed(text, fresh):
    """``text`` with a space in front if it starts a stretch (``fresh``) and lacks one."""
    return " " + text if fresh and text and not text.startswith(" ") else text


def start_sequences(chunk_counts, vocab_size, byte_level, specials, min_chunk_count=1):
    """What training merges: each chunk that is not a special token (seen at least ``min_chunk_count`` times), as
    its base tokens, with its count.

    Returns ``(alphabet, sequences, merges_wanted)``: the alphabet (the
    sorted characters, or None for the 256 bytes), the sequences (a
    ``TrainingChunks`` view of the counts: at the byte level each chunk's
    UTF-8 ``bytes``, which ``engine.train_merges`` reads as its single
    bytes), and how many merges fill ``vocab_size`` once the base and
    special tokens have their IDs; a ``vocab_size`` below those is refused.
    """
    sequences = TrainingChunks(chunk_counts, specials, byte_level, min_chunk_count)
    if not sequences:
        if min_chunk_count > 1 and TrainingChunks(chunk_counts, specials, byte_level):
            raise ValueError(f"no chunk but a special token's occurs min_chunk_count={min_chunk_count} times: "
                             "nothing is left to train on; lower min_chunk_count")
        raise ValueError("cannot train on empty text: give at least one character that is not a special token")
    if byte_level:
        alphabet, base_size, base_name = None, 256, "the 256 byte values"
    else:
        alphabet = sorted(set("".join(sequences)))
        base_size, base_name = len(alphabet) + 1, f"{len(alphabet)} characters + {UNK}"
    if specials:
        base_name += f" + {len(specials)} special tokens"
    needed = base_size + len(specials)
    if vocab_size < needed:
        raise ValueError(
            f"vocab_size {vocab_size} is smaller than the {needed} base tokens ({base_name}); "
            f"ask for at least {needed}"
        )
    return alphabet, sequences, vocab_size - needed


class TrainingChunks(Mapping):
    """Chunk counts as training reads them, without a copy: the special tokens' own counts left out, and at the
    byte level each chunk as its UTF-8 ``bytes``, made as it is read.

    >>> dict(TrainingChunks({"hi": 2, "<s>": 1, " é": 1}, ["<s>"], byte_level=True))
    {b'hi': 2, b' \\xc3\\xa9': 1}
    >>> dict(TrainingChunks({"hi": 2, "<s>": 1, " é": 1}, ["<s>"], byte_level=False, least=2))
    {'hi': 2}

    A copy would hold every distinct chunk a second time, while the engine
    reads each chunk once, to code it (``engine.code_chunks``). With
    ``least`` (``min_chunk_count``), the chunks seen fewer times are left
    out too: training then learns exactly what ``train_from_counts`` learns
    from the counts without them.
    """

    def __init__(self, chunk_counts, specials, byte_level, least=1):
        self.counts, self.byte_level, self.least = chunk_counts, byte_level, least
        self.specials = frozenset(special for special in specials if special in chunk_counts)

    def __iter__(self):
        return (key for key, _ in self.items())

    def items(self):
        """Each chunk with its count, in the counts' order (a generator)."""
        pairs = self.counts.items()
        if self.specials:
            pairs = ((chunk, count) for chunk, count in pairs if chunk not in self.specials)
        if self.least > 1:
            pairs = ((chunk, count) for chunk, count in pairs if count >= self.least)
        if self.byte_level:
            return ((chunk.encode("utf-8"), count) for chunk, count in pairs)
        return iter(pairs)

    def __len__(self):
        if self.least > 1:
            return sum(1 for chunk, count in self.counts.items() if count >= self.least and chunk not in self.specials)
        return len(self.counts) - len(self.specials)

    def __getitem__(self, chunk):
        if self.byte_level != isinstance(chunk, bytes):
            raise KeyError(chunk)
        text = chunk.decode("utf-8", "surrogateescape") if self.byte_level else chunk
        if text in self.specials or self.counts.get(text, 0) < max(self.least, 1):
            raise KeyError(chunk)
        return self.counts[text]
