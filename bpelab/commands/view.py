"""``bpe view``: a page on this computer that looks inside any vocabulary, served by the standard library.

The learner types text and sees, for each tokenizer, its tokens coloured
with their IDs and the counts, in the readable form
(``bpelab.commands.page_tokens``: a character cut between tokens is drawn
once, under the tokens that share it); clicking a token (or Enter on it)
shows how it was built, the merge tree of
``bpelab.commands.drawing.merge_tree``, the merges ``bpe explain`` replays,
each numbered as it numbers them; pointing at a token lights the text it
covers, and the reverse (``Tokenizer.encode_with_offsets``); IDs pasted in
are decoded (``Tokenizer.decode``). What the page shows is
``bpe.Tokenizer.encode`` (special tokens' text as their IDs),
``bpe.Tokenizer.token_texts`` and ``bpelab.text.readable``'s parts; the server
computes it, the page only draws it, as much of it as is in view.

A server on a laptop is reachable by every web page the laptop opens, so
this one trusts nothing. It binds 127.0.0.1 only, on a free port; answers
only requests whose ``Host`` is that address and port, or ``localhost`` and
that port (a DNS-rebinding page would send its own name); refuses a POST
whose ``Origin`` is not the page's own (the Host's), and sends no CORS
header, so no other site can read an answer; refuses a body longer than
``MAX_BODY`` bytes before reading it, and text longer than ``MAX_CHARS``
characters; gives up on a connection silent for ``TIMEOUT`` seconds;
answers 404 to anything but its six routes (``GET /``, ``POST /encode``,
``/tokens``, ``/explain``, ``/decode``, ``/spans``); drops an encoding the page has
given up on (it closed the connection: a newer text is on its way); writes
nothing to disk. The page's script puts token text in with
``textContent`` only, never as HTML, under a Content-Security-Policy that
allows only its own inline script and style (by their sha256, worked out
from the page's files, ``pages/view.*``) and requests to itself.
"""

import html
import json
import select
import socket
import sys
import threading
from itertools import accumulate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from bpelab.commands.drawing import DEFAULT_TEXT, merge_tree
from bpelab.commands.page_files import inline_page, source_hash
from bpelab.commands.page_tokens import TokenTable
from bpelab.messages import readable_name

MAX_CHARS = 100_000
"""The longest text, in characters, one request may ask to encode."""

MAX_BODY = 400_000
"""The largest request body, in bytes (``MAX_CHARS`` characters of 4 UTF-8 bytes); a larger one is not read."""

WINDOW = 1000
"""How many tokens of each tokenizer one answer draws (the page asks for more as it scrolls: ``/tokens``)."""

TIMEOUT = 10.0
"""Seconds a connection may stay silent before the server closes it."""


def encode_all(tables, text, gone=lambda: False):
    """What the page draws first for ``text``: for each ``(label, TokenTable)``, ``sent`` of its first ``WINDOW``
    tokens.

    ``gone()`` is asked before each tokenizer: once it says the page has
    given up on this answer (a newer text is on its way), the work stops.
    """
    results = []
    for label, table in tables:
        if gone():
            raise ConnectionAbortedError("the page gave up on this text")
        results.append(sent(label, table.answer(text, 0, WINDOW)))
    return {"results": results}


def sent(label, answer):
    """One tokenizer's answer (``TokenTable.answer``) as the page receives it, short: all the IDs and counts, and
    for the tokens it draws (from ``start`` on) their readable forms, each distinct one once (``forms``) and each
    token's as an index among them (``shown``); only for the tokens that hold part of a character (a few among
    thousands), their ``parts`` and ``around`` (``cut``: token -> [parts, around]); the unknown and special tokens'
    places; no pieces (the page draws the readable form)."""
    forms, start = {}, answer["start"]
    shown = [forms.setdefault(form, len(forms)) for form in answer["shown"]]
    cut = {start + index: [parts, answer["around"][index]] for index, parts in enumerate(answer["parts"])
           if parts is not None}
    return {"label": label, "ids": answer["ids"], "start": start, "forms": list(forms), "shown": shown,
            "split": answer["split"], "cut": cut,
            "unknown": [index for index, unknown in enumerate(answer["unknown"]) if unknown],
            "special": answer["special"], "characters": answer["characters"], "bytes": answer["bytes"]}


class ViewServer(ThreadingHTTPServer):
    """The page's server, for ``tokenizers`` (label -> tokenizer), bound to 127.0.0.1 on a free port."""

    daemon_threads = True  # a connection still open does not keep the program from stopping
    request_queue_size = 128  # a burst of requests (a reload) waits to be answered, rather than being reset

    def handle_error(self, request, client_address):
        """Say nothing when a connection breaks (a browser cancels a request on a reload or a closed tab)."""
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)

    def __init__(self, tokenizers, text=DEFAULT_TEXT, timeout=TIMEOUT):
        super().__init__(("127.0.0.1", 0), Handler)
        self.tokenizers = [(readable_name(label), tokenizer) for label, tokenizer in tokenizers.items()]  # (UTF-8)
        self.tables = [(label, TokenTable(tokenizer)) for label, tokenizer in self.tokenizers]
        self.host = f"127.0.0.1:{self.server_port}"
        self.hosts = (self.host, f"localhost:{self.server_port}")  # the address printed, and its usual name
        self.origin = f"http://{self.host}"
        self.page = PAGE.html.replace(TEXT_MARKER, html.escape(text), 1).encode("utf-8")
        self.connection_timeout = timeout
        self.lock = threading.Lock()  # one request at a time works on the tokenizers (their caches are shared)


class Refused(Exception):
    """A request refused with an HTTP status and a one-line reason."""

    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status


class Handler(BaseHTTPRequestHandler):
    """One connection to ``ViewServer``: every check of the module docstring, then one of the six routes."""

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
        self.answer(lambda: self.route({"/encode": self.encode, "/explain": self.explain, "/decode": self.decode,
                                        "/spans": self.spans, "/tokens": self.tokens}))

    def do_other(self):
        self.answer(lambda: self.route({}))

    def page(self):
        return self.server.page, "text/html; charset=utf-8"

    def route(self, routes):
        """The answer of the route asked for, once the Host (and for a POST the Origin and the body) pass."""
        host = self.headers.get("Host")
        if host not in self.server.hosts:
            raise Refused(403, f"this server answers only to Host {' or '.join(self.server.hosts)}")
        if self.path not in routes:
            raise Refused(404, "no such page")
        if self.command == "POST" and self.headers.get("Origin") != f"http://{host}":
            raise Refused(403, f"a POST must come from the page itself (Origin http://{host})")
        return routes[self.path]()

    def gone(self):
        """Whether the page has closed this connection: it gave up on the answer (a newer text is on its way)."""
        try:
            ready, _, _ = select.select([self.connection], [], [], 0)
            return bool(ready) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

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

    def text(self):
        """The body as a text, in UTF-8, of at most ``MAX_CHARS`` characters."""
        try:
            text = self.body().decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(400, "the text must be UTF-8") from None
        if len(text) > MAX_CHARS:
            raise Refused(413, f"at most {MAX_CHARS:,} characters per request, not {len(text):,}")
        return text

    def encode(self):
        """``POST /encode``: the body is the text; dropped if the page gives up on it while it waits its turn."""
        text = self.text()
        with self.server.lock:
            return json_answer(encode_all(self.server.tables, text, self.gone))

    def tokens(self):
        """``POST /tokens``: the body is ``{"tokenizer": index, "text": text, "from": token}``; ``sent`` of that
        tokenizer's ``WINDOW`` tokens of the text from that token on."""
        asked = self.asked('expected {"tokenizer": N, "text": "...", "from": N}')
        self.tokenizer_of(asked)  # (checks the index)
        text, start = asked.get("text"), asked.get("from")
        if type(text) is not str or len(text) > MAX_CHARS or not text.isascii() and has_lone_surrogate(text):
            raise Refused(400, f"text must be a text of at most {MAX_CHARS:,} characters (and no lone surrogate)")
        if type(start) is not int or start < 0:
            raise Refused(400, "from must be a token's place: 0 or more")
        label, table = self.server.tables[asked["tokenizer"]]
        with self.server.lock:
            return json_answer(sent(label, table.answer(text, start, WINDOW)))

    def spans(self):
        """``POST /spans``: the body is the text; for each tokenizer, each token's ``[start, end]`` in it, counted
        as JavaScript counts a string (UTF-16 units), from ``Tokenizer.encode_with_offsets``'s characters."""
        text = self.text()
        units = [0, *accumulate(2 if char > "\uffff" else 1 for char in text)]
        with self.server.lock:
            return json_answer({"spans": [[[units[start], units[end]] for _, start, end in
                                           tokenizer.encode_with_offsets(text, allowed_special="all")]
                                          for _, tokenizer in self.server.tokenizers]})

    def decode(self):
        """``POST /decode``: the body is ``{"tokenizer": index, "ids": [token ID, ...]}``; the text they decode to."""
        asked = self.asked('expected {"tokenizer": N, "ids": [N, ...]}')
        tokenizer, ids = self.tokenizer_of(asked), asked.get("ids")
        if type(ids) is not list or not all(type(token_id) is int and 0 <= token_id < len(tokenizer)
                                            for token_id in ids):
            raise Refused(400, f"ids must be a list of token IDs from 0 to {len(tokenizer) - 1:,}")
        with self.server.lock:
            return json_answer({"text": tokenizer.decode(ids)})

    def asked(self, expected):
        """The body as a JSON object, or a refusal saying what was ``expected``."""
        try:
            asked = json.loads(self.body().decode("utf-8"))
        except (ValueError, RecursionError):
            raise Refused(400, expected) from None
        if not isinstance(asked, dict):
            raise Refused(400, expected)
        return asked

    def tokenizer_of(self, asked):
        """The tokenizer whose index the request gives."""
        index = asked.get("tokenizer")
        if type(index) is not int or not 0 <= index < len(self.server.tokenizers):
            raise Refused(400, "no such tokenizer")
        return self.server.tokenizers[index][1]

    def explain(self):
        """``POST /explain``: the body is ``{"tokenizer": index, "id": token ID}``, and for a token that holds part
        of a character ``"around": [text, start]`` (its ``around`` in ``/encode``'s answer: ``merge_tree``'s
        context)."""
        asked = self.asked('expected {"tokenizer": N, "id": N}')
        if "tokenizer" not in asked or "id" not in asked:
            raise Refused(400, 'expected {"tokenizer": N, "id": N}')
        tokenizer, token_id, around = self.tokenizer_of(asked), asked["id"], asked.get("around")
        if type(token_id) is not int or not 0 <= token_id < len(tokenizer):
            raise Refused(400, "no such token ID")
        with self.server.lock:
            try:
                return json_answer(merge_tree(tokenizer, token_id, context=None if around is None else tuple(around)))
            except (TypeError, ValueError):
                raise Refused(400, "around must be [the characters the token lies in, the byte where it starts]") \
                    from None

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


def has_lone_surrogate(text):
    """Whether ``text`` holds a lone surrogate (JSON may spell one, as ``"\\ud800"``; UTF-8 cannot)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def json_answer(value):
    """A JSON body and its content type."""
    return json.dumps(value, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8"


TEXT_MARKER = "<!--TEXT-->"
"""Where the page's text box receives its first text, escaped as HTML."""

PAGE = inline_page("view", {"max_chars": str(MAX_CHARS)})
"""The page (``pages/view.html``, ``view.css`` and ``view.js``) as one document, its style and script inline."""

CONTENT_SECURITY_POLICY = (f"default-src 'none'; script-src {source_hash(PAGE.script)}; "
                           f"style-src {source_hash(PAGE.style)}; connect-src 'self'; img-src 'none'; base-uri 'none'; "
                           "form-action 'none'; frame-ancestors 'none'")
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
