"""The command line of the BPE lab: ``python3 bpe.py COMMAND``, ``python3 -m bpe COMMAND`` or ``bpe COMMAND``.

It puts ``bpe``'s API in a shell: train, encode, decode, show, explain,
inspect, convert, prepare, count, compare, view and widget, each built on the
public API of ``bpe`` (this is the one module of the package that imports
it); ``bpelab.commands.arguments`` says what each command takes. ``bpelab.commands.terminal`` handles the input and output: UTF-8 in and
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

from bpe import UNK, SpecialTokenInText, Tokenizer, display_to_bytes, read_file_bytes, write_text_atomic
from bpelab.commands import (compare as comparison, cost_charts, measures, parallel_texts, variants,
                             widget as widget_page)
from bpelab.commands.arguments import (LAB_SORT_KEYS, SPECIAL_ROWS, build_parser, refuse_compare_clashes,
                                       refuse_variants_clashes, train_choice)
from bpelab.commands.drawing import (EXPLAIN_TOKENS, base_kind, counted, explain_chunk, format_table, made_by_merges,
                                     made_from, merge_row, merges_one_at_a_time, pipeline_lines, removed_tokens,
                                     render_colour, render_plain, unknown_id)
from bpelab.commands.terminal import BROKEN_PIPE_STATUS, CommandError, OUT, PROGRAM, UsageError, argument_text, bytes_progress, check_output, describe, is_standard_input, on_terminal, parse_ids, read_stdin, read_text, stdin_stream, terminal_line
from bpelab.commands.training_summary import heard_counts, training_summary
from bpelab.corpora.token_formats import index_paths
from bpelab.formats import official
from bpelab.messages import named, readable_name, shown
from bpelab.reading import jsonl_documents
from bpelab.text.readable import bytes_texts, described, id_form, readable_texts, visible


EXPLAIN_CHUNKS = 100
"""``explain`` replays at most this many chunks, then says how many it left out (and ``drawing.EXPLAIN_STEPS`` merges
of each)."""


def load_tokenizer(args):
    """The tokenizer named by ``-t``: a file of any format the lab reads, or an official name (``bpelab.formats.official``).

    Standard input cannot give both the tokenizer and the text.
    """
    if reads_standard_input(args) and is_standard_input(args.tokenizer):
        raise UsageError("-t reads the tokenizer from standard input, which cannot give the text or IDs as well: "
                         "give them as arguments" + (" or with --file" if "file" in args else ""))
    return open_tokenizer(args.tokenizer)


def open_tokenizer(source):
    """``-t SOURCE`` opened; memory running out while it loads is blamed on it."""
    try:
        return official.open_tokenizer(Tokenizer, source)
    except MemoryError:
        raise MemoryError(f"{named(source)}, the tokenizer") from None


def reads_standard_input(args):
    """Whether the command takes its text (or its IDs) from standard input."""
    if "ids" in args:
        return args.ids in ([], ["-"])
    return getattr(args, "text", None) == "-" and getattr(args, "file", None) is None


MERGE_TABLE_HEADER = "| merge | pair | token | count |\n| --- | --- | --- | --- |\n"
"""``train --verbose`` prints merges in the shape of README's first-merges table (merge 1 is the first)."""


def merge_rows(byte_level, vocab_form):
    """An ``on_merge(rank, entry)`` that writes each learned merge (``rank`` 0 for the first) as a row of that table,
    numbered from 1, at once: its tokens in the readable form (the pair read together, ``é[1/2] + é[2/2]``), or
    with ``vocab_form`` as JSON strings of the vocabulary's own form (GPT-2's display characters at the byte level),
    as the lab's lesson and Hugging Face's files write them; a PickyBPE removal as a row of its own (the token,
    split back into its parts)."""

    def code(text):  # a code span in a table's cell: a pipe escaped, two backticks around one that holds one
        text = text.replace("|", "\\|")
        return f"`` {text} ``" if "`" in text else f"`{text}`"

    def drawn(*groups):  # the tokens of each group read together
        if vocab_form:
            return [json.dumps(token, ensure_ascii=False) for group in groups for token in group]
        if byte_level:
            return [text for group in groups for text in bytes_texts(list(map(display_to_bytes, group)))]
        return [visible(token) for group in groups for token in group]

    def row(rank, entry):
        if "removed" in entry:
            *parts, removed = drawn(entry["split"], [entry["removed"]])
            OUT.write(f"| {rank + 1} | {code(removed)} removed | {' + '.join(map(code, parts))} | "
                      f"{entry['count']:,} |\n", flush=True)
            return
        left, right, token = drawn(entry["pair"], [entry["token"]])
        OUT.write(f"| {rank + 1} | {code(left)} + {code(right)} | {code(token)} | {entry['count']:,} |\n", flush=True)

    return row


def command_train(args):
    """Train on files or standard input with one call into the API, save the tokenizer, print a summary line.

    The flags choose the trainer (``arguments.train_choice``); the API checks every
    option (``Tokenizer.train_from_files``, or a variant's) and its workers
    read their own parts of the files; standard input is read here.
    """
    if "-" in args.files and len(args.files) > 1:
        raise UsageError("'-' (standard input) cannot be combined with files")
    check_output(args.output, args.files + (args.dev or []))
    name, options = train_choice(args)  # the trainer the flags choose, and its own options
    train = getattr(Tokenizer, name)
    inputs = [stdin_stream() if path == "-" else path for path in args.files]
    if args.jsonl is not None:  # (documents, each counted on its own: Tokenizer.train_from_iterator)
        inputs = jsonl_documents(inputs, args.jsonl)
    counted = []  # the chunk counts the tokenizer encodes by, or plain BPE's totals of them, for the summary
    options.update(byte_level=args.bytes, pattern=args.pattern, special_tokens=args.special,
                   min_count=args.min_count, on_counts=lambda counts: counted.append(heard_counts(counts, args)))
    with terminal_line() as line:
        if line.stream is not None:  # progress, where someone sees it
            options["count_progress"] = bytes_progress(line, "counting chunks:")
            if not args.verbose:
                options["progress"] = merges_progress(line)
        if args.verbose:  # the rows, printed as each merge is learned, show the progress
            OUT.write(MERGE_TABLE_HEADER)
            options["on_merge"] = merge_rows(args.bytes, args.vocab_form)
        tokenizer = train(inputs, args.vocab_size, **options)
    tokenizer.save(args.output)
    OUT.write(training_summary(tokenizer, args, counted[0]))


def merges_progress(line):
    """A ``progress(merges_done, merge_target)`` callback: merges done, time and speed since the first report."""
    started = []

    def progress(done, target):
        if not started:  # (the merges' own time, not the counting's)
            started.append(line.restart())
        rate = done / line.elapsed() if line.elapsed() > 0 else 0.0
        line.show(f"{done:,}/{target:,} merges  {line.elapsed():.1f} s  {rate:,.0f} merges/s")

    return progress


def encode_text(tokenizer, text, allow_special, refusal="add --allow-special to encode it as its ID", note=True,
                dropout=0.0, seed=None, dropout_rule="subword-nmt"):
    """Encode as the API does, allowing special tokens' text only with ``--allow-special``.

    The API's advice names Python arguments; here it is given in the
    command line's own words. With ``note``, unknown characters (ID 0 at the
    character level) are mentioned once on stderr.
    """
    try:
        ids = tokenizer.encode(text, allowed_special="all" if allow_special else None, dropout=dropout, seed=seed,
                               dropout_rule=dropout_rule)
    except SpecialTokenInText as error:
        raise CommandError(f"the text contains the special token {error.token!r}; {refusal}") from None
    unk = unknown_id(tokenizer)
    if note and unk is not None and unk in ids:
        print(f"{PROGRAM}: note: {counted(ids.count(unk), 'character')} not in the tokenizer's alphabet became {UNK} "
              f"(ID {unk}); a byte-level tokenizer (train --bytes) knows every character", file=sys.stderr)
    return ids


def check_dropout_seed(args):
    """``--dropout`` needs ``--seed``, so that the same command gives the same tokens (checked before any work)."""
    if args.dropout and args.seed is None:
        raise UsageError("--dropout needs --seed N, so that the same command gives the same tokens")


def command_encode(args):
    """Print the IDs of the text, space-separated or as a JSON list (with ``--dropout``, one BPE-dropout encoding)."""
    check_dropout_seed(args)
    tokenizer = load_tokenizer(args)
    ids = encode_text(tokenizer, read_text(args), args.allow_special, dropout=args.dropout, seed=args.seed,
                      dropout_rule=args.dropout_rule)
    OUT.write((json.dumps(ids) if args.json else " ".join(map(str, ids))) + "\n")


def command_decode(args):
    """Write exactly the bytes the IDs stand for, adding nothing, so even a cut character round-trips."""
    tokenizer = load_tokenizer(args)
    if args.ids in ([], ["-"]):
        ids = parse_ids(read_stdin(), "standard input")
    else:
        ids = parse_ids(" ".join(args.ids), "IDS")
    OUT.write_bytes(tokenizer.decode_bytes(ids))


def split_drawn(tokenizer, text, ids):
    """``text`` with the boundaries of its tokens ``ids`` drawn in the readable form (in colour on a terminal),
    ending in a newline, and how many of them are unknown characters."""
    unknown = [token_id == unknown_id(tokenizer) for token_id in ids]
    render = render_colour if on_terminal(sys.stdout) else render_plain
    shown = render(readable_texts(tokenizer, ids, text), unknown)
    return shown + ("" if shown.endswith("\n") else "\n"), sum(unknown)


def command_show(args):
    """Print the text with its token boundaries visible, then a footer with the counts."""
    check_dropout_seed(args)
    tokenizer = load_tokenizer(args)
    text = read_text(args)
    ids = encode_text(tokenizer, text, args.allow_special, dropout=args.dropout, seed=args.seed,
                      dropout_rule=args.dropout_rule)
    shown, unknown = split_drawn(tokenizer, text, ids)
    footer = f"{counted(len(text), 'character')}, {counted(len(ids), 'token')}"
    if ids:
        footer += f", {len(text) / len(ids):.3f} characters per token"
    if unknown:
        footer += f", {unknown:,} unknown"
    if args.dropout:
        rule = "" if args.dropout_rule == "subword-nmt" else f", rule {args.dropout_rule}"
        footer += f", dropout {args.dropout:g} (seed {args.seed}{rule})"
    OUT.write(shown + footer + "\n")


def load_tokenizers(args):
    """The tokenizers of a repeated ``-t``, by the name each was given as (checked before any is loaded).

    Each label is the name as text (``readable_name``: a byte that is not
    UTF-8 as ``\\xNN``), so it can go into the page, the JSON and the chart.
    """
    labels = [readable_name(source) for source in args.tokenizer]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise UsageError(f"-t {repeated[0]} is given twice")
    return {label: open_tokenizer(source) for label, source in zip(labels, args.tokenizer)}


def per_token(value):
    """A figure per token, to three decimals ("-" when there are no tokens)."""
    return "-" if value is None else f"{value:.3f}"


def json_lines(records):
    """A JSON list of objects, one to a line."""
    return "[\n" + ",\n".join(json.dumps(record, ensure_ascii=False) for record in records) + "\n]\n"


def command_compare(args):
    """Encode texts with several tokenizers side by side, measure what each language costs (the lab's parallel
    sentences, --languages; the UDHR's declarations, --udhr; FLORES, --flores), or train every variant and compare
    them (--variants)."""
    if args.variants is not None:
        compare_variants(args)
        return
    corpus = args.udhr is not None or args.flores is not None
    refuse_compare_clashes(args, corpus)
    if corpus:
        compare_corpus(args)
        return
    if args.languages is not None:
        compare_lab_languages(args)
        return
    if args.file is not None and args.texts:
        raise UsageError("give the texts either as TEXT or with --file, not both")
    if args.file is not None or args.texts in ([], ["-"]):
        texts = [read_text(argparse.Namespace(file=args.file, text="-"))]
    else:
        texts = [argument_text(text, "TEXT") for text in args.texts]
    tokenizers = load_tokenizers(args)
    try:
        records = comparison.compare(tokenizers, texts, allowed_special="all" if args.allow_special else ())
    except SpecialTokenInText as error:
        raise CommandError(f"the text contains the special token {shown(error.token)}; add --allow-special "
                           "to encode it as its ID") from None
    if args.json:
        OUT.write(json_lines(records))
        return
    for number, record in enumerate(records):
        if len(texts) > 1 and number % len(tokenizers) == 0:
            OUT.write(("\n" if number else "") + f"text {number // len(tokenizers) + 1} of {len(texts)}\n")
        drawn, unknown = split_drawn(tokenizers[record["tokenizer"]], record["text"], record["ids"])
        OUT.write(f"{record['tokenizer']}: {counted(record['tokens'], 'token')}, {per_token(record['bytes_per_token'])} bytes "
                  f"and {per_token(record['chars_per_token'])} characters per token"
                  + (f", {unknown:,} unknown" if unknown else "") + "\n" + drawn)
    unknown = {label: sum(record["ids"].count(unknown_id(tokenizers[label])) for record in records
                          if record["tokenizer"] == label) for label in tokenizers}
    lost = any(unknown.values())  # (a column for the unknown tokens, where a tokenizer has some)
    rows = [("tokens", "bytes per token", "characters per token", *["unknown"] * lost, "tokenizer")]
    for label in tokenizers:
        mine = [record for record in records if record["tokenizer"] == label]
        tokens = sum(record["tokens"] for record in mine)
        size = sum(len(record["text"].encode("utf-8")) for record in mine)
        characters = sum(len(record["text"]) for record in mine)
        share = [f"{unknown[label]:,} ({unknown[label] / tokens:.0%})" if unknown[label] else "-"] * lost
        rows.append((f"{tokens:,}", per_token(size / tokens if tokens else None),
                     per_token(characters / tokens if tokens else None), *share, label))
    OUT.write("\n" + format_table(rows, numbers=3 + lost))


def chosen_codes(args):
    """The codes ``--languages CODES`` lists (none: every language)."""
    return [code.strip() for code in (args.languages or "").split(",") if code.strip()]


def write_chart(path, svg, what):
    write_text_atomic(path, svg)
    print(f"{PROGRAM}: wrote the {what} to {path}", file=sys.stderr)


def write_rows(args, rows, markdown):
    """The rows as JSON, CSV or (by default) the Markdown ``markdown(rows)`` gives."""
    OUT.write(json_lines(rows) if args.json else measures.csv_table(rows, list(rows[0]) if rows else [])
              if args.csv else markdown(rows))


def compare_lab_languages(args):
    """The lab's parallel sentences in 14 languages: tokens per sentence, parity and bytes per token."""
    codes = chosen_codes(args)
    known = [language["code"] for language in comparison.languages()]
    if any(code not in known for code in codes):
        raise CommandError(f"--languages: no language of the lab's sentences is coded "
                           f"{next(code for code in codes if code not in known)!r}; they are {', '.join(known)}")
    costs = comparison.language_costs(load_tokenizers(args))
    if codes:
        costs = [cost for cost in costs if cost["code"] in codes]
    if args.sort is not None:
        costs = measures.sort_rows(costs, args.sort, field=LAB_SORT_KEYS[args.sort])
    write_rows(args, costs, comparison.language_table)
    if args.output is not None:
        write_chart(args.output, comparison.costs_svg(costs), "chart")


def compare_corpus(args):
    """What each language costs on a corpus of translations, a row per document and tokenizer, and its pictures."""
    land = None if args.atlas is None else cost_charts.read_land(args.atlas)  # (a bad file is found before the work)
    if args.udhr is not None:
        documents, skipped = parallel_texts.read_udhr(args.udhr, incomplete=args.incomplete)
    else:
        documents, skipped = parallel_texts.read_flores(args.flores), []
    english = parallel_texts.english_of(documents)
    codes = chosen_codes(args)
    chosen = parallel_texts.choose(documents, codes) if codes else documents
    if skipped:
        print(f"{PROGRAM}: left out {len(skipped):,} declaration{'s' if len(skipped) > 1 else ''}: "
              + ", ".join(f"{code} ({reason})" for code, reason in skipped)
              + ("" if args.incomplete else "; --incomplete measures those with articles on the articles they have"),
              file=sys.stderr)
    tokenizers = load_tokenizers(args)
    with terminal_line() as line:
        def progress(done, total):
            line.show(f"measuring: {done:,} of {total:,} texts and tokenizers, {line.elapsed():.1f} s")

        rows = measures.measure_documents(tokenizers, chosen, english=english, workers=args.workers,
                                          progress=progress if line.stream is not None else None)
    if args.sort is not None:
        rows = measures.sort_rows(rows, args.sort)
    write_rows(args, rows, measures.markdown_table)
    if args.output is not None:
        write_chart(args.output, cost_charts.dot_chart(rows, args.chart or "premium"), "chart")
    if args.map is not None:
        first = [row for row in rows if row["tokenizer"] == next(iter(tokenizers))]
        write_chart(args.map, cost_charts.premium_map(first, land), "map")


def compare_variants(args):
    """``bpe compare --variants FILE ...``: every variant trained on the files, one table (``variants_table``)."""
    refuse_variants_clashes(args)

    def text_of(path):
        return read_text(argparse.Namespace(file=path, text="-"))

    rows = Tokenizer.compare_variants([text_of(path) for path in args.variants], args.vocab_size,
                                      held_out=text_of(args.held_out),
                                      dev_texts=None if args.dev is None else [text_of(path) for path in args.dev])
    OUT.write(json_lines(rows) if args.json else variants.variants_table(rows))


def command_explain(args):
    """Replay the merges chunk by chunk, then give the tokens and IDs of the whole text."""
    tokenizer = load_tokenizer(args)
    if removed_tokens(tokenizer):
        raise CommandError("explain replays merges, and this tokenizer (PickyBPE's) also removed tokens while it "
                           "trained, which explain does not draw; bpe show gives its tokens")
    text = read_text(args)
    ids = encode_text(tokenizer, text, False, note=False,
                      refusal="explain replays merges on ordinary text only, so leave it out")
    found = tokenizer.chunks(text)
    lines = [] if not merges_one_at_a_time(tokenizer) else [
        "(merges replayed one at a time, leftmost first, as Hugging Face does: some merges here rebuild a token)"]
    for number, chunk in enumerate(found[:EXPLAIN_CHUNKS], 1):
        title = visible(chunk) if len(chunk) <= EXPLAIN_TOKENS else f"{visible(chunk[:EXPLAIN_TOKENS])}... " \
            f"({len(chunk):,} characters)"
        lines += explain_chunk(tokenizer, chunk, f"chunk {number} of {len(found)}: {title}")
    if len(found) > EXPLAIN_CHUNKS:
        lines.append(f"... {len(found) - EXPLAIN_CHUNKS:,} more chunks not replayed")
    lines.append(f"tokens: {' '.join(readable_texts(tokenizer, ids))}")
    lines.append(f"IDs: {' '.join(map(str, ids))}")
    OUT.write("\n".join(lines) + "\n")


def command_inspect(args):
    """Print the pipeline in words (for an imported tokenizer), then the merged tokens by ID (with ``--top N`` the
    tokens of the newest N merges), then the first special and added tokens (with ``--all-special`` all)."""
    tokenizer = load_tokenizer(args)
    base = {tokenizer.ids[token] for token in tokenizer.alphabet} | ({unknown_id(tokenizer)} - {None})
    added = set(described(tokenizer)["added_ids"]) | set(tokenizer.special_tokens.values())  # (all the vocab's others)
    kind, steps = base_kind(tokenizer), pipeline_lines(tokenizer)  # (no steps for the lab's kind: IDs from merges)
    ids = f"of {len(tokenizer):,} IDs" if steps else f"IDs 0-{len(base) - 1}"
    newest = min(args.top, len(tokenizer.merges)) if args.top is not None else None
    made = f" (making {counted(made_by_merges(tokenizer), 'token')})" if steps else ""
    others = len(added) - len(tokenizer.special_tokens)
    OUT.write(f"{counted(len(base), 'base token')} ({kind}), {ids}; {counted(len(tokenizer.merges), 'merge')}{made}"
              + (f", {counted(removed_tokens(tokenizer), 'removal')} (PickyBPE)" if removed_tokens(tokenizer) else "")
              + (f", the newest {newest:,} shown" if newest is not None else "")
              + f"; {counted(len(tokenizer.special_tokens), 'special token')}"
              + (f" and {counted(others, 'other added token')}" if others else "") + "\n")
    if steps:
        OUT.write("".join(f"  {line}\n" for line in steps))
    elif tokenizer.add_prefix_space:
        OUT.write("  a space is put before text that does not start with one (add_prefix_space)\n")
    rows = [("ID", "merge", "token", "made from")]
    if newest is not None:
        rows += [merge_row(tokenizer, rank) for rank in range(len(tokenizer.merges) - newest, len(tokenizer.merges))]
    else:
        listed_apart = base | added
        rows += [(str(token_id), *made_from_row(tokenizer, token_id)) for token_id, token in enumerate(tokenizer.vocab)
                 if token in tokenizer.ids and tokenizer.ids[token] == token_id and token_id not in listed_apart]
    listed = sorted(added) if args.all_special else sorted(added)[:SPECIAL_ROWS]
    rows += [(str(token_id), *made_from_row(tokenizer, token_id)) for token_id in listed]
    OUT.write(format_table(rows, numbers=2))
    if len(listed) < len(added):
        OUT.write(f"... and {counted(len(added) - len(listed), 'more special or added token')} "
                  "(--all-special lists them all)\n")


def made_from_row(tokenizer, token_id):
    """The merge, token and made-from cells of ``inspect``'s row for a vocabulary entry."""
    number, parts = made_from(tokenizer, token_id)
    return number, id_form(tokenizer, token_id), parts


def command_convert(args):
    """Import a tiktoken ranks file or a Hugging Face tokenizer.json and save it in our format."""
    check_output(args.output, [args.source])
    raw = read_file_bytes(args.source, "SRC")  # read once, as the loaders read (the source may be a pipe)
    if raw.lstrip().startswith(b"{"):
        if args.pattern or args.special:
            raise UsageError("a Hugging Face file names its own pattern and special tokens: drop --pattern/--special")
        tokenizer = Tokenizer.load_huggingface(args.source, raw=raw)
    else:
        if not args.pattern:
            raise UsageError("a .tiktoken file needs --pattern: cl100k for GPT-4's cl100k_base, o200k for GPT-4o's")
        tokenizer = Tokenizer.load_tiktoken(args.source, args.pattern, dict(args.special), raw=raw)
    tokenizer.save(args.output)
    cut = "Hugging Face's pipeline (inspect shows it)" if tokenizer.pipeline else f"pattern {tokenizer.pattern}"
    OUT.write(f"{args.output}: {counted(len(tokenizer), 'ID')}, {counted(len(tokenizer.merges), 'merge')}, {cut}, "
              f"{counted(len(tokenizer.special_tokens), 'special token')}\n")


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
    kept = [args.output + ".resume", args.output + ".resume.json"] if args.resume else []
    for output in [args.output, *index_paths(args.format, args.output), args.output + ".json", *kept]:
        check_output(output, [*args.files, args.tokenizer])
    with terminal_line() as line, special_tokens_in_command_line_words():
        summary = tokenizer.encode_files(args.files, args.output, workers=args.workers, separator=args.separator,
                                         allowed_special="all" if args.allow_special else None,
                                         progress=bytes_progress(line, "encoding"), format=args.format,
                                         resume=args.resume)
    beside = ", ".join(index_paths(args.format, args.output) + [args.output + ".json"])
    OUT.write(f"{args.output}: {summary['tokens']:,} tokens as {summary['dtype']} from {len(args.files):,} "
              f"file{'s' if len(args.files) > 1 else ''}; described in {beside}\n")


def command_count(args):
    """Print the number of tokens in each file, then the total."""
    tokenizer = load_tokenizer(args)
    with terminal_line() as line, special_tokens_in_command_line_words():
        counts = tokenizer.count_files(args.files, workers=args.workers,
                                       allowed_special="all" if args.allow_special else None,
                                       progress=bytes_progress(line, "counting"))
    rows = [(f"{count:,}", path) for count, path in zip(counts, args.files)]
    if len(counts) > 1:
        rows.append((f"{sum(counts):,}", "total"))
    width = max(len(count) for count, _ in rows)
    OUT.write("".join(f"{count:>{width}}  {path}\n" for count, path in rows))


def page_text(value, name, limit):
    """An argument that a page starts with, as text, refused if it is longer than the page takes."""
    text = argument_text(value, name)
    if len(text) > limit:
        raise UsageError(f"{name} has {len(text):,} characters; the page takes at most {limit:,}")
    return text


def command_widget(args):
    """Write the training widget: one HTML file that steps through BPE in any browser, offline."""
    check_output(args.output)
    text, test = (page_text(value, name, widget_page.MAX_CHARS) for value, name in ((args.text, "--text"),
                                                                                     (args.test, "--test")))
    write_text_atomic(args.output, widget_page.page(text, test))
    OUT.write(f"{args.output}: open it in a browser (for example file://{os.path.abspath(args.output)})\n")


def command_fetch(args):
    """Download official files into tiktoken's cache by name, or one file by its address and sha256."""
    from bpelab.formats import fetch  # (urllib, only when something is fetched)

    if any("://" in target for target in args.targets):
        if len(args.targets) != 1 or args.sha256 is None or args.output is None:
            raise UsageError("a URL is fetched alone, with --sha256 HEX and -o FILE")
        check_output(args.output)
        size = fetch.fetch(args.targets[0], args.sha256, args.output)
        OUT.write(f"{args.output}: {size:,} bytes from {args.targets[0]}, sha256 checked\n")
        return
    if args.sha256 is not None or args.output is not None:
        raise UsageError("--sha256 and -o go with a URL; official files go where tiktoken keeps them")
    for name in args.targets:
        OUT.write("".join(f"{name}: {line}\n" for line in fetch.fetch_named(name)))


def command_view(args):
    """Serve the page that shows the tokenizers side by side, on 127.0.0.1, until Ctrl-C."""
    from bpelab.commands import view  # (its server, http.server, takes a tenth of the start of any other command)

    text = page_text(args.text, "--text", view.MAX_CHARS)
    tokenizers = load_tokenizers(args)

    def ready(address):
        OUT.write(f"{address}  (bpe view of {', '.join(tokenizers)}; open it in a browser, stop with Ctrl-C)\n",
                  flush=True)

    view.serve(tokenizers, text, ready)
    print(f"{PROGRAM}: stopped", file=sys.stderr)


COMMANDS = {"train": command_train, "encode": command_encode, "decode": command_decode, "show": command_show,
            "explain": command_explain, "inspect": command_inspect, "convert": command_convert,
            "prepare": command_prepare, "count": command_count, "compare": command_compare, "view": command_view,
            "widget": command_widget, "fetch": command_fetch}
"""What each command runs (``bpelab.commands.arguments`` says what each takes)."""


def main(argv=None):
    """Run one command; return the exit status (0 done, 1 bad input or out of memory, 2 bad usage, 141 reader gone)."""
    args = build_parser(COMMANDS).parse_args(argv)
    try:
        return run(args)
    except MemoryError as error:
        where = str(error) or inputs_of(args)  # (said after this block, once the work's memory is given back)
    print(f"{PROGRAM}: out of memory on {where}; give it less at a time, or run it where there is more memory",
          file=sys.stderr)
    return 1


def inputs_of(args):
    """What a command was given to work on, for a message: its files, its text, or its tokenizer."""
    files = getattr(args, "files", None) or [getattr(args, "file", None) or getattr(args, "source", None)]
    if files != [None]:
        return ", ".join("standard input" if path == "-" else named(path) for path in files[:3]) + (
            ", ..." if len(files) > 3 else "")
    if reads_standard_input(args) or getattr(args, "texts", None) == []:
        return "standard input"
    if getattr(args, "text", None) is not None or getattr(args, "texts", None):
        return "the text given as TEXT"
    return ", ".join(map(named, args.tokenizer if isinstance(args.tokenizer, list) else [args.tokenizer]))


def run(args):
    """Run the command ``args`` names; return its exit status, or raise ``MemoryError`` for ``main`` to report."""
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
