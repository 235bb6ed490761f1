"""``bpe fetch``: official files from tiktoken's addresses into its cache, any file by its sha256, nothing else.

Nothing here touches the internet: a server of the test's own on 127.0.0.1
plays tiktoken's host (``BPE_LAB_FETCH_BASE`` points the addresses there),
serving the real official files found on this machine and small fixtures,
and misbehaving on purpose (wrong bytes, a body cut short, redirects, a
file too large). Every failure must be one line and leave nothing behind.
"""

import hashlib
import os
import tempfile
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from unittest import mock

from bpelab.formats import fetch, tiktoken_cache
from tests.clients import skip_or_fail
from tests.in_process import run_here

FIXTURE = b"a small file to fetch\n" * 100
FIXTURE_SHA256 = hashlib.sha256(FIXTURE).hexdigest()


class Server(ThreadingHTTPServer):
    """Serves ``routes`` (path -> bytes, or a function writing the answer) on 127.0.0.1, in a thread."""

    def __init__(self, routes):
        self.routes = routes
        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def base(self):
        return f"http://127.0.0.1:{self.server_address[1]}/"


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        route = self.server.routes.get(self.path)
        if route is None:
            self.send_error(404)
        elif callable(route):
            route(self)
        else:
            self.send_response(200)
            self.send_header("Content-Length", str(len(route)))
            self.end_headers()
            self.wfile.write(route)

    def log_message(self, *arguments):
        pass


def redirect(to):
    def answer(handler):
        handler.send_response(302)
        handler.send_header("Location", to)
        handler.send_header("Content-Length", "0")
        handler.end_headers()
    return answer


def cut_short(handler):
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(FIXTURE)))
    handler.end_headers()
    handler.wfile.write(FIXTURE[:100])
    handler.close_connection = True


def official_bytes(filename):
    """The real bytes of an official file found on this machine (a skip, or a failure in CI, without it)."""
    for path, data in tiktoken_cache.candidates(filename):
        if hashlib.sha256(data).hexdigest() == tiktoken_cache.FILES[filename][1]:
            return data
    skip_or_fail(f"{filename} is not on this machine")


class FetchTests(unittest.TestCase):

    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(self.folder, ignore_errors=True))
        self.cache = os.path.join(self.folder, "cache")
        routes = {"/fixture": FIXTURE, "/cut": cut_short, "/wrong/encodings/r50k_base.tiktoken": b"not the file\n"}
        for hops in range(1, 8):  # /hop/N redirects N times, then gives the fixture
            routes[f"/hop/{hops}"] = redirect(f"/hop/{hops - 1}" if hops > 1 else "/fixture")
        routes["/to-plain-http"] = redirect("http://example.com/fixture")
        self.server = Server(routes)
        self.addCleanup(self.server.shutdown)
        self.addCleanup(self.server.server_close)

    def run_fetch(self, *arguments, base=None):
        environment = {"TIKTOKEN_CACHE_DIR": self.cache, "BPE_LAB_FETCH_BASE": base or self.server.base}
        return run_here("fetch", *arguments, env=environment, text=True)

    def assert_one_line(self, result, message):
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn(message, result.stderr)
        self.assertEqual(result.stderr.count("\n"), 1, result.stderr)

    def left_behind(self):
        return sorted(name for _, _, names in os.walk(self.folder) for name in names)

    def test_an_official_name_goes_where_tiktoken_looks(self):
        data = official_bytes("r50k_base.tiktoken")
        self.server.routes["/encodings/r50k_base.tiktoken"] = data
        result = self.run_fetch("gpt2")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"r50k_base.tiktoken: {len(data):,} bytes, sha256 checked", result.stdout)
        with open(os.path.join(self.cache, tiktoken_cache.cache_name("r50k_base.tiktoken")), "rb") as stream:
            self.assertEqual(stream.read(), data)
        again = self.run_fetch("r50k_base")
        self.assertIn("already in", again.stdout)
        self.assert_one_line(self.run_fetch("r51k"), "no official vocabulary's name; the names are gpt2")

    def test_a_wrong_copy_leaves_nothing(self):
        official_bytes("r50k_base.tiktoken")
        result = self.run_fetch("gpt2", base=self.server.base + "wrong/")
        self.assert_one_line(result, "its sha256 is")
        self.assertEqual(self.left_behind(), [])

    def test_any_file_by_its_address_and_sha256(self):
        out = os.path.join(self.folder, "file.bin")
        result = self.run_fetch(self.server.base + "hop/5", "--sha256", FIXTURE_SHA256, "-o", out)
        self.assertEqual((result.returncode, result.stdout), (0, f"{out}: 2,200 bytes from {self.server.base}hop/5, "
                                                                 "sha256 checked\n"), result.stderr)
        with open(out, "rb") as stream:
            self.assertEqual(stream.read(), FIXTURE)

    def test_what_a_download_may_not_do(self):
        out = os.path.join(self.folder, "file.bin")
        cases = [
            (("http://example.com/fixture",), "https only"),
            ((self.server.base + "hop/6",), "more than 5 redirects"),
            ((self.server.base + "to-plain-http",), "https only"),
            ((self.server.base + "cut",), "broke off"),
            ((self.server.base + "missing",), "answered 404"),
            (("https://127.0.0.1:1/fixture",), "cannot download it"),
            ((self.server.base + "fixture",), "sha256 is"),
        ]
        for arguments, message in cases:
            with self.subTest(arguments=arguments):
                sha256 = "0" * 64 if message == "sha256 is" else FIXTURE_SHA256
                self.assert_one_line(self.run_fetch(*arguments, "--sha256", sha256, "-o", out), message)
                self.assertEqual(self.left_behind(), [])
        with mock.patch.object(fetch, "MAX_DOWNLOAD_BYTES", 1000):
            self.assert_one_line(self.run_fetch(self.server.base + "fixture", "--sha256", FIXTURE_SHA256, "-o", out),
                                 "larger than 1,000 bytes")
        self.assert_one_line(self.run_fetch(self.server.base + "fixture", "--sha256", FIXTURE_SHA256, "-o",
                                            os.path.join(self.folder, "no", "such", "folder", "f")), "no folder")
        self.assertEqual(self.left_behind(), [])

    def test_usage(self):
        for arguments in (("gpt2", "--sha256", FIXTURE_SHA256), (self.server.base + "fixture",),
                          (self.server.base + "fixture", "gpt2", "--sha256", FIXTURE_SHA256, "-o", "x")):
            with self.subTest(arguments=arguments):
                self.assertEqual(self.run_fetch(*arguments).returncode, 2)


if __name__ == "__main__":
    unittest.main()
