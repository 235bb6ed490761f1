"""Bounded matching time: a chunk regex is read only if Python's ``re`` finds all its matches in quadratic time.

``bpe.chunks`` cuts text with a named pattern, which no file can change. A
Hugging Face file brings its own regex, and ``re`` searches it by
backtracking, trying a match at every start (``findall``, ``finditer``,
``split``): what this module adds is ``check_matching_time(tree,
positions)``, which decides from a pattern parsed by
``bpelab.text.oniguruma``, before any text is cut, that this takes at
most about 3·K·n² steps on n characters, K at most the pattern's size, and
refuses anything else with a one-line ``ValueError`` naming the slow part
and its position. It decides on the pattern's automaton as ``re`` runs it
(``bpelab.text.pattern_automaton``).

It equals (the argument is in docs/unicode.md): without its *sure* states,
those from which the pattern's end follows with no test, the pattern's
automaton is finitely ambiguous, that is has neither exponential (EDA) nor
infinite (IDA) ambiguity, the two conditions of Weideman, van der Merwe,
Berglund and Watson (2016, "Analyzing matching time behavior of
backtracking regular expression matchers by using ambiguity of NFA"), with
at most as many ways to read a text as it has character positions; and
each look-ahead is linear where it runs, one that can read to the end of
the text only where a try reaches it a bounded number of times.
"""

from bpelab.text.pattern_automaton import Automaton, component_loops, too_large
from bpelab.reading import collector_paused

MAX_COMBINATIONS = 20000
"""The most combinations of ways of reading a text that the count of ways visits."""


def slow(what, position, growth):
    """The refusal of a pattern whose matching time in ``re`` could grow faster than the square of the text's length."""
    return ValueError(f"{what} at position {position} of the pattern: Python's re could take time growing as {growth} "
                      "on a text of n characters (it tries a match at every start); only patterns whose time is at "
                      "most n^2 (times the pattern's size) are read")


def check(automaton, retried=True):
    """Refuse the pattern unless ``re`` takes at most quadratic time on it (a look-ahead's body: linear, run once).

    Only the states that are not sure count: a failed try reads only those, and a match strays into them only.
    Run once (a look-ahead), those that come after a sure one must also form no loop.
    """
    automaton.kinds()
    unsure = [state for state in range(len(automaton.states)) if not automaton.sure[state]]
    if not retried:
        after_sure = automaton.reach([target for state in range(len(automaton.states)) if automaton.sure[state]
                                      for target, *_ in automaton.edges[state]], unsure)
        for component in automaton.components(after_sure) if automaton.loops else ():
            if component_loops(automaton, component):
                raise slow("inside a look-ahead, a repeat tried again after each character it matches",
                           loop_source(automaton, component), "n^3")
    check_looks(automaton)
    if automaton.loops:  # without any loop, neither EDA nor IDA
        ambiguity(automaton, unsure)
    count_ways(automaton, unsure, entries(automaton, unsure))
    return power(automaton, unsure)


def power(automaton, unsure):
    """The power of n that bounds the time of an accepted pattern: 1 if no try can read without bound and then
    fail (no loop among the states that are not sure, no look-ahead that can read to the end), else 2."""
    if any(not look.bounded for looks in automaton.tested for look in looks):
        return 2
    if not automaton.loops:
        return 1
    edges = [[edge for edge in found if not automaton.sure[edge[0]]] for found in automaton.edges]
    return 2 if any(component_loops(automaton, part, edges) for part in automaton.components(unsure, edges)) else 1


def entries(automaton, region):
    """Where a failing search enters ``region``: the start, and each step into it from a state outside."""
    inside = set(region)
    found = [((0, 1),)] if 0 in inside else []
    for state in range(len(automaton.states)):
        if state not in inside or state == 0:
            found.extend(tuple(sorted(step.items())) for step in automaton.by_kind(state, inside).values())
    return list(dict.fromkeys(found))


def ambiguity(automaton, region):
    """Refuse a loop that reads the same text in two ways (EDA) or two loops that share it (IDA) in ``region``."""
    inside = set(region)
    edges = [[edge for edge in edges if edge[0] in inside] for edges in automaton.masked]
    components = automaton.components(region, edges)
    loops = [component for component in components if component_loops(automaton, component, edges)]
    for component in loops:
        if doubled(component, edges):
            raise slow("a repeat that can match the same text in more and more ways",
                       culprit(automaton, component, edges), "2^n")
    found = chains(automaton, components, loops, edges)
    if found:
        degree, first, second = max(found.values(), key=lambda chain: chain[0])
        raise slow(f"a repeat that can match the same text as the repeat at position {loop_source(automaton, first)} "
                   "before it", loop_source(automaton, second), f"n^{degree + 2}")


def culprit(automaton, component, edges):
    """The innermost repeat whose own rounds read some text in two ways, in a component that does (EDA)."""
    inside = set(component)
    rounds = {edge[3] for state in component for edge in edges[state] if edge[3] and edge[0] in inside}
    for level, source in sorted(rounds, reverse=True):  # innermost first
        within = [state for state in component if source in automaton.states[state].loops]
        own = [[edge for edge in found if edge[3] is None or edge[3][0] > level or edge[3] == (level, source)]
               for found in edges]
        for part in automaton.components(within, own):
            if component_loops(automaton, part, own) and doubled(part, own):
                return source
    return loop_source(automaton, component)


def chains(automaton, components, loops, edges):
    """For each component, the longest chain of loops from it on that share text pairwise (the IDA degree), and
    its first pair."""
    of = {state: number for number, component in enumerate(components) for state in component}
    onward = [{of[target] for state in component for target, *_ in edges[state]} - {number}
              for number, component in enumerate(components)]
    looping, best = {of[component[0]] for component in loops}, []
    for number in range(len(components)):  # sinks first: what follows is done
        chain = max([best[later] for later in onward[number]] + [(0, None, None)], key=lambda found: found[0])
        if number in looping:
            reached = reachable([number], onward)
            for later in sorted(reached & looping - {number}):
                if best[later][0] + 1 > chain[0] and shared(components, number, later, edges, of, onward):
                    chain = (best[later][0] + 1, components[number], components[later])
        best.append(chain)
    return {number: chain for number, chain in enumerate(best) if chain[0]}


def count_ways(automaton, region, entries):
    """Refuse more ways of reading one text through ``region`` than the pattern has character positions."""
    inside, limit, seen, todo = set(region), max(automaton.size, 1), set(), list(entries)
    step = {state: automaton.by_kind(state, inside) for state in region}
    while todo:
        vector = todo.pop()
        if vector in seen:
            continue
        seen.add(vector)
        where = min(automaton.states[state].source if state else 0 for state, _ in vector)
        if sum(count for _, count in vector) > limit:
            raise slow(f"alternatives and optional parts that can match the same text in more ways than the "
                       f"pattern's {limit:,} character positions", where, f"more than {limit:,} times n^2")
        if len(seen) > MAX_COMBINATIONS:
            raise too_large(f"more than {MAX_COMBINATIONS:,} combinations of ways to read a text", where)
        for kind in {kind for state, _ in vector for kind in step[state]}:
            found = {}
            for state, count in vector:
                for target, ways in step[state].get(kind, {}).items():
                    found[target] = found.get(target, 0) + count * ways
            if found:
                todo.append(tuple(sorted(found.items())))


def check_looks(automaton):
    """Refuse a look-ahead that can read without bound where ``re`` reaches it again and again (after a loop)."""
    if not any(not look.bounded for looks in automaton.tested for look in looks):
        return
    again = set(automaton.reach([state for part in automaton.loops for state in part], range(len(automaton.states))))
    for state in sorted(again):
        for look in sorted(automaton.tested[state], key=lambda look: look.source):
            if not look.bounded:
                raise slow("a look-ahead that can read to the end of the text, run after each step of a repeat",
                           look.source, "n^3")


def loop_source(automaton, component):
    """The position of the repeat whose loop a component is: the innermost loop around all of its states."""
    loops = [automaton.states[state].loops for state in component if state]
    common = loops[0]
    for other in loops[1:]:
        length = 0
        while length < min(len(common), len(other)) and common[length] == other[length]:
            length += 1
        common = common[:length]
    return common[-1] if common else min(automaton.states[state].source for state in component if state)


def doubled(component, edges):
    """Whether some state of the component reads a text back to itself in two ways (EDA), on pairs of states.

    Pairs of states reached by reading the same text, from the diagonal; a
    step by two different transitions (or by a transition that counts two
    ways) that stays among pairs which lead back to the diagonal doubles.
    """
    inside = set(component)
    own = {state: [edge for edge in edges[state] if edge[0] in inside] for state in component}
    steps, todo = {}, [(state, state) for state in component]
    while todo:
        pair = todo.pop()
        if pair in steps:
            continue
        found = []  # (the pair reached, whether by two different ways)
        for number, (first, first_mask, first_count, _) in enumerate(own[pair[0]]):
            for other, (second, second_mask, _, _) in enumerate(own[pair[1]]):
                if first_mask & second_mask:
                    same = pair[0] == pair[1] and number == other
                    found.append(((first, second), not same))
                    if same and first_count > 1:
                        found.append(((first, first), True))
        steps[pair] = found
        todo.extend(target for target, _ in found)
    into = {}  # the pairs that lead back to the diagonal: backwards from it
    for pair, found in steps.items():
        for target, _ in found:
            into.setdefault(target, []).append(pair)
    back = {pair for pair in steps if pair[0] == pair[1]}
    todo = list(back)
    while todo:
        for pair in into.get(todo.pop(), ()):
            if pair not in back:
                back.add(pair)
                todo.append(pair)
    return any(differs and target in back for pair in back for target, differs in steps[pair])


def reachable(starts, onward):
    """The nodes reachable from ``starts`` (themselves too) in a graph given as ``onward[node]``, a set of nodes."""
    seen, todo = set(starts), list(starts)
    while todo:
        for node in onward[todo.pop()] - seen:
            seen.add(node)
            todo.append(node)
    return seen


def shared(components, start, goal, edges, of, onward):
    """Whether two loops share text (IDA): p of the first, q of the second and a text v with p→p, p→q, q→q on v;
    found on triples of states reading the same text, from (p, p, q) to (p, q, q)."""
    backward = [set() for _ in onward]
    for node, later in enumerate(onward):
        for target in later:
            backward[target].add(node)
    middle = reachable([start], onward) & reachable([goal], backward)
    between = {state for state in of if of[state] in middle}
    in_first, in_second = set(components[start]), set(components[goal])
    for p in components[start]:
        for q in components[goal]:
            seen, todo = set(), [(p, p, q)]
            while todo:
                triple = todo.pop()
                for a, mask_a, *_ in edges[triple[0]]:
                    if a not in in_first:
                        continue
                    for b, mask_b, *_ in edges[triple[1]]:
                        if b not in between or not mask_a & mask_b:
                            continue
                        for c, mask_c, *_ in edges[triple[2]]:
                            if c in in_second and mask_a & mask_b & mask_c:
                                if (a, b, c) == (p, q, q):
                                    return True
                                if (a, b, c) not in seen:
                                    seen.add((a, b, c))
                                    todo.append((a, b, c))
    return False


def check_matching_time(tree, positions):
    """Refuse (``ValueError``) a parsed pattern on which ``re``'s search for all matches could take more than
    quadratic time; ``positions`` (``Parser.positions``) places its parts in the source for the message. Returns
    the power of n that bounds its time: 1 (linear) or 2.

    >>> from bpelab.text.oniguruma import Parser
    >>> parser = Parser("\\\\s*\\\\s*x")
    >>> check_matching_time(parser.parse(), parser.positions)
    Traceback (most recent call last):
    ...
    ValueError: a repeat that can match the same text as the repeat at position 0 before it at position 3 of the \
pattern: Python's re could take time growing as n^3 on a text of n characters (it tries a match at every start); \
only patterns whose time is at most n^2 (times the pattern's size) are read
    """
    with collector_paused():  # loading, a file's whole JSON is alive: the collector would walk it again and again
        return check(Automaton(tree, dict(positions), check))
