"""The one door: every model a ``bpe.Tokenizer`` holds comes from one constructor, behind one interface.

``bpe.Tokenizer`` asks ``make_model`` for its model: the lab's own kind
(``bpelab.merges.lab_model.LabModel``, whose docstring lists the interface
every kind has) for ``Tokenizer(alphabet, merges)``, and with PickyBPE's
``removals`` its kind (``bpelab.merges.picky_model.PickyModel``); given an imported
vocabulary and pipeline (``Tokenizer(None, merges, byte_level=...,
vocab=..., pipeline=...)``) the imported kind of that level: a byte-level
vocabulary (``vocabulary.GivenVocabulary``: Llama 3, Qwen 3, gpt-oss) or
SentencePiece's kind (``sentencepiece.CharacterVocabulary``: Llama 2,
Gemma 3). The ``Tokenizer`` never asks which kind it holds.
"""

from bpelab.imported.sentencepiece import CharacterVocabulary
from bpelab.imported.vocabulary import GivenVocabulary
from bpelab.merges.lab_model import LabModel
from bpelab.merges.picky_model import PickyModel


def make_model(alphabet, merges, byte_level, pattern, special_tokens, add_prefix_space, vocab, pipeline,
               removals=()):
    """The model a ``bpe.Tokenizer`` is built with: the lab's own kind, or with ``vocab`` or ``pipeline`` given, the
    imported kind of that level, its vocabulary, merges and pipeline checked.

    An imported model's alphabet, pattern, special tokens and prefix space
    come from its vocabulary and pipeline: passing them is refused, and so
    are removals (only the lab's training, PickyBPE's, makes them).
    """
    if removals and (vocab is not None or pipeline is not None):
        raise ValueError("removals are PickyBPE's, whose tokenizers the lab trains: an imported vocab or pipeline "
                         "has none; leave removals out")
    if removals:
        return PickyModel(alphabet, merges, byte_level, pattern, special_tokens, add_prefix_space, removals)
    if vocab is None and pipeline is None:
        return LabModel(alphabet, merges, byte_level, pattern, special_tokens, add_prefix_space)
    imported = GivenVocabulary if byte_level else CharacterVocabulary
    return imported(vocab, merges, pipeline, byte_level, alphabet, pattern, special_tokens, add_prefix_space)
