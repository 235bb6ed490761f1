"""What a language costs a tokenizer, measured as the literature measures it, over a parallel corpus.

Each translation (a document of ``bpelab.commands.parallel_texts``) is
encoded once per tokenizer, with ``bpe.Tokenizer.encode`` on its whole text
(the segments joined by one space; special tokens' text is ordinary text),
and everything below is counted from those IDs (docs/languages.md gives each
definition with its source):

- the **premium** (Petrov et al., 2023): its tokens over English's tokens
  for the same segments with the same tokenizer; a row with more than 10% of
  its characters in unknown tokens is marked ``invalid``, as that paper does;
- **bytes per token** and **characters per token** (UTF-8 bytes, code points);
- the share of tokens that are the **unknown** token, and of the text's
  characters they stand for (``len(text) - len(decode(ids without it))``,
  Petrov et al.'s count);
- where tokens stand for bytes, the share of tokens that are **parts of
  characters only**, holding no whole character (``partial_share``);
- **Rényi efficiency** (Zouhar et al., 2023) with alpha 2.5, over the
  distinct tokens the text uses, as the ``tokenization-scorer`` package
  computes it by default.

The functions on IDs (``renyi_efficiency``, ``partial_tokens``,
``unknown_characters``) are the definitions; ``measure_documents`` runs them
for every document and tokenizer, in worker processes when asked.
"""

import csv
import io
import math
from collections import Counter

from bpelab.commands.compare import markdown_cell
from bpelab.commands.drawing import unknown_id
from bpelab.commands.parallel_texts import english_of
from bpelab.corpora.workers import results_in_order, worker_pool, worker_state
from bpelab.text.readable import decodes_bytes

RENYI_ALPHA = 2.5
"""Zouhar et al. (2023) found Rényi entropy of order 2.5 to predict translation quality best."""

INVALID_SHARE = 0.1
"""Petrov et al. (2023) leave out a language when more than this share of its characters are in unknown tokens."""

ROW_KEYS = ("tokenizer", "code", "name", "language", "script", "segments", "characters", "bytes", "tokens", "premium",
            "invalid", "bytes_per_token", "chars_per_token", "unknown_tokens", "unknown_share", "unknown_characters",
            "unknown_character_share", "partial_tokens", "partial_share", "efficiency", "latitude", "longitude",
            "lesson")
"""The keys of each row ``measure_documents`` gives, in order (``--json`` and ``--csv`` print them)."""

MEASURES = ("premium", "bytes_per_token", "chars_per_token", "unknown_share", "unknown_character_share",
            "partial_share", "efficiency")
"""The measures a chart can draw and a table can be sorted by."""

SORT_KEYS = MEASURES + ("code", "name", "script")


# ---------------------------------------------------------------------------
# The definitions, on one text's IDs
# ---------------------------------------------------------------------------

def renyi_efficiency(ids, alpha=RENYI_ALPHA):
    """Rényi efficiency of the tokens ``ids``: their Rényi entropy of order ``alpha`` over its largest value.

    >>> renyi_efficiency([1, 2, 3, 4]), renyi_efficiency([1, 1, 1, 2]) < 1
    (1.0, True)

    With p(t) each distinct token's share of ``ids`` and V how many distinct
    tokens there are, H = log2(sum of p(t) ** alpha) / (1 - alpha), divided by
    log2(V), the entropy of V tokens used equally often. None when there are
    fewer than two distinct tokens (log2(1) is 0).
    """
    counts = Counter(ids)
    if len(counts) < 2:
        return None
    total = len(ids)
    entropy = math.log2(math.fsum((count / total) ** alpha for count in counts.values())) / (1 - alpha)
    return entropy / math.log2(len(counts))


def holds_a_whole_character(data):
    """Whether ``data`` (a token's bytes, from valid UTF-8 text) holds at least one whole character.

    >>> holds_a_whole_character("é".encode()), holds_a_whole_character(b"\\xc3"), holds_a_whole_character(b"\\xa9a")
    (True, False, True)

    A lead byte with all its continuation bytes inside the token is a whole
    character; a token of continuation bytes, or of a lead byte whose
    character goes on in the next token, is not.
    """
    for place, byte in enumerate(data):
        if byte < 0x80:
            return True
        if byte >= 0xC0 and place + (2 if byte < 0xE0 else 3 if byte < 0xF0 else 4) <= len(data):
            return True
    return False


def partial_tokens(tokenizer, ids):
    """How many of ``ids`` hold no whole character (None where tokens stand for characters, not bytes)."""
    if not decodes_bytes(tokenizer):
        return None
    return sum(count for token_id, count in Counter(ids).items()
               if not holds_a_whole_character(tokenizer.token_bytes(token_id)))


def unknown_characters(tokenizer, text, ids, unk):
    """The characters of ``text`` its unknown tokens stand for: ``len(text)`` less the length of what the other
    tokens decode to (Petrov et al.'s count; 0 when there is no unknown token)."""
    if unk is None or unk not in ids:
        return 0
    return max(0, len(text) - len(tokenizer.decode([token_id for token_id in ids if token_id != unk])))


def text_measures(tokenizer, text):
    """Everything measured of one text and one tokenizer but the premium, which needs English's count."""
    ids = tokenizer.encode(text, disallowed_special=())
    unk = unknown_id(tokenizer)
    tokens, size, unknown = len(ids), len(text.encode("utf-8", "surrogatepass")), ids.count(unk) if unk is not None else 0
    lost, partial = unknown_characters(tokenizer, text, ids, unk), partial_tokens(tokenizer, ids)
    return {"characters": len(text), "bytes": size, "tokens": tokens, "bytes_per_token": share(size, tokens),
            "chars_per_token": share(len(text), tokens), "unknown_tokens": unknown,
            "unknown_share": share(unknown, tokens), "unknown_characters": lost,
            "unknown_character_share": share(lost, len(text)), "partial_tokens": partial,
            "partial_share": None if partial is None else share(partial, tokens),
            "efficiency": renyi_efficiency(ids)}


def share(part, whole):
    """``part / whole``, or None when ``whole`` is 0."""
    return part / whole if whole else None


# ---------------------------------------------------------------------------
# Every document and tokenizer
# ---------------------------------------------------------------------------

def english_text(english, segments):
    """English's text over the segments numbered ``segments``, the text a premium is measured against."""
    missing = sorted(set(segments) - set(english["segments"]))
    if missing:
        raise ValueError(f"English has no segment {missing[0]}, which a premium needs (a document has more than it)")
    return " ".join(english["segments"][number] for number in sorted(segments))


def measure_texts(tokenizers, texts, job):
    """The measures of ``texts[start:stop]`` with the tokenizer ``label``, for a ``job`` of ``(label, start, stop)``."""
    label, start, stop = job
    return [text_measures(tokenizers[label], text) for text in texts[start:stop]]


def measure_in_worker(job):
    """``measure_texts`` in a worker process, on the tokenizers and texts it was started with."""
    return measure_texts(*worker_state(), job)


BATCH = 8
"""Texts a worker measures per piece of work: few enough to share the work evenly, enough to make handing it out cheap."""


def measure_documents(tokenizers, documents, *, english=None, workers=1, progress=None):
    """The measures of every document with every tokenizer (label -> tokenizer): one row per pair, with ``ROW_KEYS``.

    The rows come document by document, each document's in the order of
    ``tokenizers``. Premiums are over ``english`` (by default the English
    document among ``documents``). ``workers`` processes share the encoding
    (each holds a copy of the tokenizers); ``progress(done, total)`` hears of
    each text measured. The result does not depend on ``workers``.
    """
    if not isinstance(tokenizers, dict) or not tokenizers or not all(isinstance(label, str) for label in tokenizers):
        raise TypeError("tokenizers must be a non-empty dict of label (str) -> tokenizer")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, not {workers!r}")
    english = english_of(documents) if english is None else english
    references = [english_text(english, doc["segments"]) for doc in documents]
    texts = list(dict.fromkeys([doc["text"] for doc in documents] + references))  # each distinct text once
    place = {text: number for number, text in enumerate(texts)}
    jobs = [(label, start, min(start + BATCH, len(texts))) for label in tokenizers
            for start in range(0, len(texts), BATCH)]
    measured, done = {}, 0
    if workers == 1:
        pieces = ((job, measure_texts(tokenizers, texts, job)) for job in jobs)
    else:
        pool = worker_pool((tokenizers, texts), workers)
        pieces = ((job, future.result()) for job, future in results_in_order(pool, measure_in_worker, jobs, workers))
    try:
        for (label, start, stop), results in pieces:
            for number, result in zip(range(start, stop), results):
                measured[label, number] = result
            done += stop - start
            if progress is not None:
                progress(done, len(texts) * len(tokenizers))
    finally:
        if workers > 1:
            pool.shutdown(cancel_futures=True)
    return [row(doc, label, measured[label, place[doc["text"]]], measured[label, place[reference]])
            for doc, reference in zip(documents, references) for label in tokenizers]


def row(doc, label, measures, english):
    """One row of the table: the document, the tokenizer, its measures and its premium over ``english``'s."""
    found = {"tokenizer": label, "code": doc["code"], "name": doc["name"], "language": doc["language"],
             "script": doc["script"], "segments": len(doc["segments"]), **measures,
             "premium": share(measures["tokens"], english["tokens"]),
             "invalid": (measures["unknown_character_share"] or 0) > INVALID_SHARE,
             "latitude": doc["latitude"], "longitude": doc["longitude"], "lesson": doc["lesson"]}
    return {key: found[key] for key in ROW_KEYS}


# ---------------------------------------------------------------------------
# Choosing, sorting and writing the rows
# ---------------------------------------------------------------------------

def sort_rows(rows, key, field=None):
    """The rows, document by document, sorted by the first tokenizer's ``key`` (largest first for a measure, in
    alphabetical order for ``code``, ``name`` and ``script``; an invalid premium, or none, last). ``field`` is the
    key's name in the rows, if another (the lab's sentences call the premium ``parity``)."""
    if key not in SORT_KEYS:
        raise ValueError(f"cannot sort by {key!r}; choose one of {', '.join(SORT_KEYS)}")
    field = field or key
    first = rows[0]["tokenizer"] if rows else None

    def order(row):
        value = row[field]
        if key in MEASURES:
            missing = value is None or key == "premium" and row.get("invalid", False)
            return (missing, 0.0 if missing else -value, row["code"])
        return (value, row["code"])

    ranked = {row["code"]: rank for rank, row in enumerate(sorted((row for row in rows if row["tokenizer"] == first),
                                                                  key=order))}
    return sorted(rows, key=lambda row: ranked[row["code"]])


def premium_cell(row):
    """A row as a Markdown table cell: ×premium and bytes per token, then the unknown characters' share if any."""
    if row["tokens"] == 0:
        return "-"
    cell = f"×{row['premium']:.2f} {row['bytes_per_token']:.1f}"
    if row["unknown_characters"]:
        cell += f", {row['unknown_character_share']:.1%} unknown" + (": invalid" if row["invalid"] else "")
    return cell


def markdown_table(rows):
    """The rows as a Markdown table, a row per document and a column per tokenizer, after a line saying what each
    cell holds."""
    labels = list(dict.fromkeys(row["tokenizer"] for row in rows))
    documents = {}
    for row in rows:
        documents.setdefault(row["code"], (row, []))[1].append(premium_cell(row))
    lines = ["Each cell: ×premium (tokens over English's for the same text), UTF-8 bytes per token; then the share of "
             f"characters in unknown tokens where there are any (over {INVALID_SHARE:.0%}: invalid).", "",
             "| code | language | script | " + " | ".join(markdown_cell(label) for label in labels) + " |",
             "| --- | --- | --- |" + " ---: |" * len(labels)]
    for row, cells in documents.values():
        lines.append(f"| {row['code']} | {markdown_cell(row['name'])} | {row['script']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def csv_table(rows, keys=ROW_KEYS):
    """The rows as CSV under a header of ``keys``: a missing value is an empty field, a number written in full."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(keys)
    for row in rows:
        writer.writerow(["" if row[key] is None else repr(row[key]) if isinstance(row[key], float) else row[key]
                         for key in keys])
    return out.getvalue()
