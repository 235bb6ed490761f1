
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

function draw(results) {
  out.replaceChildren();
  results.forEach((result, index) => {
    const section = element("section", "tokenizer");
    section.append(element("h2", "", result.label));
    const count = result.ids.length;
    section.append(element("p", "counts", count.toLocaleString("en") + " tokens, " +
      result.characters.toLocaleString("en") + " characters, " + perToken(result.characters, count) +
      " characters and " + perToken(result.bytes, count) + " bytes per token"));
    const tokens = element("div", "tokens");
    const built = element("div", "built");
    built.setAttribute("aria-live", "polite");
    result.ids.forEach((id, position) => {
      const token = element("button", "tok c" + (position % 5) + (result.unknown[position] ? " unknown" : ""));
      token.type = "button";
      token.dataset.id = id;
      token.dataset.piece = result.pieces[position];
      token.setAttribute("aria-pressed", "false");
      token.append(element("span", "piece", result.shown[position]), element("span", "id", String(id)));
      token.addEventListener("click", () => explain(index, id, token, tokens, built));
      tokens.append(token);
    });
    section.append(tokens, built);
    out.append(section);
  });
}

async function explain(index, id, token, tokens, built) {
  tokens.querySelectorAll("[aria-pressed=true]").forEach(other => other.setAttribute("aria-pressed", "false"));
  token.setAttribute("aria-pressed", "true");
  try {
    const tree = await post("/explain", JSON.stringify({tokenizer: index, id: id}));
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
  if (tree.reason !== null) {
    built.append(element("p", "reason", tree.reason));
    return;
  }
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
