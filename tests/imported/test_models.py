"""The one door: every kind of model a ``Tokenizer`` holds answers the same interface, and none hides a method.

``bpelab.imported.models.make_model`` builds the lab's own kind
(``bpelab.merges.lab_model.LabModel``) and the two imported kinds; the
``Tokenizer`` calls each the same way, so these tests build one of every
kind (characters and bytes of the lab's, a byte-level and a
SentencePiece-style Hugging Face file) and hold them to the interface.
"""

import os
import unittest

from bpe import Tokenizer
from bpelab.imported.models import make_model
from tests import ROOT
from tests.imported.test_sentencepiece import loaded, small_file

INTERFACE = ("byte_level", "pattern", "alphabet", "merges", "vocab", "ids", "special_tokens", "add_prefix_space",
             "pipeline", "decoded", "cache", "decodes_bytes", "offers_dropout", "skips_special_tokens", "segments",
             "encode_segment", "chunks", "start_ids", "decode", "description")
"""What ``bpe.Tokenizer`` asks of its model, whatever its kind (``bpelab.merges.lab_model``'s docstring)."""

DESCRIPTION = {"base", "unknown_id", "decodes_bytes", "ignore_merges", "one_merge_at_a_time", "added_ids",
               "pipeline", "dropout", "skip_special_tokens"}


def every_kind():
    """One tokenizer of each kind of model, by name."""
    return {
        "characters": Tokenizer.train("the cat sat on the mat, the cat sat", 30),
        "bytes": Tokenizer.train("the cat sat on the mat, the cat sat", 270, byte_level=True,
                                 special_tokens=["<|end|>"], add_prefix_space=True),
        "imported bytes": Tokenizer.load_huggingface(os.path.join(ROOT, "tests", "data", "hf", "ranked.json")),
        "imported characters": loaded(small_file()),
    }


class OneDoorTests(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.kinds = every_kind()

    def test_every_kind_has_the_interface_and_comes_from_one_constructor(self):
        kinds = {type(tokenizer._model).__name__ for tokenizer in self.kinds.values()}
        self.assertEqual(kinds, {"LabModel", "GivenVocabulary", "CharacterVocabulary"})
        for name, tokenizer in self.kinds.items():
            with self.subTest(kind=name):
                model = tokenizer._model
                self.assertEqual([part for part in INTERFACE if not hasattr(model, part)], [])
                self.assertEqual(set(tokenizer.describe()), DESCRIPTION)
                arguments = (None if tokenizer.pipeline is not None or tokenizer.byte_level else tokenizer.alphabet,
                             tokenizer.merges)
                if tokenizer.pipeline is None:
                    rebuilt = make_model(*arguments, tokenizer.byte_level, tokenizer.pattern, tokenizer.special_tokens,
                                         tokenizer.add_prefix_space, None, None)
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


if __name__ == "__main__":
    unittest.main()
