"use strict";
// bpe view's page: the server encodes, this script draws. A long text has tens of thousands of tokens per
// tokenizer, so each section draws only what is in view (BATCH tokens at a time, more as its box scrolls), a new
// text cancels the request for the old one, and results still being worked out for a new text are dimmed.
const box = document.getElementById("text");
const lengthNote = document.getElementById("length");
const mirror = document.getElementById("mirror");
const choose = document.getElementById("choose");
const whitespace = document.getElementById("whitespace");
const status = document.getElementById("status");
const out = document.getElementById("out");
const MAX_CHARS = Number(box.dataset.maxChars);
const BATCH = 200;  // tokens drawn at a time: about a box full
const WAIT = 80;  // milliseconds of quiet typing before the text is sent
const MARKS = {"␣": " ", "↵": "\n", "⇥": "\t", "␍": "\r"};  // the readable form's whitespace marks

let sections = [];  // one per tokenizer: its elements, its result (see `received`), what is drawn of it
let sentText = "";  // the text the results on the page are for
let pending = null;  // the AbortController of the request on its way
let timer = null;
let typed = false;  // whether the box changed since the text on its way was taken from it
let spans = null;  // for sentText: a promise of each tokenizer's token spans in it (asked on the first pointing)

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;  // text, never HTML
  return node;
}

async function post(route, body, signal) {
  let response;
  try {
    response = await fetch(route, {method: "POST", body: body, signal: signal});
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new Error("The server does not answer: bpe view has stopped, or this page lost it. Start bpe view " +
                    "again and open the address it prints.");
  }
  if (!response.ok) throw new Error((await response.text()).trim());
  return response.json();
}

function counted(number, noun) {  // "1 token", "2 tokens"
  return number.toLocaleString("en") + " " + noun + (number === 1 ? "" : "s");
}

function perToken(amount, tokens) {
  return tokens ? (amount / tokens).toFixed(3) : "-";
}

// The text as the server counts it: in characters (code points), not in JavaScript's UTF-16 units. A longer text
// is cut to MAX_CHARS characters, and the page says so.
function limited(text) {
  let characters = 0, end = 0;
  while (end < text.length && characters < MAX_CHARS) {
    end += text.codePointAt(end) > 0xffff ? 2 : 1;
    characters++;
  }
  if (end === text.length) {
    lengthNote.className = "note";
    lengthNote.textContent = counted(characters, "character") + " of at most " + counted(MAX_CHARS, "character");
    return text;
  }
  const total = characters + [...text.slice(end)].length;
  lengthNote.className = "note cut";
  lengthNote.textContent = "The text has " + counted(total, "character") + "; the tokenizers see only the first " +
    MAX_CHARS.toLocaleString("en") + ": the last " + (total - characters).toLocaleString("en") + " (from “" +
    [...text.slice(end)].slice(0, 12).join("") + "…” on) are cut.";
  return text.slice(0, end);
}

function form(text) {  // the readable form, its whitespace marks as the whitespace itself unless asked for
  return whitespace.checked ? text : text.replace(/[␣↵⇥␍]/g, mark => MARKS[mark]);
}

// A token's chip: its readable form (a part of a character cut between tokens as the bytes it holds, "[1-2/3]",
// the character itself drawn once under the chips that share it), a mark for an unknown or special token, its ID.
function chip(section, position) {
  const result = section.result, id = result.ids[position];
  const kind = result.unknown.has(position) ? " unknown" : result.special.has(position) ? " special" : "";
  const token = element("button", "tok c" + (position % 5) + kind);
  token.type = "button";
  token.tabIndex = position === section.current ? 0 : -1;
  token.dataset.position = position;
  token.title = result.shown[position];
  token.setAttribute("aria-pressed", String(position === section.pressed));
  const piece = element("span", "piece");
  for (const part of result.cut[position]?.[0] ?? [token.title]) {
    piece.append(typeof part === "string" ? form(part) : element("span", "share", "[" + part[0] + "]"));
  }
  const foot = element("span", "foot");
  if (kind) foot.append(element("span", "mark", kind === " unknown" ? "?" : "★"));
  foot.append(element("span", "id", String(id)));
  token.append(piece, foot);
  return token;
}

// Draw the chips from `position` on, at least `count` of them, of those received (a run that shares cut
// characters is drawn whole: the chips in a row, under them each shared character once, across its chips,
// neighbouring ones on two lines, as they may share a chip).
function drawChips(section, position, count) {
  const result = section.result, drawn = [], stop = Math.min(result.loaded, position + count);
  while (position < stop) {
    const index = result.splitAt.get(position);
    if (index === undefined) {
      drawn.push(chip(section, position++));
      continue;
    }
    const group = element("span", "group"), first = position, shared = [];
    let last = position;
    for (let at = index; at < result.split.length && result.split[at][0] <= last; at++) {
      const [from, to, text] = result.split[at];
      const character = element("bdi", "char", form(text));
      character.style.gridColumn = (from - first + 1) + " / " + (to - first + 2);
      character.style.gridRow = String(2 + at % 2);
      shared.push(character);
      last = Math.max(last, to);
    }
    for (; position <= last; position++) {
      const token = chip(section, position);
      token.style.gridColumn = String(position - first + 1);
      group.append(token);
    }
    group.append(...shared);
    drawn.push(group);
  }
  section.end.before(...drawn);
  section.drawn = position;
  section.end.hidden = position >= result.ids.length;
}

// The results of one text for one tokenizer, as the server sends them (view.py's `sent`): all the IDs, and what
// is drawn of the tokens received so far (up to `loaded`); `more` adds the next window the server sends.
function received(answer, text) {
  const result = {text, ids: answer.ids, shown: [], cut: {}, split: [], splitAt: new Map(), loaded: 0,
                  unknown: new Set(answer.unknown), special: new Set(answer.special),
                  characters: answer.characters, bytes: answer.bytes};
  more(result, answer);
  return result;
}

function more(result, answer) {
  answer.shown.forEach((form, index) => { result.shown[answer.start + index] = answer.forms[form]; });
  Object.assign(result.cut, answer.cut);
  for (const split of answer.split) {
    if (split[0] < result.loaded) continue;  // (drawn from an earlier window)
    result.splitAt.set(split[0], result.split.length);
    result.split.push(split);
  }
  result.loaded = answer.start + answer.shown.length;
}

// Draw `count` more chips, asking the server for the tokens not received yet; one section's drawing at a time.
function drawMore(section, count) {
  section.queue = section.queue.then(async () => {
    const result = section.result, want = Math.min(result.ids.length, section.drawn + count);
    while (result.loaded < want) {
      const asked = {tokenizer: section.index, text: result.text, from: result.loaded};
      more(result, await post("/tokens", JSON.stringify(asked)));
    }
    if (section.result === result) drawChips(section, section.drawn, want - section.drawn);
  }).catch(error => { status.textContent = error.message; });
  return section.queue;
}

function fillBox(section) {  // draw more while the end of the box is in sight (or near)
  const box = section.tokens;
  if (section.inView && !section.end.hidden && box.scrollTop + box.clientHeight > box.scrollHeight - 200) {
    drawMore(section, BATCH).then(() => fillBox(section));
  }
}

async function drawUpTo(section, position) {  // the chip at `position`, drawn if it was not
  if (position >= section.drawn) await drawMore(section, position + BATCH - section.drawn);
  return section.tokens.querySelector(`[data-position="${position}"]`);
}

function makeSection(label, index) {
  const sectionNode = element("section", "tokenizer");
  const title = element("h2", "", label);
  const counts = element("p", "counts");
  const copy = element("button", "copy", "Copy the IDs");
  copy.type = "button";
  const tokens = element("div", "tokens");
  tokens.setAttribute("role", "group");
  tokens.setAttribute("aria-label", "Tokens of " + label);
  const end = element("div", "end", "…");  // more tokens to draw, once the box scrolls near them
  const built = element("div", "built");
  built.setAttribute("aria-live", "polite");
  sectionNode.append(title, counts, copy, tokens, built);
  const section = {element: sectionNode, index, label, counts, tokens, end, built, result: null, drawn: 0,
                   current: 0, pressed: -1, queue: Promise.resolve(), inView: false};
  copy.addEventListener("click", () => copyIds(section));
  tokens.addEventListener("click", event => {
    const token = event.target.closest(".tok");
    if (token) explain(section, Number(token.dataset.position));
  });
  tokens.addEventListener("keydown", event => moveWithKeys(section, event));
  tokens.addEventListener("pointerover", event => {
    const token = event.target.closest(".tok");
    if (token) lightText(section, Number(token.dataset.position));
  });
  tokens.addEventListener("pointerleave", () => CSS.highlights.delete("lit"));
  tokens.addEventListener("scroll", () => fillBox(section));
  new IntersectionObserver(entries => {  // a section out of sight draws its chips once it comes near
    section.inView = entries[entries.length - 1].isIntersecting;
    if (!section.inView || !section.result) return;
    if (section.drawn === 0) drawChips(section, 0, BATCH);
    fillBox(section);
  }, {rootMargin: "300px"}).observe(sectionNode);
  const choice = element("label", "choice");
  const shown = element("input");
  shown.type = "checkbox";
  shown.checked = true;
  shown.addEventListener("change", () => {
    sectionNode.hidden = !shown.checked;
    if (shown.checked && section.result && section.drawn === 0) draw(section);
  });
  choice.append(shown, " " + label);
  choose.append(choice);
  document.getElementById("decode-with").append(new Option(label, String(index)));
  return section;
}

// Draw a section's result: its counts, and as many chips as it showed before (at least a batch), so that a new
// keystroke keeps the place of a person who has scrolled; a section hidden or out of sight draws its chips only
// once it is shown.
function draw(section) {
  const result = section.result, count = result.ids.length, unknown = result.unknown.size;
  section.counts.textContent = counted(count, "token") + ", " + counted(result.characters, "character") + ", " +
    perToken(result.characters, count) + " characters and " + perToken(result.bytes, count) + " bytes per token" +
    (unknown ? ", " + counted(unknown, "unknown token") + " (" + Math.round(100 * unknown / count) + "%)" : "");
  section.current = Math.min(section.current, Math.max(0, count - 1));
  section.pressed = -1;
  if (section.element.hidden || !section.inView) {
    section.tokens.replaceChildren(section.end);
    section.drawn = 0;
    return;
  }
  const keep = Math.min(Math.max(section.drawn, BATCH), 4 * BATCH), scrolled = section.tokens.scrollTop;
  const focused = section.tokens.contains(document.activeElement);
  section.tokens.replaceChildren(section.end);
  drawChips(section, 0, keep);
  section.tokens.scrollTop = scrolled;
  fillBox(section);
  if (focused) drawUpTo(section, section.current).then(token => token?.focus());
}

function drawAll(results, text) {
  if (sections.length === 0) {
    sections = results.map((result, index) => makeSection(result.label, index));
    out.append(...sections.map(section => section.element));
  }
  results.forEach((result, index) => {
    sections[index].result = received(result, text);
    draw(sections[index]);
  });
}

// One Tab stop per tokenizer (its current token), the arrow keys, Home and End within.
async function moveWithKeys(section, event) {
  const last = section.result.ids.length - 1;
  const moves = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1};
  let next;
  if (event.key in moves) next = section.current + moves[event.key];
  else if (event.key === "Home") next = 0;
  else if (event.key === "End") next = last;
  else return;
  event.preventDefault();
  next = Math.max(0, Math.min(last, next));
  const token = await drawUpTo(section, next);
  section.tokens.querySelector(`[data-position="${section.current}"]`)?.setAttribute("tabindex", "-1");
  section.current = next;
  token.tabIndex = 0;
  token.focus();
  lightText(section, next);
}

async function copyIds(section) {
  const ids = section.result.ids;
  try {
    await navigator.clipboard.writeText(ids.join(", "));
    status.textContent = "Copied " + counted(ids.length, "ID") + " of " + section.label + ".";
  } catch (error) {
    status.textContent = "Could not copy the IDs: " + error.message;
  }
}

async function explain(section, position) {
  section.tokens.querySelectorAll("[aria-pressed=true]").forEach(other => other.setAttribute("aria-pressed", "false"));
  const token = section.tokens.querySelector(`[data-position="${position}"]`);
  token.setAttribute("aria-pressed", "true");
  section.pressed = position;
  section.tokens.querySelector(`[data-position="${section.current}"]`)?.setAttribute("tabindex", "-1");
  section.current = position;
  token.tabIndex = 0;
  const asked = {tokenizer: section.index, id: section.result.ids[position], around: section.result.cut[position]?.[1]};
  try {
    drawTree(section.built, await post("/explain", JSON.stringify(asked)));
  } catch (error) {
    status.textContent = error.message;
  }
}

function isolated(className, text) {  // right-to-left text stays in its place among the rest
  return element("bdi", className, text);
}

function drawTree(built, tree) {
  const title = element("p", "title", "ID " + tree.id + ": ");
  title.append(isolated("", tree.text));
  built.replaceChildren(title);
  if (tree.reason !== null) built.append(element("p", "reason", tree.reason));
  if (tree.nodes.length === 0) return;
  const top = element("ul");
  const lists = [top];  // lists[d]: where nodes of depth d go (the nodes come in pre-order)
  for (const node of tree.nodes) {
    const item = element("li", "node");
    if (node.merge === null) {
      item.append(isolated("leaf", node.text));
    } else {
      const step = element("span", "step", "merge " + node.merge + ": ");
      step.append(isolated("", node.pair[0]), " + ", isolated("", node.pair[1]));
      item.append(isolated("made", node.text), "  ", step);
    }
    lists[node.depth].append(item);
    const children = element("ul");
    item.append(children);
    lists[node.depth + 1] = children;
  }
  built.append(top);
  if (tree.more) built.append(element("p", "note", "... " + tree.more.toLocaleString("en") + " more not shown"));
}

// Pointing: a token lights the text it covers in the mirror, and a place in the mirror lights, in each section
// shown, the token that covers it. The spans are asked for once per text, when first wanted.
function tokenSpans() {
  if (spans === null) spans = post("/spans", new TextEncoder().encode(sentText)).then(answer => answer.spans);
  return spans;
}

async function lightText(section, position) {
  const text = sentText, [start, end] = (await tokenSpans())[section.index][position] ?? [0, 0];
  if (text !== sentText || !mirror.firstChild) return;
  const range = new Range();
  range.setStart(mirror.firstChild, start);
  range.setEnd(mirror.firstChild, end);
  CSS.highlights.set("lit", new Highlight(range));
}

function spanAt(spansOf, offset) {  // the index of the token whose span holds `offset` (spans in order)
  let low = 0, high = spansOf.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (spansOf[middle][0] <= offset) low = middle; else high = middle - 1;
  }
  return low;
}

function scrollWithin(box, token) {  // bring the token into its box's sight, leaving the page where it is
  const outer = box.getBoundingClientRect(), inner = token.getBoundingClientRect();
  if (inner.top < outer.top) box.scrollTop -= outer.top - inner.top;
  else if (inner.bottom > outer.bottom) box.scrollTop += inner.bottom - outer.bottom;
}

async function lightTokens(event) {
  const place = document.caretPositionFromPoint(event.clientX, event.clientY);
  if (!place || place.offsetNode !== mirror.firstChild) return;
  const text = sentText, every = await tokenSpans();
  if (text !== sentText) return;
  for (const section of sections) {
    if (section.element.hidden || section.result.ids.length === 0) continue;
    section.tokens.querySelector(".lit")?.classList.remove("lit");
    const token = await drawUpTo(section, spanAt(every[section.index], place.offset));
    token.classList.add("lit");
    scrollWithin(section.tokens, token);
  }
}

// Sending the text: a new one cancels the one on its way (the server drops it), and the results on the page are
// dimmed until the new ones are drawn, or stay dimmed under the error that came instead.
async function update() {
  clearTimeout(timer);
  pending?.abort();
  const text = limited(box.value), controller = new AbortController();
  pending = controller;
  typed = false;
  out.classList.add("stale");
  out.setAttribute("aria-busy", "true");
  try {
    const answer = await post("/encode", new TextEncoder().encode(text), controller.signal);
    sentText = text;
    spans = null;
    mirror.textContent = text;
    drawAll(answer.results, text);
    status.textContent = "";
    if (!typed) {
      out.classList.remove("stale");
      out.setAttribute("aria-busy", "false");
    }
  } catch (error) {
    if (error.name !== "AbortError") status.textContent = error.message;
  }
}

box.addEventListener("input", () => {
  typed = true;
  out.classList.add("stale");
  clearTimeout(timer);
  timer = setTimeout(update, WAIT);
});
whitespace.addEventListener("change", () => sections.forEach(section => section.result && draw(section)));
mirror.addEventListener("pointermove", lightTokens);
mirror.addEventListener("pointerleave", () => {
  document.querySelectorAll("#out .lit").forEach(token => token.classList.remove("lit"));
});

// Decoding pasted IDs with the tokenizer chosen.
document.getElementById("decode").addEventListener("click", async () => {
  const decoded = document.getElementById("decoded");
  const words = document.getElementById("ids").value.split(/[\s,\[\]]+/).filter(Boolean);
  const wrong = words.find(word => !/^\d+$/.test(word));
  if (wrong !== undefined) {
    decoded.textContent = "“" + wrong + "” is not a token ID (IDs are whole numbers from 0 on).";
    return;
  }
  const asked = {tokenizer: Number(document.getElementById("decode-with").value), ids: words.map(Number)};
  try {
    decoded.textContent = (await post("/decode", JSON.stringify(asked))).text;
  } catch (error) {
    decoded.textContent = error.message;
  }
});

window.bpeView = {update: update, ready: () => sections.length > 0 && !out.classList.contains("stale")};
update();
