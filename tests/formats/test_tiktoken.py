"""tiktoken, given the lab's export, gives the lab's IDs and text; exports tiktoken would read otherwise are refused."""

import unittest

from bpe import Tokenizer
from tests.clients import require_module
from tests.lab_samples import BYTES, LAB, interop_samples


@require_module("tiktoken")
class TiktokenTests(unittest.TestCase):
    """tiktoken, loaded with our export, gives our IDs."""

    def test_same_ids_and_text(self):
        import tiktoken

        encoding = tiktoken.Encoding(**BYTES.to_tiktoken())
        for text in interop_samples():
            ids = BYTES.encode(text)
            self.assertEqual(encoding.encode_ordinary(text), ids, text[:40])
            self.assertEqual(encoding.decode(ids), BYTES.decode(ids))
        special = "mia<|endoftext|>leo"
        self.assertEqual(encoding.encode(special, allowed_special="all"), BYTES.encode(special, allowed_special="all"))

    def test_exports_are_refused_when_tiktoken_would_differ(self):
        with self.assertRaisesRegex(ValueError, "only a byte-level tokenizer"):
            LAB.to_tiktoken()
        ambiguous = Tokenizer(None, [("b", "c"), ("a", "b"), ("ab", "c")], byte_level=True)
        with self.assertRaisesRegex(ValueError, "'abc' as 'a' \\+ 'bc'"):
            ambiguous.to_tiktoken()


if __name__ == "__main__":
    unittest.main()
