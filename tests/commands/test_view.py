"""``bpe view`` (bpelab/commands/view.py): the server's safety, point by point, and the page in Chromium.

The server runs in this process, in a thread, on small tokenizers (the
lab's, and a byte-level one trained here) and GPT-4o's; raw sockets and
``http.client`` send what a browser, a hostile page or a broken client
would. The page is driven by Playwright in Debian's Chromium, launched by
its path as the widget's tests launch it. The command itself runs as a real
process once: it prints its address, writes nothing, and stops on Ctrl-C.
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
from bpelab.commands import drawing, view
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
        for host in ("evil.example", f"evil.example:{port}", f"localhost:{port}", "127.0.0.1", f"127.0.0.1:{port + 1}"):
            with self.subTest(host=host):
                status, _, body = self.served.request("GET", "/", headers={"Host": host})
                self.assertEqual((status, body), (403, f"this server answers only to Host 127.0.0.1:{port}\n".encode()))
        answer = self.served.raw(b"GET / HTTP/1.0\r\n\r\n")  # no Host at all
        self.assertEqual(self.status(answer), 403)
        status, _, _ = self.served.request("POST", "/encode", b"x", headers={"Host": "evil.example"})
        self.assertEqual(status, 403)

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
        for method, path in (("GET", "/encode"), ("GET", "/index.html"), ("GET", "/?x=1"), ("GET", "/./"),
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

    def test_the_answers_are_encode_and_merge_tree(self):
        rng = random.Random(22)
        for _ in range(30):
            text = random_text(rng)
            status, _, body = self.served.request("POST", "/encode", text.encode())
            self.assertEqual(status, 200)
            for result, tok in zip(json.loads(body)["results"], (LAB, STORY)):
                ids = tok.encode(text, allowed_special="all")
                self.assertEqual(result["ids"], ids, text)
                self.assertEqual(result["pieces"], tok.token_texts(text, allowed_special="all"))
                self.assertEqual(result["shown"], tok.readable_tokens(text, allowed_special="all"))
                self.assertEqual({key: result[key] for key in ("shown", "split", "parts", "around")},
                                 view.drawn_tokens(tok, ids, text))
        for index, tok in enumerate((LAB, STORY)):
            for token_id in (0, 5, len(tok.ids) - 1, len(tok) - 1):
                body = json.dumps({"tokenizer": index, "id": token_id}).encode()
                self.assertEqual(json.loads(self.served.request("POST", "/explain", body)[2]),
                                 drawing.merge_tree(tok, token_id))


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


def explain_steps(tok, text):
    """The merge steps ``bpe explain`` prints for a one-chunk text, as ``merge N: left + right``."""
    lines = drawing.explain_chunk(tok, text, "")
    return sorted({match.group(1) for line in lines for match in [re.match(r"  (merge \d+: .+?)\s{2,}", line)]
                   if match})


READ_PAGE = """() => [...document.querySelectorAll("#out section")].map(section => ({
    label: section.querySelector("h2").textContent,
    ids: [...section.querySelectorAll(".tok")].map(token => Number(token.querySelector(".id").textContent)),
    shown: [...section.querySelectorAll(".tok .piece")].map(piece => piece.textContent),
    titles: [...section.querySelectorAll(".tok")].map(token => token.title),
    pieces: [...section.querySelectorAll(".tok")].map(token => token.dataset.piece),
    shared: [...section.querySelectorAll(".group")].map(group => [...group.children].map(child =>
        child.classList.contains("char") ? [child.textContent, child.style.gridColumn] : child.style.gridColumn)),
    counts: section.querySelector(".counts").textContent,
}))"""


def chip_texts(drawn):
    """What each chip of ``view.drawn_tokens`` shows: its readable form, a share of a cut character as the bytes it
    holds (the character itself is drawn once, under the chips that share it)."""
    return [shown if parts is None else "".join(part if isinstance(part, str) else f"[{part[1]}]" for part in parts)
            for shown, parts in zip(drawn["shown"], drawn["parts"])]


def groups(drawn):
    """The groups of chips that share cut characters, as the page lays them out: each chip's column, then each cut
    character with the columns it spans (see ``READ_PAGE``)."""
    found, position, starts = [], 0, {first: index for index, (first, _, _) in enumerate(drawn["split"])}
    while position < len(drawn["shown"]):
        if position not in starts:
            position += 1
            continue
        index, first, last, chars = starts[position], position, position, []
        while index < len(drawn["split"]) and drawn["split"][index][0] <= last:
            start, end, text = drawn["split"][index]
            chars.append([text, f"{start - first + 1} / {end - first + 2}"])
            last, index = max(last, end), index + 1
        found.append([str(column) for column in range(1, last - first + 2)] + chars)
        position = last + 1
    return found

CLICK_AND_READ_TREE = """async ([index, position, id]) => {
    const section = document.querySelectorAll("#out section")[index];
    const built = section.querySelector(".built");
    built.replaceChildren();
    section.querySelectorAll(".tok")[position].click();
    while (!built.textContent.startsWith("ID " + id + ":")) await new Promise(done => setTimeout(done, 2));
    const texts = selector => [...built.querySelectorAll(selector)].map(node => node.textContent);
    return {steps: texts(".step"), made: texts(".made"), reason: texts(".reason")};
}"""


def setUpModule():
    if sync_playwright is None:
        skip_or_fail("Playwright for Python is not installed")
    if CHROMIUM is None:
        skip_or_fail("no Chromium found (looked for 'chromium' on the PATH and /usr/bin/chromium)")


@unittest.skipIf(sync_playwright is None or CHROMIUM is None, "needs Playwright and Chromium (see setUpModule)")
class PageTests(unittest.TestCase):
    """The page in Chromium shows what ``encode`` gives, builds the tree ``explain`` shows, and takes the keyboard."""

    @classmethod
    def setUpClass(cls):
        cls.o200k = official_tokenizer("o200k")
        cls.tokenizers = {"o200k": cls.o200k, "tokenizer.json": LAB, "story <&> bytes": STORY}
        cls.served = Server(cls.tokenizers)
        if model_file("llama2") is None:
            cls.served.stop()
            skip_or_fail("the model file llama2.json is not here")
        cls.kinds = {"cl100k": official_tokenizer("cl100k"), "llama2": open_model("llama2")}  # bytes; byte fallback
        cls.kinds_served = Server(cls.kinds)
        try:
            cls.playwright, cls.browser, cls.page, cls.errors = open_browser()
        except BaseException:
            cls.served.stop()
            cls.kinds_served.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.playwright.stop()
        cls.served.stop()
        cls.kinds_served.stop()

    def setUp(self):
        self.page.goto(self.served.origin + "/")
        self.wait_until("() => window.bpeView && window.bpeView.ready()")
        self.errors.clear()

    def tearDown(self):
        self.assertEqual(self.errors, [], "the page raised errors")

    def wait_until(self, function, arg=None, seconds=10.0):
        """Poll ``function(arg)`` in the page until it is true. (Playwright's wait_for_function evaluates a string,
        which the page's Content-Security-Policy rightly forbids; ``evaluate`` goes through the debugger.)"""
        deadline = time.monotonic() + seconds
        while not self.page.evaluate(function, arg):
            if time.monotonic() > deadline:
                self.fail(f"the page never came to {function}")
            time.sleep(0.005)

    def type_text(self, text):
        """Put ``text`` in the box and wait until the page has drawn it."""
        self.page.evaluate("async text => { document.getElementById('text').value = text; "
                           "await window.bpeView.update(); }", text)
        return self.page.evaluate(READ_PAGE)

    def test_the_dom_shows_what_encode_gives(self):
        rng = random.Random(7)
        for text in HOSTILE + [random_text(rng) for _ in range(12)]:
            shown = self.type_text(text)
            self.assertEqual([section["label"] for section in shown], list(self.tokenizers))
            for section, tok in zip(shown, self.tokenizers.values()):
                ids = tok.encode(text, allowed_special="all")
                self.assertEqual(section["ids"], ids, text)
                self.assertEqual(section["pieces"], tok.token_texts(text, allowed_special="all"))
                drawn = view.drawn_tokens(tok, ids, text)
                self.assertEqual((section["shown"], section["titles"]), (chip_texts(drawn), drawn["shown"]))
                self.assertEqual(section["shared"], groups(drawn))
                self.assertTrue(section["counts"].startswith(
                    f"{drawing.counted(len(ids), 'token')}, {drawing.counted(len(text), 'character')}"))
                unknown = sum(token_id == 0 and not tok.byte_level for token_id in ids)
                self.assertEqual(f"{drawing.counted(unknown, 'unknown token')} (" in section["counts"], bool(unknown))
        injected = self.page.evaluate("[window.hacked, document.querySelectorAll('#out script, #out img, #out b')"
                                      ".length]")
        self.assertEqual(injected, [None, 0], "token text went in as text, never as HTML")

    def test_every_script_in_a_byte_level_and_a_byte_fallback_model(self):
        """Each script's tokens in the readable form, a character cut between tokens drawn once under its chips; a
        click on a token that holds part of one shows its tree read in place, as explain reads it in its chunk."""
        self.page.goto(self.kinds_served.origin + "/")
        self.wait_until("() => window.bpeView && window.bpeView.ready()")
        for script, text in FORM_SCRIPTS.items():
            shown = self.type_text(text)
            for section, tok in zip(shown, self.kinds.values()):
                with self.subTest(script=script, tokenizer=section["label"]):
                    ids = tok.encode(text, allowed_special="all")
                    drawn = view.drawn_tokens(tok, ids, text)
                    self.assertEqual(section["ids"], ids)
                    self.assertEqual((section["shown"], section["titles"]), (chip_texts(drawn), drawn["shown"]))
                    self.assertEqual(section["shared"], groups(drawn))
        self.type_text("नमस्ते")
        cut = self.kinds["cl100k"].encode("नमस्ते")[3]  # ् and the first two of the three bytes of त
        tree = self.page.evaluate(CLICK_AND_READ_TREE, [0, 3, cut])
        expected = drawing.merge_tree(self.kinds["cl100k"], cut, context=("्त", 0))
        self.assertEqual(tree["made"], [node["text"] for node in expected["nodes"] if node["merge"]])
        self.assertEqual(tree["made"][:2], ["्त[1-2/3]", "्"])
        self.assertEqual(tree["steps"][0], f"merge {expected['nodes'][0]['merge']}: ् + त[1-2/3]")
        explained = drawing.explain_chunk(self.kinds["cl100k"], "्त", "")
        self.assertIn(["tokens", "्त[1-2/3]", "त[3/3]"], [line.split() for line in explained])  # as in its chunk

    def test_the_policy_stops_an_injected_script(self):
        blocked = self.page.evaluate("""() => new Promise(done => {
            document.addEventListener("securitypolicyviolation", event => done(event.violatedDirective));
            const script = document.createElement("script");
            script.textContent = "window.injected = 1";
            document.body.append(script);
        })""")
        self.assertTrue(blocked.startswith("script-src"), blocked)
        self.assertIsNone(self.page.evaluate("window.injected"))
        self.errors.clear()  # Chromium reports the blocked script on the console, as it should

    def test_a_click_shows_the_tree_explain_shows(self):
        text = " unbakeable naïve 123 <|endoftext|>"
        self.type_text(text)
        checked = 0
        for index, tok in enumerate(self.tokenizers.values()):
            for position, token_id in enumerate(tok.encode(text, allowed_special="all")):
                shown = self.page.evaluate(CLICK_AND_READ_TREE, [index, position, token_id])
                tree = drawing.merge_tree(tok, token_id)
                if tree["reason"] is not None:
                    self.assertEqual((shown["reason"], shown["steps"]), ([tree["reason"]], []))
                    continue
                chunk = tok.decode([token_id])
                if tok.encode(chunk, disallowed_special=()) == [token_id]:  # the token alone is one chunk's tokens
                    self.assertEqual(sorted(set(shown["steps"])), explain_steps(tok, chunk), chunk)
                    checked += 1
                self.assertEqual(shown["made"], [node["text"] for node in tree["nodes"] if node["merge"] is not None])
        self.assertGreaterEqual(checked, 8)
        self.page.locator("#out section").nth(0).locator(".tok").last.click()
        self.wait_until("() => document.querySelector('#out .reason')")
        self.assertIn("a special token", self.page.locator("#out .reason").first.text_content())

    def test_tab_and_enter_reach_every_token(self):
        shown = self.type_text("mia has a café")
        self.page.focus("#text")
        expected = [(index, position) for index, section in enumerate(shown) for position in range(len(section["ids"]))]
        for index, position in expected:
            self.page.keyboard.press("Tab")
            focused = self.page.evaluate("""() => {
                const token = document.activeElement, sections = [...document.querySelectorAll('#out section')];
                const section = token.closest('section');
                return [sections.indexOf(section), [...section.querySelectorAll('.tok')].indexOf(token)];
            }""")
            self.assertEqual(focused, [index, position])
        self.assertNotEqual(self.page.evaluate("getComputedStyle(document.activeElement).outlineStyle"), "none")
        self.page.keyboard.press("Enter")
        last = shown[-1]["ids"][-1]
        self.wait_until("id => document.querySelectorAll('#out .built')[2].textContent.startsWith('ID ' + id + ':')",
                        last)
        self.assertEqual(self.page.evaluate("document.activeElement.getAttribute('aria-pressed')"), "true")

    def test_a_refusal_is_shown(self):
        self.page.evaluate("document.getElementById('text').removeAttribute('maxlength')")
        self.type_text("a" * (view.MAX_CHARS + 1))
        self.assertEqual(self.page.text_content("#status"), "at most 100,000 characters per request, not 100,001")
        self.errors.clear()  # the refused request is logged on the console

    def test_screenshots(self):
        text = "We are going to the beach this weekend. אנחנו הולכים לחוף הים בסוף השבוע. 🙂"
        self.type_text(text)
        hebrew = text.index("א")
        position = next(position for position, (token_id, start, _) in enumerate(self.o200k.encode_with_offsets(text))
                        if start > hebrew and drawing.merge_tree(self.o200k, token_id)["nodes"])
        folder = tempfile.mkdtemp(prefix="bpe-view-screenshots-")
        for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            self.page.set_viewport_size(viewport)
            self.page.locator("#out section").nth(0).locator(".tok").nth(position).click()
            self.wait_until("() => document.querySelector('#out .built .node')")
            overflow = self.page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            self.assertLessEqual(overflow, 0, "the page must not scroll sideways")
            path = os.path.join(folder, f"view-{name}.png")
            self.page.screenshot(path=path, full_page=True)
            print(f"\nscreenshot: {path}", end=" ")
        self.page.set_viewport_size(DESKTOP)


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
