
"use strict";
const START = /*START*/null;

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
// 4. Showing tokens, in the lab's readable form (as bpe show draws them: see
// bpelab/text/readable.py). A whole character is itself; a space, a tab, a
// line feed and a carriage return are marks; a character that shows nothing
// is its name between angle brackets; a token that holds part of a character
// is that character with the bytes it holds, "\u00E9[1/2]". Which character a
// byte belongs to depends on its neighbours, so tokens are read together.
// ---------------------------------------------------------------------------
const MARKS = new Map([[" ", "\u2423"], ["\n", "\u21B5"], ["\t", "\u21E5"], ["\r", "\u240D"]]);
const OWN_MARKS = new Set([...MARKS.values(), "\u2502", "\u27E8", "\u27E9"]);

// A character's name: Unicode's abbreviation (the page is given the lab's
// table), a variation selector's number, or its code point.
function nameOf(code) {
  if (code >= 0xFE00 && code <= 0xFE0F) return "VS" + (code - 0xFE00 + 1);
  if (code >= 0xE0100 && code <= 0xE01EF) return "VS" + (code - 0xE0100 + 17);
  return START.names[code] ?? "U+" + code.toString(16).toUpperCase().padStart(4, "0");
}

// A character that prints nothing of its own (the browser's Unicode tables
// say which are controls, formats, unassigned or spaces).
function showsNothing(char) {
  const code = char.codePointAt(0);
  return char !== " " && (/[\p{C}\p{Z}]/u.test(char) || START.showsNothing.some(([low, high]) => low <= code && code <= high));
}

function charForm(char) {
  if (MARKS.has(char)) return MARKS.get(char);
  if (OWN_MARKS.has(char) || showsNothing(char)) return "\u27E8" + nameOf(char.codePointAt(0)) + "\u27E9";
  return char;
}

// Is data[start, end) the start of a character cut short? (A streaming
// decoder accepts such bytes and waits for more.)
function cutShort(data, start, end) {
  try {
    return new TextDecoder("utf-8", {fatal: true}).decode(data.subarray(start, end), {stream: true}) === "" &&
      end - start < leadSize(data[start]);
  } catch {
    return false;
  }
}

function leadSize(byte) {
  return byte >= 0xC2 && byte < 0xE0 ? 2 : byte >= 0xE0 && byte < 0xF0 ? 3 : byte >= 0xF0 && byte < 0xF5 ? 4 : 1;
}

const strictUtf8 = new TextDecoder("utf-8", {fatal: true, ignoreBOM: true});

// The characters UTF-8 bytes spell: [start, end, form, size], form null for
// bytes that are no whole character (a lone byte, or a character cut short,
// whose size is that of the whole).
function unitsOf(data) {
  const units = [];
  for (let at = 0; at < data.length;) {
    const size = leadSize(data[at]);
    let char = null;
    try {
      char = at + size <= data.length ? strictUtf8.decode(data.subarray(at, at + size)) : null;
    } catch { /* not a whole character */ }
    if (char !== null && Array.from(char).length === 1) {
      units.push([at, at + size, charForm(char), size]);
      at += size;
      continue;
    }
    let end = at + 1;
    while (end < data.length && cutShort(data, at, end + 1)) end++;
    units.push([at, end, null, cutShort(data, at, end) ? size : 1]);
    at = end;
  }
  return units;
}

function byteForm(data) {
  return Array.from(data, byte => "\u27E80x" + byte.toString(16).toUpperCase().padStart(2, "0") + "\u27E9").join("");
}

// Tokens read together, each as its parts: {text, held}, held "" for a whole
// character or the bytes of one it holds, "[1-2/3]".
function readable(tokens, bytes) {
  if (!bytes) return tokens.map(token => Array.from(token, char => ({text: charForm(char), held: ""})));
  const data = Uint8Array.from(tokens.join(""), char => char.charCodeAt(0));
  const units = unitsOf(data);
  let start = 0, unit = 0;
  return tokens.map(token => {
    const end = start + token.length, parts = [];
    for (; unit < units.length && units[unit][0] < end; unit++) {
      const [first, last, form, whole] = units[unit];
      const low = Math.max(first, start), high = Math.min(last, end);
      const cut = form === null ? whole > 1 : low !== first || high !== last;
      const held = !cut ? "" : low + 1 === high ? `[${low - first + 1}/${whole}]` : `[${low - first + 1}-${high - first}/${whole}]`;
      parts.push({text: form ?? byteForm(data.subarray(low, high)), held});
      if (last > end) break;
    }
    start = end;
    return parts;
  });
}

// Tokens read together, each as one string, as window.bpeWidget reports them.
function readableTexts(tokens, bytes) {
  return readable(tokens, bytes).map(parts => parts.map(part => part.text + part.held).join(""));
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

// A token's box: its parts (see readable), a name or bytes and the bytes held of a character set apart.
function tokenBox(parts, unknown = false) {
  const box = element("span", unknown ? "tok unknown" : "tok");
  for (const {text, held} of parts) {
    box.append(text.startsWith("\u27E8") ? element("span", "code", text) : text);
    if (held) box.append(element("span", "code", held));
  }
  if (unknown) box.title = "unknown: not in the training text";
  return box;
}

// Tokens read together, a box each.
function tokenBoxes(tokens, bytes, isUnknown = () => false) {
  const drawn = readable(tokens, bytes);
  return element("span", "", ...tokens.map((token, at) => tokenBox(drawn[at], isUnknown(token))));
}

// A token alone, as text.
function label(token, bytes) {
  return readableTexts([token], bytes)[0];
}

function row(cells, className = "") {
  return element("tr", className, ...cells.map(([content, cellClass = ""]) => element("td", cellClass, content)));
}

// A pair of tokens, read together.
function pairCell(left, right, bytes) {
  const [first, second] = readable([left, right], bytes);
  return element("span", "pair", tokenBox(first), element("span", "plus", "+"), tokenBox(second));
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
    [tokenBox(readable([m.left + m.right], bytes)[0])], [String(m.tokensLeft), "number"]])));
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
    const [left, right] = readableTexts([last.left, last.right], run.bytes);
    status.textContent = `Merge ${k}: ${left} + ${right} ` +
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
    pair: readableTexts([m.left, m.right], trained.bytes), token: label(m.left + m.right, trained.bytes),
    count: m.count, left: m.tokensLeft,
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
