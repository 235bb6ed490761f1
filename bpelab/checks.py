"""Checks: what the arguments, alphabets, merge lists and token IDs must be.

Every public entry point checks its arguments before any long work, and
every refusal says what was wrong, with which value, and what would be
right. ``check_alphabet`` and ``check_merges`` are the lab's rules for a valid
merge list (``bpe.Tokenizer(alphabet, merges)`` applies them, and so does
every loader); ``decoded_values`` is how ``decode`` checks its IDs.
"""

import errno
import math
import operator
import os
import stat
from collections import Counter

from bpelab.byte_level import BYTE_TO_CHAR, CHAR_TO_BYTE, SURROGATE
from bpelab.messages import shown


UNK = "<unk>"
"""The token for characters the alphabet does not contain; always ID 0 at the character level."""


REPLACEMENT_CHARACTER = "\N{REPLACEMENT CHARACTER}"
"""What ID 0 decodes to, so a reader can see where text was lost."""


def check_choice(value, choices, argument):
    """Refuse a value that is not one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        allowed = " or ".join(repr(choice) for choice in choices)
        raise ValueError(f"{argument} must be {allowed}, not {shown(value)}")


def check_flag(value, argument):
    """Refuse anything but True or False."""
    if not isinstance(value, bool):
        raise TypeError(f"{argument} must be True or False, not {shown(value)}")


def check_keys(data, expected, problem):
    """Refuse a JSON object whose keys are not exactly ``expected``, saying which key is wrong."""
    if not all(isinstance(key, str) for key in data):
        raise ValueError(f"{problem}: every key must be a string")
    missing = [key for key in expected if key not in data]
    if missing:
        raise ValueError(f"{problem}: missing key {missing[0]!r} (it needs {', '.join(expected)})")
    unexpected = sorted(set(data) - set(expected))
    if unexpected:
        raise ValueError(f"{problem}: unexpected key {shown(unexpected[0])} (it has only {', '.join(expected)})")


def check_prefix_space(add_prefix_space, byte_level):
    """Refuse an ``add_prefix_space`` that is not True or False, or True at the character level."""
    check_flag(add_prefix_space, "add_prefix_space")
    if add_prefix_space and not byte_level:
        raise ValueError("add_prefix_space is a byte-level option (as in Hugging Face's ByteLevel): "
                         "use it with byte_level=True")


def check_callback(value, argument):
    """Refuse a callback that cannot be called (None means no callback)."""
    if value is not None and not callable(value):
        raise TypeError(f"{argument} must be a function or None, not {shown(value)}")


def check_text(text, argument="text"):
    """Refuse anything but a str as text to train on or encode."""
    if not isinstance(text, str):
        raise TypeError(f"{argument} must be a str, not {type(text).__name__}")


def check_no_surrogate(text, what, advice=""):
    """Refuse text holding a lone surrogate, which has no UTF-8 form and which no file can hold."""
    found = SURROGATE.search(text)
    if found:
        raise ValueError(
            f"{what} holds the lone surrogate {found.group()!r} at position {found.start():,}, "
            f"which has no UTF-8 form{advice}"
        )


def check_vocab_size(vocab_size):
    """Refuse a vocab_size that is not an int (a bool is not a size either)."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int, not {type(vocab_size).__name__}")


def check_list(value, argument, of):
    """Refuse anything but a list or tuple (a str or bytes is not a list of them)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise ValueError(f"{argument} must be a list of {of}, not {type(value).__name__}")


def check_positive_int(value, argument):
    """Refuse anything but an int of at least 1 (a bool is not a count)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{argument} must be a positive int, not {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{argument} must be a positive int, not {value}")


def check_whole_number(value, argument, meaning=""):
    """Refuse anything but an int of 0 or more (a bool is not a count); ``meaning`` says what it counts."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{argument} must be an int, 0 or more{meaning}, not {shown(value)}")


def check_positive_number(value, argument, meaning=""):
    """Refuse anything but a finite number above 0, an int or a float (a bool is not one); ``meaning`` says what."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
        raise ValueError(f"{argument} must be a positive number{meaning}, not {shown(value)}")


def check_path(path, argument):
    """A file path as a str; refuse anything else (``open`` would also take a number, meaning a file descriptor)."""
    if not isinstance(path, (str, os.PathLike)) or not isinstance(os.fspath(path), str):
        raise TypeError(f"{argument} must be a file path (str or os.PathLike), not {type(path).__name__}")
    path = os.fspath(path)
    if "\0" in path:
        raise ValueError(f"{argument} {shown(path)} holds a NUL character, which no file name can hold")
    return path


def check_paths(paths, argument="paths"):
    """A list of file paths, each checked."""
    if isinstance(paths, (str, bytes, os.PathLike)) or not isinstance(paths, (list, tuple)):
        raise TypeError(f"{argument} must be a list of file paths, not {type(paths).__name__}")
    return [check_path(path, f"each of {argument}") for path in paths]


def check_sources(sources, argument="paths"):
    """A list of inputs, each a file path (checked as ``check_path`` checks one) or an open binary stream."""
    if isinstance(sources, (str, bytes, os.PathLike)) or not isinstance(sources, (list, tuple)):
        raise TypeError(f"{argument} must be a list of file paths, not {type(sources).__name__}")
    return [source if callable(getattr(source, "read", None)) else check_path(source, f"each of {argument}")
            for source in sources]


def check_inputs(paths, argument="paths"):
    """Check input files up front: each a path to something that exists and is not a folder."""
    paths = check_paths(paths, argument)
    for path in paths:
        mode = os.stat(path).st_mode  # a missing file is the usual FileNotFoundError, naming it
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "a folder (a file is needed here)", path)
    return paths


MAX_WORKERS = 4 * (os.cpu_count() or 1)
"""The most worker processes a job may ask for: four per CPU (each holds a copy of the tokenizer)."""


def check_workers(workers):
    """Refuse a worker count that is not a positive int, or far more processes than this machine can use."""
    check_positive_int(workers, "workers")
    if workers > MAX_WORKERS:
        raise ValueError(f"workers must be at most {MAX_WORKERS} (four per CPU of this machine), not {workers:,}")


def check_alphabet(alphabet):
    """Refuse an alphabet that is not sorted, distinct, single characters without UNK."""
    check_list(alphabet, "alphabet", "single characters")
    for position, char in enumerate(alphabet):
        if char == UNK:
            raise ValueError(f"alphabet must not contain {UNK!r}: it is always ID 0")
        if not isinstance(char, str) or len(char) != 1:
            raise ValueError(f"alphabet entry {position} is {shown(char)}; each entry must be one character")
        check_no_surrogate(char, f"alphabet entry {position}")
        if position and alphabet[position - 1] >= char:
            raise ValueError(
                f"alphabet must be sorted and distinct: {alphabet[position - 1]!r} comes before {char!r}"
            )


def check_byte_alphabet(alphabet):
    """The 256 byte tokens in ID order: byte order for None, else a reordering of GPT-2's display characters."""
    if alphabet is None:
        return list(BYTE_TO_CHAR)
    check_list(alphabet, "alphabet", "the 256 byte display characters (or None)")
    if not all(isinstance(char, str) for char in alphabet):
        raise ValueError("a byte-level alphabet is a list of GPT-2 display characters (strings), or None")
    given = Counter(alphabet)
    wrong = [char for char in given if given[char] > 1 or char not in CHAR_TO_BYTE]
    missing = [char for char in BYTE_TO_CHAR if char not in given]
    if wrong or missing:
        problem = f"{shown(wrong[0])} is {'not one of them' if wrong[0] not in CHAR_TO_BYTE else 'there twice'}" \
            if wrong else f"{shown(missing[0])} is missing"
        raise ValueError(
            f"a byte-level alphabet is the 256 GPT-2 display characters in ID order, each once (None for byte "
            f"order); {problem}"
        )
    return list(alphabet)


def check_merges(merges, base):
    """Refuse merges that are not pairs of existing tokens making a new one; return the tokens they make.

    ``base`` are the tokens before the first merge; the set of tokens grows
    as each merge is checked, because a merge may only use tokens that exist
    at that point in the list. ``<unk>`` is never a part.
    """
    check_list(merges, "merges", "[left, right] pairs")
    tokens = set(base) - {UNK}
    unknown = UNK if UNK in base else None  # the character level's ID 0, which nothing may make
    made = []
    for rank, merge in enumerate(merges):
        if not isinstance(merge, (list, tuple)) or len(merge) != 2:
            raise ValueError(f"merge {rank} is {shown(merge)}; each merge must be a [left, right] pair")
        left, right = merge
        if not isinstance(left, str) or not isinstance(right, str):
            raise ValueError(f"merge {rank} is {shown(merge)}; both parts must be strings")
        joined = left + right
        if left not in tokens or right not in tokens:
            missing = left if left not in tokens else right
            raise ValueError(f"merge {rank} ({shown(left)}, {shown(right)}) uses {shown(missing)}, "
                             "which is not a token at that point")
        if joined in tokens or joined == unknown:
            raise ValueError(f"merge {rank} ({shown(left)}, {shown(right)}) makes {shown(joined)}, "
                             "which is already a token")
        tokens.add(joined)
        made.append(joined)
    return made


def decoded_values(ids, values, skipped=()):
    """What each of ``ids`` decodes to, by ``values`` (one entry per ID; None for an ID no token has).

    Any integer that ``operator.index`` accepts is an ID (numpy's integers,
    IntEnum members); ``True`` and ``False`` are not. Every bad ID is named
    at once, in one message. IDs in ``skipped`` (a set) give nothing.
    """
    if isinstance(ids, (str, bytes, bytearray, dict, set, frozenset)) or not hasattr(ids, "__iter__"):
        raise TypeError(f"ids must be a list of token IDs (ints), not {type(ids).__name__}")
    size = len(values)
    found, bad = [], []
    for item in ids:
        if type(item) is int:
            token_id = item
        elif isinstance(item, bool):
            token_id = -1
        else:
            try:
                token_id = operator.index(item)
            except TypeError:
                raise TypeError(f"ids must hold ints (token IDs), not {shown(item)}") from None
        if 0 <= token_id < size and values[token_id] is not None:
            if token_id not in skipped:
                found.append(values[token_id])
        else:
            bad.append(item)
    if bad:
        gaps = " that a token has" if None in values else ""
        booleans = " (True and False are not token IDs)" if any(isinstance(item, bool) for item in bad) else ""
        raise ValueError(
            f"IDs {shown(bad)} are outside the vocabulary: IDs are ints from 0 to {size - 1}{gaps}{booleans}"
        )
    return found
