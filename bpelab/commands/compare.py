"""Tokenizers side by side: the same texts through each, and what each language costs, as a table and a chart.

``compare(tokenizers, texts)`` (``bpe.compare``) is nothing but
``tokenizer.encode(text)`` for each text and tokenizer, with the counts a
comparison needs: tokens, bytes per token and characters per token. The
lab's parallel sentences (``bpelab/commands/languages.json``: the same five sentences
about the story world in 14 languages) turn that into the cost of a
language: ``language_costs`` gives, per tokenizer and language, the tokens
per sentence, the ratio to English's ("parity") and bytes per token;
``language_table`` writes them as a Markdown table and ``costs_svg`` as a
bar chart, one self-contained SVG file. The tokenizers come from the caller
(``bpe compare -t ...`` opens them), so this module never imports ``bpe``.
"""

import html
import json
from collections.abc import Mapping
from importlib import resources

from bpelab.byte_level import replace_lone_surrogates
from bpelab.checks import UNK, check_list, check_text
from bpelab.commands.drawing import unknown_id
from bpelab.messages import readable_name
from bpelab.text.readable import token_texts

RECORD_KEYS = ("tokenizer", "text", "ids", "pieces", "tokens", "bytes_per_token", "chars_per_token")
"""The keys of each record ``compare`` returns, in order (``bpe compare --json`` prints the records)."""


def compare(tokenizers, texts, *, allowed_special=(), disallowed_special="all"):
    """Encode each of ``texts`` with each of ``tokenizers`` (a mapping: label -> tokenizer): one record per pair.

    >>> from bpe import Tokenizer
    >>> tok = Tokenizer(None, [("Ġ", "c")], byte_level=True)
    >>> record, = compare({"bytes": tok}, [" café"])
    >>> record["pieces"], record["ids"], record["bytes_per_token"], record["chars_per_token"]
    ([' c', 'a', 'f', '\\\\xc3', '\\\\xa9'], [256, 97, 102, 195, 169], 1.2, 1.0)

    The records come text by text, each text's in the order of
    ``tokenizers``, with the keys of ``RECORD_KEYS``: the label, the text,
    its IDs, its pieces (the text each token stands for, as
    ``Tokenizer.token_texts`` gives them), the number of tokens, and the
    UTF-8 bytes and characters of the text per token (None for an empty
    text). Special tokens follow ``encode``'s rules, with its two arguments.
    """
    if not isinstance(tokenizers, Mapping) or not all(isinstance(label, str) for label in tokenizers):
        raise TypeError(f"tokenizers must be a mapping of label (str) -> tokenizer, not {type(tokenizers).__name__}")
    check_list(texts, "texts", "str")
    for text in texts:
        check_text(text, "each of texts")
    records = []
    for text in texts:
        size = len(replace_lone_surrogates(text).encode("utf-8"))
        for label, tokenizer in tokenizers.items():
            ids = tokenizer.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
            pieces = token_texts(tokenizer, replace_lone_surrogates(text) if tokenizer.byte_level else text, ids)
            records.append(dict(zip(RECORD_KEYS, (label, text, ids, pieces, len(ids), ratio(size, len(ids)),
                                                  ratio(len(text), len(ids))))))
    return records


def ratio(amount, tokens):
    """``amount`` per token, or None when there are no tokens."""
    return amount / tokens if tokens else None


def languages():
    """The parallel sentences: a list of ``{"code", "name", "script", "sentences"}``, English first."""
    text = resources.files(__package__).joinpath("languages.json").read_text(encoding="utf-8")
    return json.loads(text)["languages"]


def language_costs(tokenizers):
    """What each language costs each tokenizer (label -> tokenizer): one dict per tokenizer and language.

    Each holds ``tokenizer``, ``code``, ``language``, ``script``,
    ``tokens_per_sentence`` (the language's sentences' tokens, over their
    number), ``parity`` (its tokens over English's, the same sentences in
    English, with the same tokenizer) and ``bytes_per_token`` (the
    sentences' UTF-8 bytes over their tokens), ``unknown`` (how many of
    the tokens are ``<unk>``: characters a character-level tokenizer lacks,
    cheap in tokens but lost) and ``unknown_share`` (their share of the
    tokens). Special tokens' text is read as ordinary text.
    """
    table = languages()
    sentences = [sentence for language in table for sentence in language["sentences"]]
    records = compare(tokenizers, sentences, disallowed_special=())
    tokens, unknown = {}, {}
    for record in records:
        tokens[record["tokenizer"], record["text"]] = record["tokens"]
        unk = unknown_id(tokenizers[record["tokenizer"]])
        unknown[record["tokenizer"], record["text"]] = 0 if unk is None else record["ids"].count(unk)
    costs = []
    for label in tokenizers:
        english = sum(tokens[label, sentence] for sentence in table[0]["sentences"])
        for language in table:
            count = sum(tokens[label, sentence] for sentence in language["sentences"])
            size = sum(len(sentence.encode("utf-8")) for sentence in language["sentences"])
            lost = sum(unknown[label, sentence] for sentence in language["sentences"])
            costs.append({"tokenizer": label, "code": language["code"], "language": language["name"],
                          "script": language["script"], "tokens_per_sentence": count / len(language["sentences"]),
                          "parity": ratio(count, english), "bytes_per_token": ratio(size, count), "unknown": lost,
                          "unknown_share": ratio(lost, count)})
    return costs


def language_table(costs):
    """``language_costs`` as a Markdown table (a row per language, a column per tokenizer) after a line saying
    what each cell holds."""
    labels = list(dict.fromkeys(cost["tokenizer"] for cost in costs))
    rows = {}
    for cost in costs:
        rows.setdefault((cost["language"], cost["script"]), []).append(
            f"{cost['tokens_per_sentence']:.1f} ×{cost['parity']:.2f} {cost['bytes_per_token']:.1f}"
            + (f", {cost['unknown']:,} unknown" if cost["unknown"] else ""))
    lines = ["Each cell: tokens per sentence, ×parity (tokens over English's), UTF-8 bytes per token.", "",
             "| language (script) | " + " | ".join(markdown_cell(label) for label in labels) + " |",
             "| --- |" + " ---: |" * len(labels)]
    for (language, script), cells in rows.items():
        lines.append(f"| {language} ({script}) | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def markdown_cell(text):
    """Text that cannot end a Markdown table's cell or row."""
    return " ".join(text.split()).replace("\\", "\\\\").replace("|", "\\|")


PALETTE = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#000000")
"""Bar colours, one per tokenizer (Okabe and Ito's palette, told apart with any colour vision)."""


def costs_svg(costs):
    """``language_costs`` as a bar chart: for each language, one bar per tokenizer, as long as its parity.

    The part of a bar that is ``<unk>`` tokens is pale and its share written
    beside it, so a cheap bar made of unknown characters says so. One SVG
    document, standard library only, that loads nothing: no script, no link,
    no external font; every label is escaped XML text.
    """
    labels = list(dict.fromkeys(cost["tokenizer"] for cost in costs))
    rows = list(dict.fromkeys(cost["language"] for cost in costs))
    names = {label: readable_name(label) for label in labels}  # (a file name's undecodable bytes as \xNN)
    bar, gap, left, width, per_line = 11, 12, 150, 520, 5
    top = 44 + 14 * ((len(labels) + per_line - 1) // per_line)  # below the legend
    longest = max([cost["parity"] for cost in costs] + [1.0])
    scale = width / longest
    height = top + len(rows) * (len(labels) * bar + gap) + 34
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 70}" height="{height}" '
             f'viewBox="0 0 {left + width + 70} {height}" font-family="sans-serif" font-size="11">',
             "<title>Tokens per language, as a multiple of English's (parity)</title>",
             f'<rect width="{left + width + 70}" height="{height}" fill="#ffffff"/>',
             '<text x="8" y="18" font-size="13" font-weight="bold">Tokens for the same sentences, '
             "as a multiple of English's (parity)</text>"]
    for index, label in enumerate(labels):
        x, y = 8 + index % per_line * 130, 30 + index // per_line * 14
        parts.append(f'<rect x="{x}" y="{y}" width="10" height="10" fill="{PALETTE[index % len(PALETTE)]}"/>')
        parts.append(f'<text x="{x + 14}" y="{y + 9}">{html.escape(shorten(names[label]), quote=False)}</text>')
    bottom = height - 30
    parts.append(f'<line x1="{left + scale:.2f}" y1="{top - 4}" x2="{left + scale:.2f}" y2="{bottom}" '
                 'stroke="#555555" stroke-dasharray="3 3"/>')
    parts.append(f'<text x="{left + scale:.2f}" y="{bottom + 14}" text-anchor="middle">1 = English</text>')
    parities = {(cost["language"], cost["tokenizer"]): cost for cost in costs}
    for row, language in enumerate(rows):
        y = top + row * (len(labels) * bar + gap)
        parts.append(f'<text x="{left - 6}" y="{y + len(labels) * bar / 2 + 4:.1f}" '
                     f'text-anchor="end">{html.escape(language, quote=False)}</text>')
        for index, label in enumerate(labels):
            value = parities[language, label]["parity"]
            parts.append(f'<rect class="bar" x="{left}" y="{y + index * bar}" width="{value * scale:.2f}" '
                         f'height="{bar - 1}" fill="{PALETTE[index % len(PALETTE)]}" '
                         f'data-tokenizer="{html.escape(names[label])}" data-parity="{value:.4f}"/>')
            lost = parities[language, label]["unknown_share"] or 0
            if lost:  # the bar's unknown tokens, paler at its end: cheap tokens that lost their characters
                parts.append(f'<rect class="unknown" x="{left + value * scale * (1 - lost):.2f}" y="{y + index * bar}" '
                             f'width="{value * scale * lost:.2f}" height="{bar - 1}" fill="#ffffff" '
                             f'fill-opacity="0.6" data-unknown-share="{lost:.4f}"/>')
            parts.append(f'<text x="{left + value * scale + 3:.2f}" y="{y + index * bar + bar - 2}" '
                         f'font-size="9">{value:.2f}' + (f", {lost:.0%} {html.escape(UNK)}" if lost else "") + "</text>")
    return "\n".join(parts) + "\n</svg>\n"


def shorten(label, most=20):
    """A legend label of at most ``most`` characters (a long path keeps its end, where the file name is)."""
    return label if len(label) <= most else "…" + label[-(most - 1):]
