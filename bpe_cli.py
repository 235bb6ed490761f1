"""The command line of the BPE lab: ``python3 bpe.py COMMAND``, ``python3 -m bpe COMMAND`` or ``bpe COMMAND``.

It puts bpe.py's API in a shell: train, encode, decode, show, explain,
inspect, convert, prepare, count and widget. Text goes in and out as UTF-8
whatever the locale: input is read as bytes and decoded as UTF-8, output is
written to ``sys.stdout.buffer``.

- Bad input is one line on stderr (``bpe: ...``) and exit status 1; a usage
  error is one line too, with status 2.
- A reader that stops early (``| head``) is not an error: the command still
  finishes its work (a training run is still saved), prints nothing more and
  exits with status 141, as a program killed by SIGPIPE would.
- Colour and progress lines appear only on a terminal, never with NO_COLOR
  set or TERM=dumb.

Every command is built on bpe.py's API.
"""

import argparse
import contextlib
import json
import os
import sys
import time
from concurrent.futures import BrokenExecutor
from itertools import accumulate

import bpe
import bpe_widget
from bpe import UNK, Tokenizer

PROGRAM = "bpe"
"""The name error messages start with."""

BROKEN_PIPE_STATUS = 141
"""The exit status when the reader of standard output went away: 128 + SIGPIPE."""

MARKS = {" ": "\N{OPEN BOX}", "\n": "\N{DOWNWARDS ARROW WITH CORNER LEFTWARDS}", "\t": "\N{RIGHTWARDS ARROW TO BAR}"}
"""How whitespace inside a token is drawn: ␣ for a space, ↵ for a newline, ⇥ for a tab."""

BOUNDARY = "\N{BOX DRAWINGS LIGHT VERTICAL}"
"""What ``show`` puts between tokens in plain output: │ reads as a wall, not as
text, and is almost never in prose (unlike | or ·); a real one in the text is
escaped, like the marks, so the two can never be mistaken for each other."""

ESCAPED = set(MARKS.values()) | {BOUNDARY, "\\"}
"""Characters that ``visible`` writes as escapes because they would be mistaken
for a mark, a boundary or an escape."""

PALETTE = ("\x1b[30;43m", "\x1b[30;46m", "\x1b[30;42m", "\x1b[30;45m", "\x1b[30;47m")
"""Background colours (black text) that ``show`` cycles through, so neighbours always differ."""

UNKNOWN_STYLES = ("\x1b[1;97;41m", "\x1b[1;97;101m")
"""Bold white on red and on bright red, alternating, for ``<unk>`` tokens; no palette colour is red."""

RESET = "\x1b[0m"

EXPLAIN_CHUNKS = 100
"""``explain`` replays at most this many chunks, then says how many it left out."""

EXPLAIN_STEPS = 40
"""...and at most this many merges of one chunk, then says the rest are not shown."""

EXPLAIN_TOKENS = 40
"""...and draws at most this many tokens on one line."""

INSPECT_WIDTH = 24
"""``inspect`` pads the token column to the longest token shown, but to no more than this."""


class CommandError(ValueError):
    """Bad input that the command line finds itself; reported like the API's ``ValueError``."""


class UsageError(Exception):
    """A command used wrongly: reported in one line with exit status 2, like argparse's own errors."""


# -- input and output ------------------------------------------------------


class Output:
    """Standard output as UTF-8 bytes, which remembers a reader that went away instead of failing."""

    def __init__(self):
        self.reader_gone = False

    def write(self, text, flush=False):
        """Write ``text`` as UTF-8; after a broken pipe, write nothing more."""
        self.write_bytes(text.encode("utf-8"), flush)

    def write_bytes(self, data, flush=False):
        """Write ``data`` exactly."""
        if self.reader_gone:
            return
        if sys.stdout is None:
            raise CommandError("standard output is closed; give the command somewhere to write")
        try:
            sys.stdout.buffer.write(data)
            if flush:
                sys.stdout.buffer.flush()
        except BrokenPipeError:
            self.lost_reader()

    def finish(self):
        """Flush what is left."""
        self.write("", flush=True)

    def lost_reader(self):
        """The reader went away: send whatever is still buffered, and later output, to nowhere."""
        self.reader_gone = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


OUT = Output()


def stdin_stream():
    """Standard input as a binary stream; a closed one is a one-line error."""
    if sys.stdin is None:
        raise CommandError("standard input is closed; give the text as an argument or with --file")
    if sys.stdin.isatty():
        print(f"{PROGRAM}: reading the text from the terminal; end it with Ctrl-D", file=sys.stderr)
    return sys.stdin.buffer


def read_stdin():
    """All of standard input as text, decoded as UTF-8 exactly (line endings untouched)."""
    return "".join(bpe.stream_blocks(stdin_stream(), "standard input"))


def read_text(args):
    """The text a command works on: ``--file PATH``, the TEXT argument itself, or standard input for ``-``.

    The argument's original bytes are decoded as UTF-8, so it means the same
    under any locale.
    """
    if args.file is not None:
        if args.text != "-":
            raise CommandError("give the text either as TEXT or with --file, not both")
        with open(args.file, "rb") as stream:
            return "".join(bpe.stream_blocks(stream, args.file))
    if args.text == "-":
        return read_stdin()
    return argument_text(args.text, "TEXT")


def argument_text(value, name):
    """A command-line argument as text: its original bytes decoded as UTF-8, whatever the locale."""
    try:
        return os.fsencode(value).decode("utf-8")
    except UnicodeDecodeError as error:
        raise CommandError(f"{bpe._named(name)}: not valid UTF-8 (byte {error.start})") from None


MAX_ID_DIGITS = 20
"""More digits than any token ID has; longer numbers are refused before Python's int limit is reached."""


def parse_ids(text, source):
    """Token IDs written as a JSON list or separated by whitespace; checking them is ``decode``'s job."""
    if text.lstrip().startswith("["):
        try:
            ids = json.loads(text, parse_int=lambda digits: parse_id(digits, source))
        except (ValueError, RecursionError) as error:
            if isinstance(error, CommandError):
                raise
            raise CommandError(f"{bpe._named(source)}: not a valid JSON list of token IDs") from None
        if not isinstance(ids, list):
            raise CommandError(f"{bpe._named(source)}: not a valid JSON list of token IDs")
        return ids
    return [parse_id(word, source) for word in text.split()]


def parse_id(word, source):
    """One token ID written in decimal."""
    digits = word[1:] if word.startswith("-") else word
    if not digits.isascii() or not digits.isdigit():
        raise CommandError(f"{bpe._named(source)}: {bpe._shown(word)} is not a token ID")
    if len(digits) > MAX_ID_DIGITS:
        raise CommandError(f"{bpe._named(source)}: {bpe._shown(word)} is far larger than any token ID")
    return int(word)


def describe(error):
    """An error as one line: ``FILE: reason`` for a failed file operation, else its message."""
    if isinstance(error, OSError) and error.filename is not None:
        return f"{bpe._named(error.filename)}: {error.strerror}"
    return str(error)


def on_terminal(stream):
    """Whether ``stream`` is a terminal that understands colours and redrawn lines."""
    return (stream is not None and stream.isatty() and not os.environ.get("NO_COLOR")
            and os.environ.get("TERM") != "dumb")


def escape(char):
    """A character as a Python-style escape; a byte that is part of a cut character as ``\\xNN``."""
    if "\udc80" <= char <= "\udcff":  # a lone byte, as surrogateescape decoding leaves it
        return f"\\x{ord(char) - 0xDC00:02x}"
    return char.encode("unicode_escape").decode("ascii")


def visible_char(char):
    """One character as ``visible`` draws it."""
    if char in MARKS:
        return MARKS[char]
    if char in ESCAPED or not char.isprintable():
        return escape(char)
    return char


def visible(text):
    """``text`` with whitespace drawn as marks and every invisible or ambiguous character escaped."""
    return "".join(map(visible_char, text))


def token_text(tokenizer, token):
    """A vocabulary entry drawn by ``visible``: at the byte level, the text of its bytes, not its GPT-2 form."""
    if not tokenizer.byte_level or token in tokenizer.special_tokens and token not in tokenizer.ids:
        return visible(token)
    return visible(bpe.display_to_bytes(token).decode("utf-8", "surrogateescape"))


def id_text(tokenizer, token_id):
    """The token with this ID, drawn by ``visible``; a special token (IDs after every ordinary one) as its text."""
    if token_id >= len(tokenizer.ids):
        return visible(tokenizer.vocab[token_id])
    return token_text(tokenizer, tokenizer.vocab[token_id])


class TerminalLine:
    """One line of stderr redrawn in place (on a terminal only), cleared when done, however it ends."""

    def __init__(self):
        self.stream = sys.stderr if on_terminal(sys.stderr) else None
        self.started = time.monotonic()

    def show(self, text):
        if self.stream is not None:
            self.stream.write(f"\r\x1b[K{text}")
            self.stream.flush()

    def elapsed(self):
        return time.monotonic() - self.started

    def clear(self):
        if self.stream is not None:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


@contextlib.contextmanager
def terminal_line():
    """A ``TerminalLine``, cleared at the end."""
    line = TerminalLine()
    try:
        yield line
    finally:
        line.clear()


def bytes_progress(line, verb):
    """A ``progress(bytes_done, bytes_total)`` callback: MB done (of the total, when known), speed, time left."""

    def progress(done, total):
        elapsed = line.elapsed()
        rate = done / elapsed if elapsed > 0 else 0.0
        shown = f"{verb} {done / 1e6:,.1f}"
        if total:
            left = (total - done) / rate if rate > 0 else 0.0
            shown += f" of {total / 1e6:,.1f} MB, {rate / 1e6:,.1f} MB/s, {left:,.0f} s left"
        else:
            shown += f" MB, {rate / 1e6:,.1f} MB/s"
        line.show(shown)

    return progress


def reading_progress(blocks, total_bytes, progress):
    """Pass ``blocks`` through, telling ``progress`` how many bytes of text have gone by."""
    done = 0
    for block in blocks:
        done += len(block.encode("utf-8", "surrogatepass"))
        progress(done, total_bytes)
        yield block


def input_blocks(paths):
    """The text of the input files (or standard input for ``-``), block by block, and their total size if known."""
    if paths == ["-"]:
        return bpe.stream_blocks(stdin_stream(), "standard input"), None
    total = 0
    for path in paths:
        with contextlib.suppress(OSError):
            total += os.stat(path).st_size
    return bpe.read_blocks(paths), total


def check_output(path, inputs=()):
    """Refuse, before any work, an output that cannot be written, is a special file, or is one of the inputs."""
    bpe.check_output_path(path, "-o/--output")
    for source in inputs:
        if source != "-" and os.path.exists(path) and os.path.exists(source) and os.path.samefile(path, source):
            raise CommandError(f"{bpe._named(path)}: is also an input file; write the output somewhere else")


def load_tokenizer(args):
    """The tokenizer named by ``-t``."""
    return Tokenizer.load(args.tokenizer)


# -- train -----------------------------------------------------------------


MERGE_TABLE_HEADER = "| rank | pair | token | count |\n| --- | --- | --- | --- |\n"
"""``train --verbose`` prints merges in the shape of README's first-merges table."""


def merge_row(rank, entry):
    """One learned merge as a row of that table, written out at once."""

    def code(token):
        return f"`{json.dumps(token, ensure_ascii=False)}`"

    left, right = entry["pair"]
    OUT.write(f"| {rank} | {code(left)} + {code(right)} | {code(entry['token'])} | {entry['count']:,} |\n", flush=True)


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
        stopped = f"stopped short of {args.vocab_size:,}: no pair occurs twice"
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
    pattern = args.pattern or bpe.DEFAULT_PATTERN[args.bytes]
    Tokenizer(None if args.bytes else [], [], byte_level=args.bytes, special_tokens=args.special)  # checks them as training will
    blocks, total = input_blocks(args.files)
    with terminal_line() as line:
        if line.stream is not None:  # a progress line, only where someone sees it
            blocks = reading_progress(blocks, total, bytes_progress(line, "counting chunks:"))
        counts = bpe.count_chunks(blocks, pattern, special_tokens=args.special)
    options = {"byte_level": args.bytes, "special_tokens": args.special, "pattern": pattern, "ties": args.ties}
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


# -- encode and decode -----------------------------------------------------


def encode_text(tokenizer, text, allow_special, refusal="add --allow-special to encode it as its ID", note=True):
    """Encode as the API does, allowing special tokens' text only with ``--allow-special``.

    The API's advice names Python arguments; here it is given in the
    command line's own words. With ``note``, unknown characters (ID 0 at the
    character level) are mentioned once on stderr.
    """
    try:
        ids = tokenizer.encode(text, allowed_special="all" if allow_special else ())
    except bpe.SpecialTokenInText as error:
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


# -- show ------------------------------------------------------------------


def split_at(sequence, lengths):
    """Cut ``sequence`` into consecutive spans of the given lengths."""
    ends = list(accumulate(lengths))
    return [sequence[start:end] for start, end in zip([0] + ends, ends)]


def token_spans(tokenizer, text, ids):
    """The stretch of ``text`` each token covers, so unknown characters appear as themselves.

    A token's length is the length of what it decodes to (an unknown
    character decodes to one U+FFFD). At the byte level lengths count bytes,
    and a byte of a character cut between tokens comes back as a lone
    surrogate, which ``visible`` shows as ``\\xNN``.
    """
    if tokenizer.byte_level:
        spans = split_at(text.encode("utf-8"), [len(tokenizer.token_bytes(i)) for i in ids])
        return [span.decode("utf-8", "surrogateescape") for span in spans]
    return split_at(text, [len(tokenizer.decode([i])) for i in ids])


def render_plain(spans, unknown):
    """Tokens between │ boundaries, whitespace as marks, ``<unk>`` for unknown characters.

    A newline mark is followed by a real newline so that lines stay lines.
    """
    newline = MARKS["\n"]
    return BOUNDARY.join(
        UNK if is_unknown else visible(span).replace(newline, newline + "\n")
        for span, is_unknown in zip(spans, unknown)
    )


def render_colour(spans, unknown):
    """Tokens on background colours that differ between neighbours; unknown ones on red.

    The colour shows where a space is, so spaces stay spaces; the colour is
    reset before each real newline so that it never runs on to the line's end.
    """
    newline, space = MARKS["\n"], MARKS[" "]
    painted = []
    for index, (span, is_unknown) in enumerate(zip(spans, unknown)):
        styles = UNKNOWN_STYLES if is_unknown else PALETTE
        style = styles[index % len(styles)]
        lines = visible(span).replace(space, " ").replace(newline, newline + "\n").split("\n")
        painted.append("\n".join(style + line + RESET if line else "" for line in lines))
    return "".join(painted)


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


# -- explain ---------------------------------------------------------------


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
        steps.append((f"rank {rank}: {token_text(tokenizer, pair[0])} + {token_text(tokenizer, pair[1])}", tokens))

    try:
        bpe.reference_encode(steps[0][1], tokenizer.merge_rank, on_merge=on_merge)
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


# -- inspect ---------------------------------------------------------------


def made_from(tokenizer, token_id):
    """What a vocabulary entry is: its two parts for a merge, or "special"."""
    first_merge = len(tokenizer.ids) - len(tokenizer.merges)
    if token_id < first_merge:
        return ""
    if token_id < len(tokenizer.ids):
        left, right = tokenizer.merges[token_id - first_merge]
        return f"{token_text(tokenizer, left)} + {token_text(tokenizer, right)}"
    return "special"


def format_table(rows):
    """Rows of strings as columns, the first right-aligned (it holds numbers); no column padded past ``INSPECT_WIDTH``."""
    widths = [min(INSPECT_WIDTH, max(len(row[column]) for row in rows)) for column in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [row[0].rjust(widths[0])] + [cell.ljust(width) for cell, width in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def command_inspect(args):
    """Print the merged tokens in the order learned (the newest ``--top N`` only), then the special tokens."""
    tokenizer = load_tokenizer(args)
    first_merge = len(tokenizer.ids) - len(tokenizer.merges)
    merged = range(first_merge, len(tokenizer.ids))
    if args.top is not None:
        merged = merged[-args.top:] if args.top else merged[:0]
    shown = list(merged) + sorted(tokenizer.special_tokens.values())
    base = "bytes" if tokenizer.byte_level else f"characters + {UNK}"
    OUT.write(f"{first_merge:,} base tokens ({base}), IDs 0-{first_merge - 1}; {len(tokenizer.merges):,} merges"
              + (f", the newest {len(merged):,} shown" if args.top is not None else "")
              + f"; {len(tokenizer.special_tokens):,} special tokens\n")
    rows = [("ID", "token", "made from")] + [(str(i), id_text(tokenizer, i), made_from(tokenizer, i)) for i in shown]
    OUT.write(format_table(rows))


# -- convert ---------------------------------------------------------------


def special_assignment(text):
    """An argparse type: ``TEXT=ID`` for ``--special`` when converting."""
    token, sign, number = text.rpartition("=")
    if not sign or not token or not number.isascii() or not number.isdigit() or len(number) > MAX_ID_DIGITS:
        raise argparse.ArgumentTypeError(f"expected TEXT=ID (e.g. '<|endoftext|>=100257'), not {bpe._shown(text)}")
    return token, int(number)


def command_convert(args):
    """Import a tiktoken ranks file or a Hugging Face tokenizer.json and save it in our format."""
    check_output(args.output, [args.source])
    # Look at the file the loaders' careful way (a regular file, not too large): opening a pipe would wait forever.
    if bpe.read_file_bytes(args.source, "SRC").lstrip().startswith(b"{"):
        if args.pattern or args.special:
            raise UsageError("a Hugging Face file names its own pattern and special tokens: drop --pattern/--special")
        tokenizer = Tokenizer.load_huggingface(args.source)
    else:
        if not args.pattern:
            raise UsageError("a .tiktoken file needs --pattern: cl100k for GPT-4's cl100k_base, o200k for GPT-4o's")
        tokenizer = Tokenizer.load_tiktoken(args.source, args.pattern, dict(args.special))
    tokenizer.save(args.output)
    OUT.write(f"{args.output}: {len(tokenizer):,} IDs, {len(tokenizer.merges):,} merges, pattern {tokenizer.pattern}, "
              f"{len(tokenizer.special_tokens):,} special tokens\n")


# -- prepare and count -----------------------------------------------------


@contextlib.contextmanager
def special_tokens_in_command_line_words():
    """Say how to allow a special token the command line's way, rather than the API's."""
    try:
        yield
    except bpe.SpecialTokenInText as error:
        where = "" if error.where is None else f"{bpe._named(error.where)}: "
        raise CommandError(f"{where}the text contains the special token {bpe._shown(error.token)}; "
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


# -- widget ----------------------------------------------------------------


def command_widget(args):
    """Write the training widget: one HTML file that steps through BPE in any browser, offline."""
    check_output(args.output)
    text, test = (argument_text(value, name) for value, name in ((args.text, "--text"), (args.test, "--test")))
    bpe.write_text_atomic(args.output, bpe_widget.page(text, test))
    OUT.write(f"{args.output}: open it in a browser (for example file://{os.path.abspath(args.output)})\n")


# -- the parser and main -----------------------------------------------------


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line, like every other error."""

    def error(self, message):
        self.exit(2, f"{PROGRAM}: {message} (see {self.prog} --help)\n")


def positive_int(text):
    """An argparse type: a whole number of at least 1."""
    if not text.isascii() or not text.isdigit() or len(text) > MAX_ID_DIGITS or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, not {text!r}")
    return int(text)


def whole_number(text):
    """An argparse type: a whole number of at least 0."""
    if not text.isascii() or not text.isdigit() or len(text) > MAX_ID_DIGITS:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}")
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
    patterns = ", ".join(bpe.PATTERNS)

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
    train.add_argument("--pattern", choices=bpe.PATTERNS, metavar="NAME",
                       help=f"how text is cut into chunks before merging: {patterns} (default: lab for characters, "
                            "gpt2 for bytes); lab knows only ASCII letters and digits, so use gpt2, cl100k or o200k "
                            "for other scripts")
    train.add_argument("--ties", choices=bpe.TIE_RULES, default="smallest",
                       help="which of equally frequent pairs to merge: the smallest (default) or the first seen")
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
    inspect.add_argument("--top", type=whole_number, metavar="N", help="only the N most recent merges")
    convert = add("convert", command_convert,
                  "import a tiktoken ranks file (.tiktoken or .gz) or a Hugging Face tokenizer.json")
    convert.add_argument("source", metavar="SRC", help="the file to import")
    convert.add_argument("-o", "--output", required=True, metavar="OUT.json", help="where to save the tokenizer")
    convert.add_argument("--pattern", choices=bpe.PATTERNS, metavar="NAME",
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
    widget.add_argument("--text", default=bpe_widget.DEFAULT_TEXT, metavar="TEXT",
                        help=f"the text to train on (default: {bpe_widget.DEFAULT_TEXT!r})")
    widget.add_argument("--test", default=bpe_widget.DEFAULT_TEST, metavar="TEXT",
                        help=f"the sentence split with the merges so far (default: {bpe_widget.DEFAULT_TEST!r})")
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
    except (OSError, ValueError) as error:  # CommandError is a ValueError
        print(f"{PROGRAM}: {describe(error)}", file=sys.stderr)
        return 1
    except BrokenExecutor:  # a worker process was killed (by a signal, or for want of memory)
        print(f"{PROGRAM}: a worker process was killed before it finished; nothing was written", file=sys.stderr)
        return 1
    return BROKEN_PIPE_STATUS if OUT.reader_gone else 0


if __name__ == "__main__":
    sys.exit(main())
