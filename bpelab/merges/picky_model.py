"""A tokenizer whose training removed tokens (PickyBPE's): a kind of model of its own, encoding as its reference does.

``bpe.Tokenizer(alphabet, merges, removals=...)`` holds PickyBPE's events
(``bpelab.merges.picky``): ``merges`` in the order learned, where a merge may make
a token that a removal took away before (it comes back) or one there
already, and ``removals``, each ``(after, token)``: after that many merges,
``token`` was removed. The vocabulary is the base tokens, then each merged
token left at the end, in the order first made; a removed token has no ID.
``PickyModel`` is the lab's kind of model (``lab_model.LabModel``, whose
interface it answers) with that vocabulary and that encoding; the
``Tokenizer`` asks it what it asks every kind, and ``make_model`` builds it
for a tokenizer with removals.

Encoding equals ``picky_tokenize.py`` of github pchizhov/picky_bpe (commit
``4ddc0d0``, ``_encode_word_by_events``): a chunk that is itself a token of
the vocabulary is that token; any other starts as its base tokens and
replays the events in order, a merge joining its pair at every place,
left to right (``bpe.merge_pair``), a removal splitting each occurrence of
its token into what the token was split into then (its first merge's parts,
each split the same way while not in the vocabulary at that moment). The
tests restate that rule and hold this to it; decoding is the lab's. Here the
replay takes time n log n in the chunk's length: every adjacent pair and
every token waits in one heap under the next event that would change it.
"""

import bisect
import heapq
from collections import defaultdict

from bpelab.checks import UNK, check_list
from bpelab.merges.dropout import check_dropout
from bpelab.merges.lab_model import LabModel
from bpelab.messages import shown


def refuse_removals(tokenizer, what):
    """Refuse to write a tokenizer with removals as ``what``, a form that has merges only (it would encode otherwise)."""
    if tokenizer.removals:
        raise ValueError(f"this tokenizer removed tokens while it trained (PickyBPE), and {what} holds merges only, "
                         "which would encode differently; save it with save (the lab's format 2 holds removals)")


class PickyModel(LabModel):
    """The lab's kind of model for a tokenizer with removals: what is left of the merges' tokens, each chunk encoded by
    replaying PickyBPE's events (``PickyEvents``); dropout is refused by name."""

    offers_dropout = False  # (see ``description``)

    def __init__(self, alphabet, merges, byte_level, pattern, special_tokens, add_prefix_space, removals):
        self.removals = removals  # (checked with the merges in ``made_tokens``, once the base tokens are known)
        super().__init__(alphabet, merges, byte_level, pattern, special_tokens, add_prefix_space)

    def made_tokens(self, base, merges):
        """The tokens left at the end, in ID order after ``base``: the merges and removals checked, as events."""
        self.events = PickyEvents(base, merges, self.removals)
        self.removals = [tuple(removal) for removal in self.removals]
        return self.events.made

    def prepare(self, merges):
        """The lab's tables, the events' tokens numbered by the IDs the tokenizer gave them."""
        self.events.use_ids(self.ids)
        super().prepare(merges)

    def merge_table(self, merges):
        """None: no table of pairs encodes here (the events are replayed, and dropout is refused)."""
        return None

    def add_merged_texts(self, texts):
        """Append to ``texts`` (the base tokens', by place) what each token left decodes to."""
        texts += self.events.values(texts)

    def encode_chunk(self, chunk):
        """A chunk's IDs, as a tuple: the events replayed on its base tokens (the cache calls this)."""
        return self.events.encode(self.start_ids(chunk))

    def dropout(self, p, seed, rule):
        """Refuse BPE-dropout by name (once ``p``, ``seed`` and ``rule`` are checked): its rule knows no removals."""
        return check_dropout(p, seed, rule, "dropout is not supported for a PickyBPE tokenizer (BPE-dropout's rule has no "
                                      "removals); encode it with dropout=0")


class PickyEvents:
    """PickyBPE's events, checked: the tokens left (``made``), and an encoder that replays the events.

    ``base`` is the tokenizer's base tokens in ID order. Tokens are numbered
    inside by ``number``: the base tokens by their IDs, then every token ever
    made, in the order first made; ``final`` maps the numbers of the tokens
    left to their IDs (``use_ids``: a special token's ID may sit among them).
    """

    def __init__(self, base, merges, removals):
        check_list(merges, "merges", "[left, right] pairs")
        check_list(removals, "removals", "[after, token] pairs")
        self.texts, self.base_size = list(base), len(base)
        self.number = {token: at for at, token in enumerate(base) if token != UNK}
        self.parts, present = {}, set()  # a made token's number -> its first merge's parts; the made tokens now
        self.events = []  # ("merge", (left, right), made) or ("remove", token, split), all numbers
        removals = self._checked_removals(removals, len(merges))
        for rank, merge in enumerate(merges):
            self._remove(removals.get(rank, ()), present)
            self.events.append(("merge", *self._made(rank, merge, present)))
        self._remove(removals.get(len(merges), ()), present)
        self.kept = [number for number in range(len(base), len(self.texts)) if number in present]
        self.made = [self.texts[number] for number in self.kept]
        self.use_ids({token: at for at, token in enumerate(base + self.made)})
        self.next_merge, self.next_removal = defaultdict(list), defaultdict(list)
        for at, event in enumerate(self.events):
            (self.next_merge[event[1]] if event[0] == "merge" else self.next_removal[event[1]]).append(at)

    @staticmethod
    def _checked_removals(removals, merges):
        """``after`` -> the tokens removed then, in order; refuse entries that are not ``[after, token]`` in order."""
        found, last = defaultdict(list), 0
        for at, removal in enumerate(removals):
            if not isinstance(removal, (list, tuple)) or len(removal) != 2:
                raise ValueError(f"removal {at} is {shown(removal)}; each removal must be an [after, token] pair")
            after, token = removal
            if isinstance(after, bool) or not isinstance(after, int) or not last <= after <= merges:
                raise ValueError(f"removal {at} is {shown(removal)}; 'after' must count the merges before it, "
                                 f"from {last} (the removal before it) to {merges}")
            if not isinstance(token, str):
                raise ValueError(f"removal {at} is {shown(removal)}; its token must be a string")
            found[after].append(token)
            last = after
        return found

    def _made(self, rank, merge, present):
        """A merge's ``((left, right), made)`` as numbers; a new token is numbered, a removed one comes back."""
        if not isinstance(merge, (list, tuple)) or len(merge) != 2 or not all(isinstance(part, str) for part in merge):
            raise ValueError(f"merge {rank} is {shown(merge)}; each merge must be a [left, right] pair of strings")
        numbers = []
        for part in merge:
            number = self.number.get(part)
            if number is None or (number in self.parts and number not in present):
                raise ValueError(f"merge {rank} ({shown(merge[0])}, {shown(merge[1])}) uses {shown(part)}, "
                                 "which is not a token at that point")
            numbers.append(number)
        joined = merge[0] + merge[1]
        made = self.number.get(joined)
        if made is None:
            made = self.number[joined] = len(self.texts)
            self.texts.append(joined)
            self.parts[made] = tuple(numbers)
        elif made not in self.parts:
            raise ValueError(f"merge {rank} ({shown(merge[0])}, {shown(merge[1])}) makes {shown(joined)}, "
                             "which is a base token")
        present.add(made)
        return tuple(numbers), made

    def _remove(self, tokens, present):
        """Record the removal of each of ``tokens`` (each a merged token in the vocabulary at that point)."""
        for token in tokens:
            number = self.number.get(token)
            if number not in present:
                raise ValueError(f"the removal of {shown(token)} removes no merged token of the vocabulary at that "
                                 "point")
            present.discard(number)
            self.events.append(("remove", number, self._split(number, present)))

    def _split(self, number, present):
        """What a removed token splits into: its first merge's parts, each split the same way while not present."""
        found, stack = [], [number]
        while stack:
            code = stack.pop()
            if code in self.parts and code not in present:
                stack += reversed(self.parts[code])
            else:
                found.append(code)
        return tuple(found)

    def base_numbers(self, number):
        """The base tokens a token is made of, as numbers (its first merge's parts, all the way down)."""
        return tuple(piece for piece in self._split(number, ()))

    def use_ids(self, ids):
        """Give the tokens left the IDs ``ids`` (token -> ID) says: ``final`` and ``whole`` (a chunk that is a
        token, as its base tokens' numbers -> its ID)."""
        self.final = {number: number for number in range(self.base_size)}  # (a base token's ID is its number)
        self.final.update((number, ids[self.texts[number]]) for number in self.kept)
        self.whole = {self.base_numbers(number): self.final[number] for number in self.kept}

    def values(self, decoded):
        """What each token left decodes to, in order, given what each base token decodes to (``decoded``, by ID)."""
        values = list(decoded)
        for number in range(len(decoded), len(self.texts)):
            left, right = self.parts[number]
            values.append(values[left] + values[right])
        return [values[number] for number in self.kept]

    def encode(self, ids):
        """The IDs of one chunk, given the IDs of its base tokens: itself if it is a token, else the events replayed.

        The chunk is a linked list of tokens, each at the position of its
        first base token. Each adjacent pair waits in the queue of the next
        merge that joins it, each token in that of the next removal that
        splits it; events are taken in order, a merge's places from left to
        right, and a place whose pair or token has changed since is passed
        over. What an event makes waits for later events only (a merge's
        token is new to its pair, a removal's pieces are not the token), so
        each queue is complete when its turn comes.
        """
        whole = self.whole.get(tuple(ids))
        if whole is not None:
            return (whole,)
        tokens, end = list(ids), len(ids)
        after, before = list(range(1, end + 1)), list(range(-1, end - 1))
        queues, waiting = defaultdict(list), []

        def wait(events, position, now):  # queue ``position`` for the first of ``events`` at or after ``now``
            at = bisect.bisect_left(events, now)
            if at < len(events):
                queue = queues[events[at]]
                if not queue:
                    heapq.heappush(waiting, events[at])
                queue.append(position)

        merges_of, removals_of = self.next_merge.get, self.next_removal.get
        for position in range(end - 1):
            events = merges_of((tokens[position], tokens[position + 1]))
            if events:
                wait(events, position, 0)
        while waiting:
            now = heapq.heappop(waiting)
            kind, what, made = self.events[now]
            for position in sorted(queues.pop(now)):
                if kind == "merge":
                    right = after[position]
                    if right >= end or tokens[position] != what[0] or tokens[right] != what[1]:
                        continue  # used up by an earlier merge
                    tokens[position], tokens[right] = made, -1
                    after[position] = after[right]
                    if after[position] < end:
                        before[after[position]] = position
                    changed = (position,)
                else:
                    if tokens[position] != what:
                        continue
                    changed, at = [], position
                    for piece in made:
                        changed.append(at)
                        tokens[at] = piece
                        at += len(self.texts[piece])
                    for left, right in zip(changed, changed[1:]):
                        after[left], before[right] = right, left
                    after[changed[-1]] = at
                    if at < end:
                        before[at] = changed[-1]
                for start in changed:
                    events = removals_of(tokens[start])
                    if events:
                        wait(events, start, now)
                for start in (before[position], *changed):
                    if start >= 0 and after[start] < end:
                        events = merges_of((tokens[start], tokens[after[start]]))
                        if events:
                            wait(events, start, now)
        return tuple(self.final[tokens[at]] for at in _walk(after, end))


def _walk(after, end):
    """The positions of a linked list from its start (position 0) to ``end``."""
    position = 0
    while position < end:
        yield position
        position = after[position]
