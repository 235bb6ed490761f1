"""The training widget: one web page where a reader runs BPE a merge at a time.

The tutorial's first lesson trains on a short review and asks the reader to
press "Next merge" and watch. This module writes that page: a text box, the
buttons "Next merge", "Back" and "Reset", a switch between characters and
UTF-8 bytes, a choice of tie rule, and the figures that change as merges are
made: k (merges made), |V| (vocabulary size), L (tokens in the text), the
distinct words with their current split, the most frequent pairs, the merges
so far, and a new sentence split with those merges.

``page(text, test)`` returns one self-contained HTML document: its style and
script are inline and it loads nothing, so it opens from disk in any browser
and works offline. ``python3 bpe.py widget`` writes it to a file.

The script is part of the lesson and is written to be read. It is the simple
algorithm of bpe.py's section 1, not the fast engine: count the pairs over the
distinct words (each weighted by how often it occurs), take the best, merge
it everywhere, repeat. It cuts words with GPT-2's rule as the ``gpt2``
pattern does (``bpelab.patterns``), so the page and ``bpe.Tokenizer.train(text,
size, pattern="gpt2", ties=..., min_count=...)`` learn the same merges with the same
counts (tests/test_widget.py checks this on random texts). The page's limits:

- Texts longer than ``MAX_CHARS`` characters are refused with a message:
  "Back" and every change of text or settings retrain from the start, and
  that must stay quick in a phone's browser.
- Letters and numbers come from the browser's Unicode tables, which may know
  characters newer than the Unicode 14 that bpe.py pins; for such characters
  the page may cut words differently.
- Browsers turn the line breaks ``\\r\\n`` and ``\\r`` in a text box into ``\\n``,
  so a text given to the page with carriage returns trains as if it had
  plain line breaks.
- At the byte level |V| counts only the bytes the text uses, as the tutorial
  does; bpe.py's byte-level vocabulary always holds all 256.

For tests, the page exposes ``window.bpeWidget.state()`` (what is on screen)
and ``window.bpeWidget.train(text, {bytes, ties, minCount, merges})`` (training without
touching the page).
"""

import json

from bpelab.display import DEFAULT_TEXT
from bpelab.engine import TIE_RULES


DEFAULT_TEST = "the maker baked cakes"
"""The tutorial's new sentence: it shares pieces with the review, and has two letters the review lacks."""

MAX_CHARS = 2000
"""The longest text (in characters) the page trains on, and the longest test sentence it splits."""

START_MARKER = "/*START*/"
"""Where the page's template receives the text, the test sentence and the limit."""


def page(text=DEFAULT_TEXT, test=DEFAULT_TEST):
    """The widget as one HTML document (a str), starting from ``text`` and the test sentence ``test``.

    Any text is safe to pass: it reaches the page only inside the script, as
    a JavaScript string literal (see ``script_literal``).
    """
    for name, value in (("text", text), ("test", test)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    start = script_literal({"text": text, "test": test, "maxChars": MAX_CHARS, "tieRules": TIE_RULES})
    return PAGE.replace(START_MARKER, start, 1)


def script_literal(value):
    """``value`` as a JavaScript literal that cannot end or confuse the ``<script>`` element around it.

    JSON is a JavaScript literal. ``ensure_ascii`` writes every non-ASCII
    character as a ``\\u`` escape: the page stays plain ASCII whatever
    encoding the file is saved in, and U+2028 and U+2029, which older
    JavaScript reads as line breaks, are escaped too. The characters ``<``,
    ``>`` and ``&`` can only occur inside strings, where their escapes mean
    the same, and without them the HTML parser never sees ``</script>`` or
    ``<!--`` in the text.

    >>> script_literal({"text": "</script>"})
    '{"text": "\\\\u003c/script\\\\u003e"}'
    """
    literal = json.dumps(value, ensure_ascii=True)
    return literal.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# The page. It is kept to ASCII (HTML entities, JavaScript \u escapes) for the
# same reason as script_literal: the file reads the same in any encoding.
PAGE = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>BPE training, one merge at a time</title>
<style>
  :root {
    color-scheme: light;
    --ink: #1c1c21; --muted: #54545c; --line: #cfcfd6; --paper: #fff; --page: #f6f6f8;
    --accent: #1457b8; --unknown: #b0241b;
    font-family: system-ui, -apple-system, "Segoe UI", sans-serif;
    line-height: 1.45;
  }
  * { box-sizing: border-box; }
  body { margin: 0; background: var(--page); color: var(--ink); }
  main { max-width: 46rem; margin: 0 auto; padding: 1rem; }
  h1 { font-size: 1.4rem; margin: .2rem 0 .5rem; }
  h2 { font-size: 1.05rem; margin: 1.4rem 0 .3rem; }
  p { margin: .3rem 0; }
  .note { color: var(--muted); font-size: .9rem; }
  label { cursor: pointer; }
  textarea, input[type=text] {
    display: block; width: 100%; font: inherit; padding: .4rem .5rem;
    border: 1px solid var(--line); border-radius: 6px; background: var(--paper);
  }
  textarea { resize: vertical; }
  .buttons { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .6rem; }
  button {
    font: inherit; min-height: 2.75rem; padding: .4rem 1rem; border-radius: 6px;
    border: 1px solid var(--accent); background: var(--paper); color: var(--accent); cursor: pointer;
  }
  #next:enabled { background: var(--accent); color: #fff; }
  button:disabled { border-color: var(--line); background: var(--page); color: var(--muted); cursor: default; }
  :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
  /* Three lines kept for the status, so a message never pushes the page down. */
  #status { min-height: 4.35em; margin-top: .5rem; }
  #status.problem { color: var(--unknown); font-weight: 600; }
  .options { display: flex; flex-wrap: wrap; gap: .4rem 1.5rem; align-items: center; }
  fieldset { border: 0; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .3rem 1rem; }
  legend { float: left; margin-right: .6rem; color: var(--muted); }
  .figures { display: grid; grid-template-columns: repeat(3, 1fr); gap: .5rem; margin: 1rem 0 0; }
  .figures div { background: var(--paper); border: 1px solid var(--line); border-radius: 6px; padding: .4rem .6rem; }
  .figures dt { font-size: .85rem; color: var(--muted); }
  .figures dd { margin: 0; font-size: 1.6rem; font-weight: 650; font-variant-numeric: tabular-nums; }
  /* Boxes that scroll inside themselves, at a fixed height: rows added or
     rewritten by a merge never move what comes after them. */
  .box { overflow: auto; background: var(--paper); border: 1px solid var(--line); border-radius: 6px; }
  #words-box { height: 22rem; }
  #words td { white-space: nowrap; }
  #pairs-box { height: 14.5rem; }
  #merges-box { height: 17rem; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; vertical-align: top; padding: .25rem .5rem; border-bottom: 1px solid var(--line); }
  th { position: sticky; top: 0; background: var(--paper); font-size: .85rem; color: var(--muted); font-weight: 600; }
  .number { text-align: right; font-variant-numeric: tabular-nums; }
  tr.next td { background: #eef4fd; }
  /* A token is a small box; a space shows as a middle dot. */
  .tok {
    display: inline-block; margin: 1px 2px 1px 0; padding: 0 .3em; min-width: 1.2em; text-align: center;
    border: 1px solid var(--line); border-radius: 4px; background: #fbfbfd;
    font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; white-space: nowrap;
  }
  /* In the tables a long token widens its column and the box scrolls; in the
     sentence, which does not scroll, it breaks instead. */
  #test-split .tok { white-space: normal; overflow-wrap: anywhere; }
  .code { font-size: .8em; color: var(--muted); }
  .tok.unknown { border: 2px dashed var(--unknown); color: var(--unknown); }
  .plus { color: var(--muted); margin: 0 .25em; }
  .pair { white-space: nowrap; }
  @media (max-width: 30rem) {
    th, td { padding: .25rem .3rem; }
  }
  /* The test sentence's split is drawn over its first split (every character
     or byte apart), kept hidden: the widest it can be, so merges never change
     its height. The words' rows do not wrap at all, which is cheaper. */
  .stack { display: grid; }
  .stack > * { grid-area: 1 / 1; }
  .ghost { visibility: hidden; }
  #test-split {
    background: var(--paper); border: 1px solid var(--line); border-radius: 6px; padding: .4rem; margin-top: .5rem;
  }
  #unknown-note { min-height: 2.9em; }
</style>
</head>
<body>
<main>
<h1>Byte-pair encoding, one merge at a time</h1>
<p>BPE starts from single characters (or bytes). It counts every pair of neighbouring tokens, glues the most
frequent pair into one new token, and repeats. Press <b>Next merge</b> and watch the words turn into fewer,
longer tokens.</p>
<noscript><p><b>This page needs JavaScript to train.</b></p></noscript>

<section aria-label="Training">
  <label for="text"><b>Training text</b></label>
  <textarea id="text" rows="3" spellcheck="false"></textarea>
  <div class="buttons">
    <button type="button" id="next">Next merge</button>
    <button type="button" id="back">Back</button>
    <button type="button" id="reset">Reset</button>
  </div>
  <p id="status" role="status" aria-live="polite"></p>
  <div class="options">
    <label><input type="checkbox" id="bytes"> start from UTF-8 bytes</label>
    <fieldset>
      <legend>Ties:</legend>
      <label><input type="radio" name="ties" value="smallest"> smallest pair</label>
      <label><input type="radio" name="ties" value="first-seen" checked> first seen</label>
      <label><input type="radio" name="ties" value="greatest"> greatest pair</label>
      <label><input type="radio" name="ties" value="huggingface"> Hugging Face</label>
      <label><input type="radio" name="ties" value="rustbpe"> rustbpe</label>
    </fieldset>
    <label>merge pairs seen at least <input type="number" id="min-count" min="1" value="2" style="width: 4.5em"> times</label>
  </div>
  <dl class="figures">
    <div><dt><b>k</b> merges made</dt><dd id="k"></dd></div>
    <div><dt><b>|V|</b> vocabulary</dt><dd id="V"></dd></div>
    <div><dt><b>L</b> tokens in text</dt><dd id="L"></dd></div>
  </dl>
</section>

<section aria-labelledby="words-title">
  <h2 id="words-title">The words, as the merges split them</h2>
  <p class="note">Words are cut first, and merges never cross them. A space stays on the word after it
    (shown as &middot;). Each distinct word is counted once, weighted by how often it occurs.</p>
  <div class="box" id="words-box">
    <table>
      <thead><tr><th>word</th><th class="number">count</th><th>tokens now</th></tr></thead>
      <tbody id="words"></tbody>
    </table>
  </div>
</section>

<section aria-labelledby="pairs-title">
  <h2 id="pairs-title">Most frequent pairs</h2>
  <p class="note">The first row is merged next, unless it occurs fewer times than the minimum.</p>
  <div class="box" id="pairs-box">
    <table>
      <thead><tr><th>pair</th><th class="number">count</th></tr></thead>
      <tbody id="pairs"></tbody>
    </table>
  </div>
</section>

<section aria-labelledby="merges-title">
  <h2 id="merges-title">Merges so far</h2>
  <div class="box" id="merges-box">
    <table>
      <thead><tr><th class="number">merge</th><th>pair</th><th class="number">count</th><th>new token</th>
        <th class="number">tokens left</th></tr></thead>
      <tbody id="merges"></tbody>
    </table>
  </div>
</section>

<section aria-labelledby="test-title">
  <h2 id="test-title">A new sentence</h2>
  <label for="test">Test sentence</label>
  <input type="text" id="test" spellcheck="false">
  <div id="test-split"></div>
  <p id="unknown-note" class="note"></p>
</section>

<section aria-labelledby="notes-title">
  <h2 id="notes-title">About this page</h2>
  <p class="note">Ties between equally frequent pairs: <i>first seen</i> takes the pair met first when the words are
    read in order of first appearance, each left to right; <i>smallest pair</i> (the default of bpe.py) takes the
    smallest in code-point order, or byte order at the byte level, and <i>greatest pair</i> the greatest;
    <i>Hugging Face</i> and <i>rustbpe</i> take the pair with the smallest IDs, numbering the first tokens in sorted
    order, then each merge, as those libraries do (Hugging Face sorts bytes by GPT-2's display characters, which put
    the space after the letters). Bytes that do not form a whole character on their own show as hex, like
    <span class="code">C3</span>; invisible characters show their code point. |V| counts the characters (or bytes)
    the text uses, plus one per merge. Texts are limited to <span id="limit"></span> characters. Letters and
    numbers follow this browser's Unicode tables, which may know newer characters than bpe.py's Unicode 14, and a
    text box turns the line breaks \r\n and \r into \n.</p>
</section>
</main>

<script>
"use strict";
const START = /*START*/;

// ---------------------------------------------------------------------------
// 1. Words. Text is cut with GPT-2's rule before any merging: a few English
// contractions, runs of letters, of numbers, or of other symbols (each with
// one optional space in front), and runs of whitespace, which leave their
// last space to the word after them. Whitespace is exactly what Python's
// str.isspace accepts, as in bpe.py: JavaScript's \s would add U+FEFF and
// miss U+001C to U+001F.
// ---------------------------------------------------------------------------
const SPACE = String.raw`\t\n\v\f\r\x1C-\x20\x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000`;
const WORD = new RegExp(
  String.raw`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^${SPACE}\p{L}\p{N}]+` +
  String.raw`|[${SPACE}]+(?![^${SPACE}])|[${SPACE}]+`, "gu");

// The words of a text, in order.
function wordsOf(text) {
  return Array.from(text.matchAll(WORD), match => match[0]);
}

// Each distinct word with how often it occurs. A Map keeps its keys in the
// order they were first set: the order of first appearance.
function distinctWords(text) {
  const counts = new Map();
  for (const word of wordsOf(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

// ---------------------------------------------------------------------------
// 2. Tokens. A token is a string. At the byte level each byte is stored as the
// character with the same number (U+0000 to U+00FF), so that joining two
// tokens joins their bytes and comparing them compares bytes.
// ---------------------------------------------------------------------------
const utf8 = new TextEncoder();

// A word as its first tokens: its characters (Array.from splits by code
// point, never inside an emoji) or its UTF-8 bytes.
function symbols(word, bytes) {
  return bytes ? Array.from(utf8.encode(word), byte => String.fromCharCode(byte)) : Array.from(word);
}

// Compare two tokens by code points (at the byte level, by bytes), as Python
// compares strings. JavaScript's < compares UTF-16 units, which would put
// U+1D49C before U+FB01.
function compareTokens(a, b) {
  const x = Array.from(a), y = Array.from(b);
  for (let i = 0; i < x.length && i < y.length; i++) {
    if (x[i] !== y[i]) return x[i].codePointAt(0) - y[i].codePointAt(0);
  }
  return x.length - y.length;
}

// ---------------------------------------------------------------------------
// 3. Training, the simple way: recount every pair after each merge.
// ---------------------------------------------------------------------------

// Count each pair of neighbouring tokens, weighted by its word's count. The
// pairs come out in the order first seen: words in order, each left to right.
function countPairs(corpus) {
  const pairs = new Map();
  for (const {tokens, count} of corpus) {
    for (let i = 0; i + 1 < tokens.length; i++) {
      const key = JSON.stringify([tokens[i], tokens[i + 1]]);
      const pair = pairs.get(key) ?? {left: tokens[i], right: tokens[i + 1], count: 0};
      pair.count += count;
      pairs.set(key, pair);  // setting a key again keeps its place
    }
  }
  return [...pairs.values()];
}

// Does pair a rank before pair b? The more frequent first; between equals, "smallest" compares the left tokens, then the
// right ones ("greatest" the other way round), "first-seen" keeps countPairs' order, the ID rules compare IDs (see ids).
function ranksBefore(a, b, run) {
  if (a.count !== b.count) return a.count > b.count;
  if (run.ties === "first-seen") return false;
  const order = run.ties === "smallest" || run.ties === "greatest"
    ? compareTokens(a.left, b.left) || compareTokens(a.right, b.right)
    : run.ids.get(a.left) - run.ids.get(b.left) || run.ids.get(a.right) - run.ids.get(b.right);
  return run.ties === "greatest" ? order > 0 : order < 0;
}

// The pairs in that order, for showing the top few (sort is stable, so
// equals keep the order of countPairs).
function ranked(pairs, run) {
  return [...pairs].sort((a, b) => ranksBefore(a, b, run) ? -1 : ranksBefore(b, a, run) ? 1 : 0);
}

// Token -> ID as Hugging Face and rustbpe number them: the first tokens sorted (characters by code point, bytes by value,
// or for Hugging Face by GPT-2's display character, putting unprintable bytes, the space too, last), then each merge.
function ids(alphabet, bytes, ties) {
  const late = code => bytes && ties === "huggingface" && (code < 0x21 || (code > 0x7E && code < 0xA1) || code == 0xAD);
  const key = token => token.codePointAt(0) + (late(token.codePointAt(0)) ? 0x100 : 0);
  return new Map([...alphabet].sort((a, b) => key(a) - key(b)).map((token, id) => [token, id]));
}

// Replace every occurrence of the pair in tokens, left to right, without
// overlaps: in "a a a", merging "a a" leaves the third a alone.
function mergePair(tokens, left, right) {
  const merged = [];
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i] === left && tokens[i + 1] === right) {
      merged.push(left + right);
      i++;
    } else {
      merged.push(tokens[i]);
    }
  }
  return merged;
}

// A training run at its start: the distinct words split into characters or
// bytes, the alphabet they use, and no merges yet.
function startTraining(text, {bytes, ties, minCount}) {
  const corpus = Array.from(distinctWords(text), ([word, count]) => ({word, count, tokens: symbols(word, bytes)}));
  const alphabet = new Set(corpus.flatMap(word => word.tokens));
  return {bytes, ties, minCount, corpus, alphabet, ids: ids(alphabet, bytes, ties), merges: [], pairs: countPairs(corpus)};
}

// The pair to merge next, or null when none occurs minCount times (twice by default, as in bpe.py).
function nextPair(run) {
  let best = null;
  for (const pair of run.pairs) {
    if (best === null || ranksBefore(pair, best, run)) best = pair;
  }
  return best !== null && best.count >= run.minCount ? best : null;
}

// L: how many tokens the whole text is now.
function tokenCount(run) {
  return run.corpus.reduce((sum, word) => sum + word.count * word.tokens.length, 0);
}

// Make one merge; false if training has stopped.
function step(run) {
  const pair = nextPair(run);
  if (pair === null) return false;
  for (const word of run.corpus) word.tokens = mergePair(word.tokens, pair.left, pair.right);
  if (!run.ids.has(pair.left + pair.right)) run.ids.set(pair.left + pair.right, run.ids.size);
  run.pairs = countPairs(run.corpus);
  run.merges.push({left: pair.left, right: pair.right, count: pair.count, tokensLeft: tokenCount(run)});
  return true;
}

function tooLong(text, what) {
  const length = Array.from(text).length;
  if (length <= START.maxChars) return null;
  return `The ${what} has ${length.toLocaleString("en")} characters; this page handles at most ` +
    `${START.maxChars.toLocaleString("en")}, so that every click stays quick. Shorten it ` +
    `(python3 bpe.py train has no such limit).`;
}

function train(text, options, merges) {
  const problem = tooLong(text, "training text");
  if (problem !== null) throw new RangeError(problem);
  const run = startTraining(text, options);
  while (run.merges.length < merges && step(run)) { /* each step is one merge */ }
  return run;
}

// Split a new sentence's words, replaying the merges in the order learned.
function split(words, run) {
  return words.flatMap(word =>
    run.merges.reduce((tokens, merge) => mergePair(tokens, merge.left, merge.right), symbols(word, run.bytes)));
}

// ---------------------------------------------------------------------------
// 4. Showing tokens. Characters stand for themselves; at the byte level a
// byte that is not part of a whole UTF-8 character is written as two hex
// digits, the way half of "\u00E9" looks before its second byte is merged.
// ---------------------------------------------------------------------------
const strictUtf8 = new TextDecoder("utf-8", {fatal: true, ignoreBOM: true});

function pieces(token, bytes) {
  if (!bytes) return Array.from(token, char => ({char}));
  const data = Uint8Array.from(token, char => char.charCodeAt(0));
  const found = [];
  for (let i = 0; i < data.length;) {
    // The lead byte says how many bytes its character takes.
    const size = data[i] < 0xC0 ? 1 : data[i] < 0xE0 ? 2 : data[i] < 0xF0 ? 3 : 4;
    const char = wholeCharacter(data.subarray(i, i + size));
    found.push(char === null ? {hex: data[i].toString(16).toUpperCase().padStart(2, "0")} : {char});
    i += char === null ? 1 : size;
  }
  return found;
}

function wholeCharacter(data) {
  try {
    return strictUtf8.decode(data);
  } catch {
    return null;  // a lone continuation byte, or a character cut short
  }
}

// A token as a plain string, as window.bpeWidget reports it.
function plain(token, bytes) {
  return pieces(token, bytes).map(piece => piece.hex ?? piece.char).join("");
}

// How a piece reads on screen: a space as a middle dot, an invisible
// character as its code point, a lone byte as hex (the last two set apart).
function shown(piece) {
  if (piece.hex !== undefined) return {text: piece.hex, code: true};
  if (piece.char === " ") return {text: "\u00B7", code: false};
  if (/[\p{C}\p{Z}]/u.test(piece.char)) {
    return {text: "U+" + piece.char.codePointAt(0).toString(16).toUpperCase().padStart(4, "0"), code: true};
  }
  return {text: piece.char, code: false};
}

function label(token, bytes) {
  return pieces(token, bytes).map(piece => shown(piece).text).join("");
}

// ---------------------------------------------------------------------------
// 5. The page. It shows the first k merges of training on what the controls
// say: "Next merge" makes one more, "Back" retrains one fewer, "Reset" goes
// back to none, and any other change retrains to the same k.
// ---------------------------------------------------------------------------
const $ = id => document.getElementById(id);
let k = 0;
let run;
let refusal = null;

function element(tag, className, ...children) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  made.append(...children);
  return made;
}

function tokenBox(token, bytes, unknown = false) {
  const box = element("span", unknown ? "tok unknown" : "tok");
  for (const piece of pieces(token, bytes)) {
    const {text, code} = shown(piece);
    box.append(code ? element("span", "code", text) : text);
  }
  if (unknown) box.title = "unknown: not in the training text";
  return box;
}

function tokenBoxes(tokens, bytes, isUnknown = () => false) {
  return element("span", "", ...tokens.map(token => tokenBox(token, bytes, isUnknown(token))));
}

function row(cells, className = "") {
  return element("tr", className, ...cells.map(([content, cellClass = ""]) => element("td", cellClass, content)));
}

function pairCell(left, right, bytes) {
  return element("span", "pair", tokenBox(left, bytes), element("span", "plus", "+"), tokenBox(right, bytes));
}

// A split drawn over the first one (see .stack in the style).
function stacked(first, now) {
  first.className = "ghost";
  first.setAttribute("aria-hidden", "true");
  return element("div", "stack", first, now);
}

function settings() {
  return {bytes: $("bytes").checked, ties: document.querySelector("input[name=ties]:checked").value,
    minCount: Math.max(1, Math.floor(Number($("min-count").value)) || 1)};
}

function retrain() {
  refusal = tooLong($("text").value, "training text");
  run = train(refusal === null ? $("text").value : "", settings(), k);
  k = run.merges.length;
  render();
}

function render() {
  const {bytes} = run;
  const pair = nextPair(run);
  $("k").textContent = refusal === null ? k : "\u2013";
  $("V").textContent = refusal === null ? run.alphabet.size + k : "\u2013";
  $("L").textContent = refusal === null ? tokenCount(run) : "\u2013";

  $("words").replaceChildren(...run.corpus.map(word => row([
    [label(word.word, false)], [String(word.count), "number"],
    [tokenBoxes(word.tokens, bytes)]])));

  $("pairs").replaceChildren(...ranked(run.pairs, run).slice(0, 5).map(p =>
    row([[pairCell(p.left, p.right, bytes)], [String(p.count), "number"]], p === pair ? "next" : "")));

  $("merges").replaceChildren(...run.merges.map((m, i) => row([
    [String(i + 1), "number"], [pairCell(m.left, m.right, bytes)], [String(m.count), "number"],
    [tokenBox(m.left + m.right, bytes)], [String(m.tokensLeft), "number"]])));
  $("merges-box").scrollTop = $("merges-box").scrollHeight;  // keep the newest merge in view

  renderTest();
  renderControls(pair);
}

function renderTest() {
  const sentence = $("test").value;
  const problem = tooLong(sentence, "test sentence");
  const words = problem === null && refusal === null ? wordsOf(sentence) : [];  // nothing to split with
  const tokens = split(words, run);
  // At the character level a character the training text never used has no
  // token: it is unknown (bpe.py encodes it as <unk>). Bytes cover every text.
  const isUnknown = token => !run.bytes && Array.from(token).length === 1 && !run.alphabet.has(token);
  const first = words.flatMap(word => symbols(word, run.bytes));
  $("test-split").replaceChildren(
    stacked(tokenBoxes(first, run.bytes, isUnknown), tokenBoxes(tokens, run.bytes, isUnknown)));
  const unknown = [...new Set(tokens.filter(isUnknown))];
  $("unknown-note").textContent = problem ?? (unknown.length > 0
    ? `Unknown: ${unknown.map(token => label(token, false)).join(", ")}. The training text never uses ` +
      `${unknown.length === 1 ? "this character" : "these characters"}, so a character-level vocabulary ` +
      `has no token for ${unknown.length === 1 ? "it" : "them"}. Start from UTF-8 bytes and every character ` +
      `is made of known bytes.`
    : run.bytes ? "Nothing is unknown at the byte level: every character is made of bytes, and a byte-level " +
      "vocabulary holds all 256." : "");
}

function renderControls(pair) {
  const status = $("status");
  status.className = refusal === null ? "" : "problem";
  if (refusal !== null) status.textContent = refusal;
  else if (run.corpus.length === 0) status.textContent = "Type some text to train on.";
  else if (pair === null) status.textContent = "Training stops here: no pair " + (run.minCount === 2 ?
    "occurs twice, and a pair seen once would only memorise the text." : run.minCount === 1 ? "is left." :
    `occurs ${run.minCount} times.`);
  else if (k === 0) status.textContent = "No merges yet: every token is one " + (run.bytes ? "byte." : "character.");
  else {
    const last = run.merges[k - 1];
    status.textContent = `Merge ${k}: ${label(last.left, run.bytes)} + ${label(last.right, run.bytes)} ` +
      `\u2192 ${label(last.left + last.right, run.bytes)}, seen ${last.count} times; ${last.tokensLeft} tokens left.`;
  }
  // A button that is disabled loses the focus; hand it on, so that a
  // keyboard user stays among the buttons.
  const focused = document.activeElement;
  $("next").disabled = pair === null;
  $("back").disabled = k === 0;
  if (focused !== null && focused.disabled) {
    (focused === $("next") && !$("back").disabled ? $("back") :
      focused === $("back") && !$("next").disabled ? $("next") : $("reset")).focus();
  }
}

$("next").addEventListener("click", () => {
  if (step(run)) k++;
  render();
});
$("back").addEventListener("click", () => { k = Math.max(0, k - 1); retrain(); });
$("reset").addEventListener("click", () => { k = 0; retrain(); });
$("text").addEventListener("input", retrain);
$("bytes").addEventListener("change", retrain);
$("min-count").addEventListener("input", retrain);
for (const radio of document.querySelectorAll("input[name=ties]")) radio.addEventListener("change", retrain);
$("test").addEventListener("input", renderTest);

$("text").value = START.text;
$("test").value = START.test;
$("limit").textContent = START.maxChars.toLocaleString("en");
retrain();

// For tests: what is on screen, and training without touching the page.
function report(trained) {
  return trained.merges.map(m => ({
    pair: [plain(m.left, trained.bytes), plain(m.right, trained.bytes)],
    token: plain(m.left + m.right, trained.bytes), count: m.count, left: m.tokensLeft,
  }));
}

window.bpeWidget = {
  state: () => ({k, V: run.alphabet.size + k, L: tokenCount(run), merges: report(run)}),
  train(text, {bytes = false, ties = "smallest", minCount = 2, merges = Infinity} = {}) {
    if (!START.tieRules.includes(ties)) throw new RangeError(`ties must be one of ${START.tieRules.join(", ")}`);
    if (!(Number.isInteger(minCount) && minCount >= 1)) throw new RangeError("minCount must be a positive integer");
    return report(train(text, {bytes, ties, minCount}, merges));
  },
};
</script>
</body>
</html>
"""
