"""The rules every trainer shares, ``bpe.py``'s definitions and the fast engine alike: ties, token order, progress.

``bpe.best_pair`` and ``bpe.reference_train`` (the definitions) and
``bpelab.merges.engine`` (the fast trainer) choose among equally frequent
pairs by the same named rules, number the base tokens in the same order for
the rules that compare IDs, and report progress the same way. This module is
that shared vocabulary, below both, so that the lesson's first training loop
needs nothing from the engine.
"""

from typing import Union

from bpelab.byte_level import BYTE_TO_CHAR

Token = Union[str, bytes]
"""A token: a string of characters, or (inside training at the byte level) a string of bytes."""

Pair = tuple
"""Two adjacent tokens, (left, right)."""

TIE_RULES = ("smallest", "first-seen", "greatest", "huggingface", "rustbpe")
"""How ``bpe.best_pair`` chooses among equally frequent pairs (see there), and so how training breaks ties."""


def report_progress(progress, done, target, finished=False):
    """Call ``progress(done, target)`` at every hundredth of the target, and once at the end.

    About a hundred calls per run, however many merges: enough for a
    progress bar, too few to slow training down.
    """
    if progress is None:
        return
    on_step = done % max(1, target // 100) == 0
    if finished and on_step and done > 0:
        return  # this count was already reported
    if on_step or finished:
        progress(done, target)


def id_order(token: Token, ties: str):
    """What the ID rules sort base tokens by: the token itself, or for ``"huggingface"`` its display form.

    Hugging Face's trainer sees byte-level text as GPT-2's display
    characters and sorts its alphabet by them (``Ġ``, the space, comes after
    the letters); characters are their own display form.
    (``bpe.reference_train`` numbers base tokens in this order, and
    ``bpelab.merges.engine`` codes them in it.)
    """
    if ties == "huggingface" and isinstance(token, bytes):
        return "".join(BYTE_TO_CHAR[byte] for byte in token)
    return token
