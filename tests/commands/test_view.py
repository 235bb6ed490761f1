"""``bpe view`` (bpelab/commands/view.py): the server's safety, point by point, and what it answers.

The server runs in this process, in a thread, on small tokenizers (the
lab's, and a byte-level one trained here); raw sockets and ``http.client``
send what a browser, a hostile page or a broken client would. What it
answers is held to ``encode``, ``readable_tokens``, ``token_texts``,
``decode`` and ``encode_with_offsets``, and ``page_tokens.TokenTable`` to
``drawn_tokens`` (its definition) on every kind of model. The page itself,
in Chromium, is test_view_page's. The command runs as a real process once:
it prints its address, writes nothing, and stops on Ctrl-C.
"""

import base64
import hashlib
import http.client
import io
import json
import os
import random
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from unittest import mock

from bpe import Tokenizer
from bpelab.commands import drawing, page_tokens, view
from make_corpus import corpus
from tests.clients import model_file, official_tokenizer, open_model, skip_or_fail
from tests.lab_samples import FORM_SCRIPTS
from tests.commands.test_widget import CHROMIUM, DESKTOP, PHONE, open_browser
from tests import ROOT

try:
    from playwright.sync_api import sync_playwright
except ImportError:
    sync_playwright = None

LAB = Tokenizer.load(os.path.join(ROOT, "tokenizer.json"))
STORY = Tokenizer.train(corpus()[:8000], 320, byte_level=True, special_tokens=["<|end|>"])

HOSTILE = ["<script>window.hacked = 1</script>", "<img src=x onerror=\"window.hacked = 2\">", "&amp; &lt;b&gt;",
           "</textarea><b>bold</b>", "\" ' ` ${x}", "<!-- -->", "<|end|>", "<|endoftext|>"]


def random_text(rng):
    """Text with markup, several scripts, emoji, whitespace of every kind and special tokens."""
    pieces = HOSTILE + ["the", " park", " mia", " café", "  ", "\n", "\t", " дом", "שלום", "你好", "🙂", "👩‍👩‍👧",
                        "12345", "!?", " ", "\u00a0", "é\u0301", "\\"]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(1, 30)))


class Server:
    """A ``ViewServer`` serving in a thread; ``stop()`` shuts it down."""

    def __init__(self, tokenizers, timeout=view.TIMEOUT):
        self.server = view.ViewServer(tokenizers, timeout=timeout)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.port = self.server.server_port
        self.origin = self.server.origin

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()

    def raw(self, data, wait=5.0):
        """Send ``data`` as it is on a new connection; the status line and headers and body that come back."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=wait) as connection:
            connection.sendall(data)
            answer = b""
            while True:
                chunk = connection.recv(65536)
                if not chunk:
                    return answer
                answer += chunk

    def request(self, method, path, body=None, headers=None):
        """``(status, headers, body)`` of a request with the right Host and, for a POST, the page's Origin."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        sent = {"Origin": self.origin} if method == "POST" else {}
        sent.update(headers or {})
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        answer = response.status, dict(response.getheaders()), response.read()
        connection.close()
        return answer


class SafetyTests(unittest.TestCase):
    """Every safety point of the module docstring, each with a request that tries it."""

    @classmethod
    def setUpClass(cls):
        cls.served = Server({"lab": LAB, "story": STORY}, timeout=1.0)

    @classmethod
    def tearDownClass(cls):
        cls.served.stop()

    def status(self, answer):
        return int(answer.split(b" ", 2)[1]) if answer else None

    def test_bound_to_127_0_0_1_on_a_free_port(self):
        self.assertEqual(self.served.server.server_address[0], "127.0.0.1")
        self.assertNotEqual(self.served.port, 0)
        other = Server({"lab": LAB})
        self.addCleanup(other.stop)
        self.assertNotEqual(other.port, self.served.port)

    def test_the_page_and_its_headers(self):
        status, headers, body = self.served.request("GET", "/")
        self.assertEqual(status, 200)
        self.assertEqual(headers["Content-Type"], "text/html; charset=utf-8")
        policy = headers["Content-Security-Policy"]
        self.assertTrue(policy.startswith("default-src 'none'; script-src 'sha256-"), policy)
        self.assertIn("connect-src 'self'", policy)
        self.assertNotIn("unsafe", policy)
        self.assertEqual(headers["X-Content-Type-Options"], "nosniff")
        page = body.decode("utf-8")
        self.assertEqual(page.count("<script>"), 1)
        self.assertNotIn("innerHTML", page)
        self.assertNotIn("insertAdjacentHTML", page)
        self.assertIn(view.DEFAULT_TEXT, page)

    def test_the_policy_allows_exactly_the_pages_own_style_and_script(self):
        """The hashes come from the page's files (bpelab/commands/pages/view.*): an edit of one is never refused."""
        _, headers, body = self.served.request("GET", "/")
        page = body.decode("utf-8")
        sources = dict(part.split(" ", 1) for part in headers["Content-Security-Policy"].split("; "))
        for tag, directive, ending in (("style", "style-src", "css"), ("script", "script-src", "js")):
            inline, = re.findall(rf"<{tag}>(.*?)</{tag}>", page, re.S)
            with open(os.path.join(ROOT, "bpelab", "commands", "pages", f"view.{ending}"), encoding="utf-8") as stream:
                self.assertEqual(inline, stream.read(), f"the page's {tag} is not pages/view.{ending}")
            digest = base64.b64encode(hashlib.sha256(inline.encode("utf-8")).digest()).decode("ascii")
            self.assertEqual(sources[directive], f"'sha256-{digest}'", directive)

    def test_a_name_the_locale_could_not_decode_is_shown_escaped(self):
        served = Server({os.fsdecode(b"caf\xe9.json"): LAB, os.fsdecode("thé.json".encode()): LAB})
        self.addCleanup(served.stop)
        status, _, body = served.request("POST", "/encode", body=b"mia")
        self.assertEqual(status, 200)
        self.assertEqual([result["label"] for result in json.loads(body.decode("utf-8"))["results"]],
                         ["caf\\xe9.json", "thé.json"])

    def test_a_request_given_up_is_not_reported_and_a_burst_waits(self):
        with mock.patch("sys.stderr", io.StringIO()) as stderr:
            for _ in range(3):
                connection = socket.create_connection(("127.0.0.1", self.served.port), timeout=5)
                connection.sendall(b"GET / HT")
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                connection.close()  # a reset, as a browser that gives up sends
            time.sleep(0.3)
            self.assertEqual(self.served.request("GET", "/")[0], 200)
        self.assertEqual(stderr.getvalue(), "")
        waiting = view.ViewServer({"lab": LAB})  # not answering yet: every connection waits in its queue
        self.addCleanup(waiting.server_close)
        connected = []
        for _ in range(40):
            client = socket.socket()
            client.settimeout(0.5)
            self.addCleanup(client.close)
            connected.append(client.connect_ex(("127.0.0.1", waiting.server_port)) == 0)
            if not connected[-1]:
                break
        self.assertEqual(connected, [True] * 40)

    def test_no_cors_header_on_any_answer(self):
        answers = [self.served.request("GET", "/"), self.served.request("POST", "/encode", b"x"),
                   self.served.request("OPTIONS", "/encode", headers={"Origin": "http://evil.example",
                                                                      "Access-Control-Request-Method": "POST"}),
                   self.served.request("POST", "/encode", b"x", headers={"Origin": "http://evil.example"})]
        for status, headers, _ in answers:
            self.assertFalse([name for name in headers if name.lower().startswith("access-control")], headers)

    def test_a_foreign_host_is_refused(self):
        port = self.served.port
        for host in ("evil.example", f"evil.example:{port}", f"localhost.:{port}", f"LOCALHOST:{port}", "localhost",
                     f"localhost:{port + 1}", f"sub.localhost:{port}", "127.0.0.1", f"127.0.0.1:{port + 1}",
                     f"[::1]:{port}"):
            with self.subTest(host=host):
                status, _, body = self.served.request("GET", "/", headers={"Host": host})
                self.assertEqual((status, body), (403, f"this server answers only to Host 127.0.0.1:{port} or "
                                                       f"localhost:{port}\n".encode()))
        answer = self.served.raw(b"GET / HTTP/1.0\r\n\r\n")  # no Host at all
        self.assertEqual(self.status(answer), 403)
        status, _, _ = self.served.request("POST", "/encode", b"x", headers={"Host": "evil.example"})
        self.assertEqual(status, 403)

    def test_localhost_is_the_same_page(self):
        """``localhost:PORT`` is served as ``127.0.0.1:PORT`` is; a POST's Origin must be the Host it was sent to."""
        port, local = self.served.port, f"localhost:{self.served.port}"
        status, _, body = self.served.request("GET", "/", headers={"Host": local})
        self.assertEqual((status, body), self.served.request("GET", "/")[::2])
        status, _, body = self.served.request("POST", "/encode", b"mia", headers={"Host": local,
                                                                                 "Origin": f"http://{local}"})
        self.assertEqual((status, json.loads(body)["results"][0]["ids"]), (200, LAB.encode("mia")))
        for host, origin in ((local, f"http://127.0.0.1:{port}"), (f"127.0.0.1:{port}", f"http://{local}")):
            with self.subTest(host=host):
                status, _, body = self.served.request("POST", "/encode", b"mia", headers={"Host": host,
                                                                                         "Origin": origin})
                self.assertEqual((status, body), (403, f"a POST must come from the page itself (Origin http://{host})"
                                                       "\n".encode()))

    def test_a_post_from_another_origin_is_refused(self):
        for origin in ("http://evil.example", "null", f"http://localhost:{self.served.port}", None):
            with self.subTest(origin=origin):
                connection = http.client.HTTPConnection("127.0.0.1", self.served.port, timeout=10)
                connection.request("POST", "/encode", body=b"mia", headers={} if origin is None else {"Origin": origin})
                response = connection.getresponse()
                self.assertEqual(response.status, 403)
                self.assertIn(b"must come from the page itself", response.read())
                connection.close()
        self.assertEqual(self.served.request("POST", "/encode", b"mia")[0], 200)

    def test_a_long_body_is_refused_before_it_is_read(self):
        head = (f"POST /encode HTTP/1.1\r\nHost: 127.0.0.1:{self.served.port}\r\nOrigin: {self.served.origin}\r\n"
                "Content-Length: {}\r\n\r\n")
        for length in (str(view.MAX_BODY + 1), "1" + "0" * 5000):
            with self.subTest(digits=len(length)):
                started = time.monotonic()
                answer = self.served.raw(head.format(length).encode())  # and no body: the server must not wait for it
                self.assertEqual(self.status(answer), 413)
                self.assertTrue(answer.endswith(b"at most 400,000 bytes per request\n"))
                self.assertLess(time.monotonic() - started, 0.9, "answered at once, without waiting for the body")
        for headers, status in (("", 411), ("Content-Length: -1\r\n", 411),
                                ("Transfer-Encoding: chunked\r\n", 411)):
            with self.subTest(headers=headers):
                answer = self.served.raw(f"POST /encode HTTP/1.1\r\nHost: 127.0.0.1:{self.served.port}\r\n"
                                         f"Origin: {self.served.origin}\r\n{headers}\r\n".encode())
                self.assertEqual(self.status(answer), status)

    def test_at_most_100000_characters(self):
        lab = Server({"lab": LAB})  # the lab's tokenizer encodes 100,000 emoji quickly: each is one <unk>
        self.addCleanup(lab.stop)
        widest = "\U0001f642" * view.MAX_CHARS  # 400,000 bytes: the most a request may hold
        status, _, body = lab.request("POST", "/encode", widest.encode())
        self.assertEqual(status, 200)
        self.assertEqual(len(json.loads(body)["results"][0]["ids"]), view.MAX_CHARS)  # one <unk> each at the lab
        status, _, body = lab.request("POST", "/encode", b"a" * (view.MAX_CHARS + 1))
        self.assertEqual((status, body), (413, b"at most 100,000 characters per request, not 100,001\n"))

    def test_silent_connections_time_out(self):
        quick = Server({"lab": LAB}, timeout=0.2)
        self.addCleanup(quick.stop)
        started = time.monotonic()
        self.assertEqual(quick.raw(b""), b"", "a connection that sends nothing is closed")
        head = (f"POST /encode HTTP/1.1\r\nHost: 127.0.0.1:{quick.port}\r\nOrigin: {quick.origin}\r\n"
                "Content-Length: 100\r\n\r\nonly part of it")
        self.assertEqual(quick.raw(head.encode()), b"", "a body that stops coming is given up on")
        self.assertEqual(quick.raw(b"GET / HT"), b"", "and so is a request line")
        self.assertLess(time.monotonic() - started, 3, "each within the server's timeout, 0.2 s here (5 s waited)")

    def test_only_the_pages_routes(self):
        for method, path in (("GET", "/encode"), ("GET", "/tokens"), ("GET", "/decode"), ("GET", "/spans"),
                             ("GET", "/index.html"), ("GET", "/?x=1"), ("GET", "/./"),
                             ("POST", "/"), ("POST", "/encode/"), ("PUT", "/encode"), ("DELETE", "/"),
                             ("HEAD", "/"), ("OPTIONS", "/"), ("PATCH", "/explain"), ("BREW", "/")):
            with self.subTest(method=method, path=path):
                self.assertEqual(self.served.request(method, path, b"" if method != "GET" else None)[0], 404)

    def test_bad_bodies(self):
        self.assertEqual(self.served.request("POST", "/encode", b"\xff")[:1], (400,))
        for body in (b"{", b"[]", b'{"tokenizer": 0}', b'{"tokenizer": 2, "id": 1}', b'{"tokenizer": true, "id": 1}',
                     b'{"tokenizer": 0, "id": 96}', b'{"tokenizer": 0, "id": -1}', b'{"tokenizer": 0, "id": 1.0}',
                     b"[" * 100_000):
            with self.subTest(body=body[:40]):
                self.assertEqual(self.served.request("POST", "/explain", body)[0], 400)
        for route, body in (("/decode", b'{"tokenizer": 0}'), ("/decode", b'{"tokenizer": 0, "ids": [96]}'),
                            ("/decode", b'{"tokenizer": 0, "ids": [true]}'), ("/decode", b'{"tokenizer": 5, "ids": []}'),
                            ("/decode", b'{"tokenizer": 0, "ids": "1 2"}'), ("/tokens", b'{"tokenizer": 0, "from": 0}'),
                            ("/tokens", b'{"tokenizer": 0, "text": "a", "from": -1}'),
                            ("/tokens", b'{"tokenizer": 0, "text": "\\ud800", "from": 0}'),
                            ("/tokens", json.dumps({"tokenizer": 0, "text": "a" * (view.MAX_CHARS + 1), "from": 0})
                             .encode()), ("/spans", b"\xff")):
            with self.subTest(route=route, body=body[:50]):
                self.assertEqual(self.served.request("POST", route, body)[0], 400)

    def test_the_answers_are_encode_and_merge_tree(self):
        rng = random.Random(22)
        for _ in range(30):
            text = random_text(rng)
            status, _, body = self.served.request("POST", "/encode", text.encode())
            self.assertEqual(status, 200)
            for result, tok in zip(json.loads(body)["results"], (LAB, STORY)):
                ids = tok.encode(text, allowed_special="all")
                self.assertEqual(result["ids"], ids, text)
                self.assertEqual(unpacked(result)["shown"], tok.readable_tokens(text, allowed_special="all"))
                self.assertEqual(unpacked(result), page_tokens.drawn_tokens(tok, ids, text))
                self.assertEqual(result["special"], [at for at, token_id in enumerate(ids)
                                                     if token_id in tok.special_tokens.values()])
        for index, tok in enumerate((LAB, STORY)):
            for token_id in (0, 5, len(tok.ids) - 1, len(tok) - 1):
                body = json.dumps({"tokenizer": index, "id": token_id}).encode()
                self.assertEqual(json.loads(self.served.request("POST", "/explain", body)[2]),
                                 drawing.merge_tree(tok, token_id))


def unpacked(result):
    """A result as the page receives it (``view.sent``) in ``drawn_tokens``' form, for the tokens it carries."""
    count, start = len(result["shown"]), result["start"]
    cut = {int(index): value for index, value in result["cut"].items()}
    return {"shown": [result["forms"][form] for form in result["shown"]], "split": result["split"],
            "parts": [cut.get(start + at, [None])[0] for at in range(count)],
            "around": [cut[start + at][1] if start + at in cut else None for at in range(count)]}


class Answers(unittest.TestCase):
    """The routes' answers: a long text's tokens window by window, decoding, the spans pointing lights, and an
    encoding the page gave up on dropped; ``TokenTable`` equal to its definition on every kind of model."""

    @classmethod
    def setUpClass(cls):
        cls.served = Server({"lab": LAB, "story": STORY})

    @classmethod
    def tearDownClass(cls):
        cls.served.stop()

    def post(self, route, asked):
        status, _, body = self.served.request("POST", route, json.dumps(asked).encode())
        self.assertEqual(status, 200, body)
        return json.loads(body)

    def test_a_long_text_window_by_window(self):
        text = "नमस्ते mia 🙂 " * 300
        answer = json.loads(self.served.request("POST", "/encode", text.encode())[2])["results"][1]
        ids, whole = STORY.encode(text), page_tokens.drawn_tokens(STORY, STORY.encode(text), text)
        self.assertEqual((answer["ids"], answer["characters"]), (ids, len(text)))
        self.assertGreater(len(ids), 2 * view.WINDOW)
        shown, split = unpacked(answer)["shown"], list(answer["split"])
        self.assertGreaterEqual(len(shown), view.WINDOW)
        while len(shown) < len(ids):
            window = self.post("/tokens", {"tokenizer": 1, "text": text, "from": len(shown)})
            self.assertEqual(window["start"], len(shown))
            unpacked_window = unpacked(window)
            for key in ("shown", "parts", "around"):
                self.assertEqual(unpacked_window[key], whole[key][len(shown):len(shown) + len(window["shown"])])
            shown += unpacked_window["shown"]
            split += window["split"]
        self.assertEqual((shown, split), (whole["shown"], whole["split"]))

    def test_decode_and_spans(self):
        rng = random.Random(5)
        for _ in range(10):
            text = random_text(rng)
            for index, tok in enumerate((LAB, STORY)):
                ids = tok.encode(text, allowed_special="all")
                self.assertEqual(self.post("/decode", {"tokenizer": index, "ids": ids})["text"], tok.decode(ids))
            status, _, body = self.served.request("POST", "/spans", text.encode())
            units = [len(text[:at].encode("utf-16-le")) // 2 for at in range(len(text) + 1)]  # as JavaScript counts
            for spans, tok in zip(json.loads(body)["spans"], (LAB, STORY)):
                self.assertEqual(spans, [[units[start], units[end]] for _, start, end in
                                         tok.encode_with_offsets(text, allowed_special="all")])

    def test_an_encoding_given_up_on_is_dropped(self):
        """A page that asks for a newer text closes the older request: waiting for its turn, it is never encoded."""
        answered = []
        with mock.patch.object(view, "sent", wraps=view.sent) as sent:
            with self.served.server.lock:  # the server is busy: both requests wait for their turn
                given_up = socket.create_connection(("127.0.0.1", self.served.port), timeout=5)
                given_up.sendall(f"POST /encode HTTP/1.1\r\nHost: 127.0.0.1:{self.served.port}\r\nOrigin: "
                                 f"{self.served.origin}\r\nContent-Length: 3\r\n\r\nold".encode())
                time.sleep(0.3)
                given_up.close()
                newer = threading.Thread(target=lambda: answered.append(self.served.request("POST", "/encode",
                                                                                           b"new")))
                newer.start()
                time.sleep(0.3)
            newer.join()
        self.assertEqual(answered[0][0], 200)
        self.assertEqual(json.loads(answered[0][2])["results"][0]["characters"], 3)
        self.assertEqual(sent.call_count, 2, "only the newer text was encoded, for each of the two tokenizers")

    def test_the_table_is_drawn_tokens(self):
        """``TokenTable`` (whole tokens worked out once, runs read alone) gives what ``drawn_tokens`` and ``encode``
        give, whole and window by window, on every kind of model: characters with unknowns, bytes, byte fallback."""
        tokenizers = [LAB, STORY, official_tokenizer("cl100k")] + ([open_model("llama2")] if model_file("llama2")
                                                                   else [])
        rng = random.Random(9)
        texts = list(FORM_SCRIPTS.values()) + [random_text(rng) for _ in range(20)] + ["".join(FORM_SCRIPTS.values())]
        for tok in tokenizers:
            table = page_tokens.TokenTable(tok)
            for text in texts:
                ids = tok.encode(text, allowed_special="all")
                answer, whole = table.answer(text), page_tokens.drawn_tokens(tok, ids, text)
                self.assertEqual({key: answer[key] for key in whole}, whole, text)
                self.assertEqual((answer["ids"], answer["pieces"]), (ids, tok.token_texts(text, allowed_special="all")))
                for _ in range(5):
                    start, count = rng.randrange(len(ids) + 1), rng.randrange(1, 12)
                    window = table.answer(text, start, count)
                    carried = len(window["shown"])
                    self.assertGreaterEqual(carried, min(count, len(ids) - start))
                    for key in ("shown", "parts", "around", "pieces"):
                        self.assertEqual(window[key], answer[key][start:start + carried], (text, start, count))
                    self.assertEqual(window["split"], [split for split in whole["split"]
                                                       if split[1] >= start and split[0] < start + carried])


class MergeTrees(unittest.TestCase):
    """``drawing.merge_tree``: the tree of a token, or the reason it has none."""

    def test_trees_go_down_to_the_base_tokens(self):
        for tok in (LAB, STORY):
            first_merge = len(tok.ids) - len(tok.merges)
            for token_id in range(first_merge, len(tok.ids)):
                nodes = drawing.merge_tree(tok, token_id)["nodes"]
                leaves = [node["id"] for node in nodes if node["merge"] is None]
                self.assertEqual(len(nodes), 2 * len(leaves) - 1)
                self.assertTrue(all(leaf < first_merge for leaf in leaves))
                self.assertEqual(tok.decode_bytes(leaves), tok.token_bytes(token_id))
                self.assertEqual(nodes[0]["merge"], token_id - first_merge + 1, "merge 1 is the first")

    def test_reasons(self):
        self.assertIn("unknown token", drawing.merge_tree(LAB, 0)["reason"])
        self.assertIn("a character of the alphabet", drawing.merge_tree(LAB, 1)["reason"])
        self.assertIn("one of the 256 bytes", drawing.merge_tree(STORY, 65)["reason"])
        self.assertIn("a special token", drawing.merge_tree(STORY, STORY.special_tokens["<|end|>"])["reason"])
        gapped = Tokenizer(None, [], byte_level=True, special_tokens={"<s>": 260})
        self.assertIn("no token has this ID", drawing.merge_tree(gapped, 258)["reason"])
        for wrong in (-1, 261, True, 1.0):
            with self.assertRaisesRegex(ValueError, "token_id must be an ID from 0 to 260"):
                drawing.merge_tree(gapped, wrong)

    def test_a_long_chain_is_cut_short(self):
        letters = [chr(0x4E00 + number) for number in range(1200)]  # the last token: 1,200 letters, one merge each
        chain = Tokenizer(letters, [("".join(letters[:k]), letters[k]) for k in range(1, 1200)])
        built = drawing.merge_tree(chain, len(chain) - 1)
        self.assertEqual((len(built["nodes"]), built["more"]), (drawing.MAX_TREE_NODES, 2 * 1200 - 1 - 1000))

    def test_a_token_its_merges_do_not_build(self):
        """A merge may make a token that replaying its characters never reaches: the tree would be a story."""
        repeated = Tokenizer(["a"], [("a", "a"), ("aa", "aa"), ("a", "aa")])  # "aaa" alone is aa a: (a, a) first
        self.assertEqual(repeated.chunk_ids("aaa"), [repeated.ids["aa"], repeated.ids["a"]])
        built = drawing.merge_tree(repeated, repeated.ids["aaa"])
        self.assertEqual(built["nodes"], [])
        self.assertIn("no merge builds it: its merges make 2 tokens of its bytes", built["reason"])



def hear_ctrl_c():
    """In the child: Ctrl-C's default action, even when the tests run as a background job, whose shell ignores it
    (a program started with SIGINT ignored keeps ignoring it, as a background job should)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class TheCommand(unittest.TestCase):
    """``bpe view`` as a process: the address it prints, nothing written, a clean stop on Ctrl-C."""

    def test_serves_writes_nothing_and_stops_on_ctrl_c(self):
        with tempfile.TemporaryDirectory() as folder:
            environment = dict(os.environ, HOME=folder, TMPDIR=folder, PYTHONDONTWRITEBYTECODE="1")
            process = subprocess.Popen([sys.executable, os.path.join(ROOT, "bpe.py"), "view", "-t",
                                        os.path.join(ROOT, "tokenizer.json"), "--text", "<b>mia</b>"],
                                       cwd=folder, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True, preexec_fn=hear_ctrl_c)
            try:
                line = process.stdout.readline()
                address = re.match(r"http://127\.0\.0\.1:(\d+)/  \(bpe view of .*tokenizer\.json; open it in a "
                                   r"browser, stop with Ctrl-C\)$", line)
                self.assertIsNotNone(address, line)
                port = int(address.group(1))
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                connection.request("GET", "/")
                page = connection.getresponse().read().decode()
                self.assertIn("&lt;b&gt;mia&lt;/b&gt;</textarea>", page)
                connection.request("POST", "/encode", body="mia".encode(), headers={"Origin": f"http://127.0.0.1:{port}"})
                self.assertEqual(json.loads(connection.getresponse().read())["results"][0]["ids"], [58])
                connection.close()
                process.send_signal(signal.SIGINT)
                out, err = process.communicate(timeout=10)
            finally:
                process.kill()
                process.wait()
            self.assertEqual((process.returncode, out, err), (0, "", "bpe: stopped\n"))
            self.assertEqual(os.listdir(folder), [], "nothing written to disk")
        with self.assertRaises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=2).close()


if __name__ == "__main__":
    unittest.main()
