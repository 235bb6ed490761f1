
"use strict";
const box = document.getElementById("text");
const status = document.getElementById("status");
const out = document.getElementById("out");
let asked = 0;
let timer = null;

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;  // text, never HTML
  return node;
}

async function post(route, body) {
  const response = await fetch(route, {method: "POST", body: body});
  if (!response.ok) throw new Error((await response.text()).trim());
  return response.json();
}

function perToken(amount, tokens) {
  return tokens ? (amount / tokens).toFixed(3) : "-";
}

function counted(number, noun) {  // "1 token", "2 tokens"
  return number.toLocaleString("en") + " " + noun + (number === 1 ? "" : "s");
}

// A token's chip: its readable form (a part of a character cut between tokens as the bytes it holds, "[1-2/3]",
// the character itself drawn once under the chips that share it), and its ID.
function chip(result, position, onClick) {
  const id = result.ids[position];
  const token = element("button", "tok c" + (position % 5) + (result.unknown[position] ? " unknown" : ""));
  token.type = "button";
  token.dataset.id = id;
  token.dataset.piece = result.pieces[position];
  token.title = result.shown[position];
  token.setAttribute("aria-pressed", "false");
  const piece = element("span", "piece");
  for (const part of result.parts[position] ?? [result.shown[position]]) {
    piece.append(typeof part === "string" ? part : element("span", "share", "[" + part[1] + "]"));
  }
  token.append(piece, element("span", "id", String(id)));
  token.addEventListener("click", () => onClick(token, id, result.around[position]));
  return token;
}

// The chips, a run of them that share cut characters in one group: the chips in a row, and under them each
// shared character once, across its chips (neighbouring ones on two lines, as they may share a chip).
function chips(result, onClick) {
  const tokens = element("div", "tokens");
  const splitAt = new Map(result.split.map((split, index) => [split[0], index]));
  for (let position = 0; position < result.ids.length;) {
    if (!splitAt.has(position)) {
      tokens.append(chip(result, position++, onClick));
      continue;
    }
    const group = element("span", "group"), first = position, shared = [];
    let last = position;
    for (let index = splitAt.get(position); index < result.split.length && result.split[index][0] <= last; index++) {
      const [from, to, text] = result.split[index];
      const character = element("bdi", "char", text);
      character.style.gridColumn = (from - first + 1) + " / " + (to - first + 2);
      character.style.gridRow = String(2 + index % 2);
      shared.push(character);
      last = Math.max(last, to);
    }
    for (; position <= last; position++) {
      const token = chip(result, position, onClick);
      token.style.gridColumn = String(position - first + 1);
      group.append(token);
    }
    group.append(...shared);
    tokens.append(group);
  }
  return tokens;
}

function draw(results) {
  out.replaceChildren();
  results.forEach((result, index) => {
    const section = element("section", "tokenizer");
    section.append(element("h2", "", result.label));
    const count = result.ids.length, unknown = result.unknown.filter(Boolean).length;
    section.append(element("p", "counts", counted(count, "token") + ", " + counted(result.characters, "character") +
      ", " + perToken(result.characters, count) + " characters and " + perToken(result.bytes, count) +
      " bytes per token" + (unknown ? ", " + counted(unknown, "unknown token") + " (" +
      Math.round(100 * unknown / count) + "%)" : "")));
    const built = element("div", "built");
    built.setAttribute("aria-live", "polite");
    const tokens = chips(result, (token, id, around) => explain(index, id, around, token, tokens, built));
    section.append(tokens, built);
    out.append(section);
  });
}

async function explain(index, id, around, token, tokens, built) {
  tokens.querySelectorAll("[aria-pressed=true]").forEach(other => other.setAttribute("aria-pressed", "false"));
  token.setAttribute("aria-pressed", "true");
  try {
    const tree = await post("/explain", JSON.stringify({tokenizer: index, id: id, around: around}));
    drawTree(built, tree);
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

async function update() {
  const mine = ++asked;
  try {
    const answer = await post("/encode", new TextEncoder().encode(box.value));
    if (mine !== asked) return;  // a newer text is on its way
    status.textContent = "";
    draw(answer.results);
  } catch (error) {
    if (mine === asked) status.textContent = error.message;
  }
}

box.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(update, 150); });
window.bpeView = {update: update, ready: () => asked > 0 && out.childElementCount > 0};
update();
