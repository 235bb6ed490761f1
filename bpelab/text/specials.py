"""Special tokens: text such as ``<|endoftext|>`` that stands for one ID of its own.

The lab's tokenizer has none; real ones do. A special token's text is
never cut into chunks or merged: training leaves it out, and
``bpe.Tokenizer.encode`` finds it in the text first and encodes only the stretches between, as
tiktoken does. This module checks special tokens, gives them their IDs, and
finds them in text quickly however many there are.
"""

import re
from typing import Iterable, Optional, Union

from bpelab.checks import UNK, check_list, check_no_surrogate
from bpelab.messages import named, shown
from bpelab.text.patterns import template_regex

SpecialChoice = Optional[Union[str, Iterable[str]]]
"""``"all"``, or a collection of special tokens' texts; None for the tokenizer's own rule."""


MAX_SPECIAL_LENGTH = 128
"""The most characters a special token may have (real ones have a few dozen).

Looking for special tokens then costs at most this many steps per character
of text, and their trie, as a regex, nests no deeper than Python's regex
compiler can go."""


def check_special_text(text, byte_level):
    """Refuse a special token that is not a non-empty string without whitespace or surrogates.

    Whitespace is refused because long text is cut into blocks only at
    whitespace (see ``safe_blocks``), and a special token must never be cut
    in two. At the character level ``<unk>`` is ID 0 already.
    """
    if not isinstance(text, str) or not text:
        raise ValueError(f"special token {shown(text)} must be a non-empty string")
    if len(text) > MAX_SPECIAL_LENGTH:
        raise ValueError(f"special token {shown(text[:24])}... has {len(text):,} characters; special tokens may "
                         f"have at most {MAX_SPECIAL_LENGTH}")
    if template_regex("{space}").search(text):
        raise ValueError(f"special token {shown(text)} must not contain whitespace")
    check_no_surrogate(text, f"special token {shown(text)}")
    if not byte_level and text == UNK:
        raise ValueError(f"special token {UNK!r} is the unknown-character token, always ID 0 at the character level")


MAX_UNUSED_IDS = 1 << 20
"""How many IDs special tokens may leave unused (cl100k and o200k leave fewer than 20)."""


def special_token_ids(special_tokens, ordinary, byte_level, base_size=None):
    """The special tokens as text -> ID, checked.

    A list takes the IDs after the ordinary tokens, in order. A dict gives
    each its ID, which may leave gaps and may sit among the merged tokens'
    IDs (p50k's ``<|endoftext|>`` is ID 50256, inside its ranks), never on a
    base token's (the first ``base_size`` of ``ordinary``, all of them when
    None): the merged tokens then take, in order, the IDs no special token
    has (``ordinary_ids``). Several texts may share one ID (gpt-oss's
    ``<|endofprompt|>`` and ``<|reserved_200018|>``): each encodes to it, and
    it decodes to the first of them. At the character level a special token
    may not equal an ordinary one (both are text); at the byte level ordinary
    tokens are display strings, so the two namespaces are separate.
    """
    base_size = len(ordinary) if base_size is None else base_size
    if isinstance(special_tokens, dict):
        given = special_tokens
    else:
        check_list(special_tokens, "special_tokens", "strings (or a dict of string -> ID)")
        given = {}
        for text in special_tokens:
            if isinstance(text, str) and text in given:
                raise ValueError(f"special token {shown(text)} is given twice")
            given[text] = len(ordinary) + len(given)
    taken = set() if byte_level else set(ordinary)
    for text, token_id in given.items():
        check_special_text(text, byte_level)
        if text in taken:
            raise ValueError(f"special token {shown(text)} is already an ordinary token")
        if isinstance(token_id, bool) or not isinstance(token_id, int) or token_id < base_size:
            raise ValueError(
                f"special token {shown(text)} has ID {shown(token_id)}; special tokens take int IDs "
                f"from {base_size:,} on (the IDs below belong to the base tokens)"
            )
    highest = len(ordinary) + len(set(given.values())) - 1 + MAX_UNUSED_IDS
    for text, token_id in given.items():
        if token_id > highest:  # the vocabulary is a list with a place for every ID, used or not
            raise ValueError(f"special token {shown(text)} has ID {shown(token_id)}; special tokens may leave at "
                             f"most {MAX_UNUSED_IDS:,} IDs unused, so here the highest ID is {highest:,}")
    return dict(given)


def ordinary_ids(count, special_ids):
    """The IDs of ``count`` ordinary tokens in order: 0, 1, 2, ..., each ID a special token has left out.

    >>> ordinary_ids(5, {2})
    [0, 1, 3, 4, 5]
    """
    taken = sorted(token_id for token_id in set(special_ids) if token_id < count + len(special_ids))
    found, start = [], 0
    for token_id in taken + [None]:
        stop = count - len(found) + start if token_id is None else min(token_id, count - len(found) + start)
        found.extend(range(start, stop))
        if token_id is None or len(found) == count:
            break
        start = token_id + 1
    return found


def special_finder(texts):
    """A compiled regex that finds any of ``texts`` (a frozenset), the longest where several start at one place.

    The texts are arranged as a trie (``<|a|>`` and ``<|b|>`` become
    ``<\\|(?:a|b)\\|>``), so looking for five thousand special tokens costs
    about what looking for five does. A trie as deep as ``MAX_SPECIAL_LENGTH``
    nests that many groups, within what Python's regex compiler can take.
    """
    trie = {}
    for text in texts:
        node = trie
        for char in text:
            node = node.setdefault(char, {})
        node[""] = {}  # a text ends here
    return re.compile(_trie_source(trie))


def _trie_source(node):
    """The regex for the texts that continue below one trie node; longer continuations are tried first."""
    branches = []
    for char in sorted(key for key in node if key):
        child, text = node[char], re.escape(char)
        while len(child) == 1 and "" not in child:  # a run without branches is one literal
            ((char, child),) = child.items()
            text += re.escape(char)
        branches.append(text + _trie_source(child))
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if "" in node else body


def cut_around(text, finder, meaning):
    """``text`` cut around the matches of ``finder``: ``(text, None)`` items, and ``(match, meaning(match))`` for each."""
    pieces, start = [], 0
    for found in finder.finditer(text):
        pieces += [(text[start:found.start()], None), (found.group(), meaning(found.group()))]
        start = found.end()
    pieces.append((text[start:], None))
    return pieces


class SpecialTokenInText(ValueError):
    """``encode`` found a special token's text that it was not told to allow (in the file ``where``, if given)."""

    def __init__(self, token, where=None):
        self.token, self.where = token, where
        super().__init__(
            ("" if where is None else f"{named(where)}: ")
            + f"text contains the special token {token!r}; pass allowed_special={{{token!r}}} to encode it "
            "as a special token, or disallowed_special=() to encode it as ordinary text"
        )

    def __reduce__(self):  # so that it comes back whole from a worker process
        return SpecialTokenInText, (self.token, self.where)


class SpecialTokenMatcher:
    """A tokenizer's special tokens as ``encode`` looks for them: which are allowed, and where they are.

    ``ids`` maps each special token's text to its ID. A finder is built once
    for each set of special tokens asked for (a handful at most), since
    building one for thousands of tokens takes a moment; and each choice of
    ``allowed_special`` and ``disallowed_special`` is worked out once and
    remembered, so that a short ``encode`` costs the same with five special
    tokens or five thousand (working out a choice makes sets of them).
    """

    def __init__(self, ids):
        self.ids = ids
        self.all = frozenset(ids)
        self.special_ids = frozenset(ids.values())
        self._finders = {}
        self._choices = {}

    def segments(self, text, allowed_special=None, disallowed_special=None):
        """Cut ``text`` around the allowed special tokens: ``(text, None)`` and ``(match, ID)`` items.

        Special tokens follow tiktoken's rules: none is allowed unless named,
        and the text of a disallowed one (by default, all that are not
        allowed) is a ``SpecialTokenInText``.
        """
        allowed, _ = self.choice(text, allowed_special, disallowed_special)
        if allowed is None:
            return [(text, None)]
        return cut_around(text, allowed, self.ids.__getitem__)

    def stretches(self, text, allowed_special=None, disallowed_special=None):
        """``segments`` grouped by the stretch of ``text`` each comes from: ``(written, its segments)`` pairs, whose
        ``written`` parts join up to ``text`` (offsets count in them). Here each stretch is its one segment."""
        return [(piece, [(piece, token_id)]) for piece, token_id in self.segments(text, allowed_special,
                                                                                 disallowed_special)]

    allows_all = False
    """What None means for ``allowed_special``: no special token (tiktoken's rule), or all of them."""

    def choice(self, text, allowed_special, disallowed_special):
        """The finders for this choice of special tokens (see ``finders_for``), once ``text`` is checked for the
        disallowed ones; worked out once per choice."""
        key = (choice_key(allowed_special), choice_key(disallowed_special))
        found = self._choices.get(key) if UNCACHED not in key else None
        if found is None:
            found = self.finders_for(*self.allowed_and_disallowed(allowed_special, disallowed_special))
            if UNCACHED not in key:
                if len(self._choices) >= 8:
                    self._choices.clear()
                self._choices[key] = found
        if found[-1] is not None:
            refused = found[-1].search(text)
            if refused:
                raise SpecialTokenInText(refused.group())
        return found

    def allowed_and_disallowed(self, allowed_special, disallowed_special):
        """The special tokens to look for, and those whose text is an error, as frozensets.

        By default (None) those that ``allows_all`` says, and the others are
        disallowed; ``disallowed_special="all"`` disallows all that are not
        allowed.
        """
        if allowed_special is None:
            allowed = self.all if self.allows_all else frozenset()
        else:
            allowed = self.chosen(allowed_special, "allowed_special")
        if disallowed_special is None:
            disallowed = frozenset() if self.allows_all else self.all - allowed
        elif disallowed_special == "all":
            disallowed = self.all - allowed
        else:
            disallowed = self.chosen(disallowed_special, "disallowed_special")
        return allowed, disallowed

    def finders_for(self, allowed, disallowed):
        """``(finder of the allowed, finder of the disallowed)``, None where there are none."""
        return tuple(self.finder(texts) if texts else None for texts in (allowed, disallowed))

    def finder(self, texts):
        """The compiled finder for a set of special tokens, built once per set."""
        finder = self._finders.get(texts)
        if finder is None:
            if len(self._finders) >= 8:
                self._finders.clear()
            finder = self._finders[texts] = special_finder(texts)
        return finder

    def chosen(self, names, argument):
        """``"all"`` or a collection of these special tokens, as a frozenset; anything else is refused."""
        if names == "all":
            return self.all
        if isinstance(names, (str, bytes)) or not isinstance(names, (set, frozenset, list, tuple)):
            raise TypeError(f"{argument} must be 'all' or a set of special tokens, not {shown(names)}")
        if not names:
            return frozenset()
        if not all(isinstance(name, str) for name in names):
            raise TypeError(f"{argument} must hold special tokens as strings, not {shown(names)}")
        names = frozenset(names)
        unknown = sorted(names - self.all)
        if unknown:
            raise ValueError(f"{argument} names {shown(unknown[0])}, which is not a special token of this tokenizer")
        return names


UNCACHED = object()
"""The key of a choice that is not remembered (one that is refused, or cannot be a key)."""


def choice_key(value):
    """What one of ``allowed_special`` and ``disallowed_special`` is remembered by: itself (None, ``"all"``), or
    the frozenset of a collection of strings; ``UNCACHED`` for anything else (it is refused when worked out)."""
    if value is None or value == "all":
        return value
    if isinstance(value, (set, frozenset, list, tuple)) and all(type(name) is str for name in value):
        return frozenset(value)
    return UNCACHED
