"""What several test files share: the lab's corpus and tokenizer, random corpora and texts, and samples in many scripts.

They were ``test_bpe.py``'s own; the lesson's tests stay there, and the
tests of the wings (``tests/merges``, ``tests/text``, ...) share these.
"""

import json
import random

import make_corpus
from bpe import UNK, Tokenizer, chunks, reference_encode


CORPUS = make_corpus.corpus()

LAB = Tokenizer.train(CORPUS, 96)


def lab_file_text():
    """The lab tokenizer as format-1 JSON text."""
    return json.dumps(LAB.to_json(), indent=1) + "\n"


WORD_PIECES = ["ab", "abc", "abcdef", "xyzw01", "aab", "the", "ing"]


def random_corpus(rng, words=200):
    """A seeded random text: words, digits, punctuation, whitespace runs and long runs of one letter."""
    letters = rng.choice(WORD_PIECES)
    parts = []
    for _ in range(rng.randint(1, words)):
        kind = rng.random()
        if kind < 0.5:
            parts.append("".join(rng.choice(letters) for _ in range(rng.randint(1, 8))))
        elif kind < 0.6:
            parts.append(rng.choice(letters) * rng.randint(2, 40))
        elif kind < 0.7:
            parts.append(str(rng.randint(0, 10 ** rng.randint(1, 6))))
        elif kind < 0.8:
            parts.append("".join(rng.choice(".,!?;:-()'") for _ in range(rng.randint(1, 3))))
        else:
            parts.append(rng.choice([" ", "  ", "\n", "\t", " \n  ", "\r\n", "\n\n"]))
        if rng.random() < 0.7:
            parts.append(" ")
    return "".join(parts)


def reference_ids(tokenizer, text):
    """Encode ``text`` with the reference encoder, the simple definition."""
    ids = []
    for chunk in chunks(text):
        characters = [char if char in tokenizer.ids else UNK for char in chunk]
        ids.extend(tokenizer.ids[token] for token in reference_encode(characters, tokenizer.merge_rank))
    return ids


def random_merge_list(rng):
    """A valid but untrained merge list: random pairs of existing tokens, in random order."""
    alphabet = sorted(rng.sample("abc d", rng.randint(1, 5)))
    tokens, merges = list(alphabet), []
    for _ in range(rng.randint(0, 30)):
        left, right = rng.choice(tokens), rng.choice(tokens)
        if left + right not in tokens:
            merges.append((left, right))
            tokens.append(left + right)
    return alphabet, merges


SCRIPTS = {
    "English": "The quick brown fox jumps over the lazy dog.",
    "French": "Ça me plaît : l'été à la mer, déjà vu.",
    "Russian": "Съешь же ещё этих мягких французских булок.",
    "Greek": "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία.",
    "Hindi": "नमस्ते दुनिया, आप कैसे हैं?",
    "Chinese": "你好，世界！今天天气很好。",
    "Arabic": "مرحبا بالعالم، كيف حالك؟",
    "Emoji": "👩‍👩‍👧 family, 👍🏽 ok, 🇫🇷 flag",
    "Combining": "a\u0301 e\u0308 n\u0303 x_y __init__ 1\u00b2\u2155",
}


# The scripts every drawing of tokens is tested on (the readable form: tests/text/test_readable.py and the commands'
# and pages' tests): scripts of three bytes a character, of wide characters, of marks that join their letter, emoji
# joined by a ZWJ and made pictures by VS16, and combining marks; a lone continuation byte comes as an ID.
FORM_SCRIPTS = {
    "Hindi": "नमस्ते दुनिया",
    "Tamil": "வணக்கம் உலகம்",
    "Chinese": "东京塔很高。",
    "Japanese": "東京タワーへ行きます",
    "Korean": "안녕하세요 세계",
    "Thai": "สวัสดีชาวโลก",
    "Emoji": "🏳️‍🌈 👩‍👩‍👧 👍🏽",
    "Combining": "e\u0301 n\u0303 a\u0308\u0323 Å",
}


# Assigned only after Unicode 14: a Cyrillic modifier letter, a Kawi letter,
# an emoji and a CJK Extension H ideograph, all from Unicode 15.
NEWER_THAN_PINNED = "\U0001e030\U00011f04 \U0001f6dc \U00031350x"


def random_unicode(rng, length):
    """A random string drawing code points from every plane (lone surrogates left out)."""
    chars = []
    for _ in range(length):
        top = rng.choice([0x7F, 0x7FF, 0xFFFF, 0x10FFFF])
        code = rng.randint(0, top)
        chars.append(chr(code) if not 0xD800 <= code <= 0xDFFF else " ")
    return "".join(chars)


def byte_level_lab():
    """A byte-level tokenizer trained on the corpus plus text in many scripts, with a special token."""
    text = CORPUS + "\n".join(SCRIPTS.values()) * 3
    return Tokenizer.train(text, 400, byte_level=True, special_tokens=["<|endoftext|>"])


BYTES = byte_level_lab()

PLAIN_BYTES = Tokenizer(None, [], byte_level=True)


def interop_samples():
    """Texts the exports are checked on: the corpus, many scripts, and random Unicode."""
    rng = random.Random(2024)
    return [CORPUS, NEWER_THAN_PINNED, *SCRIPTS.values(), *(random_unicode(rng, rng.randint(0, 30)) for _ in range(3000))]
