"""Hugging Face ``tokenizers``, loading the lab's ``tokenizer.json``, gives the lab's IDs and text."""

import os
import tempfile
import unittest

from tests.clients import require_module
from tests.lab_samples import BYTES, LAB, interop_samples


@require_module("tokenizers")
class HuggingFaceTests(unittest.TestCase):
    """Hugging Face tokenizers, loaded from our tokenizer.json, gives our IDs."""

    def check(self, ours):
        """Save ``ours`` for Hugging Face, load it there, and compare on every sample."""
        from tokenizers import Tokenizer as HuggingFaceTokenizer

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "tokenizer.json")
            ours.save_huggingface(path)
            theirs = HuggingFaceTokenizer.from_file(path)
        for text in interop_samples():
            ids = ours.encode(text)
            self.assertEqual(theirs.encode(text, add_special_tokens=False).ids, ids, text[:40])
            self.assertEqual(theirs.decode(ids), ours.decode(ids), text[:40])

    def test_byte_level(self):
        self.check(BYTES)

    def test_character_level(self):
        self.check(LAB)


if __name__ == "__main__":
    unittest.main()
