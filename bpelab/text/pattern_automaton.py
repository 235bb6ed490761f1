"""The pattern's automaton as Python's ``re`` runs it: the states and ways on which ``matching_time`` decides the bound.

``bpe.chunks`` cuts text with a named pattern; a Hugging Face file brings
its own regex, parsed by ``bpelab.text.oniguruma``. What this module
adds is ``Automaton(tree, positions, check)``: its states are the start and
each character position once read (a counted repeat written out round by
round up to ``MAX_COPIES``, a larger one read as a loop), and each
transition counts the ways between two states. It reads the pattern as
``bpelab.text.chunk_regex`` writes it and ``re`` runs it: a round of a
repeat only after one that took text, ``C*+`` as ``C*(?!C)``, ``(?>X)`` as
a look-ahead never backtracked into (the text it took read in one way),
anchors as look-aheads, a look-behind at one character as a test that lets
every way on. A look-ahead's body is an automaton of its own,
refused where it is built by the ``check`` it is given
(``bpelab.text.matching_time``'s, which the bound needs).

It equals the automaton of docs/unicode.md ("The automaton, as ``re`` runs
it"), with its *sure* states: those from which the pattern's end follows
with no test.
"""

import functools

from bpelab.text.oniguruma import TOP, bit_indexes, complement, nullable, partition, possessive_class, union

MAX_COPIES = 16
"""Counted repeats up to this count are written out round by round for the analysis; larger ones are read as loops."""

MAX_POSITIONS = 20000
"""The most character positions a pattern may have once its counted repeats are written out."""

MAX_TRANSITIONS = 200000
"""The most ways between character positions (counted once per kind of way) the analysis works out."""

NEWLINE = ("set", ((10, 10),))
AT_END = ("end", "\\z")
ANCHORS = {"\\Z": ("seq", (("repeat", NEWLINE, 0, 1), AT_END)), "$": ("alt", (NEWLINE, AT_END))}
"""What ``bpelab.text.chunk_regex`` writes for ``\\Z`` and ``$``: look-aheads at ``\\z`` (Python's ``\\Z``)."""


def too_large(what, position):
    """The refusal of a pattern too large for the analysis."""
    return ValueError(f"{what} at position {position} of the pattern: too large to show that Python's re takes at "
                      "most quadratic time on it")


@functools.lru_cache(maxsize=4096)
def meet(first, second):
    """The code points in both of two sets of ranges (None stands for every code point)."""
    if first is None or second is None:
        return second if first is None else first
    found, at = [], 0
    for low, high in first:
        while at < len(second) and second[at][1] < low:
            at += 1
        step = at
        while step < len(second) and second[step][0] <= high:
            found.append((max(low, second[step][0]), min(high, second[step][1])))
            step += 1
    return tuple(found)


class Node:
    """A node of the pattern's graph as ``re`` runs it: a ``char`` (then ``next``), a ``split`` (each of ``next``
    in turn), a ``test`` (a look-ahead, a look-behind or ``\\z``: only a next character in ``filter``, None for any,
    at the cost of ``look``), the ``end`` of a round at depth ``level`` (on to ``more`` after a round that took
    text, else past the repeat to ``next``: ``re``'s rule for empty rounds), or the ``final`` one."""

    __slots__ = ("kind", "next", "ranges", "source", "level", "loops", "unsure", "filter", "look", "more")

    def __init__(self, kind, after=None, **fields):
        self.kind, self.next, self.look, self.filter = kind, after, None, None
        for name, value in fields.items():
            setattr(self, name, value)


FINAL = Node("final")


class Look:
    """A look-ahead's body, analysed on its own: run once where it stands, from there, to its first match."""

    def __init__(self, tree, negative, positions, source, check):
        self.source, self.automaton = source, None
        if tree[0] == "set":  # one character (as most are): it reads one, and tells what may come next
            self.bounded, self.filter = True, complement(tree[1]) if negative else tree[1]
            return
        self.automaton = body = Automaton(tree, positions, check)
        check(body, retried=False)
        self.bounded = body.bounded()
        self.filter = body.next_characters(negative)


class Automaton:
    """The pattern's states (the start, and each character position once read) and the ways between them.

    ``edges[s]`` lists ``(t, label, count, round)``: ``count`` ways to go
    from state ``s`` to state ``t`` reading one character of ``label``,
    starting a round of the repeat ``round`` (its level and position) or none;
    ``sure[s]`` says the pattern's end follows from ``s`` with no test;
    ``tested[s]`` lists the look-aheads passed on the way out of ``s``;
    ``check(body, retried=False)`` refuses a look-ahead's body.
    """

    def __init__(self, tree, positions, check):
        self.positions, self.check, self.count, self.transitions, self.memo = positions, check, 0, 0, {}
        self.states, self.index, self.edges, self.sure, self.finals, self.tested = [None], {}, [], [], [], []
        self.follow(self.build(tree, FINAL, 0, (), False), 0)
        at = 1
        while at < len(self.states):  # the states found while following grow the list
            node = self.states[at]
            self.follow(node.next, node.level, unsure=node.unsure)
            at += 1
        self.size = len(self.states) - 1

    # Building the graph of nodes from the tree.

    def place(self, tree):
        return self.positions.get(id(tree), 0)

    def build(self, tree, after, level, loops, unsure):
        """The node where ``tree`` starts, followed by ``after``, inside ``level`` rounds of repeats."""
        kind = tree[0]
        if kind == "set":
            self.count += 1
            if self.count > MAX_POSITIONS:
                raise too_large(f"more than {MAX_POSITIONS:,} character positions (counted repeats written out)",
                                self.place(tree))
            return Node("char", after, ranges=tree[1], source=self.place(tree), level=level, loops=loops,
                        unsure=unsure)
        if kind == "seq":
            for item in reversed(tree[1]):
                after = self.build(item, after, level, loops, unsure)
            return after
        if kind == "alt":
            return Node("split", [self.build(item, after, level, loops, unsure) for item in tree[1]])
        if kind == "look":
            look = Look(tree[1], tree[2], self.positions, self.place(tree), self.check)
            return Node("test", after, filter=look.filter, look=look)
        if kind == "end":
            if tree[1] == "\\z":
                return Node("test", after, filter=())  # no character may follow
            look = Look(ANCHORS[tree[1]], False, self.positions, self.place(tree), self.check)
            return Node("test", after, filter=look.filter, look=look)
        if kind == "behind":  # one character before this place, tested once: no text read, and no way is barred
            return Node("test", after)  # (read as letting every way on: more ways, never fewer, than re has)
        if kind == "atomic":
            return self.atomic(tree, after, level, loops, unsure)
        return self.repeat(tree, after, level, loops, unsure)

    def atomic(self, tree, after, level, loops, unsure):
        """``(?>X)`` as ``chunk_regex`` writes it: C*(?!C) for a possessive class C, else X in a look-ahead, then
        the text it took.

        The look-ahead fixes that text, and ``re`` never backtracks into it:
        what follows sees it read in one way (``taken``).
        """
        inner, source = tree[1], self.place(tree)
        if possessive_class(inner):
            single, stop = inner[1], ("look", inner[1], True)
            written = ("alt", (single, stop)) if inner[3] == 1 else ("seq", (inner, stop))
            self.positions.setdefault(id(stop), source)
            return self.build(written, after, level, loops, unsure)
        look = Look(inner, False, self.positions, source, self.check)
        taken = self.build(inner, after, level, loops, unsure) if look.automaton is None else \
            self.taken(look.automaton, after, level, loops + (source,), unsure, source)
        return Node("test", taken, filter=look.filter, look=look)

    def taken(self, body, after, level, loops, unsure, source):
        """The text an atomic group took, read in one way: its body's automaton made deterministic (by subsets).
        Any text the body can match counts, more than ``re`` takes (the body's first match): no way is missed."""
        nodes, moves, todo = {}, {}, [frozenset([0])]  # subset -> its node; -> {subset reached: kinds}
        while todo:
            subset = todo.pop()
            if subset in nodes:
                continue
            if len(nodes) > MAX_COPIES ** 2:
                raise too_large(f"an atomic group whose text takes more than {MAX_COPIES ** 2} states to read in one "
                                "way", source)
            nodes[subset] = Node("split", [])
            onward = {}  # kind -> the states it leads to
            for state in subset:
                for kind, targets in body.by_kind(state).items():
                    onward.setdefault(kind, set()).update(targets)
            grouped = {}  # the states reached -> the kinds that reach them
            for kind, targets in onward.items():
                grouped.setdefault(frozenset(targets), []).append(kind)
            moves[subset] = grouped
            todo.extend(grouped)
        for subset, node in nodes.items():
            for targets, kinds_in in moves[subset].items():
                self.count += 1
                node.next.append(Node("char", nodes[targets], ranges=union(*(body.kind_ranges[k] for k in kinds_in)),
                                      source=source, level=level, loops=loops, unsure=unsure))
            finals = [narrowed for state in subset for narrowed in body.finals[state]]
            if any(body.sure[state] for state in subset):
                node.next.append(after)
            elif finals:
                stop = None if None in finals else union(*finals)
                node.next.append(Node("test", after, filter=stop))
        return nodes[frozenset([0])]

    def repeat(self, tree, after, level, loops, unsure):
        """A repeat written out round by round: the rounds it must make, then those it may (or a loop)."""
        item, low, high = tree[1], tree[2], tree[3]
        if max(low, high or 0) > MAX_COPIES:  # read as a loop: more ways than re has, none of them sure
            if low > 1 and nullable(item):
                raise too_large(f"a count above {MAX_COPIES} of a part that can match the empty string",
                                self.place(tree))
            unsure = unsure or low > 1
            low, high = min(low, 1), None
        loop = loops + (self.place(tree),) if high is None else loops
        if low == 0:
            return self.rounds(item, high, after, level, loop, unsure, self.place(tree))
        rest = self.rounds(item, None if high is None else high - low, after, level, loop, unsure, self.place(tree))
        closing = Node("end", after, level=level + 1, more=rest, source=self.place(tree))  # its last round
        entry = self.build(item, closing, level + 1, loops, unsure)
        for _ in range(low - 1):
            entry = self.build(item, entry, level, loops, unsure)
        return entry

    def rounds(self, item, count, after, level, loops, unsure, source):
        """Up to ``count`` more rounds of ``item`` (None: any number), each tried only after one that took text."""
        if count == 0:
            return after
        start = Node("split", [])
        more = start if count is None else self.rounds(item, count - 1, after, level, loops, unsure, source)
        closing = Node("end", after, level=level + 1, more=more, source=source)
        start.next = [self.build(item, closing, level + 1, loops, unsure), after]
        return start

    # From nodes to states: the ways (each counted) from one character to the next.

    def ways(self, start, depth):
        """Every way from ``start`` to a next character or the end, without reading, counted: {(node, filter, clean,
        round): count}, ``round`` being the outermost repeat whose next round it starts; and the look-aheads passed.

        ``depth`` is how many rounds around ``start`` took text (all, after a character). Nodes with depths form no
        cycle (an empty round ends its repeat), so each is worked out once, children first.
        """
        if start.kind in ("char", "final"):  # a character or the end right after: one way
            return {(start, None, True, None): 1}, frozenset()
        stack = [(start, depth)]
        while stack:
            key = stack[-1]
            if key in self.memo:
                stack.pop()
                continue
            children = self.children(*key)
            missing = [child for child in children if child not in self.memo]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            self.memo[key] = self.combine(*key, [self.memo[child] for child in children])
            self.transitions += len(self.memo[key][0])
            if self.transitions > MAX_TRANSITIONS:
                raise too_large(f"more than {MAX_TRANSITIONS:,} ways between characters",
                                start.source if start.kind == "char" else 0)
        return self.memo[(start, depth)]

    @staticmethod
    def children(node, depth):
        if node.kind in ("char", "final"):
            return []
        if node.kind == "split":
            return [(child, depth) for child in node.next]
        if node.kind == "test":
            return [(node.next, depth)]
        return [(node.more, node.level - 1) if depth >= node.level else (node.next, depth)]  # "end"

    @staticmethod
    def combine(node, depth, found):
        if node.kind in ("char", "final"):
            return {(node, None, True, None): 1}, frozenset()
        if node.kind in ("test", "end"):
            (ways, tests), = found
            if node.kind == "end" and depth < node.level:
                return ways, tests  # an empty round: on past the repeat
            merged, here = {}, (node.level, node.source) if node.kind == "end" else None
            for (target, narrowed, clean, round_), count in ways.items():
                if node.kind == "test":
                    key = (target, meet(node.filter, narrowed), False, round_)
                else:  # another round
                    key = (target, narrowed, clean, min(round_ or here, here))
                merged[key] = merged.get(key, 0) + count
            return merged, tests | ({node.look} if node.look else set())
        merged, tests = {}, frozenset()
        for ways, more_tests in found:
            for key, count in ways.items():
                merged[key] = merged.get(key, 0) + count
            tests |= more_tests
        return merged, tests

    def follow(self, start, depth, unsure=False):
        """The transitions out of the next state (the start, or a character just read)."""
        ways, tests = self.ways(start, depth)
        edges, sure, final = {}, False, []
        for (target, narrowed, clean, round_), count in ways.items():
            if target is FINAL:
                sure = sure or clean
                final.append(narrowed)
                continue
            label = target.ranges if narrowed is None else meet(narrowed, target.ranges)
            if label:
                if target not in self.index:
                    self.index[target] = len(self.states)
                    self.states.append(target)
                key = (self.index[target], label, round_)
                edges[key] = edges.get(key, 0) + count
        self.edges.append([(target, label, count, round_) for (target, label, round_), count in edges.items()])
        self.sure.append(sure and not unsure)
        self.finals.append(final)
        self.tested.append(tests)

    # Questions about the automaton.

    @functools.cached_property
    def loops(self):
        """The strongly connected components of the whole automaton that hold a loop."""
        return [part for part in self.components(range(len(self.states))) if component_loops(self, part)]

    def bounded(self):
        """Whether it reads at most a fixed number of characters: no loop, and only such look-aheads."""
        return not self.loops and all(look.bounded for looks in self.tested for look in looks)

    def next_characters(self, negative):
        """The characters that may come next where this body, as a look-ahead (or a negative one), succeeds."""
        if negative:  # (?!X) fails where X surely matches: empty, or one character that makes a sure state
            if self.sure[0]:
                return ()
            return complement(union(*(label for target, label, _, _ in self.edges[0] if self.sure[target])))
        if any(narrowed is None for narrowed in self.finals[0]):
            return None
        return union(*(label for _, label, _, _ in self.edges[0]), *self.finals[0])

    def components(self, states, edges=None):
        """The strongly connected components of the graph on ``states``, sinks first (Tarjan's, without recursion)."""
        edges, inside = edges or self.edges, set(states)
        whole = len(inside) == len(self.states)
        index, low, stack, on_stack, found = {}, {}, [], set(), []
        for root in states:
            work = [] if root in index else [(root, None)]
            while work:
                state, targets = work.pop()
                if targets is None:  # first visit
                    index[state] = low[state] = len(index)
                    stack.append(state)
                    on_stack.add(state)
                    targets = iter([edge[0] for edge in edges[state] if whole or edge[0] in inside])
                target = next(targets, None)
                if target is not None:
                    work.append((state, targets))
                    if target not in index:
                        work.append((target, None))
                    elif target in on_stack:
                        low[state] = min(low[state], index[target])
                    continue
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[state])
                if low[state] == index[state]:
                    component = [stack.pop()]
                    while component[-1] != state:
                        component.append(stack.pop())
                    on_stack.difference_update(component)
                    found.append(component)
        return found

    def kinds(self):
        """Cut the code points into the kinds the labels tell apart (``kind_ranges``), and give each label its kinds
        as a bit mask (``masked``: the transitions with masks for labels)."""
        labels = list({label for edges in self.edges for _, label, _, _ in edges})
        starts, kinds, members = partition(labels)
        self.kind_ranges = [[] for _ in members]
        for at, kind in enumerate(kinds):
            self.kind_ranges[kind].append((starts[at], (starts[at + 1] if at + 1 < len(starts) else TOP + 1) - 1))
        masks = dict.fromkeys(labels, 0)
        for kind, indexes in enumerate(members):
            for index in indexes:
                masks[labels[index]] |= 1 << kind
        self.masked = [[(target, masks[label], count, round_) for target, label, count, round_ in edges]
                       for edges in self.edges]

    def by_kind(self, state, inside=None):
        """The ways out of ``state`` into ``inside`` (every state if None), by kind: {kind: {target: count}}."""
        found = {}
        for target, mask, count, _ in self.masked[state]:
            if inside is None or target in inside:
                for kind in bit_indexes(mask):
                    found.setdefault(kind, {})
                    found[kind][target] = found[kind].get(target, 0) + count
        return found

    def reach(self, starts, allowed):
        """The states of ``allowed`` reachable from ``starts`` through ``allowed``."""
        allowed, seen, todo = set(allowed), set(), [state for state in starts if state in allowed]
        while todo:
            state = todo.pop()
            if state not in seen:
                seen.add(state)
                todo.extend(target for target, *_ in self.edges[state] if target in allowed)
        return sorted(seen)


def component_loops(automaton, component, edges=None):
    """Whether a strongly connected component holds a loop (more than one state, or a state that leads to itself)."""
    edges = edges or automaton.edges
    return len(component) > 1 or any(target == component[0] for target, *_ in edges[component[0]])
