"""Megatron-LM's and datatrove's token files, read back by their readers restated from the published source.

The real readers need torch, so each is restated here from its file, with
the checks it makes:

- Megatron: ``megatron/core/datasets/indexed_dataset.py`` in the
  megatron-core 0.16.1 wheel (``_IndexReader``, ``IndexedDataset``: the
  header, version and dtype code; the asserts that the sequences number
  the last document index; each sequence read at its pointer).
- datatrove: ``datatrove/utils/dataset.py`` in the datatrove 0.10.1 wheel
  (``DatatroveFileDataset``: windows of ``seq_len + 1`` tokens, of the width
  ``token_size``; positions from the ``.ds.index`` ends that fall in a
  window) and the first line of ``.ds.metadata`` as
  ``datatrove/pipeline/tokens/merger.py`` reads it.
"""

import array
import os
import struct
import sys
import unittest

from bpe import Tokenizer
from bpelab.corpora import token_formats
from tests.corpora.test_prepare import SPECIAL, TEXTS, TOKENIZERS, InAFolderOfTexts
from tests.in_process import run_here

NUMPY_TYPES = {1: "B", 2: "b", 3: "h", 4: "i", 5: "q", 6: "d", 7: "f", 8: "H"}
"""Megatron's ``DType`` codes, as ``array`` type codes (uint8 ... uint16)."""


def numbers(typecode, data, offset, count):
    """``count`` little-endian numbers of ``typecode`` from ``data`` at byte ``offset`` (``numpy.frombuffer``)."""
    values = array.array(typecode)
    values.frombytes(data[offset:offset + count * values.itemsize])
    if sys.byteorder == "big":
        values.byteswap()
    assert len(values) == count, "the file is shorter than its index says"
    return values.tolist()


def megatron_documents(prefix):
    """Each document of a Megatron indexed dataset as its list of sequences, each a list of IDs; and the dtype."""
    with open(prefix + ".idx", "rb") as stream:
        index = stream.read()
    assert index[:9] == b"MMIDIDX\x00\x00", "bad header"
    version, code, sequence_count, document_count = struct.unpack_from("<QBQQ", index, 9)
    assert version == 1, "bad version"
    offset = 9 + 8 + 1 + 8 + 8
    lengths = numbers("i", index, offset, sequence_count)
    pointers = numbers("q", index, offset + 4 * sequence_count, sequence_count)
    documents = numbers("q", index, offset + 12 * sequence_count, document_count)
    assert len(index) == offset + 12 * sequence_count + 8 * document_count, "bytes after the index"
    assert sequence_count == documents[-1]  # IndexedDataset.__init__'s asserts
    with open(prefix + ".bin", "rb") as stream:
        data = stream.read()
    sequences = [numbers(NUMPY_TYPES[code], data, pointer, length) for pointer, length in zip(pointers, lengths)]
    return [sequences[start:end] for start, end in zip(documents, documents[1:])], NUMPY_TYPES[code]


def datatrove_window(path, seq_len, token_size, item):
    """``DatatroveFileDataset(path, seq_len, token_size, return_positions=True)[item]``: its IDs and positions."""
    with open(path, "rb") as stream:
        data = stream.read()
    with open(path + ".index", "rb") as stream:
        ends = numbers("Q", stream.read(), 0, os.path.getsize(path + ".index") // 8)
    start = item * (seq_len + 1)
    ids = numbers("H" if token_size == 2 else "I", data, start * token_size, seq_len + 1)
    inside = [0] + [end - start for end in ends if start < end <= start + seq_len]
    positions, position = [], 0
    for place in range(seq_len + 1):
        position = 0 if place in inside else position + 1
        positions.append(position)
    return ids, positions


class FormatTests(InAFolderOfTexts, unittest.TestCase):

    def expected(self, tokenizer, separator):
        """Each file's IDs, as encode gives them, with the separator's after each if there is one."""
        ending = [] if separator is None else [tokenizer.special_tokens[separator]]
        return [tokenizer.encode(text, allowed_special="all") + ending for text in TEXTS]

    def test_megatron_reads_every_document_back(self):
        for name, tokenizer in TOKENIZERS.items():
            for separator, processes in ((SPECIAL, 2), (None, 1)):  # without one, the empty file has no sequence
                with self.subTest(tokenizer=name, separator=separator):
                    out = os.path.join(self.folder, "train.bin")
                    summary = tokenizer.encode_files(self.paths, out, workers=processes, separator=separator,
                                                     allowed_special="all", block_size=97, format="megatron")
                    documents, typecode = megatron_documents(out[:-4])
                    self.assertEqual(typecode, "H")
                    self.assertEqual(documents, [[ids] if ids else [] for ids in self.expected(tokenizer, separator)])
                    self.assertEqual(token_formats.read_documents(out, "megatron"), self.expected(tokenizer, separator))
                    self.assertEqual((summary["format"], summary["dtype"]), ("megatron", "uint16"))
                    flat = os.path.join(self.folder, "flat.bin")
                    tokenizer.encode_files(self.paths, flat, separator=separator, allowed_special="all")
                    with open(out, "rb") as mine, open(flat, "rb") as theirs:
                        self.assertEqual(mine.read(), theirs.read(), "the same IDs as the flat file")

    def test_datatrove_reads_every_document_back(self):
        for name, tokenizer in TOKENIZERS.items():
            with self.subTest(tokenizer=name):
                out = os.path.join(self.folder, "train.ds")
                summary = tokenizer.encode_files(self.paths, out, separator=SPECIAL, allowed_special="all",
                                                 format="datatrove", block_size=301, workers=2)
                with open(out + ".metadata", encoding="utf-8") as stream:
                    first, count, _ = stream.read().split("\n")
                self.assertEqual(first, f"sha256:{summary['tokenizer_sha256']}|2")
                self.assertEqual(int(count), summary["tokens"])
                documents = self.expected(tokenizer, SPECIAL)
                self.assertEqual(token_formats.read_documents(out, "datatrove"), documents)
                ids, positions = datatrove_window(out, summary["tokens"] - 1, 2, 0)  # one window, all the tokens
                self.assertEqual(ids, [token for document in documents for token in document])
                self.assertEqual(positions, [place for document in documents for place in range(len(document))])
                item = len(documents[0]) // 100  # a window of 100 tokens that the first document ends in
                start = 100 * item
                places = [place for document in documents for place in range(len(document))][start:start + 100]
                ids, positions = datatrove_window(out, 99, 2, item)
                self.assertEqual(ids, [token for document in documents for token in document][start:start + 100])
                self.assertEqual(positions, list(range(places.index(0))) + places[places.index(0):])

    def test_wide_vocabularies_take_each_projects_width(self):
        for n_vocab, megatron, datatrove in ((65_499, "H", 2), (65_500, "i", 2), (65_537, "i", 4)):
            tokenizer = Tokenizer(None, [], byte_level=True, special_tokens={"<|end|>": n_vocab - 1})
            with self.subTest(n_vocab=n_vocab):
                out = os.path.join(self.folder, "wide")
                tokenizer.encode_files(self.paths[2:3], out + ".bin", separator="<|end|>", format="megatron")
                self.assertEqual(megatron_documents(out), ([[list(TEXTS[2].encode("utf-8")) + [n_vocab - 1]]],
                                                           megatron))
                summary = tokenizer.encode_files(self.paths[1:3], out + ".ds", format="datatrove")
                with open(out + ".ds.metadata", encoding="utf-8") as stream:
                    self.assertEqual(stream.readline(), f"sha256:{summary['tokenizer_sha256']}|{datatrove}\n")
                ids, positions = datatrove_window(out + ".ds", summary["tokens"] - 1, datatrove, 0)
                self.assertEqual(ids, list(TEXTS[2].encode("utf-8")))

    def test_bad_names_are_refused_before_anything_is_written(self):
        tokenizer = TOKENIZERS["bytes"]
        for format, name, ending in (("megatron", "train.ds", ".bin"), ("datatrove", "train.bin", ".ds"),
                                     ("parquet", "train.bin", None)):
            with self.subTest(format=format):
                with self.assertRaisesRegex(ValueError, f"ends in \\{ending}$" if ending else
                                            "'parquet' is not one the lab writes; use one of bin, megatron"):
                    tokenizer.encode_files(self.paths, os.path.join(self.folder, name), format=format)
                self.assertEqual(sorted(os.listdir(self.folder)), [os.path.basename(path) for path in self.paths])

    def test_a_document_longer_than_a_megatron_sequence_is_refused(self):
        self.assertEqual(len(token_formats.megatron_index("uint16", [token_formats.MAX_SEQUENCE])), 34 + 4 + 8 + 16)
        with self.assertRaisesRegex(ValueError, "^a document of 2,147,483,648 tokens is longer than a Megatron "
                                                "sequence can be \\(2,147,483,647\\); split the file$"):
            token_formats.megatron_index("uint16", [5, 1 << 31])

    def test_a_partial_or_foreign_index_is_one_line_naming_it(self):
        tokenizer = TOKENIZERS["bytes"]
        megatron, datatrove = (os.path.join(self.folder, name) for name in ("m.bin", "d.ds"))
        tokenizer.encode_files(self.paths, megatron, separator=SPECIAL, allowed_special="all", format="megatron")
        tokenizer.encode_files(self.paths, datatrove, separator=SPECIAL, allowed_special="all", format="datatrove")
        index = os.path.join(self.folder, "m.idx")
        with open(index, "rb") as stream:
            whole = stream.read()
        cases = [
            (index, whole[:-1], "megatron", "m.idx: partial or too long: 121 bytes where its header's 4 sequences "
                                            "and 5 document indices take 122$"),
            (index, whole[:20], "megatron", "m.idx: not a Megatron index"),
            (index, b"TNTIDX\x00\x00" + whole[9:], "megatron", "m.idx: not a Megatron index .it starts with"),
            (index, whole[:9] + b"\x02" + whole[10:], "megatron", "m.idx: version 2 with dtype code 8; only"),
            (index, whole[:-8] + b"\x03" + bytes(7), "megatron", "m.idx: its sequences and documents do not"),
            (datatrove + ".index", bytes(36), "datatrove", "d.ds.index: partial: 36 bytes, not whole 8-byte ends"),
            (datatrove + ".index", bytes(32), "datatrove", "d.ds.index: its document ends do not rise to"),
            (datatrove + ".metadata", b"gpt2\n12\n", "datatrove", "d.ds.metadata: its first line is not NAME|2"),
        ]
        for path, broken, format, message in cases:
            with open(path, "rb") as stream:
                kept = stream.read()
            with open(path, "wb") as stream:
                stream.write(broken)
            with self.subTest(message=message), self.assertRaisesRegex(ValueError, f"^{self.folder}/{message}"):
                token_formats.read_documents(megatron if format == "megatron" else datatrove, format)
            with open(path, "wb") as stream:
                stream.write(kept)
        self.assertEqual(token_formats.read_documents(megatron, "megatron"), self.expected(tokenizer, SPECIAL))

    def test_an_old_index_never_sits_beside_new_ids(self):
        tokenizer = TOKENIZERS["bytes"]
        out = os.path.join(self.folder, "train.ds")
        tokenizer.encode_files(self.paths[3:], out, format="datatrove")
        with open(out + ".index", "rb") as stream:
            before = stream.read()
        with self.assertRaisesRegex(ValueError, "special token"):
            tokenizer.encode_files(self.paths, out, format="datatrove")  # TEXTS[0] holds a special token
        with open(out + ".index", "rb") as stream:
            self.assertEqual(stream.read(), before, "a failed run leaves the earlier set whole")
        self.assertEqual(sorted(name for name in os.listdir(self.folder) if name.startswith("train")),
                         ["train.ds", "train.ds.index", "train.ds.json", "train.ds.metadata"])

    def test_prepare_writes_each_format(self):
        tokenizer = os.path.join(self.folder, "tok.json")
        TOKENIZERS["bytes"].save(tokenizer)
        expected = self.expected(TOKENIZERS["bytes"], SPECIAL)
        out = os.path.join(self.folder, "train")
        for format, name, beside in (("megatron", out + ".bin", [out + ".idx"]),
                                     ("datatrove", out + ".ds", [out + ".ds.index", out + ".ds.metadata"])):
            with self.subTest(format=format):
                result = run_here("prepare", "-t", tokenizer, "-o", name, "--format", format, "--separator", SPECIAL,
                                  "--allow-special", *self.paths, text=True)
                self.assertEqual(result.stdout, f"{name}: {sum(map(len, expected)):,} tokens as uint16 from 4 files; "
                                                f"described in {', '.join(beside)}, {name}.json\n")
        self.assertEqual(megatron_documents(out)[0], [[ids] for ids in expected])
        result = run_here("prepare", "-t", tokenizer, "-o", out + ".bin", "--format", "datatrove", *self.paths,
                          text=True)
        self.assertEqual((result.returncode, result.stderr), (1, f"bpe: {out}.bin: a datatrove file of IDs is named "
                                                                 "PREFIX.ds; give an output that ends in .ds\n"))


if __name__ == "__main__":
    unittest.main()
