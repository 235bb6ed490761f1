"""The command line of the BPE lab: ``python3 bpe.py COMMAND``, ``python3 -m bpe COMMAND`` or ``bpe COMMAND``.

It puts ``bpe``'s API in a shell: train, encode, decode, show, explain,
inspect, convert, prepare, count and widget, each built on the public API of
``bpe`` (this module and the widget are the only ones in the package that
import it). ``bpelab.terminal`` handles the input and output: UTF-8 in and
out whatever the locale, bad input as one line on stderr (``bpe: ...``)
with exit status 1, a usage error as one line with status 2, and a reader
that stops early (``| head``) as status 141 with the work still done.
Merges are numbered as the lessons number them: merge 1 is the first.
"""

import argparse
import contextlib
import json
import os
import sys
from concurrent.futures import BrokenExecutor

from bpe import (PATTERNS, TIE_RULES, UNK, SpecialTokenInText, Tokenizer, read_file_bytes,
                 reference_encode, write_text_atomic)
from bpelab import huggingface, tiktoken_files
from bpelab import widget as widget_page
from bpelab.counting import count_in_workers
from bpelab.display import (format_table, id_text, made_from, render_colour, render_plain, token_spans, token_text,
                            visible)
from bpelab.messages import named, shown
from bpelab.patterns import DEFAULT_PATTERN
from bpelab.terminal import (BROKEN_PIPE_STATUS, MAX_ID_DIGITS, OUT, PROGRAM, CommandError, UsageError,
                             argument_text, bytes_progress, check_output, describe, input_blocks, on_terminal,
                             parse_ids, read_stdin, read_text, reading_progress, terminal_line)


EXPLAIN_CHUNKS = 100
"""``explain`` replays at most this many chunks, then says how many it left out."""


EXPLAIN_STEPS = 40
"""...and at most this many merges of one chunk, then says the rest are not shown."""


EXPLAIN_TOKENS = 40
"""...and draws at most this many tokens on one line."""


def load_tokenizer(args):
    """The tokenizer named by ``-t``."""
    return Tokenizer.load(args.tokenizer)


MERGE_TABLE_HEADER = "| merge | pair | token | count |\n| --- | --- | --- | --- |\n"
"""``train --verbose`` prints merges in the shape of README's first-merges table (merge 1 is the first)."""


def merge_row(rank, entry):
    """One learned merge (``rank`` 0 for the first) as a row of that table, numbered from 1, written out at once."""

    def code(token):
        return f"`{json.dumps(token, ensure_ascii=False)}`"

    left, right = entry["pair"]
    OUT.write(f"| {rank + 1} | {code(left)} + {code(right)} | {code(entry['token'])} | {entry['count']:,} |\n", flush=True)


def training_summary(tokenizer, args, counts):
    """One line: what was saved, what it holds, why training stopped, how well it compresses.

    The character and token counts come from the chunk counts (each distinct
    chunk encoded once), so the training text is never read twice.
    """
    characters = sum(len(chunk) * count for chunk, count in counts.items())
    tokens = sum(count * (1 if chunk in tokenizer.special_tokens else len(tokenizer.encode(chunk)))
                 for chunk, count in counts.items())
    if len(tokenizer) >= args.vocab_size:
        stopped = f"reached the requested {args.vocab_size:,} entries"
    else:
        left = {1: "is left", 2: "occurs twice"}.get(args.min_count, f"occurs {args.min_count:,} times")
        stopped = f"stopped short of {args.vocab_size:,}: no pair {left}"
    kind = "bytes" if tokenizer.byte_level else "characters"
    ratio = f"{characters / tokens:.3f}" if tokens else "-"
    return (
        f"{args.output}: {len(tokenizer):,} tokens, alphabet of {len(tokenizer.alphabet):,} {kind}, "
        f"{len(tokenizer.merges):,} merges learned, {stopped}; "
        f"{ratio} characters per token on the training text ({characters:,} characters, {tokens:,} tokens)\n"
    )


def command_train(args):
    """Count chunks in files or standard input, learn merges, save the tokenizer, and print a summary line."""
    if "-" in args.files and len(args.files) > 1:
        raise UsageError("'-' (standard input) cannot be combined with files")
    check_output(args.output, args.files)
    pattern = args.pattern or DEFAULT_PATTERN[args.bytes]
    Tokenizer(None if args.bytes else [], [], byte_level=args.bytes, special_tokens=args.special)  # checks them as training will
    blocks, total = input_blocks(args.files)
    with terminal_line() as line:
        if line.stream is not None:  # a progress line, only where someone sees it
            blocks = reading_progress(blocks, total, bytes_progress(line, "counting chunks:"))
        counts = count_in_workers(blocks, pattern, special_tokens=args.special, workers=args.workers, size=total or 0)
    options = {"byte_level": args.bytes, "special_tokens": args.special, "pattern": pattern, "ties": args.ties,
               "min_count": args.min_count}
    if args.verbose:  # the rows, printed as each merge is learned, show the progress
        OUT.write(MERGE_TABLE_HEADER)
        tokenizer = Tokenizer.train_from_counts(counts, args.vocab_size, on_merge=merge_row, **options)
    else:
        with terminal_line() as line:
            def progress(done, target):
                rate = done / line.elapsed() if line.elapsed() > 0 else 0.0
                line.show(f"{done:,}/{target:,} merges  {line.elapsed():.1f} s  {rate:,.0f} merges/s")

            tokenizer = Tokenizer.train_from_counts(counts, args.vocab_size, progress=progress, **options)
    tokenizer.save(args.output)
    OUT.write(training_summary(tokenizer, args, counts))


def encode_text(tokenizer, text, allow_special, refusal="add --allow-special to encode it as its ID", note=True):
    """Encode as the API does, allowing special tokens' text only with ``--allow-special``.

    The API's advice names Python arguments; here it is given in the
    command line's own words. With ``note``, unknown characters (ID 0 at the
    character level) are mentioned once on stderr.
    """
    try:
        ids = tokenizer.encode(text, allowed_special="all" if allow_special else ())
    except SpecialTokenInText as error:
        raise CommandError(f"the text contains the special token {error.token!r}; {refusal}") from None
    if note and not tokenizer.byte_level and 0 in ids:
        unknown = ids.count(0)
        print(f"{PROGRAM}: note: {unknown:,} character{'s' if unknown > 1 else ''} not in the tokenizer's "
              f"alphabet became {UNK} (ID 0); a byte-level tokenizer (train --bytes) knows every character",
              file=sys.stderr)
    return ids


def command_encode(args):
    """Print the IDs of the text, space-separated or as a JSON list."""
    tokenizer = load_tokenizer(args)
    ids = encode_text(tokenizer, read_text(args), args.allow_special)
    OUT.write((json.dumps(ids) if args.json else " ".join(map(str, ids))) + "\n")


def command_decode(args):
    """Write exactly the bytes the IDs stand for, adding nothing, so even a cut character round-trips."""
    tokenizer = load_tokenizer(args)
    if args.ids in ([], ["-"]):
        ids = parse_ids(read_stdin(), "standard input")
    else:
        ids = parse_ids(" ".join(args.ids), "IDS")
    OUT.write_bytes(tokenizer.decode_bytes(ids))


def command_show(args):
    """Print the text with its token boundaries visible, then a footer with the counts."""
    tokenizer = load_tokenizer(args)
    text = read_text(args)
    ids = encode_text(tokenizer, text, args.allow_special)
    unknown = [token_id == 0 and not tokenizer.byte_level for token_id in ids]
    render = render_colour if on_terminal(sys.stdout) else render_plain
    shown = render(token_spans(tokenizer, text, ids), unknown)
    footer = f"{len(text):,} characters, {len(ids):,} tokens"
    if ids:
        footer += f", {len(text) / len(ids):.3f} characters per token"
    if any(unknown):
        footer += f", {sum(unknown):,} unknown"
    OUT.write(shown + ("" if shown.endswith("\n") else "\n") + footer + "\n")


class EnoughSteps(Exception):
    """Raised by explain's listener to stop the replay once enough steps are shown."""


def drawn(tokenizer, tokens):
    """Tokens drawn side by side, at most ``EXPLAIN_TOKENS`` of them."""
    shown = " ".join(token_text(tokenizer, token) for token in tokens[:EXPLAIN_TOKENS])
    if len(tokens) > EXPLAIN_TOKENS:
        shown += f" ... (+{len(tokens) - EXPLAIN_TOKENS:,} more)"
    return shown


def explain_chunk(tokenizer, chunk, title):
    """The lines showing ``reference_encode`` merge one chunk, from its starting tokens to its IDs.

    At most ``EXPLAIN_STEPS`` merges are replayed and shown; the tokens and
    IDs at the end always come from the full (fast) encoder, which gives the
    same result.
    """
    steps = [("start", tokenizer.start_tokens(chunk))]

    def on_merge(rank, pair, tokens):
        if len(steps) > EXPLAIN_STEPS:
            raise EnoughSteps
        steps.append((f"merge {rank + 1}: {token_text(tokenizer, pair[0])} + {token_text(tokenizer, pair[1])}", tokens))

    try:
        reference_encode(steps[0][1], tokenizer.merge_rank, on_merge=on_merge)
        stopped = False
    except EnoughSteps:
        stopped = True
    ids = tokenizer.encode(chunk, disallowed_special=())
    steps.append(("tokens", [tokenizer.vocab[token_id] for token_id in ids]))
    width = max(len(label) for label, _ in steps)
    lines = [title]
    lines += [f"  {label:<{width}}  {drawn(tokenizer, tokens)}" for label, tokens in steps[:-1]]
    if stopped:
        lines.append(f"  {'...':<{width}}  (more merges follow; only the first {EXPLAIN_STEPS} are shown)")
    lines.append(f"  {steps[-1][0]:<{width}}  {drawn(tokenizer, steps[-1][1])}")
    lines.append(f"  {'IDs':<{width}}  {' '.join(map(str, ids))}")
    return lines


def command_explain(args):
    """Replay the merges chunk by chunk, then give the tokens and IDs of the whole text."""
    tokenizer = load_tokenizer(args)
    text = read_text(args)
    ids = encode_text(tokenizer, text, False, note=False,
                      refusal="explain replays merges on ordinary text only, so leave it out")
    found = tokenizer.chunks(text)
    lines = []
    for number, chunk in enumerate(found[:EXPLAIN_CHUNKS], 1):
        title = visible(chunk) if len(chunk) <= EXPLAIN_TOKENS else f"{visible(chunk[:EXPLAIN_TOKENS])}... " \
            f"({len(chunk):,} characters)"
        lines += explain_chunk(tokenizer, chunk, f"chunk {number} of {len(found)}: {title}")
    if len(found) > EXPLAIN_CHUNKS:
        lines.append(f"... {len(found) - EXPLAIN_CHUNKS:,} more chunks not replayed")
    lines.append(f"tokens: {' '.join(id_text(tokenizer, token_id) for token_id in ids)}")
    lines.append(f"IDs: {' '.join(map(str, ids))}")
    OUT.write("\n".join(lines) + "\n")


def command_inspect(args):
    """Print the merged tokens in the order learned (the newest ``--top N`` only), then the special tokens."""
    tokenizer = load_tokenizer(args)
    first_merge = len(tokenizer.ids) - len(tokenizer.merges)
    merged = range(first_merge, len(tokenizer.ids))
    if args.top is not None:
        merged = merged[-args.top:]
    shown = list(merged) + sorted(tokenizer.special_tokens.values())
    base = "bytes" if tokenizer.byte_level else f"characters + {UNK}"
    OUT.write(f"{first_merge:,} base tokens ({base}), IDs 0-{first_merge - 1}; {len(tokenizer.merges):,} merges"
              + (f", the newest {len(merged):,} shown" if args.top is not None else "")
              + f"; {len(tokenizer.special_tokens):,} special tokens\n")
    rows = [("ID", "merge", "token", "made from")]
    rows += [(str(i), made_from(tokenizer, i)[0], id_text(tokenizer, i), made_from(tokenizer, i)[1]) for i in shown]
    OUT.write(format_table(rows, numbers=2))


def special_assignment(text):
    """An argparse type: ``TEXT=ID`` for ``--special`` when converting."""
    token, sign, number = text.rpartition("=")
    if not sign or not token or not number.isascii() or not number.isdigit() or len(number) > MAX_ID_DIGITS:
        raise argparse.ArgumentTypeError(f"expected TEXT=ID (e.g. '<|endoftext|>=100257'), not {shown(text)}")
    return token, int(number)


def command_convert(args):
    """Import a tiktoken ranks file or a Hugging Face tokenizer.json and save it in our format."""
    check_output(args.output, [args.source])
    raw = read_file_bytes(args.source, "SRC")  # read once, as the loaders read (the source may be a pipe)
    if raw.lstrip().startswith(b"{"):
        if args.pattern or args.special:
            raise UsageError("a Hugging Face file names its own pattern and special tokens: drop --pattern/--special")
        tokenizer = huggingface.load_huggingface(Tokenizer, args.source, raw)
    else:
        if not args.pattern:
            raise UsageError("a .tiktoken file needs --pattern: cl100k for GPT-4's cl100k_base, o200k for GPT-4o's")
        tokenizer = tiktoken_files.load_tiktoken(Tokenizer, args.source, args.pattern, dict(args.special), raw)
    tokenizer.save(args.output)
    OUT.write(f"{args.output}: {len(tokenizer):,} IDs, {len(tokenizer.merges):,} merges, pattern {tokenizer.pattern}, "
              f"{len(tokenizer.special_tokens):,} special tokens\n")


@contextlib.contextmanager
def special_tokens_in_command_line_words():
    """Say how to allow a special token the command line's way, rather than the API's."""
    try:
        yield
    except SpecialTokenInText as error:
        where = "" if error.where is None else f"{named(error.where)}: "
        raise CommandError(f"{where}the text contains the special token {shown(error.token)}; "
                           "add --allow-special to encode it as its ID") from None


def command_prepare(args):
    """Encode files into one flat file of token IDs (and its .json description) for training a model."""
    tokenizer = load_tokenizer(args)
    check_output(args.output, args.files)
    check_output(args.output + ".json", args.files)
    with terminal_line() as line, special_tokens_in_command_line_words():
        summary = tokenizer.encode_files(args.files, args.output, workers=args.workers, separator=args.separator,
                                         allowed_special="all" if args.allow_special else (),
                                         progress=bytes_progress(line, "encoding"))
    OUT.write(f"{args.output}: {summary['tokens']:,} tokens as {summary['dtype']} from {len(args.files):,} "
              f"file{'s' if len(args.files) > 1 else ''}; described in {args.output}.json\n")


def command_count(args):
    """Print the number of tokens in each file, then the total."""
    tokenizer = load_tokenizer(args)
    with terminal_line() as line, special_tokens_in_command_line_words():
        counts = tokenizer.count_files(args.files, workers=args.workers,
                                       allowed_special="all" if args.allow_special else (),
                                       progress=bytes_progress(line, "counting"))
    rows = [(f"{count:,}", path) for count, path in zip(counts, args.files)]
    if len(counts) > 1:
        rows.append((f"{sum(counts):,}", "total"))
    width = max(len(count) for count, _ in rows)
    OUT.write("".join(f"{count:>{width}}  {path}\n" for count, path in rows))


def command_widget(args):
    """Write the training widget: one HTML file that steps through BPE in any browser, offline."""
    check_output(args.output)
    text, test = (argument_text(value, name) for value, name in ((args.text, "--text"), (args.test, "--test")))
    write_text_atomic(args.output, widget_page.page(text, test))
    OUT.write(f"{args.output}: open it in a browser (for example file://{os.path.abspath(args.output)})\n")


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line, like every other error."""

    def error(self, message):
        self.exit(2, f"{PROGRAM}: {message} (see {self.prog} --help)\n")


def positive_int(text):
    """An argparse type: a whole number of at least 1."""
    if not text.isascii() or not text.isdigit() or len(text) > MAX_ID_DIGITS or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, not {text!r}")
    return int(text)


def build_parser():
    """The argument parser: one subcommand per job, each with its own --help."""
    parser = Parser(
        prog=PROGRAM,
        description="Train, use and look inside a BPE tokenizer. Run as bpe, python3 bpe.py or python3 -m bpe.",
        epilog="Text is UTF-8 in and out. Exit status: 0 done, 1 bad input, 2 bad usage, 141 output closed early.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    tokenizer = Parser(add_help=False)
    tokenizer.add_argument("-t", "--tokenizer", required=True, metavar="TOK.json", help="the tokenizer file")
    text = Parser(add_help=False)
    text.add_argument("text", nargs="?", default="-", metavar="TEXT",
                      help="the text itself (not a file name); - or nothing reads standard input")
    text.add_argument("--file", metavar="PATH", help="read the text from this UTF-8 file instead")
    special = Parser(add_help=False)
    special.add_argument("--allow-special", action="store_true",
                         help="encode the text of special tokens as their IDs (otherwise it is an error)")
    patterns = ", ".join(PATTERNS)

    def add(name, run, summary, parents=()):
        sub = commands.add_parser(name, help=summary, description=summary, parents=list(parents))
        sub.set_defaults(run=run)
        return sub

    train = add("train", command_train, "learn merges from text files and save the tokenizer")
    train.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files; - reads standard input")
    train.add_argument("--vocab-size", type=positive_int, required=True, metavar="N",
                       help="entries to aim for, special tokens included")
    train.add_argument("-o", "--output", required=True, metavar="OUT.json", help="where to save the tokenizer")
    train.add_argument("--bytes", action="store_true", help="start from UTF-8 bytes instead of characters")
    train.add_argument("--special", action="append", default=[], metavar="TOKEN",
                       help="a special token (no whitespace): its own ID, its text left out of training; repeatable")
    train.add_argument("--pattern", choices=PATTERNS, metavar="NAME",
                       help=f"how text is cut into chunks before merging: {patterns} (default: lab for characters, "
                            "gpt2 for bytes); lab knows only ASCII letters and digits, so use gpt2, cl100k or o200k "
                            "for other scripts")
    train.add_argument("--ties", choices=TIE_RULES, default="smallest", metavar="RULE",
                       help=f"which of equally frequent pairs to merge: {', '.join(TIE_RULES)} (default smallest; "
                            "see docs/trainers.md)")
    train.add_argument("--min-count", type=positive_int, default=2, metavar="N",
                       help="merge only pairs that occur at least N times (default 2)")
    train.add_argument("--workers", type=positive_int, default=1, metavar="N", help="processes to count chunks with")
    train.add_argument("--verbose", action="store_true", help="also print every merge learned, as a table")
    encode = add("encode", command_encode, "print the token IDs of a text", [tokenizer, text, special])
    encode.add_argument("--json", action="store_true", help="print a JSON list instead of space-separated IDs")
    decode = add("decode", command_decode, "write the text that token IDs stand for, adding nothing", [tokenizer])
    decode.add_argument("ids", nargs="*", metavar="IDS",
                        help="token IDs, or a JSON list; - or nothing reads them from standard input")
    add("show", command_show, "print a text with its token boundaries visible", [tokenizer, text, special])
    add("explain", command_explain, "replay the merges on a text, step by step", [tokenizer, text])
    inspect = add("inspect", command_inspect, "list the merged tokens in the order learned, then the special ones",
                  [tokenizer])
    inspect.add_argument("--top", type=positive_int, metavar="N", help="only the N most recent merges")
    convert = add("convert", command_convert,
                  "import a tiktoken ranks file (.tiktoken or .gz) or a Hugging Face tokenizer.json")
    convert.add_argument("source", metavar="SRC", help="the file to import")
    convert.add_argument("-o", "--output", required=True, metavar="OUT.json", help="where to save the tokenizer")
    convert.add_argument("--pattern", choices=PATTERNS, metavar="NAME",
                         help=f"the chunk pattern of a .tiktoken file ({patterns}): cl100k or o200k")
    convert.add_argument("--special", action="append", default=[], type=special_assignment, metavar="TEXT=ID",
                         help="a special token of a .tiktoken file and its ID; repeatable")
    prepare = add("prepare", command_prepare,
                  "encode UTF-8 files into one flat file of token IDs (uint16 or uint32) for training a model",
                  [tokenizer, special])
    prepare.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files, encoded one after another")
    prepare.add_argument("-o", "--output", required=True, metavar="OUT.bin",
                         help="the token file; OUT.bin.json describes it")
    prepare.add_argument("--workers", type=positive_int, default=1, metavar="N", help="processes to encode with")
    prepare.add_argument("--separator", metavar="TOKEN", help="a special token to put after each file")
    count = add("count", command_count, "print how many tokens each file holds, and the total",
                [tokenizer, special])
    count.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files, read in blocks")
    count.add_argument("--workers", type=positive_int, default=1, metavar="N", help="processes to encode with")
    widget = add("widget", command_widget, "write a web page that steps through BPE training, for any browser")
    widget.add_argument("-o", "--output", default="bpe-widget.html", metavar="PAGE.html",
                        help="where to write the page (default bpe-widget.html)")
    widget.add_argument("--text", default=widget_page.DEFAULT_TEXT, metavar="TEXT",
                        help=f"the text to train on (default: {widget_page.DEFAULT_TEXT!r})")
    widget.add_argument("--test", default=widget_page.DEFAULT_TEST, metavar="TEXT",
                        help=f"the sentence split with the merges so far (default: {widget_page.DEFAULT_TEST!r})")
    return parser


def main(argv=None):
    """Run one command; return the exit status (0 done, 1 bad input, 2 bad usage, 141 reader gone)."""
    args = build_parser().parse_args(argv)
    try:
        args.run(args)
        OUT.finish()
    except BrokenPipeError:
        OUT.lost_reader()
    except KeyboardInterrupt:
        return 130
    except UsageError as error:
        print(f"{PROGRAM}: {error} (see {PROGRAM} {args.command} --help)", file=sys.stderr)
        return 2
    except (OSError, ValueError, TypeError) as error:  # CommandError is a ValueError; the API's TypeErrors name the argument
        print(f"{PROGRAM}: {describe(error)}", file=sys.stderr)
        return 1
    except BrokenExecutor:  # a worker process was killed (by a signal, or for want of memory)
        print(f"{PROGRAM}: a worker process was killed before it finished; nothing was written", file=sys.stderr)
        return 1
    return BROKEN_PIPE_STATUS if OUT.reader_gone else 0


if __name__ == "__main__":
    sys.exit(main())
