"""The steps around BPE in an imported tokenizer: normalizer, pre-tokenizer, model options, decoder, post-processor.

``bpe.chunks`` is the lab's whole story before merging: one named pattern
cuts the text. A Hugging Face ``tokenizer.json`` says more, as a pipeline
(``tokenizers`` 0.23.3's order, which ``Tokenizer.encode`` follows for a
tokenizer that has one):

1. its added tokens are cut out of the text (``bpelab.imported.added_tokens``);
2. the **normalizer** rewrites each stretch between them: here Unicode's
   ``NFC``, ``NFD``, ``NFKC`` or ``NFKD``, as steps in order;
3. the **pre-tokenizer** cuts each stretch into chunks, each step cutting
   every piece of the one before: ``split`` by a regex (a built-in pattern's
   name, or a Hugging Face regex translated by ``bpelab.text.chunk_regex``) with a
   ``behavior`` (``isolated`` keeps matches and the text between as pieces,
   ``removed`` drops the matches, ``merged_with_previous`` and
   ``merged_with_next`` glue each match to its neighbour, ``contiguous`` joins
   runs of the same kind) and ``invert`` (the text between the matches is
   what counts as matched); ``digits`` (numbers apart, each alone or in
   runs); ``prefix_space`` (a space before each piece that lacks one: the
   ``add_prefix_space`` of GPT-2's byte level);
4. the model encodes each chunk: at the byte level its UTF-8 bytes, shown as
   GPT-2's characters, then merges (``bpelab.imported.vocabulary``); with
   ``ignore_merges``, a chunk that is itself a token is that token;
5. the **decoder** turns tokens back into text (``bytes``: the bytes of each
   token, as UTF-8 with U+FFFD for what is invalid);
6. the **post-processor** adds tokens such as a beginning-of-text token
   around the IDs: Hugging Face does it with ``add_special_tokens=True``; the
   lab never does it silently, only through ``Tokenizer.apply_template``.

Steps are stored in the lab's own words (format 3, see docs/formats.md),
each a dict whose keys are all required. Normalization uses ``unicodedata``,
but as of Unicode 9.0.0, the version of ``tokenizers``' tables: a character
Unicode 9.0.0 had not assigned is left as it is, and the text is normalized
around it (``normalize``), so every Python version gives the same text.
"""

import functools
import os
import re
import unicodedata

from bpelab.checks import check_list
from bpelab.imported.added_tokens import AddedTokenMatcher, added_token_lines, check_added_tokens
from bpelab.text.chunk_regex import translate
from bpelab.messages import shown
from bpelab.text import unicode_ranges
from bpelab.text.patterns import char_class, check_name, chunker, pattern_source

UNICODE_FORMS = ("NFC", "NFD", "NFKC", "NFKD")
"""The normalizer steps: Unicode's four normal forms."""

BEHAVIORS = ("isolated", "removed", "merged_with_previous", "merged_with_next", "contiguous")
"""What a split keeps of the matches and the text between them."""

GPT2_REGEX = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"
"""The regex of Hugging Face's ByteLevel pre-tokenizer with ``use_regex`` (GPT-2's, in Oniguruma's syntax).

Not quite the lab's ``gpt2`` pattern: Oniguruma's ``\\s`` leaves out U+001C..U+001F."""

NUMBERS_REGEX = "\\p{N}"
"""What the ``digits`` step sets apart: Rust's ``char::is_numeric``, the general categories Nd, Nl and No."""

STEP_KEYS = {
    "normalizer": {**{form: () for form in UNICODE_FORMS}, "prepend": ("text",), "replace": ("old", "new")},
    "pre_tokenizer": {"split": ("pattern", "behavior", "invert"), "digits": ("individual",), "prefix_space": ()},
    "decoder": {"bytes": (), "replace": ("old", "new"), "byte_fallback": (), "fuse": (), "strip": ("char", "start", "stop"),
                "metaspace": ("replacement", "prepend_scheme")},
}
"""Each kind of step, by its name, with the keys it needs besides ``step``."""

TEXT_KEYS = {"text": "a non-empty text", "old": "a non-empty text", "new": "a text", "char": "one character",
             "replacement": "one character"}
"""The keys of steps that hold text, and what each must be."""

PREPEND_SCHEMES = ("always", "first", "never")
"""When Hugging Face's Metaspace puts its replacement character first (its decoder then drops it from the first token)."""

MODEL_OPTIONS = {"ignore_merges": False, "byte_fallback": False, "unk_token": None, "fuse_unk": False}
"""The model's options in a format-3 file, with the values of the lab's own tokenizers."""

CHARACTER_OPTIONS = {"byte_fallback": "unknown characters as <0xXX> byte tokens",
                     "unk_token": "an unknown-character token", "fuse_unk": "unknown characters fused"}
"""Model options for character-level models (SentencePiece's kind): what becomes of a character the vocabulary
lacks. The byte level never uses them."""


MAX_GROWTH = 64
"""How many characters a normalizer may make of each one (real ones make at most 18: NFKC of U+FDFA)."""

FORM_GROWTH = {"NFC": 4, "NFD": 4, "NFKC": 18, "NFKD": 18}
"""The most characters each Unicode form makes of one in a text (a canonical form decomposes to at most 4 first)."""


def check_growth(steps):
    """Refuse a normalizer that could make more than ``MAX_GROWTH`` characters of one (then ``encode("a")`` may
    ask for the machine's memory: forty ``replace`` steps of ``a`` by ``aa`` make 2^40).

    Each ``replace`` may multiply the text by its new text's length over its
    old one's, and a run of Unicode forms by the most one of them makes
    (normalizing twice gives no more than normalizing once); ``prepend``
    adds its text once.
    """
    growth, run = 1, 1
    for step in steps + [{"step": "end"}]:
        if step["step"] in FORM_GROWTH:
            run = max(run, FORM_GROWTH[step["step"]])
            continue
        growth, run = growth * run, 1
        if step["step"] == "replace":
            growth *= max(1, len(step["new"]) / len(step["old"]))
    if growth > MAX_GROWTH:
        raise ValueError(f"normalizer may make {growth:,.0f} characters of each one (each replace multiplies the "
                         f"text by its new text's length over its old one's, and so may NFKC by 18); at most "
                         f"{MAX_GROWTH} are supported")
    return steps


def normalize(form, text):
    """``unicodedata.normalize(form, text)`` as Unicode 9.0.0 does it, as Hugging Face's normalizers do.

    >>> normalize("NFC", "e\\u0301"), normalize("NFC", "e\\u1abf\\u0301") == "e\\u1abf\\u0301"
    ('é', True)

    U+1ABF came after Unicode 9.0.0: it is left alone, as a character without
    decomposition or combining class, and the text is normalized around it.
    Unicode never changes what it has assigned, so a newer ``unicodedata``
    gives 9.0.0's result for every other character.
    """
    unassigned = unassigned_in_9()
    if unassigned.search(text) is None:
        return unicodedata.normalize(form, text)
    pieces = unassigned.split(text)  # text, unassigned character, text, ...
    pieces[0::2] = [unicodedata.normalize(form, piece) for piece in pieces[0::2]]
    return "".join(pieces)


@functools.lru_cache(maxsize=None)
def unassigned_in_9():
    """A regex finding a code point Unicode 9.0.0 had not assigned (compiled on first use)."""
    return re.compile(f"({char_class(unicode_ranges.NORMALIZATION_UNASSIGNED_RANGES, 'python')})")


def step_pieces(step, text):
    """``text`` through one normalizer step as ``(before, after)`` pieces: the befores join up to ``text``, the
    afters to what the step makes of it, and a piece the step keeps has ``before == after``."""
    name = step["step"]
    if name == "prepend":
        return [("", step["text"]), (text, text)] if text else [(text, text)]
    if name == "replace":
        kept = text.split(step["old"])
        pieces = [(step["old"], step["new"])] * (2 * len(kept) - 1)
        pieces[0::2] = [(piece, piece) for piece in kept]
        return pieces
    return normal_pieces(name, text)


def normal_pieces(form, text):
    """``text`` as ``(before, after)`` pieces that ``normalize(form, ...)`` takes apart, the changed ones as small as
    can be: each non-ASCII character with the character before it is a candidate, joined to its neighbour where
    the two normalize otherwise together, and what a changed piece keeps at either end is a kept piece."""
    whole = normalize(form, text)
    if whole == text:
        return [(text, text)]
    units = []
    for run in CANDIDATES.findall(text):
        alone = normalize(form, run)
        if units and normalize(form, units[-1][0] + run) != units[-1][1] + alone:
            joined = units[-1][0] + run
            units[-1] = (joined, normalize(form, joined))
        else:
            units.append((run, alone))
    if "".join(after for _, after in units) != whole:  # (never seen; one piece is still exact)
        units = [(text, whole)]
    return [piece for before, after in units for piece in trimmed(before, after)]


CANDIDATES = re.compile("[\x00-\x7f]+(?![^\x00-\x7f])|[\x00-\x7f]*?[\x00-\x7f]?[^\x00-\x7f]")
"""What ``normal_pieces`` tries to normalize apart: a run of ASCII not followed by other text, or a non-ASCII
character with the ASCII character before it (ASCII text is its own normal form in every form, but ``e`` and
U+0301 compose)."""


def trimmed(before, after):
    """A changed piece as its common start, the changed middle and its common end (kept pieces where not empty)."""
    if before == after:
        return [(before, after)]
    head = len(os.path.commonprefix([before, after]))
    tail = len(os.path.commonprefix([before[head:][::-1], after[head:][::-1]]))
    pieces = [(before[:head], before[:head]), (before[head:len(before) - tail], after[head:len(after) - tail]),
              (before[len(before) - tail:], before[len(before) - tail:])]
    return [piece for piece in pieces if piece[0] or piece[1]]


def piece_bounds(pieces):
    """For each boundary between the UTF-8 bytes of the afters of ``pieces``, the boundary of the befores' it
    comes from (see ``Pipeline.normalize_aligned``)."""
    bounds, start = [], 0
    for before, after in pieces:
        size, made = len(before.encode("utf-8", "surrogatepass")), len(after.encode("utf-8", "surrogatepass"))
        if before == after:
            bounds += range(start, start + size)
        elif made:
            bounds += [start] + [start + size] * (made - 1)
        start += size
    bounds.append(start)
    bounds[0] = 0  # (text removed at the very start goes with the first token)
    return bounds


def check_steps(steps, kind):
    """Refuse a list of steps of ``kind`` (``normalizer``, ...) that holds an unknown step or wrong keys."""
    check_list(steps, kind, "steps (objects with a 'step' key)")
    known = STEP_KEYS[kind]
    for position, step in enumerate(steps):
        name = step.get("step") if isinstance(step, dict) else None
        if name not in known:
            raise ValueError(f"{kind} step {position} is {shown(step)}; the {kind} steps are {', '.join(known)}")
        expected = ("step",) + known[name]
        if sorted(step) != sorted(expected):
            raise ValueError(f"{kind} step {position} ({name}) must have exactly the keys {', '.join(expected)}, "
                             f"not {', '.join(map(str, step))}")
        if name == "split":
            check_split(step)
        if name == "digits" and not isinstance(step["individual"], bool):
            raise ValueError(f"digits step {position}: 'individual' must be true or false")
        check_step_values(step, f"{kind} step {position} ({name})")
    return [dict(step) for step in steps]


def check_step_values(step, where):
    """Refuse a step whose texts, counts or prepend scheme are not what its kind needs."""
    for key, meaning in TEXT_KEYS.items():
        value = step.get(key, "")
        if key in step and not (isinstance(value, str) and (key == "new" or value) and
                                (len(value) == 1 or meaning != "one character")):
            raise ValueError(f"{where}: {key!r} is {shown(value)}; it must be {meaning}")
    for key in ("start", "stop"):
        if key in step and (type(step[key]) is not int or step[key] < 0):
            raise ValueError(f"{where}: {key!r} is {shown(step[key])}; it must be a count (an int from 0)")
    if "prepend_scheme" in step and step["prepend_scheme"] not in PREPEND_SCHEMES:
        raise ValueError(f"{where}: 'prepend_scheme' is {shown(step['prepend_scheme'])}; it must be one of "
                         f"{', '.join(PREPEND_SCHEMES)}")


def check_split(step):
    """Refuse a split step whose pattern, behaviour or ``invert`` is malformed, or whose regex cannot be translated."""
    pattern = step["pattern"]
    if not isinstance(pattern, dict) or len(pattern) != 1 or next(iter(pattern)) not in ("name", "regex", "string") \
            or not isinstance(next(iter(pattern.values())), str):
        raise ValueError(f"a split's pattern is {shown(pattern)}; it must be {{'name': a built-in pattern}}, "
                         "{'regex': a regex in Hugging Face's syntax} or {'string': a text}")
    if step["behavior"] not in BEHAVIORS:
        raise ValueError(f"a split's behavior is {shown(step['behavior'])}; it must be one of {', '.join(BEHAVIORS)}")
    if not isinstance(step["invert"], bool):
        raise ValueError(f"a split's invert is {shown(step['invert'])}; it must be true or false")
    if "name" in pattern:
        check_name(pattern["name"])
    else:
        split_regex(pattern)  # refuses what cannot be translated exactly, by name


def split_regex(pattern):
    """The ``ChunkRegex`` of a split's ``regex`` or ``string`` pattern (a string is matched literally)."""
    return translate(split_source(pattern))


def split_source(pattern):
    """The Oniguruma source of a split's pattern: a built-in pattern's, a regex, or a text matched literally."""
    if "name" in pattern:
        return pattern_source(pattern["name"], "oniguruma")
    if "regex" in pattern:
        return pattern["regex"]
    return "".join("\\" + char if char.isascii() and not char.isalnum() else char for char in pattern["string"])


def split_cutter(step):
    """A function from a piece to the pieces a split step keeps (none empty)."""
    pattern, behavior, invert = step["pattern"], step["behavior"], step["invert"]
    if "name" in pattern:
        cut = chunker(pattern["name"])  # a built-in pattern's matches cover the text: they are its pieces
        return cut if (behavior, invert) == ("isolated", False) else _kept_by(_named_spans(cut), behavior, invert)
    regex = split_regex(pattern)
    if (behavior, invert) == ("isolated", False):
        return regex.chunks
    return _kept_by(regex.spans, behavior, invert)


def _named_spans(cut):
    """A built-in pattern's matches as a flat span list (its chunks tile the text)."""

    def spans(text):
        flat, at = [], 0
        for chunk in cut(text):
            flat += (at, at + len(chunk))
            at += len(chunk)
        return flat

    return spans


def _kept_by(spans, behavior, invert):
    """A cutter keeping, of the matches ``spans(text)`` finds and the text between them, what ``behavior`` says.

    As ``tokenizers`` does: the matches and the gaps between them tile the
    text as pieces, each a match or not (``invert`` swaps them); ``removed``
    drops the matches; ``merged_with_previous`` appends a match to the piece
    before unless that piece is a match too, ``merged_with_next`` likewise
    from the right; ``contiguous`` joins neighbours of the same kind; then
    empty pieces go.
    """

    def cut(text):
        bounds, flags = [0], []
        flat = spans(text)
        for at in range(0, len(flat), 2):
            if flat[at] != bounds[-1]:
                bounds.append(flat[at])
                flags.append(invert)
            bounds.append(flat[at + 1])
            flags.append(not invert)
        if bounds[-1] != len(text) or not flags:
            bounds.append(len(text))
            flags.append(invert)
        pieces = list(zip(bounds, bounds[1:]))
        if behavior == "removed":
            kept = [piece for piece, flag in zip(pieces, flags) if not flag]
        elif behavior == "isolated":
            kept = pieces
        elif behavior == "merged_with_next":
            kept = [(len(text) - end, len(text) - start) for start, end in
                    _glued([(len(text) - end, len(text) - start) for start, end in reversed(pieces)],
                           flags[::-1], lambda flag, before: flag and not before)][::-1]
        else:
            joins = (lambda flag, before: flag == before) if behavior == "contiguous" else \
                (lambda flag, before: flag and not before)
            kept = _glued(pieces, flags, joins)
        return [text[start:end] for start, end in kept if end > start]

    return cut


def _glued(pieces, flags, joins):
    """Fold pieces from the left, growing the last kept piece over the next when ``joins(its flag, the flag before)``."""
    kept, before = [], False
    for (start, end), flag in zip(pieces, flags):
        if kept and joins(flag, before):
            kept[-1] = (kept[-1][0], end)
        else:
            kept.append((start, end))
        before = flag
    return kept


def step_cutter(step):
    """A function from a piece to the pieces a pre-tokenizer step gives."""
    name = step["step"]
    if name == "split":
        return split_cutter(step)
    if name == "digits":
        return _kept_by(translate(NUMBERS_REGEX).spans, "isolated" if step["individual"] else "contiguous", False)
    return lambda piece: [piece if piece.startswith(" ") else " " + piece] if piece else []  # prefix_space


def check_template(template):
    """Refuse a post-processor template that is not null or ``{"single", "pair", "special_tokens"}``, well formed."""
    if template is None:
        return None
    if not isinstance(template, dict) or sorted(template) != ["pair", "single", "special_tokens"]:
        raise ValueError(f"post_processor is {shown(template)}; it must be null or an object with single, pair "
                         "and special_tokens")
    specials = template["special_tokens"]
    if not isinstance(specials, dict) or not all(
            isinstance(ids, list) and ids and all(type(i) is int and i >= 0 for i in ids) for ids in specials.values()):
        raise ValueError("post_processor special_tokens must map each name to a list of IDs")
    for key, sequences in (("single", {"$A"}), ("pair", {"$A", "$B"})):
        items = template[key]
        check_list(items, f"post_processor {key}", "'$A', '$B' or special token names")
        unknown = [item for item in items if item not in sequences and item not in specials]
        if unknown or [item for item in items if item in sequences] != sorted(sequences):
            raise ValueError(f"post_processor {key} is {shown(items)}; it must hold {' and '.join(sorted(sequences))} "
                             "once each, in order, and otherwise names of its special_tokens")
    return template


class Pipeline:
    """What an imported tokenizer does around BPE, in the lab's words (format 3's keys); checked when made.

    Attributes: ``added_tokens`` (``AddedToken`` tuples), ``normalizer``,
    ``pre_tokenizer`` and ``decoder`` (lists of steps), ``model`` (its
    options: ``ignore_merges`` and the character level's), ``post_processor``
    (a template, or None).
    """

    def __init__(self, added_tokens=(), normalizer=(), pre_tokenizer=(), model=None, decoder=({"step": "bytes"},),
                 post_processor=None):
        self.added_tokens = check_added_tokens(added_tokens)
        self.normalizer = check_growth(check_steps(normalizer, "normalizer"))
        self.pre_tokenizer = check_steps(pre_tokenizer, "pre_tokenizer")
        self.model = check_model(MODEL_OPTIONS if model is None else model)
        self.decoder = check_steps(decoder, "decoder")
        if {"step": "bytes"} in self.decoder and self.decoder != [{"step": "bytes"}]:
            raise ValueError(f"decoder is {shown(self.decoder)}; a byte-level model decodes with [{{'step': 'bytes'}}] "
                             "alone")
        self.post_processor = check_template(post_processor)

    def __repr__(self):
        return f"Pipeline({', '.join(f'{key}={value!r}' for key, value in self.to_json().items())})"

    def __eq__(self, other):
        return isinstance(other, Pipeline) and self.to_json() == other.to_json()

    @property
    def byte_level(self):
        """Whether the model works on UTF-8 bytes (its decoder is ``bytes``), not on characters."""
        return self.decoder == [{"step": "bytes"}]

    def check_level(self, byte_level):
        """Refuse this pipeline for a model at the other level: its decoder and model options must fit ``byte_level``."""
        if byte_level and not self.byte_level:
            raise ValueError(f"decoder is {shown(self.decoder)}; a byte-level model decodes with [{{'step': 'bytes'}}]")
        if not byte_level and self.byte_level:
            raise ValueError("decoder is [{'step': 'bytes'}], which is for byte-level models; a character-level one "
                             "decodes with steps such as replace, byte_fallback, fuse and strip")
        for option, meaning in CHARACTER_OPTIONS.items():
            if byte_level and self.model[option] != MODEL_OPTIONS[option]:
                raise ValueError(f"model {option} is {shown(self.model[option])} ({meaning}); the byte level never "
                                 "needs it: only a character-level model may set it")

    @property
    def ignore_merges(self):
        """Whether a chunk that is itself a token is that token, whatever the merges would make of it."""
        return self.model["ignore_merges"]

    @property
    def pattern(self):
        """The built-in pattern this pre-tokenizer is (after a prefix space perhaps), or None."""
        split = self.split_pattern
        return None if split is None or "name" not in self.pre_tokenizer[-1]["pattern"] else split

    @property
    def split_pattern(self):
        """The built-in pattern's name or the regex of the one split ``isolated`` this pre-tokenizer is (after a
        prefix space perhaps), or None."""
        steps = self.pre_tokenizer[1:] if self.add_prefix_space else self.pre_tokenizer
        if len(steps) == 1 and steps[0]["step"] == "split" and set(steps[0]["pattern"]) & {"name", "regex"} \
                and (steps[0]["behavior"], steps[0]["invert"]) == ("isolated", False):
            return next(iter(steps[0]["pattern"].values()))
        return None

    @property
    def add_prefix_space(self):
        """Whether the pre-tokenizer starts by putting a space before text that lacks one."""
        return self.pre_tokenizer[:1] == [{"step": "prefix_space"}]

    def normalize(self, text):
        """``text`` through the normalizer's steps, in order (``prepend`` adds its text to a non-empty text only)."""
        for step in self.normalizer:
            name = step["step"]
            if name == "prepend":
                text = step["text"] + text if text else text
            elif name == "replace":
                text = text.replace(step["old"], step["new"])
            else:
                text = normalize(name, text)
        return text

    def normalize_aligned(self, text):
        """``normalize(text)``, and where each boundary between its UTF-8 bytes lies in ``text``'s: a list one longer
        than its bytes (None where the normalizer changes nothing), for offsets.

        Each step cuts its text into pieces it keeps or changes (``step_pieces``). A kept piece's bytes map one to
        one; a changed piece belongs whole to the token that holds its first byte, so the boundaries inside it map
        to its end (a prepended text's all to where it stands, as it has no bytes of ``text``); text a step removes
        goes with the bytes before it. The steps' maps are composed, so boundaries never go backwards and every
        byte of ``text`` belongs to one token.
        """
        bounds = None
        for step in self.normalizer:
            pieces = step_pieces(step, text)
            text = "".join(after for _, after in pieces)
            if any(before != after for before, after in pieces):
                mapped = piece_bounds(pieces)
                bounds = mapped if bounds is None else [bounds[at] for at in mapped]
        return text, bounds

    def matcher(self):
        """The added tokens as ``encode`` looks for them, with this normalizer between (an ``AddedTokenMatcher``)."""
        return AddedTokenMatcher(self.added_tokens, self.normalize)

    def cutter(self):
        """A function from normalized text to its chunks: the pre-tokenizer's steps, each on every piece."""
        cutters = [step_cutter(step) for step in self.pre_tokenizer]
        if not cutters:
            return lambda text: [text] if text else []
        if len(cutters) == 1:
            return cutters[0]

        first, later = cutters[0], cutters[1:]

        def cut(text):
            pieces = first(text)
            for step in later:
                pieces = step(pieces[0]) if len(pieces) == 1 else [piece for whole in pieces for piece in step(whole)]
            return pieces

        return cut

    def apply_template(self, ids, pair=None):
        """The post-processor's template around ``ids`` (and ``pair``), as Hugging Face's ``add_special_tokens=True``."""
        if self.post_processor is None:
            return list(ids) + ([] if pair is None else list(pair))
        template = self.post_processor["single" if pair is None else "pair"]
        found = []
        for item in template:
            found += ids if item == "$A" else pair if item == "$B" else self.post_processor["special_tokens"][item]
        return found

    def to_json(self):
        """The pipeline as format 3 stores it (the keys after ``merges``)."""
        return {"added_tokens": [dict(token._asdict()) for token in self.added_tokens],
                "normalizer": self.normalizer, "pre_tokenizer": self.pre_tokenizer, "model": dict(self.model),
                "decoder": self.decoder, "post_processor": self.post_processor}

    def describe(self):
        """The pipeline in words, a line per part, for ``bpe inspect``."""
        lines = [f"normalizer: {', then '.join(map(step_words, self.normalizer)) or 'none'}",
                 "pre-tokenizer: " + ("; then ".join(map(step_words, self.pre_tokenizer)) or "none (a text is one chunk)")
                 + ("; then the UTF-8 bytes" if self.byte_level else "; then its characters")]
        options = [option for option, default in MODEL_OPTIONS.items() if self.model[option] != default]
        lines.append("model: BPE" + (f", with {', '.join(options)}" if options else "")
                     + (" (a chunk that is a token is that token)" if self.ignore_merges else ""))
        if not self.byte_level:
            lines.append(f"  a character the vocabulary lacks: {unknown_words(self.model)}")
            lines.append(f"decoder: {', then '.join(map(step_words, self.decoder)) or 'none'}")
        lines += added_token_lines(self.added_tokens)
        if self.post_processor is None:
            lines.append("post-processor: adds no tokens (a ByteLevel one only maps offsets)")
        else:
            lines.append(f"post-processor, only on request (apply_template): {' '.join(self.post_processor['single'])}"
                         f"; pairs {' '.join(self.post_processor['pair'])}")
        return lines


def unknown_words(model):
    """What a character-level model makes of a character its vocabulary lacks, in words."""
    unk = "nothing: it is dropped" if model["unk_token"] is None else f"the token {shown(model['unk_token'])}" + (
        " (a run of them one)" if model["fuse_unk"] else "")
    return f"its UTF-8 bytes as <0xXX> tokens (byte_fallback), or if one is missing {unk}" if model["byte_fallback"] \
        else unk


STEP_WORDS = {"prefix_space": "a space before each piece that does not start with one", "byte_fallback":
              "runs of <0xXX> tokens as UTF-8 (each byte of an invalid run a U+FFFD)", "fuse": "all joined",
              "bytes": "the bytes of the tokens as UTF-8 (U+FFFD where invalid)"}
"""The steps said in the same words whatever their keys."""


def step_words(step):
    """A normalizer, pre-tokenizer or decoder step in words."""
    name = step["step"]
    if name in STEP_WORDS:
        return STEP_WORDS[name]
    if name in UNICODE_FORMS:
        return name
    if name == "prepend":
        return f"{shown(step['text'])} put first"
    if name == "replace":
        return f"{shown(step['old'])} replaced by {shown(step['new'])}"
    if name == "strip":
        return f"up to {step['start']} {shown(step['char'])} stripped at the start, {step['stop']} at the end"
    if name == "metaspace":
        return f"{shown(step['replacement'])} as a space" + (
            "" if step["prepend_scheme"] == "never" else ", dropped from the first token")
    if step["step"] == "digits":
        return "numbers apart, " + ("each alone" if step["individual"] else "in runs")
    (kind, text), = step["pattern"].items()
    readable = CONTROL.sub(lambda found: found.group().encode("unicode_escape").decode("ascii"), text)
    pattern = {"name": f"the built-in pattern {text}", "regex": f"the regex {readable}",
               "string": f"the text {shown(text)}"}[kind]
    return f"split by {pattern}, {step['behavior'].replace('_', ' ')}" + (", inverted" if step["invert"] else "")


CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
"""A control character, which a regex shown in words has escaped (DeepSeek V3's hold a real line break)."""


def check_model(model):
    """Refuse model options that are not exactly ``MODEL_OPTIONS``' keys, well typed."""
    if not isinstance(model, dict) or sorted(model) != sorted(MODEL_OPTIONS):
        raise ValueError(f"model is {shown(model)}; it must be an object with {', '.join(MODEL_OPTIONS)}")
    for option in ("ignore_merges", "byte_fallback", "fuse_unk"):
        if not isinstance(model[option], bool):
            raise ValueError(f"model {option} must be true or false, not {shown(model[option])}")
    if model["unk_token"] is not None and not (isinstance(model["unk_token"], str) and model["unk_token"]):
        raise ValueError(f"model unk_token must be null or a token, not {shown(model['unk_token'])}")
    return {option: model[option] for option in MODEL_OPTIONS}
