"""``bpe view``: a page on this computer that looks inside any vocabulary, served by the standard library.

The learner types text and sees, for each tokenizer, its tokens coloured
with their IDs and the counts, in the readable form (``drawn_tokens``: a
character cut between tokens is drawn once, under the tokens that share it);
clicking a token (or Enter on it) shows how it was built, the merge tree of
``bpelab.commands.drawing.merge_tree``, the merges ``bpe explain`` replays,
each numbered as it numbers them. What the page shows is
``bpe.Tokenizer.encode`` (special tokens' text as their IDs),
``bpe.Tokenizer.token_texts`` and ``bpelab.text.readable``'s parts; the server
computes it, the page only draws it.

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
their sha256, worked out from the page's files, ``pages/view.*``) and
requests to itself.
"""

import html
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from bpelab.byte_level import replace_lone_surrogates
from bpelab.commands.drawing import DEFAULT_TEXT, merge_tree
from bpelab.commands.page_files import inline_page, source_hash
from bpelab.messages import readable_name
from bpelab.text.readable import decodes_bytes, held_mark, readable_texts, token_parts, token_stream, token_texts

MAX_CHARS = 100_000
"""The longest text, in characters, one request may ask to encode."""

MAX_BODY = 400_000
"""The largest request body, in bytes (``MAX_CHARS`` characters of 4 UTF-8 bytes); a larger one is not read."""

TIMEOUT = 10.0
"""Seconds a connection may stay silent before the server closes it."""


def encode_all(tokenizers, text):
    """What the page draws for ``text``: for each ``(label, tokenizer)``, its IDs, pieces, drawing and counts."""
    results = []
    for label, tokenizer in tokenizers:
        ids = tokenizer.encode(text, allowed_special="all")
        seen = replace_lone_surrogates(text) if tokenizer.byte_level else text
        results.append({
            "label": label, "ids": ids, "pieces": token_texts(tokenizer, seen, ids), **drawn_tokens(tokenizer, ids, seen),
            "unknown": [token_id == 0 and not tokenizer.byte_level for token_id in ids],
            "characters": len(text), "bytes": len(seen.encode("utf-8")),
        })
    return {"results": results}


def drawn_tokens(tokenizer, ids, text):
    """How the page draws the tokens ``ids`` of ``text``, in the readable form (``bpelab.text.readable``).

    ``shown``: each token's readable form. A character cut between tokens is
    drawn once, across the chips that share it: ``split`` lists each such
    character as ``[first token, last token, the character]``; ``parts`` is,
    for each token that holds part of one (None for the others), its pieces
    in order, a string of whole characters or ``[index in split, the bytes
    held]`` (``"1-2/3"``); ``around`` is, for such a token, ``[the
    characters it lies in, the byte where it starts in them]``, which the
    page sends back to have its tree read in place (``merge_tree``'s context).
    """
    if not decodes_bytes(tokenizer):  # characters are never cut between tokens
        return {"shown": readable_texts(tokenizer, ids, text), "split": [], "parts": [None] * len(ids),
                "around": [None] * len(ids)}
    every = token_parts(tokenizer, ids, text)
    owners = {}
    for index, parts in enumerate(every):
        for part in parts:
            if part.held is not None:
                owners.setdefault(part.unit, [index, index, part.text])[1] = index
    number = {unit: at for at, unit in enumerate(unit for unit, (first, last, _) in owners.items() if first != last)}
    split = [owners[unit] for unit in number]
    drawn = {"shown": ["".join(map(str, parts)) for parts in every], "split": split,
             "parts": [None] * len(ids), "around": [None] * len(ids)}
    if not split:
        return drawn
    stream, starts = token_stream(tokenizer, ids)
    for index, parts in enumerate(every):
        if any(part.unit in number for part in parts):
            drawn["parts"][index] = [[number[part.unit], held_mark(part.held)[1:-1]] if part.unit in number
                                     else str(part) for part in parts]
            first, last = stream.units[parts[0].unit][0], stream.units[parts[-1].unit][1]
            drawn["around"][index] = [stream.data[first:last].decode("utf-8", "replace"), starts[index] - first]
    return drawn


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
        self.host = f"127.0.0.1:{self.server_port}"
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
        """``POST /explain``: the body is ``{"tokenizer": index, "id": token ID}``, and for a token that holds part
        of a character ``"around": [text, start]`` (its ``around`` in ``/encode``'s answer: ``merge_tree``'s
        context)."""
        try:
            asked = json.loads(self.body().decode("utf-8"))
            index, token_id, around = asked["tokenizer"], asked["id"], asked.get("around")
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
            raise Refused(400, 'expected {"tokenizer": N, "id": N}') from None
        if type(index) is not int or not 0 <= index < len(self.server.tokenizers):
            raise Refused(400, "no such tokenizer")
        tokenizer = self.server.tokenizers[index][1]
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


def json_answer(value):
    """A JSON body and its content type."""
    return json.dumps(value, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8"


TEXT_MARKER = "<!--TEXT-->"
"""Where the page's text box receives its first text, escaped as HTML."""

PAGE = inline_page("view", {"max_chars": str(MAX_CHARS), "max_chars_shown": f"{MAX_CHARS:,}"})
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
