"""The one door: every kind of model a ``Tokenizer`` holds answers the same interface, and none hides a method.

``bpelab.imported.models.make_model`` builds the lab's own kind
(``bpelab.merges.lab_model.LabModel``), PickyBPE's (``picky_model.PickyModel``,
a tokenizer with removals) and the two imported kinds; the ``Tokenizer``
calls each the same way, so these tests build one of every kind (characters
and bytes of the lab's, PickyBPE's, a byte-level and a SentencePiece-style
Hugging Face file) and hold them to the interface.
"""

import os
import unittest

from bpe import Tokenizer
from bpelab.imported.models import make_model
from tests import ROOT
from tests.imported.test_sentencepiece import loaded, small_file

INTERFACE = ("byte_level", "pattern", "alphabet", "merges", "vocab", "ids", "special_tokens", "add_prefix_space",
             "pipeline", "removals", "decoded", "cache", "decodes_bytes", "offers_dropout", "skips_special_tokens",
             "segments", "encode_segment", "chunks", "start_ids", "decode", "dropout", "description")
"""What ``bpe.Tokenizer`` asks of its model, whatever its kind (``bpelab.merges.lab_model``'s docstring)."""

DESCRIPTION = {"base", "unknown_id", "decodes_bytes", "ignore_merges", "one_merge_at_a_time", "added_ids",
               "pipeline", "dropout", "skip_special_tokens", "removals"}


def every_kind():
    """One tokenizer of each kind of model, by name."""
    return {
        "characters": Tokenizer.train("the cat sat on the mat, the cat sat", 30),
        "bytes": Tokenizer.train("the cat sat on the mat, the cat sat", 270, byte_level=True,
                                 special_tokens=["<|end|>"], add_prefix_space=True),
        "picky": Tokenizer.train_picky("ab ab ab abc abc abc abc abd " * 3, 270, threshold=0.5, byte_level=True),
        "imported bytes": Tokenizer.load_huggingface(os.path.join(ROOT, "tests", "data", "hf", "ranked.json")),
        "imported characters": loaded(small_file()),
    }


class OneDoorTests(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.kinds = every_kind()

    def test_every_kind_has_the_interface_and_comes_from_one_constructor(self):
        kinds = {type(tokenizer._model).__name__ for tokenizer in self.kinds.values()}
        self.assertEqual(kinds, {"LabModel", "PickyModel", "GivenVocabulary", "CharacterVocabulary"})
        for name, tokenizer in self.kinds.items():
            with self.subTest(kind=name):
                model = tokenizer._model
                self.assertEqual([part for part in INTERFACE if not hasattr(model, part)], [])
                self.assertEqual(set(tokenizer.describe()), DESCRIPTION)
                arguments = (None if tokenizer.pipeline is not None or tokenizer.byte_level else tokenizer.alphabet,
                             tokenizer.merges)
                if tokenizer.pipeline is None:
                    rebuilt = make_model(*arguments, tokenizer.byte_level, tokenizer.pattern, tokenizer.special_tokens,
                                         tokenizer.add_prefix_space, None, None, tokenizer.removals)
                else:
                    rebuilt = make_model(None, tokenizer.merges, tokenizer.byte_level, None, (), False,
                                         [token if token in tokenizer.ids else None for token in tokenizer.vocab],
                                         tokenizer.pipeline)
                self.assertIs(type(rebuilt), type(model))
                self.assertEqual(rebuilt.vocab, model.vocab)

    def test_no_attribute_hides_a_method(self):
        for name, tokenizer in self.kinds.items():
            tokenizer.encode("the cat")  # (a cache filled, the merge ranks worked out)
            tokenizer.merge_rank
            for holder in (tokenizer, tokenizer._model):
                with self.subTest(kind=name, holder=type(holder).__name__):
                    methods = {attribute for attribute in dir(type(holder))
                               if callable(getattr(type(holder), attribute, None))}
                    self.assertEqual(sorted(set(vars(holder)) & methods), [])

    def test_a_text_is_its_chunks_each_encoded_alone(self):
        for name, tokenizer in self.kinds.items():
            for text in ("the cat sat", "  the mat, the cat\n", "é€ab cccc", ""):
                with self.subTest(kind=name, text=text):
                    ids = [token_id for chunk in tokenizer.chunks(text) for token_id in tokenizer.chunk_ids(chunk)]
                    self.assertEqual(ids, tokenizer.encode(text))
                    self.assertEqual(tokenizer.decode(ids, skip_special_tokens=False),
                                     tokenizer._model.decode(ids, False))

    def test_each_kind_offers_dropout_or_refuses_it_by_name(self):
        for name, tokenizer in self.kinds.items():
            with self.subTest(kind=name):
                self.assertIsNone(tokenizer._model.dropout(0.0, None, "subword-nmt"))  # no dropout draws nothing, for every kind
                with self.assertRaisesRegex(TypeError, "dropout must be a float"):
                    tokenizer.encode("the cat", dropout="0.5", seed=1)
                if tokenizer.describe()["dropout"]:  # p = 1 leaves every merge out: the chunks' start tokens
                    start = [tokenizer.token_to_id(token) for chunk in tokenizer.chunks("the cat")
                             for token in tokenizer.start_tokens(chunk)]
                    self.assertEqual(tokenizer.encode("the cat", dropout=1.0, seed=1), start)
                else:
                    with self.assertRaisesRegex(ValueError, "dropout is not supported for a (model imported|PickyBPE)"):
                        tokenizer.encode("the cat", dropout=0.5, seed=1)


if __name__ == "__main__":
    unittest.main()
