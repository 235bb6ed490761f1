"""Added tokens: the text an imported Hugging Face tokenizer cuts out whole before anything else, special or not.

The lab's special tokens (``bpelab.text.specials``) follow tiktoken: text such as
``<|endoftext|>`` is an error in ``bpe.Tokenizer.encode`` unless allowed. A Hugging Face
tokenizer has *added tokens* instead, with flags: ``special`` ones (such as
Llama 3's ``<|eot_id|>``) and others that are simply part of the model (Qwen
3's ``<think>``, Gemma 3's ``"\\n\\n"``). ``tokenizers`` 0.23.3 finds them all in
the text, even with ``add_special_tokens=False``:

1. the added tokens whose flag ``normalized`` is false are looked for in the
   text as it is: leftmost first, and of those starting at one place the
   longest, each match taken whole and never touched again;
2. every stretch between them is normalized on its own, and the added tokens
   whose flag ``normalized`` is true are looked for in it, by their own text
   normalized the same way (one whose text normalizes to nothing is never
   found; two that normalize alike, ``ﬁ`` and ``fi`` under NFKC, are refused,
   since the library finds one or the other at random from run to run);
3. the stretches left are cut into chunks and encoded.

Special or not makes no difference to matching; it matters to ``decode``,
which leaves special tokens out by default, as Hugging Face's does. Here the
lab's arguments still choose the special ones: by default all are matched
(Hugging Face's rule), ``allowed_special`` picks some, and
``disallowed_special`` makes one's text an error, as in tiktoken. Added tokens
that are not special are always matched. Their other flags (``lstrip``,
``rstrip``, ``single_word``: whitespace taken along, whole words only) are
false in every file the lab reads, and refused when true.
"""

from collections import namedtuple

from bpelab.checks import check_list, check_no_surrogate
from bpelab.messages import shown
from bpelab.text.specials import MAX_SPECIAL_LENGTH, SpecialTokenMatcher, cut_around

AddedToken = namedtuple("AddedToken", "id content special normalized lstrip rstrip single_word")
AddedToken.__doc__ = """An added token: its ID, its text, and its flags (all True or False), as tokenizer.json has them."""

FLAGS = ("special", "normalized", "lstrip", "rstrip", "single_word")
"""The flags of an added token, in the order files list them."""

UNSUPPORTED_FLAGS = {"lstrip": "takes the whitespace before it along", "rstrip": "takes the whitespace after it along",
                     "single_word": "matches only as a whole word"}
"""Flags that change how a token is matched, and what they would do; no file the lab reads sets them."""

KEYS = ("id", "content") + FLAGS
"""The keys of an added token in a format-3 file, in order."""


def check_added_tokens(added_tokens):
    """Each added token as an ``AddedToken``, checked: a dict of exactly ``KEYS``; texts and IDs distinct.

    A file lists them as dicts (format 3, or Hugging Face's, with the IDs
    already worked out); ``AddedToken`` tuples are taken as they are.
    """
    check_list(added_tokens, "added_tokens", "added tokens (objects with id, content and flags)")
    checked, by_id, texts = [], {}, set()
    for position, item in enumerate(added_tokens):
        if isinstance(item, dict):
            missing = [key for key in KEYS if key not in item]
            extra = sorted(set(item) - set(KEYS), key=str)
            if missing or extra:
                raise ValueError(f"added token {position} {shown(item)} needs exactly the keys {', '.join(KEYS)} "
                                 f"({'missing ' + repr(missing[0]) if missing else 'unexpected ' + shown(extra[0])})")
            item = AddedToken(**item)
        elif not isinstance(item, AddedToken):
            raise ValueError(f"added token {position} is {shown(item)}; each must be an object with {', '.join(KEYS)}")
        checked.append(check_added_token(item))
        if item.content in texts:
            raise ValueError(f"added token {shown(item.content)} is listed twice")
        if item.id in by_id:
            raise ValueError(f"added tokens {shown(by_id[item.id])} and {shown(item.content)} share ID {item.id}")
        texts.add(item.content)
        by_id[item.id] = item.content
    return tuple(checked)


def check_added_token(token):
    """Refuse an added token with a bad ID, text or flag, or a flag whose matching rule is not supported."""
    if isinstance(token.id, bool) or not isinstance(token.id, int) or token.id < 0:
        raise ValueError(f"added token {shown(token.content)} has ID {shown(token.id)}; IDs are ints from 0 on")
    if not isinstance(token.content, str) or not token.content:
        raise ValueError(f"added token {token.id}: its content must be a non-empty string, not {shown(token.content)}")
    if len(token.content) > MAX_SPECIAL_LENGTH:
        raise ValueError(f"added token {shown(token.content[:24])}... has {len(token.content):,} characters; "
                         f"added tokens may have at most {MAX_SPECIAL_LENGTH}")
    check_no_surrogate(token.content, f"added token {shown(token.content)}")
    for flag in FLAGS:
        if not isinstance(getattr(token, flag), bool):
            raise ValueError(f"added token {shown(token.content)}: {flag} must be true or false, "
                             f"not {shown(getattr(token, flag))}")
    for flag, rule in UNSUPPORTED_FLAGS.items():
        if getattr(token, flag):
            raise ValueError(f"added token {shown(token.content)} sets {flag} (it {rule}); unsupported")
    return token


class AddedTokenMatcher(SpecialTokenMatcher):
    """A tokenizer's added tokens as ``encode`` looks for them, with ``normalize``, the normalizer, in between.

    ``segments`` gives the same items as the lab's ``SpecialTokenMatcher``
    does, the stretches of text already normalized.
    """

    allows_all = True  # Hugging Face's rule: every added token is matched unless told otherwise

    def __init__(self, added_tokens, normalize):
        super().__init__({token.content: token.id for token in added_tokens if token.special})
        self.normalize = normalize
        self.raw = {token.content: token for token in added_tokens if not token.normalized}
        self.normalized = {}
        for token in added_tokens:  # sought by their normalized text (one that normalizes to nothing never is)
            text = normalize(token.content) if token.normalized else ""
            if text in self.normalized:
                raise ValueError(f"added tokens {shown(self.normalized[text].content)} and {shown(token.content)} "
                                 f"both normalize to {shown(text)}, and tokenizers 0.23.3 finds one or the other "
                                 "at random from run to run: unsupported, since no IDs could be its")
            if text:
                self.normalized[text] = token
        self.plain = frozenset(token.content for token in added_tokens if not token.special)

    def segments(self, text, allowed_special=None, disallowed_special=None):
        """Cut ``text`` around its added tokens: ``(normalized text, None)`` and ``(match, ID)`` items, in order.

        By default every added token is matched; with ``allowed_special``
        only the special ones named (and all others); the text of one in
        ``disallowed_special`` is a ``SpecialTokenInText``.
        """
        return [segment for _, segments in self.stretches(text, allowed_special, disallowed_special)
                for segment in segments] or [("", None)]

    def stretches(self, text, allowed_special=None, disallowed_special=None):
        """``segments`` grouped by the stretch of ``text`` each comes from: ``(written, its segments)`` pairs, where
        ``written`` is an added token matched as written, or a stretch between such tokens, normalized as one."""
        raw, normalized, _ = self.choice(text, allowed_special, disallowed_special)
        if raw is None or raw.search(text) is None:  # (most text holds no added token: the quick way)
            return [(text, self.second_pass(self.normalize(text), normalized))]
        return [(piece, [(piece, token.id)] if token is not None else self.second_pass(self.normalize(piece), normalized))
                for piece, token in cut_around(text, raw, self.raw.__getitem__) if piece]

    def second_pass(self, text, finder):
        """Normalized text cut around the added tokens sought there (``finder``, None for none)."""
        if finder is None:
            return [(text, None)]
        return [(piece, None if token is None else token.id)
                for piece, token in cut_around(text, finder, self.normalized.__getitem__)]

    def finders_for(self, allowed, disallowed):
        """The finders of the added tokens sought as written and after normalizing, with these special ones
        allowed, and of the disallowed special ones (None where none is sought)."""
        wanted = self.plain | allowed
        return tuple(self.finder(texts) if texts else None for texts in (
            frozenset(text for text, token in self.raw.items() if token.content in wanted),
            frozenset(text for text, token in self.normalized.items() if token.content in wanted), disallowed))


def added_token_lines(added_tokens, most=6):
    """The added tokens in a few words: how many are special and not, and the first few of each."""
    lines = []
    for special, kind in ((True, "special"), (False, "not special, always matched")):
        chosen = [token for token in added_tokens if token.special == special]
        if chosen:
            first = ", ".join(f"{shown(token.content)}={token.id}" for token in chosen[:most])
            lines.append(f"{len(chosen):,} added tokens {kind}: {first}" + (", ..." if len(chosen) > most else ""))
    return lines
