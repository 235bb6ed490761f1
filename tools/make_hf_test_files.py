"""Write tests/data/hf/: small tokenizer.json files built with Hugging Face ``tokenizers``, and the IDs it gives.

The open models' real files are large and not ours to commit, so the
suite also holds four small files made with ``tokenizers`` 0.23.3 itself,
each with the features of one real file, and what that library gives on
a fixed list of texts (``expected.json``: the IDs of
``encode(text, add_special_tokens=False)``, with the post-processor, and
``decode``). The tests hold the lab to those IDs without the library, and,
where it is installed, check that it still gives them.

- ``ranked.json`` (Llama 3's kind): Llama 3's Split regex, ``ignore_merges``,
  merges that rebuild tokens and rank before the merges making their parts,
  a token no merge makes, special tokens after the vocabulary;
- ``nfc.json`` (Qwen 3's kind): the NFC normalizer, single digits, added
  tokens that are not special (``<think>``);
- ``sequence.json`` (DeepSeek V3's kind): a Sequence of three Splits, special
  tokens at IDs 0-2 (the bytes after them), added tokens with ``normalized``;
- ``steps.json``: the other steps: NFKD, Digits, every Split behaviour and
  ``invert``, ByteLevel with ``add_prefix_space`` and ``use_regex`` (GPT-2's),
  a TemplateProcessing post-processor.

Run ``python3 tools/make_hf_test_files.py`` (it needs ``tokenizers``);
``--check`` exits 1 if the files differ from a fresh build.
"""

import argparse
import json
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bpelab.writing import write_text_atomic  # noqa: E402 (the project's folder must be on the path first)

FOLDER = os.path.join(ROOT, "tests", "data", "hf")
VERSION = "0.23.3"

LLAMA3_REGEX = ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*"
                "|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
QWEN3_REGEX = LLAMA3_REGEX.replace("\\p{N}{1,3}", "\\p{N}")
DEEPSEEK_REGEXES = ["\\p{N}{1,3}", "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
                    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
                    "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"]

TRAINING_TEXT = "\n".join([
    "The quick brown fox jumps over the lazy dog; the dog doesn't mind, and THE FOX'S den is near.",
    "def encode(text):\n    return [ord(char) for char in text]  # 12345 67890\n",
    "Le café de l'été coûte 3,50 € ; la crème brûlée est délicieuse.",
    "Привет, мир! Как дела? Всё хорошо, спасибо.",
    "東京は日本の首都です。カタカナとひらがなと漢字。",
    "the the the then there these those other another brother",
    "über straße größe Ärger ﬁne ① ② ½ ²",
    "👍 👩‍👩‍👧 🙂 ★ ☆ ★ ★",
]) * 3

TEXTS = [
    "", "Hello world", "Hello  world", "  leading and trailing  ", "a\n\n  b\tc\r\nd",
    "HE'S here, isn't it? 'S 'll", "The quick brown fox jumps over the lazy dog.",
    "Le café de l'été", "Grüße aus Straßburg, Ærø", "Привет, мир!", "Καλημέρα κόσμε",
    "مرحبا بالعالم", "שלום עולם", "नमस्ते दुनिया", "สวัสดีชาวโลก", "你好世界，東京は日本の首都です",
    "ひらがなカタカナ漢字", "안녕하세요 세계", "def f(x):\n    return x ** 2  # 12345\n",
    "12345 3.14159 1,000,000 ١٢٣ ௧௨", "a,b;c--d---e xx-y", "👩‍👩‍👧 👍🏽 🙂🙂", "e\u0301 a\u0308 n\u0303 \u1abf",
    "ﬁne ① ½ ² ㎏ Ⅻ", "<|eot_id|>hi<|begin_of_text|>", "x<think>y</think>z<|im_end|>",
    "s<｜User｜>t<｜Assistant｜><｜begin▁of▁sentence｜>", "<s> not special </s>", "the then there theirs",
    "a supercalifragilistic day", "qzqz qzqzqz", "\u00ad\u200b\u2028\u3000\x1c\x1d", "a" * 300, " " * 40 + "x",
]
"""Texts of many scripts, code, digits, whitespace, emoji with ZWJ, combining marks and added tokens' text."""


def random_texts(count, seed=2026):
    """Random strings from every plane (code points Unicode 14.0.0 assigned, so that no table difference counts)."""
    import unicodedata
    rng = random.Random(seed)
    pool = [code for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF
            and (unicodedata.category(chr(code)) != "Cn" or code >= 0xF0000)]
    common = [ord(char) for char in " \n\t'sAaZz09.,-–—…\u0301\u200d"]
    return ["".join(chr(rng.choice(pool if rng.random() < 0.5 else common)) for _ in range(rng.randrange(1, 30)))
            for _ in range(count)]


def trained(pre_tokenizer, vocab_size, normalizer=None, special_tokens=()):
    """A byte-level BPE trained by ``tokenizers`` on ``TRAINING_TEXT`` with these steps, as a JSON body."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre_tokenizer
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, show_progress=False, special_tokens=list(special_tokens),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(TRAINING_TEXT.split("\n"), trainer)
    return json.loads(tokenizer.to_str())


def with_added(body, tokens):
    """The body with added tokens, each (text, special, normalized), added the library's way."""
    from tokenizers import AddedToken, Tokenizer

    tokenizer = Tokenizer.from_str(json.dumps(body))
    tokenizer.add_tokens([AddedToken(text, special=special, normalized=normalized) for text, special, normalized
                          in tokens])
    return json.loads(tokenizer.to_str())


def ranked_file():
    """Llama 3's kind: ignore_merges, and merges that rebuild tokens ahead of the merges making their parts."""
    from tokenizers import Regex, pre_tokenizers

    body = trained(pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(LLAMA3_REGEX), "isolated"),
                                            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]), 700)
    model = body["model"]
    merges = [tuple(merge.split(" ")) if isinstance(merge, str) else tuple(merge) for merge in model["merges"]]
    vocab, rng = model["vocab"], random.Random(18)
    first_made = {}
    for rank, (left, right) in enumerate(merges):
        first_made.setdefault(left + right, rank)
    known, extra = set(merges), []
    for token in sorted(first_made, key=first_made.get):  # another cut of a merged token, ranked before its parts
        cuts = [(token[:at], token[at:]) for at in range(1, len(token))]
        cuts = [cut for cut in cuts if cut[0] in vocab and cut[1] in vocab and cut not in known
                and max(first_made.get(cut[0], -1), first_made.get(cut[1], -1)) > 0]
        if cuts and rng.random() < 0.5:
            extra.append(rng.choice(cuts))
            known.add(extra[-1])
    for pair in extra:
        made = max(first_made.get(pair[0], 0), first_made.get(pair[1], 0))
        merges.insert(rng.randrange(0, made), pair)
    for token in ("qz", "qzq"):  # q z q z: one at a time gives qzq z, all occurrences of a pair at once qz qz
        vocab[token] = len(vocab)
    merges[:0] = [("qz", "q"), ("q", "z")]
    model["merges"] = [list(pair) for pair in merges]
    model["ignore_merges"] = True
    vocab["Ġsupercalifragilistic"] = len(vocab)  # a token no merge makes: only ignore_merges gives it
    return with_added(body, [("<|begin_of_text|>", True, False), ("<|eot_id|>", True, False)])


def nfc_file():
    """Qwen 3's kind: NFC, one digit at a time, added tokens that are not special."""
    from tokenizers import Regex, normalizers, pre_tokenizers

    body = trained(pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(QWEN3_REGEX), "isolated"),
                                            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]), 600,
                   normalizer=normalizers.NFC())
    return with_added(body, [("<|im_end|>", True, False), ("<think>", False, False), ("</think>", False, False)])


def sequence_file():
    """DeepSeek V3's kind: three Splits in a row, special tokens first, added tokens matched after normalizing."""
    from tokenizers import Regex, normalizers, pre_tokenizers

    steps = [pre_tokenizers.Split(Regex(regex), "isolated") for regex in DEEPSEEK_REGEXES]
    body = trained(pre_tokenizers.Sequence(steps + [pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]),
                   600, normalizer=normalizers.Sequence([]),
                   special_tokens=["<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜▁pad▁｜>"])
    return with_added(body, [("<｜User｜>", False, True), ("<｜Assistant｜>", False, True), ("<|EOT|>", True, True)])


def steps_file():
    """The other steps: NFKD, Digits, each Split behaviour, invert, GPT-2's ByteLevel, a template."""
    from tokenizers import Regex, normalizers, pre_tokenizers, processors

    steps = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.Split(Regex("[,;]"), "merged_with_previous"),
        pre_tokenizers.Split(Regex("-+"), "merged_with_next"),
        pre_tokenizers.Split(Regex("x"), "removed"),
        pre_tokenizers.Split(Regex("\\p{Lu}"), "contiguous"),
        pre_tokenizers.Split(Regex("[ab]+"), "isolated", invert=True),
        pre_tokenizers.ByteLevel(add_prefix_space=True, use_regex=True),
    ])
    body = trained(steps, 500, normalizer=normalizers.NFKD())
    body = with_added(body, [("<s>", True, False), ("</s>", True, False)])
    ids = {token["content"]: token["id"] for token in body["added_tokens"]}
    from tokenizers import Tokenizer
    tokenizer = Tokenizer.from_str(json.dumps(body))
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> $B </s>", special_tokens=[("<s>", ids["<s>"]), ("</s>", ids["</s>"])])
    return json.loads(tokenizer.to_str())


BUILDERS = {"ranked": ranked_file, "nfc": nfc_file, "sequence": sequence_file, "steps": steps_file}


def expected(bodies):
    """What ``tokenizers`` gives for every text with every file, as the text of expected.json: a case a line."""
    from tokenizers import Tokenizer

    tokenizers = {name: Tokenizer.from_str(json.dumps(body)) for name, body in bodies.items()}
    cases = []
    for number, text in enumerate(TEXTS + random_texts(60)):
        ids = {name: tokenizer.encode(text, add_special_tokens=False).ids for name, tokenizer in tokenizers.items()}
        case = {"text": text, "ids": ids, "decoded": {name: tokenizers[name].decode(each) for name, each in ids.items()}}
        if number < 8:
            case["with_template"] = {name: tokenizer.encode(text).ids for name, tokenizer in tokenizers.items()}
        cases.append(json.dumps(case, ensure_ascii=False))
    return f'{{"tokenizers": "{VERSION}", "cases": [\n' + ",\n".join(cases) + "\n]}\n"


def written():
    """Each file's name -> its text, as this script writes them."""
    import tokenizers

    if tokenizers.__version__ != VERSION:
        raise SystemExit(f"tokenizers {tokenizers.__version__} is installed; the files are made with {VERSION}")
    bodies = {name: build() for name, build in BUILDERS.items()}
    files = {f"{name}.json": json.dumps(body, indent=1, ensure_ascii=False) + "\n" for name, body in bodies.items()}
    files["expected.json"] = expected(bodies)
    return files


def main(argv=None):
    """Write or check tests/data/hf; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the files differ from a fresh build")
    args = parser.parse_args(argv)
    files = written()
    if args.check:
        stale = [name for name, text in files.items()
                 if not os.path.exists(os.path.join(FOLDER, name))
                 or open(os.path.join(FOLDER, name), encoding="utf-8").read() != text]
        if stale:
            print(f"tests/data/hf: {', '.join(stale)} differ; run tools/make_hf_test_files.py", file=sys.stderr)
            return 1
        print("tests/data/hf: the files match a fresh build")
        return 0
    os.makedirs(FOLDER, exist_ok=True)
    for name, text in files.items():
        write_text_atomic(os.path.join(FOLDER, name), text)
    print(f"wrote {', '.join(files)} to tests/data/hf")
    return 0


if __name__ == "__main__":
    sys.exit(main())
