"""The lab's tokenizer files: format 1 (the lab's), format 2 (bytes, patterns, special tokens) and format 3.

``bpe.Tokenizer.to_json`` and ``from_json`` come here. Format 1 is the lab's:
``{"format_version": 1, "alphabet": [...], "merges": [[left, right], ...]}``.
Format 2 says what format 1 cannot: ``level`` ("bytes" or "characters"),
``pattern`` (a built-in pattern's *name*, never a regular expression), at
the byte level ``bytes`` when the 256 byte tokens are not in byte order
(their display characters in ID order), ``alphabet`` at the character
level, ``merges`` (byte tokens in display form) and ``special_tokens`` (text
-> ID). Both are written with ``json.dumps(body, indent=1)`` plus a newline,
so the bytes are fixed by the content. IDs are never stored: the
``Tokenizer`` rebuilds them from the alphabet and the merges. Format 3
(``bpelab.format3``) stores them, for an imported model, and holds what the
others cannot (a pipeline, a prefix space); it is written only when needed.
"""

import json

from bpelab import format3
from bpelab.byte_level import BYTE_TO_CHAR
from bpelab.checks import check_keys
from bpelab.messages import shown


FORMAT_VERSION = 1
"""The version of the file the lab's kind of tokenizer is saved in (see ``Tokenizer.to_json``)."""


READABLE_FORMATS = (1, 2, 3)
"""The file versions ``Tokenizer.load`` reads."""


LEVELS = {"characters": False, "bytes": True}
"""A format-2 file's ``level`` -> the tokenizer's ``byte_level``."""


def file_body(tokenizer):
    """The JSON body of a tokenizer file: format 1 for the lab's kind (characters, lab pattern, no specials)."""
    if format3.needs_format_3(tokenizer):
        return format3.body(tokenizer)
    merges = [[left, right] for left, right in tokenizer.merges]
    if not tokenizer.byte_level and tokenizer.pattern == "lab" and not tokenizer.special_tokens:
        return {"format_version": FORMAT_VERSION, "alphabet": list(tokenizer.alphabet), "merges": merges}
    level = "bytes" if tokenizer.byte_level else "characters"
    body = {"format_version": 2, "level": level, "pattern": tokenizer.pattern}
    if tokenizer.byte_level and tokenizer.alphabet != BYTE_TO_CHAR:
        body["bytes"] = list(tokenizer.alphabet)
    if not tokenizer.byte_level:
        body["alphabet"] = list(tokenizer.alphabet)
    body["merges"] = merges
    body["special_tokens"] = dict(tokenizer.special_tokens)
    return body


def file_text(tokenizer):
    """The text of a tokenizer file: its body as ``json.dumps(body, indent=1)``, then a newline (format 3 writes its
    merges a pair to a line: see ``format3.text``)."""
    body = file_body(tokenizer)
    return format3.text(body) if body["format_version"] == 3 else json.dumps(body, indent=1) + "\n"


def tokenizer_arguments(data):
    """The arguments of ``bpe.Tokenizer`` that a file body describes; a body not matching its version is refused.

    (The arguments themselves are checked by the ``Tokenizer``, as any are.)
    """
    if not isinstance(data, dict):
        raise ValueError(f"a tokenizer must be a JSON object, not {type(data).__name__}")
    if "format_version" not in data:
        raise ValueError(
            "unsupported tokenizer format: no 'format_version' key, so this is no tokenizer file of this lab "
            "(a Hugging Face tokenizer.json or a .tiktoken file is imported with load_huggingface or load_tiktoken, "
            "or on the command line with bpe convert)"
        )
    version = data.get("format_version")
    if type(version) is not int or version not in READABLE_FORMATS:
        readable = " and ".join(str(number) for number in READABLE_FORMATS)
        raise ValueError(f"unsupported tokenizer format {shown(version)}: this reader understands formats {readable}")
    if version == 3:
        return format3.arguments(data)
    if version == 1:
        check_keys(data, ["format_version", "alphabet", "merges"], "unsupported tokenizer format 1")
        return {"alphabet": data["alphabet"], "merges": data["merges"]}
    level = data.get("level")
    if not isinstance(level, str) or level not in LEVELS:
        raise ValueError(
            f"unsupported tokenizer format 2: 'level' is {shown(level)}, but format 2 says "
            "whether its tokens are 'bytes' or 'characters'"
        )
    keys = ["format_version", "level", "pattern"]
    if not LEVELS[level]:
        keys.append("alphabet")
    elif "bytes" in data:  # the byte tokens' order, written only when it is not byte order
        keys.append("bytes")
    check_keys(data, keys + ["merges", "special_tokens"], "unsupported tokenizer format 2")
    if not isinstance(data["pattern"], str):
        raise ValueError(f"'pattern' must be the name of a built-in pattern, not {shown(data['pattern'])}")
    if not isinstance(data["special_tokens"], dict):
        raise ValueError("special_tokens must be an object mapping each special token to its int ID")
    alphabet = data.get("bytes") if LEVELS[level] else data["alphabet"]
    return {"alphabet": alphabet, "merges": data["merges"], "byte_level": LEVELS[level], "pattern": data["pattern"],
            "special_tokens": data["special_tokens"]}
