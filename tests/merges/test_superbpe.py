"""SuperBPE: the official code's splits, trainer and encoding, reproduced; the lab's SuperBPE of before, reachable.

The official code is the paper's repository, github PythonNut/superbpe
(``scripts/train_tokenizer.sh``, ``scripts/extend_tokenizer.sh``, ``utils.py``:
Hugging Face's pre-tokenizers, copied below as facts, and ``BpeTrainer``),
and its trainer, the ``tokenizers`` fork alisawuffles/tokenizers-superbpe,
restated in ``tests/merges/superbpe_fork.py`` and checked here against stock
``tokenizers`` 0.23.3. The lab must give the restatement's merges, and its
tokenizers the IDs ``tokenizers`` gives with the official split.
"""

import json
import os
import random
import re
import tempfile
import unicodedata
import unittest
from collections import Counter

import bpe
from bpe import SuperBPE, Tokenizer, chunks
from bpelab.byte_level import SINGLE_BYTES, bytes_to_display
from bpelab.merges.training import SPLITS
from bpelab.text import patterns
from make_corpus import corpus
from tests.clients import require_module
from tests.in_process import run_here
from tests.merges.superbpe_fork import train_extend

REPOSITORY_WORDS = (r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?"
                    r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*"
                    r"|\s*[\r\n]+|\s+(?!\S)|\s+")
REPOSITORY_SPLIT = r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)"
"""The repository's regexes since November 2025 (scripts/train_tokenizer.sh, scripts/extend_tokenizer.sh)."""

PAPER_DIGITS = r"(?=(\d{3})+(?!\d))"
PAPER_WORDS = PAPER_DIGITS + r"| ?\p{L}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
"""The paper's (utils.py, train_or_extend_tokenizer, until November 2025): stage 1, and stage 2's ``PAPER_DIGITS``."""

PIECES = [" ", "  ", "   ", "\n", "\r\n", "\n\n", "\t", "a", "Zq", "é", "ß", "1", "٣", "12345", ".", ",", "!!", "/", "//",
          "'", "--", ": ", "\x1c", "\x85", "\u00a0", "\u3000", "\u0301", "🍪", "𝔘", "中文", "²", "Ⅷ", "𝟘", "1234567"]
"""Pieces whose neighbours the splits' alternatives and look-arounds care about."""


def official_pre_tokenizer(split, stage, byte_level=True):
    """The official code's pre-tokenizer for a stage of a split (with its byte level, as its scripts run it)."""
    from tokenizers import Regex, pre_tokenizers

    regex = {("repository", 1): REPOSITORY_WORDS, ("repository", 2): REPOSITORY_SPLIT, ("paper", 1): PAPER_WORDS,
             ("paper", 2): PAPER_DIGITS}[split, stage]
    steps = [pre_tokenizers.Split(Regex(regex), "isolated")]
    if split == "paper":
        steps.insert(0, pre_tokenizers.Digits(individual_digits=False))
    if byte_level:
        steps.append(pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False))
    return pre_tokenizers.Sequence(steps)


def assigned_unicode(rng, length):
    """Random text from every plane, of characters Unicode 14.0.0 assigns (no lone surrogates)."""
    chars = []
    while len(chars) < length:
        char = chr(rng.randint(0, rng.choice([0x7F, 0x7FF, 0xFFFF, 0x10FFFF])))
        if unicodedata.category(char) not in ("Cn", "Cs"):
            chars.append(char)
    return "".join(chars)


def samples(seed, count):
    """Random text from every plane, and random strings of ``PIECES``."""
    rng = random.Random(seed)
    return ([assigned_unicode(rng, rng.randint(0, 40)) for _ in range(count)]
            + ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 16))) for _ in range(count)])


def random_text(rng):
    """A small random corpus with words, digits, punctuation and whitespace of every kind that matters here."""
    words = ["a", "ab", "ba", "abc", "ca", "é", "A", "Ab", "'s", "1", "12", "x1", "!", "..", ",", "-", "--", "/", "\t",
             "\t \n", "  ", "\n", ":", "1234", "²"]
    return "".join(rng.choice(words) + rng.choice(["", " ", " ", "\n", ". ", ": "]) for _ in range(rng.randint(1, 70)))


def lines(text):
    """The lines of a text as the official trainer reads them (each ends after its line feed)."""
    return re.findall(r"[^\n]*\n|[^\n]+", text)


def words(text, pattern, byte_level, by_line=True):
    """A text's chunks with their counts, as Hugging Face's trainer gets them (display characters at the byte level)."""
    counts = Counter(chunk for piece in (lines(text) if by_line else [text]) for chunk in chunks(piece, pattern))
    return Counter({bytes_to_display(chunk.encode("utf-8")) if byte_level else chunk: count
                    for chunk, count in counts.items()})


def official_merges(text, size, byte_level, superbpe, inherited=None, passed_over=None):
    """The merges the official code learns on ``text`` with the lab's ``vocab_size`` (restated, ``superbpe_fork``).

    Stage 1 to t - 1 merges, as ``head -n t`` of its merges file keeps them
    (put in ``inherited``, a list, if given); stage 2 to the lab's number of
    merges, the alphabet being the characters (or bytes) the text holds, as
    Hugging Face counts it (each merge the limits refuse in ``passed_over``).
    """
    merges = size - (256 if byte_level else len(set(text)) + 1)
    stage_one, stage_two = (words(text, pattern, byte_level, superbpe.by_line) for pattern in SPLITS[superbpe.split])
    alphabet = len({char for word in stage_two for char in word})
    first = train_extend(stage_one, alphabet + min(max(superbpe.t - 1, 0), merges))
    if inherited is not None:
        inherited += first
    return train_extend(stage_two, alphabet + merges, first, limits=superbpe.limits,
                        space="Ġ" if byte_level else " ", passed_over=passed_over)


def word_count(token):
    """How many words (pieces between spaces) a token's bytes hold."""
    return sum(1 for word in token.split(b" ") if word)


def base_sequences(counts, byte_level):
    """Chunk counts as the base tokens ``reference_superbpe`` takes: characters, or single bytes."""
    return {tuple(SINGLE_BYTES[byte] for byte in chunk.encode("utf-8")) if byte_level else tuple(chunk): count
            for chunk, count in counts.items()}


def reference_merges(text, size, byte_level, transition, pattern, ties):
    """The merges ``reference_superbpe`` learns on ``text``, as a tokenizer lists them."""
    base = 256 if byte_level else len(set(text)) + 1
    learned = bpe.reference_superbpe(base_sequences(Counter(chunks(text, pattern)), byte_level),
                                     base_sequences(Counter(chunks(text, "superbpe")), byte_level),
                                     transition, size - base, ties=ties)
    shown = bytes_to_display if byte_level else str
    return [(shown(left), shown(right)) for (left, right), _ in learned]


TEXT = corpus() + "\n".join(["at 10 the park -- 2 cats!! sat; then 345 more...", "‘Quoted,’ she said: “yes.”"] * 20)
TOKENIZER = Tokenizer.train(TEXT, 700, byte_level=True, superbpe=101)
TODAYS = dict(superbpe=SuperBPE(101, by_line=False, limits=False, drop_unseen=False), pattern="o200k",
              ties="smallest", min_count=2)
"""The lab's SuperBPE of before as ``superbpe=100`` trained it, reached by name."""


class SplitTests(unittest.TestCase):
    """Each split's patterns cut as the official code's pre-tokenizers do."""

    def test_words_lines_and_single_punctuation_stay_together(self):
        self.assertEqual(chunks("at the park, mia.\n\nThen 1234 cats -- ok!!\n  x  ", "superbpe"),
                         ["at the park, mia.\n\nThen ", "123", "4", " cats", " --", " ok", "!!\n", " ", " x", "  "])
        self.assertEqual(chunks("at the park, mia.\n\nThen 1234567 cats²³ -- ok", "superbpe-paper"),
                         ["at the park, mia.\n\nThen ", "1", "234", "567", " cats", "²³", " -- ok"])
        self.assertEqual(chunks("I'll pay 12345²  3 ok", "superbpe-paper-words"),
                         ["I", "'", "ll", " pay", " ", "12", "345²", "  ", "3", " ok"])

    def test_the_stretches_between_matches_are_what_their_definition_says(self):
        # "Everything between two matches" said the plain way: characters where no alternative matches.
        matches = "{number}{{1,3}}| ?{symbol}{{2,}}[\r\n/]*| +(?!{not_white})"
        between = re.compile(patterns.fill_classes(f"{matches}|(?:(?!{matches})[\u0000-\U0010FFFF])+", "python"))
        for text in samples(1, 1000):
            self.assertEqual(chunks(text, "superbpe"), between.findall(text), text)

    @require_module("tokenizers")
    def test_each_pattern_cuts_as_the_official_pre_tokenizer(self):
        from tokenizers import Regex
        from tokenizers.pre_tokenizers import Split

        rng = random.Random(5)
        digits = ["".join(rng.choice("0123456789²³½Ⅷ١٢٣𝟘 a\n") for _ in range(rng.randint(0, 30))) for _ in range(300)]
        for (split, stage), name in [((split, stage), SPLITS[split][stage - 1]) for split in SPLITS for stage in (1, 2)]:
            official = official_pre_tokenizer(split, stage, byte_level=False)
            ours = Split(Regex(bpe.pattern_source(name, "oniguruma")), "isolated")
            for text in samples(2, 600) + digits:
                with self.subTest(pattern=name, text=text):
                    expected = chunks(text, name)
                    self.assertEqual([piece for piece, _ in official.pre_tokenize_str(text)], expected)
                    self.assertEqual([piece for piece, _ in ours.pre_tokenize_str(text)], expected)

    def test_safe_cuts(self):
        self.assertEqual(bpe.last_safe_cut("see 12 items, then 345 more", "superbpe"), 22)
        self.assertEqual(bpe.last_safe_cut("no digit. at all, here\n\nor here", "superbpe"), -1)
        self.assertEqual(bpe.last_safe_cut("a 1234", "superbpe"), -1)  # not between 123 and 4, nor after the end
        self.assertEqual(bpe.last_safe_cut("a 1234 b", "superbpe-paper"), 6)  # the end of a run, grouped from there
        self.assertEqual(bpe.last_safe_cut("a 1234", "superbpe-paper"), -1)

    def test_counting_line_by_line_cuts_each_line_alone(self):
        rng = random.Random(6)
        for _ in range(100):
            text = "".join(rng.choice(["a", "b c", " ", "\n", "1", "..", "\n\n", "  ", "1234"]) for _ in range(30))
            for pattern in ("superbpe", "superbpe-paper", "superbpe-words", "gpt2"):
                expected = Counter(chunk for line in lines(text) for chunk in chunks(line, pattern))
                for size in (1, 5):
                    found = bpe.count_chunks(bpe.text_blocks(text, size), pattern, by_line=True)
                    self.assertEqual(list(found.items()), list(expected.items()), (text, pattern, size))


class OfficialTrainerTests(unittest.TestCase):
    """The fork's trainer, restated, equals stock ``tokenizers``; the lab equals the restatement."""

    @require_module("tokenizers")
    def test_the_restatement_is_stock_bpe_trainer_and_replays_its_own_merges(self):
        from tokenizers import Tokenizer as HuggingFaceTokenizer, models, trainers

        rng = random.Random(7)
        merges = 0
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "text.txt")
            for trial in range(120):
                text, split, stage = random_text(rng), rng.choice(list(SPLITS)), rng.choice([1, 2])
                with open(path, "w", encoding="utf-8", newline="") as stream:
                    stream.write(text)
                pre_tokenizer = official_pre_tokenizer(split, stage)
                counted = Counter(word for line in lines(text) for word, _ in pre_tokenizer.pre_tokenize_str(line))
                vocab_size = len({char for word in counted for char in word}) + rng.randint(1, 80)
                theirs = HuggingFaceTokenizer(models.BPE())
                theirs.pre_tokenizer = pre_tokenizer
                theirs.train([path], trainers.BpeTrainer(vocab_size=vocab_size, show_progress=False))
                expected = [tuple(merge) for merge in json.loads(theirs.to_str())["model"]["merges"]]
                with self.subTest(trial=trial, split=split, stage=stage):
                    self.assertEqual(counted, words(text, SPLITS[split][stage - 1], True))  # the lab's chunks, too
                    self.assertEqual(train_extend(counted, vocab_size), expected)
                    replayed = rng.randint(0, len(expected))
                    self.assertEqual(train_extend(counted, vocab_size, expected[:replayed]), expected)
                merges += len(expected)
        self.assertGreater(merges, 2500)

    def test_the_lab_learns_the_official_merges(self):
        rng = random.Random(21)
        merges = dropped = limited = 0
        for trial in range(200):
            text, byte_level = random_text(rng), rng.random() < 0.5
            choice = SuperBPE(rng.randint(0, 30), rng.choice(list(SPLITS)), by_line=rng.random() < 0.8,
                              limits=rng.random() < 0.8)
            size = (256 if byte_level else len(set(text)) + 1) + rng.randint(1, 60)
            with self.subTest(trial=trial, choice=choice, byte_level=byte_level):
                found = Tokenizer.train(text, size, byte_level=byte_level, superbpe=choice)
                inherited, passed_over = [], []
                self.assertEqual(found.merges, official_merges(text, size, byte_level, choice, inherited, passed_over))
                self.assertEqual(found.pattern, SPLITS[choice.split][1])
                dropped += len(set(inherited) - set(found.merges))
                limited += len(passed_over)
                merges += len(found.merges)
        self.assertGreater(merges, 4000)
        self.assertGreater(dropped, 10)  # inherited merges whose pair never occurs in stage 2 were left out
        self.assertGreater(limited, 5)  # and the limits passed over merges

    def test_todays_choices_give_the_definition_of_before(self):
        rng = random.Random(22)
        for trial in range(150):
            text, byte_level = random_text(rng), rng.random() < 0.5
            ties, pattern = rng.choice(["smallest", "first-seen", "greatest"]), rng.choice(["o200k", "cl100k", "lab"])
            transition = rng.randint(0, 30)
            size = (256 if byte_level else len(set(text)) + 1) + rng.randint(1, 60)
            choice = SuperBPE(transition + 1, by_line=False, limits=False, drop_unseen=False)
            with self.subTest(trial=trial, ties=ties):
                found = Tokenizer.train(text, size, byte_level=byte_level, pattern=pattern, superbpe=choice, ties=ties,
                                        min_count=2)
                self.assertEqual(found.merges, reference_merges(text, size, byte_level, transition, pattern, ties))

    def test_no_token_crosses_a_line_and_none_breaks_the_limits(self):
        text = ("the key: value of it\nand the cat sat on the mat again\n" * 30) + "x"
        for split in SPLITS:
            official = Tokenizer.train(text, 400, byte_level=True, superbpe=SuperBPE(30, split))
            whole = Tokenizer.train(text, 400, byte_level=True, superbpe=SuperBPE(30, split, by_line=False,
                                                                                   limits=False))
            tokens = [bpe.display_to_bytes(left + right) for left, right in official.merges]
            crossing = [bpe.display_to_bytes(left + right) for left, right in whole.merges]
            with self.subTest(split=split):
                self.assertFalse([token for token in tokens if b"\n" in token.rstrip(b"\n")])
                self.assertFalse([token for token in tokens if b": " in token or word_count(token) > 4])
                self.assertTrue([token for token in crossing if b"\n" in token.rstrip(b"\n")])
                self.assertTrue([token for token in crossing if b": " in token])
                self.assertTrue([token for token in crossing if word_count(token) > 4])

    def test_t_counts_as_head_does_and_the_defaults_are_the_official_trainers(self):
        plain = Tokenizer.train_from_counts(bpe.count_chunks([TEXT], "superbpe-words", by_line=True), 256 + 100,
                                            byte_level=True, pattern="superbpe-words", ties="huggingface", min_count=1)
        self.assertEqual(TOKENIZER.merges[:100], plain.merges)  # t = 101: the header line and 100 merges
        self.assertEqual((TOKENIZER.ties, TOKENIZER.pattern), ("huggingface", "superbpe"))
        later = [left + right for left, right in TOKENIZER.merges[100:]]
        self.assertTrue(any("Ġ" in token.lstrip("Ġ") for token in later))  # a token holding a space inside it
        self.assertEqual(Tokenizer.train(TEXT[:3000], 300, byte_level=True, superbpe=1).merges,
                         Tokenizer.train(TEXT[:3000], 300, byte_level=True, superbpe=SuperBPE(0)).merges)

    def test_files_and_counts_give_what_text_gives(self):
        for choice in (SuperBPE(101), TODAYS["superbpe"]):
            options = TODAYS if choice is TODAYS["superbpe"] else {"superbpe": choice}
            by_text = TOKENIZER if choice == SuperBPE(101) else Tokenizer.train(TEXT, 700, byte_level=True, **options)
            stage_one, stage_two = options.get("pattern", SPLITS[choice.split][0]), SPLITS[choice.split][1]
            counts = bpe.count_chunks([TEXT], stage_one, by_line=choice.by_line)
            spans = bpe.count_chunks([TEXT], stage_two, by_line=choice.by_line)
            from_counts = Tokenizer.train_from_counts(counts, 700, byte_level=True, superbpe_counts=spans, **options)
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "text.txt")
                with open(path, "wb") as stream:
                    stream.write(TEXT.encode("utf-8"))
                from_files = Tokenizer.train_from_files([path], 700, byte_level=True, block_size=7,
                                                        workers=2 if choice.by_line else 1, **options)
            self.assertEqual(from_counts.history, by_text.history)
            self.assertEqual(from_files.history, by_text.history)

    def test_progress_and_merges_are_heard_across_both_stages(self):
        heard, progress = [], []
        found = Tokenizer.train(TEXT, 700, byte_level=True, superbpe=101,
                                on_merge=lambda rank, entry: heard.append((rank, entry)),
                                progress=lambda done, target: progress.append((done, target)))
        self.assertEqual(heard, list(enumerate(TOKENIZER.history)))
        self.assertEqual(found.history, TOKENIZER.history)
        self.assertEqual(progress[-1], (len(TOKENIZER.merges), 700 - 256))
        self.assertEqual([done for done, _ in progress], sorted(done for done, _ in progress))

    def test_bad_options_are_refused_before_any_work(self):
        counts, spans = Counter(chunks("ab ab", "o200k")), Counter(chunks("ab ab", "superbpe"))
        for bad in (2.0, True, "10", SuperBPE(2.0), SuperBPE(True)):
            with self.assertRaisesRegex(TypeError, "superbpe must be None, t|SuperBPE's t must be an int"):
                Tokenizer.train("ab ab", 300, byte_level=True, superbpe=bad)
        for bad in (-1, SuperBPE(-1)):
            with self.assertRaisesRegex(ValueError, "SuperBPE's t must be 0 or more .head -n t of stage 1's merges"):
                Tokenizer.train("ab ab", 300, byte_level=True, superbpe=bad)
        with self.assertRaisesRegex(ValueError, "SuperBPE's split must be 'repository' or 'paper', not 'gpt2'"):
            Tokenizer.train("ab ab", 300, byte_level=True, superbpe=SuperBPE(1, "gpt2"))
        with self.assertRaisesRegex(TypeError, "SuperBPE's limits must be True or False"):
            Tokenizer.train("ab ab", 300, byte_level=True, superbpe=SuperBPE(1, limits=1))
        with self.assertRaisesRegex(ValueError, "needs superbpe_counts: .* 'superbpe' pattern"):
            Tokenizer.train_from_counts(counts, 300, byte_level=True, superbpe=1)
        with self.assertRaisesRegex(ValueError, "only for SuperBPE training"):
            Tokenizer.train_from_counts(counts, 300, byte_level=True, superbpe_counts=spans)
        with self.assertRaisesRegex(ValueError, "do not count the same text"):
            Tokenizer.train_from_counts(counts, 300, byte_level=True, superbpe=1, superbpe_counts={"ab ab ab": 1})
        with self.assertRaisesRegex(ValueError, "is not exactly one chunk"):
            Tokenizer.train_from_counts(counts, 300, byte_level=True, superbpe=1, superbpe_counts={"ab": 1, " 12": 1})
        with self.assertRaisesRegex(ValueError, "does not take add_prefix_space=True"):
            Tokenizer.train("ab ab", 300, byte_level=True, superbpe=1, add_prefix_space=True)
        with self.assertRaisesRegex(ValueError, "add_prefix_space=True counts in one process"):
            Tokenizer.train("ab ab", 300, byte_level=True, add_prefix_space=True, workers=2)


class FileTests(unittest.TestCase):
    """A SuperBPE tokenizer is an ordinary format-2 file, and encodes as ``tokenizers`` does with the official split."""

    def test_saved_and_loaded(self):
        body = TOKENIZER.to_json()
        self.assertEqual((body["format_version"], body["pattern"]), (2, "superbpe"))
        loaded = Tokenizer.from_json(json.loads(json.dumps(body)))
        self.assertEqual(loaded.encode(TEXT), TOKENIZER.encode(TEXT))

    @require_module("tokenizers")
    def test_hugging_face_gives_the_same_ids_with_the_export_and_with_the_official_split(self):
        from tokenizers import Tokenizer as HuggingFaceTokenizer

        for split in SPLITS:
            ours = TOKENIZER if split == "repository" else Tokenizer.train(TEXT, 700, byte_level=True,
                                                                           superbpe=SuperBPE(101, "paper"))
            body = json.loads(json.dumps(ours.to_huggingface()))
            exported = HuggingFaceTokenizer.from_str(json.dumps(body))
            body["pre_tokenizer"] = json.loads(official_pre_tokenizer(split, 2).__getstate__())
            official = HuggingFaceTokenizer.from_str(json.dumps(body))
            self.assertEqual(Tokenizer.from_json(json.loads(json.dumps(ours.to_json()))).merges, ours.merges)
            for text in [TEXT] + samples(3, 100):
                ids = ours.encode(text)
                with self.subTest(split=split, text=text[:40]):
                    self.assertEqual(exported.encode(text, add_special_tokens=False).ids, ids)
                    self.assertEqual(official.encode(text, add_special_tokens=False).ids, ids)

    def test_command_line_training_and_its_summary(self):
        with tempfile.TemporaryDirectory() as folder:
            path, out = os.path.join(folder, "text.txt"), os.path.join(folder, "tok.json")
            with open(path, "wb") as stream:
                stream.write(TEXT.encode("utf-8"))
            for source, stdin in ((path, b""), ("-", TEXT.encode("utf-8"))):  # files are read twice, stdin held
                status, output = run_command(["train", source, "--bytes", "--vocab-size", "700", "--superbpe", "101",
                                              "-o", out], stdin)
                self.assertEqual(status, 0, output)
                self.assertEqual(Tokenizer.load(out).merges, TOKENIZER.merges)
                # The summary counts the tokens of the training text, each line encoded as training cut it.
                tokens = sum(len(TOKENIZER.encode(line)) for line in lines(TEXT))
                self.assertIn(f"({len(TEXT):,} characters, {tokens:,} tokens)", output)
            short = TEXT[:4000]
            with open(path, "wb") as stream:
                stream.write(short.encode("utf-8"))
            for options, choices in [(TODAYS, ["--superbpe-whole-text", "--superbpe-no-limits", "--superbpe-keep-unseen",
                                               "--pattern", "o200k", "--ties", "smallest", "--min-count", "2"]),
                                     ({"superbpe": SuperBPE(101, "paper")}, ["--superbpe-split", "paper"])]:
                status, output = run_command(["train", path, "--bytes", "--vocab-size", "400", "--superbpe", "101",
                                              *choices, "-o", out])
                self.assertEqual(status, 0, output)
                self.assertEqual(Tokenizer.load(out).merges, Tokenizer.train(short, 400, byte_level=True,
                                                                             **options).merges)
            status, output = run_command(["train", path, "--bytes", "--vocab-size", "700", "--superbpe-no-limits",
                                          "-o", out])
            self.assertEqual((status, output), (2, "bpe: --superbpe-no-limits is a choice of SuperBPE's: give "
                                                   "--superbpe T as well (see bpe train --help)\n"))


def run_command(arguments, stdin=b""):
    """Run the command line in this process (``tests.in_process.run_here``); return its status, then stderr and stdout."""
    result = run_here(*arguments, stdin=stdin)
    return result.returncode, (result.stderr + result.stdout).decode("utf-8")


if __name__ == "__main__":
    unittest.main()
