"""``bpe view``: a page on this computer that looks inside any vocabulary, served by the standard library.

The learner types text and sees, for each tokenizer, its tokens coloured
with their IDs and the counts; clicking a token (or Enter on it) shows how
it was built, the merge tree of ``bpelab.display.merge_tree`` with each
merge numbered as ``bpe explain`` numbers it. What the page shows is
``bpe.Tokenizer.encode`` (special tokens' text as their IDs) and
``bpe.Tokenizer.token_texts``; the server computes it, the page only draws it.

A server on a laptop is reachable by every web page the laptop opens, so
this one trusts nothing. It binds 127.0.0.1 only, on a free port; answers
only requests whose ``Host`` is that address and port (a DNS-rebinding
page would send its own name); refuses a POST whose ``Origin`` is not the
page's own, and sends no CORS header, so no other site can read an answer;
refuses a body longer than ``MAX_BODY`` bytes before reading it, and text
longer than ``MAX_CHARS`` characters; gives up on a connection silent for
``TIMEOUT`` seconds; answers 404 to anything but its three routes (``GET /``,
``POST /encode``, ``POST /explain``); writes nothing to disk. The page's
script puts token text in with ``textContent`` only, never as HTML, under a
Content-Security-Policy that allows only its own inline script and style (by
their sha256) and requests to itself.
"""

import base64
import hashlib
import html
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from bpelab.byte_level import replace_lone_surrogates
from bpelab.display import DEFAULT_TEXT, merge_tree, token_spans, token_texts, visible

MAX_CHARS = 100_000
"""The longest text, in characters, one request may ask to encode."""

MAX_BODY = 400_000
"""The largest request body, in bytes (``MAX_CHARS`` characters of 4 UTF-8 bytes); a larger one is not read."""

TIMEOUT = 10.0
"""Seconds a connection may stay silent before the server closes it."""


def encode_all(tokenizers, text):
    """What the page draws for ``text``: for each ``(label, tokenizer)``, its IDs, pieces and counts."""
    results = []
    for label, tokenizer in tokenizers:
        ids = tokenizer.encode(text, allowed_special="all")
        seen = replace_lone_surrogates(text) if tokenizer.byte_level else text
        results.append({
            "label": label, "ids": ids, "pieces": token_texts(tokenizer, seen, ids),
            "shown": [visible(span) for span in token_spans(tokenizer, seen, ids)],
            "unknown": [token_id == 0 and not tokenizer.byte_level for token_id in ids],
            "characters": len(text), "bytes": len(seen.encode("utf-8")),
        })
    return {"results": results}


class ViewServer(ThreadingHTTPServer):
    """The page's server, for ``tokenizers`` (label -> tokenizer), bound to 127.0.0.1 on a free port."""

    daemon_threads = True  # a connection still open does not keep the program from stopping

    def __init__(self, tokenizers, text=DEFAULT_TEXT, timeout=TIMEOUT):
        super().__init__(("127.0.0.1", 0), Handler)
        self.tokenizers = list(tokenizers.items())
        self.host = f"127.0.0.1:{self.server_port}"
        self.origin = f"http://{self.host}"
        self.page = PAGE.replace(TEXT_MARKER, html.escape(text), 1).encode("utf-8")
        self.connection_timeout = timeout
        self.lock = threading.Lock()  # one request at a time works on the tokenizers (their caches are shared)


class Refused(Exception):
    """A request refused with an HTTP status and a one-line reason."""

    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status


class Handler(BaseHTTPRequestHandler):
    """One connection to ``ViewServer``: every check of the module docstring, then one of the three routes."""

    server_version = "bpe-view"

    def version_string(self):
        """The Server header: the page's name, without Python's version."""
        return self.server_version

    def setup(self):
        self.timeout = self.server.connection_timeout  # the socket's timeout, set by StreamRequestHandler.setup
        super().setup()

    def log_message(self, format, *args):
        """Say nothing: the page is the output (and nothing is written anywhere)."""

    def __getattr__(self, name):
        """Any method but GET and POST (HEAD, PUT, OPTIONS, ...) is no route of the page: 404, not 501."""
        if name.startswith("do_"):
            return self.do_other
        raise AttributeError(name)

    def do_GET(self):
        self.answer(lambda: self.route({"/": self.page}))

    def do_POST(self):
        self.answer(lambda: self.route({"/encode": self.encode, "/explain": self.explain}))

    def do_other(self):
        self.answer(lambda: self.route({}))

    def page(self):
        return self.server.page, "text/html; charset=utf-8"

    def route(self, routes):
        """The answer of the route asked for, once the Host (and for a POST the Origin and the body) pass."""
        if self.headers.get("Host") != self.server.host:
            raise Refused(403, f"this server answers only to Host {self.server.host}")
        if self.path not in routes:
            raise Refused(404, "no such page")
        if self.command == "POST" and self.headers.get("Origin") != self.server.origin:
            raise Refused(403, f"a POST must come from the page itself (Origin {self.server.origin})")
        return routes[self.path]()

    def body(self):
        """The request's body, whose length must be given and at most ``MAX_BODY`` bytes, read only then."""
        if "Transfer-Encoding" in self.headers:
            raise Refused(411, "send the body with a Content-Length, not a Transfer-Encoding")
        length = self.headers.get("Content-Length", "")
        if not length.isascii() or not length.isdigit():
            raise Refused(411, "a POST needs a Content-Length")
        if len(length) > len(str(MAX_BODY)) or int(length) > MAX_BODY:
            raise Refused(413, f"at most {MAX_BODY:,} bytes per request")
        data = self.rfile.read(int(length))
        if len(data) != int(length):
            raise Refused(400, "the body ended before its Content-Length")
        return data

    def encode(self):
        """``POST /encode``: the body is the text, in UTF-8."""
        try:
            text = self.body().decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(400, "the text must be UTF-8") from None
        if len(text) > MAX_CHARS:
            raise Refused(413, f"at most {MAX_CHARS:,} characters per request, not {len(text):,}")
        with self.server.lock:
            return json_answer(encode_all(self.server.tokenizers, text))

    def explain(self):
        """``POST /explain``: the body is ``{"tokenizer": index, "id": token ID}``."""
        try:
            asked = json.loads(self.body().decode("utf-8"))
            index, token_id = asked["tokenizer"], asked["id"]
        except (ValueError, TypeError, KeyError, RecursionError):
            raise Refused(400, 'expected {"tokenizer": N, "id": N}') from None
        if type(index) is not int or not 0 <= index < len(self.server.tokenizers):
            raise Refused(400, "no such tokenizer")
        tokenizer = self.server.tokenizers[index][1]
        if type(token_id) is not int or not 0 <= token_id < len(tokenizer):
            raise Refused(400, "no such token ID")
        with self.server.lock:
            return json_answer(merge_tree(tokenizer, token_id))

    def answer(self, make):
        """Send what ``make()`` gives, ``(body, content type)``, or the refusal it raises; then close."""
        try:
            body, kind, status = *make(), 200
        except Refused as refusal:
            body, kind, status = (str(refusal) + "\n").encode("utf-8"), "text/plain; charset=utf-8", refusal.status
        except OSError:  # the socket timed out or went away while the body was read
            self.close_connection = True
            return
        self.send_response(status)
        for header, value in HEADERS + [("Content-Type", kind), ("Content-Length", str(len(body)))]:
            self.send_header(header, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.close_connection = True


def json_answer(value):
    """A JSON body and its content type."""
    return json.dumps(value, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8"


TEXT_MARKER = "<!--TEXT-->"
"""Where the page's text box receives its first text, escaped as HTML."""

STYLE = """
  :root { color-scheme: light; font-family: system-ui, sans-serif; line-height: 1.45; --line: #cfcfd6;
          --muted: #54545c; --accent: #1457b8; }
  body { margin: 0; background: #f6f6f8; color: #1c1c21; }
  main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
  h1 { font-size: 1.4rem; margin: .2rem 0 .5rem; }
  h2 { font-size: 1.05rem; margin: 1.2rem 0 .2rem; overflow-wrap: anywhere; }
  textarea { display: block; width: 100%; box-sizing: border-box; font: inherit; padding: .4rem .5rem;
             border: 1px solid var(--line); border-radius: 6px; min-height: 6rem; resize: vertical; }
  .note, .counts { color: var(--muted); font-size: .9rem; margin: .2rem 0; }
  #status { min-height: 1.4em; color: #b0241b; font-weight: 600; }
  .tokens { display: flex; flex-wrap: wrap; gap: 3px; background: #fff; border: 1px solid var(--line);
            border-radius: 6px; padding: .4rem; }
  .tok { font: inherit; display: inline-flex; flex-direction: column; align-items: center; border: 1px solid
         transparent; border-radius: 4px; padding: 0 .25em; cursor: pointer; color: #1c1c21; }
  .tok .piece { font-family: ui-monospace, Menlo, Consolas, monospace; white-space: pre; unicode-bidi: isolate; }
  .tok .id { font-size: .7rem; color: var(--muted); font-variant-numeric: tabular-nums; }
  .c0 { background: #ffe1a8; } .c1 { background: #c8ecf7; } .c2 { background: #d4f2cf; }
  .c3 { background: #f6d3ee; } .c4 { background: #e4e0fb; }
  .tok.unknown { background: #b0241b; color: #fff; } .tok.unknown .id { color: #fff; }
  .tok[aria-pressed="true"] { border-color: #1c1c21; }
  :focus-visible { outline: 3px solid var(--accent); outline-offset: 1px; }
  .built { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .4rem .8rem;
           margin-top: .4rem; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .9rem; }
  .built:empty { display: none; }
  .built ul { list-style: none; margin: 0; padding-left: 1.4rem; border-left: 1px dotted var(--line); }
  .built > ul { padding-left: 0; border: 0; }
  .made { font-weight: 650; }
"""

SCRIPT = """
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
"""

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>bpe view: tokens side by side</title>
<style>""" + STYLE + """</style>
</head>
<body>
<main>
<h1>Look inside a vocabulary</h1>
<label for="text">Text (at most """ + f"{MAX_CHARS:,}" + """ characters; special tokens' text becomes their IDs)</label>
<textarea id="text" maxlength=\"""" + str(MAX_CHARS) + """\" spellcheck="false">""" + TEXT_MARKER + """</textarea>
<p class="note">Click a token, or Tab to it and press Enter, to see the merges that built it.</p>
<p id="status" role="status"></p>
<div id="out"></div>
</main>
<script>""" + SCRIPT + """</script>
</body>
</html>
"""


def source_hash(source):
    """A Content-Security-Policy source for an inline script or style: the sha256 of its text."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii") + "'"


CONTENT_SECURITY_POLICY = (f"default-src 'none'; script-src {source_hash(SCRIPT)}; style-src {source_hash(STYLE)}; "
                           "connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; "
                           "frame-ancestors 'none'")
"""Only the page's own script and style run, it may fetch only from itself, and no other page may frame it."""

HEADERS = [("Content-Security-Policy", CONTENT_SECURITY_POLICY), ("X-Content-Type-Options", "nosniff"),
           ("Referrer-Policy", "no-referrer"), ("Cache-Control", "no-store")]
"""Sent with every answer (and never an Access-Control-* header)."""


def serve(tokenizers, text=DEFAULT_TEXT, ready=None):
    """Serve the page for ``tokenizers`` (label -> tokenizer) until Ctrl-C; ``ready(address)`` hears where."""
    with ViewServer(tokenizers, text) as server:
        if ready is not None:
            ready(server.origin + "/")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
