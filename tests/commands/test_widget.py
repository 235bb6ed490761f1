"""Tests for the training widget's page (widget.py), run in a real browser.

The page is written to a temporary file and opened from disk (``file://``) in
the system's Chromium, driven by Playwright; one browser serves the whole
module. The figures of the tutorial are checked by clicking, as a reader
would. Everything else drives the page's script directly, which is much
faster than simulated clicks: above all ``window.bpeWidget.train``, whose
merges must equal bpe.py's on random texts. Without Playwright or Chromium
the module is skipped.
"""

import os
import random
import shutil
import tempfile
import unittest

import bpe
from bpelab.commands import widget
from bpelab.text import readable
from tests.lab_samples import FORM_SCRIPTS
from tests.clients import skip_or_fail

try:
    from playwright.sync_api import Error as BrowserError
    from playwright.sync_api import sync_playwright
except ImportError:
    sync_playwright = None

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)

# Headless, and quiet: tests run as root, offline, on a machine without a GPU.
BROWSER_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-extensions",
]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 740}

_browser = {}


def setUpModule():
    if sync_playwright is None:
        skip_or_fail("Playwright for Python is not installed")
    if CHROMIUM is None:
        skip_or_fail("no Chromium found (looked for 'chromium' on the PATH and /usr/bin/chromium)")
    folder = tempfile.TemporaryDirectory(prefix="bpe-widget-test-")
    try:
        playwright, browser, page, errors = open_browser(console=False)
    except BaseException:
        folder.cleanup()
        raise
    _browser.update(folder=folder, playwright=playwright, browser=browser, page=page, errors=errors,
                    url=write_page(folder.name, "widget.html", widget.page()))


def open_browser(console=True):
    """Chromium, started by Playwright, with one desktop-sized page: ``(playwright, browser, page, errors)``, where
    the page's errors (and, with ``console``, its console's) are collected."""
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=BROWSER_ARGS)
    except BaseException:
        playwright.stop()
        raise
    page = browser.new_page(viewport=DESKTOP)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    if console:
        page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    return playwright, browser, page, errors


def tearDownModule():
    _browser["browser"].close()
    _browser["playwright"].stop()
    _browser["folder"].cleanup()


def write_page(folder, name, html):
    """Write a page into ``folder`` and return its file:// address."""
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as file:
        file.write(html)
    return "file://" + path


# What the page shows, read from the screen: the figures, the words with
# their counts, the test sentence's tokens (an unknown one marked "?"), and
# the state of the "Next merge" button with the message below the buttons.
READ_SCREEN = """() => {
  const text = id => document.getElementById(id).textContent;
  const rows = [...document.querySelectorAll("#words tr")];
  const tokens = [...document.querySelectorAll("#test-split .stack > :not(.ghost) .tok")];
  return {
    k: text("k"), V: text("V"), L: text("L"),
    words: rows.map(row => [row.cells[0].textContent, Number(row.cells[1].textContent)]),
    test: tokens.map(token => (token.classList.contains("unknown") ? "?" : "") + token.textContent).join(" "),
    next: !document.getElementById("next").disabled,
    status: text("status"),
  };
}"""


class WidgetTest(unittest.TestCase):
    """Each test starts from a freshly loaded page in the module's one browser."""

    def setUp(self):
        self.page = _browser["page"]
        self.page.set_viewport_size(DESKTOP)
        self.page.goto(_browser["url"])
        _browser["errors"].clear()

    def tearDown(self):
        self.assertEqual(_browser["errors"], [], "the page's script raised errors")

    def screen(self):
        return self.page.evaluate(READ_SCREEN)

    def state(self):
        return self.page.evaluate("window.bpeWidget.state()")

    def merges_shown(self):
        """The merges on screen as ``(left, right, count, tokens left)``."""
        return [(*merge["pair"], merge["count"], merge["left"]) for merge in self.state()["merges"]]

    def button(self, name):
        return self.page.get_by_role("button", name=name, exact=True)

    def click_next(self, times):
        for _ in range(times):
            self.button("Next merge").click()

    def quick_clicks(self, button_id, times):
        """Click a button from inside the page: far faster than a simulated mouse, for tests not about clicking."""
        self.page.evaluate("([id, times]) => { for (let i = 0; i < times; i++) document.getElementById(id).click(); }",
                           [button_id, times])


TYPE_AND_MERGE_3 = """cases => cases.map(([text, test, bytes]) => {
  const box = document.getElementById("bytes");
  if (box.checked !== bytes) box.click();
  for (const [id, value] of [["text", text], ["test", test]]) {  // as typing does: the value, then an input event
    document.getElementById(id).value = value;
    document.getElementById(id).dispatchEvent(new Event("input", {bubbles: true}));
  }
  for (let i = 0; i < 3; i++) document.getElementById("next").click();
  const shown = (%s)();
  return [shown.k, shown.test];
})""" % READ_SCREEN
"""For each ``[training text, test text, bytes]``: the level chosen, both texts typed, three merges made, then
``READ_SCREEN``'s merge count and split, in one call to the page (the merges made so far carry on to the next
text, as on screen; each level's cases together, so that the level changes once)."""


class TheTutorialsFigures(WidgetTest):
    """The default page, clicked through, shows the figures the tutorial quotes."""

    WORDS = [["the", 1], ["\u2423caf\u00e9", 2], ["\u2423baker", 1], ["\u2423bakes", 2], ["\u2423cakes", 1],
             [",", 1], ["\u2423the", 1], ["\u2423souffl\u00e9", 1]]
    FIRST_SEEN = [("a", "k", 4, 46), ("ak", "e", 4, 42), ("\u2423", "c", 3, 39), ("\u2423", "b", 3, 36),
                  ("\u2423b", "ake", 3, 33)]
    SMALLEST = FIRST_SEEN[:2] + [("\u2423", "b", 3, 39), ("\u2423", "c", 3, 36)] + FIRST_SEEN[4:]
    SPLIT = "t h e \u2423 m ake r \u2423bake d \u2423c ake s"
    SPLIT_WITH_UNKNOWNS = "t h e \u2423 ?m ake r \u2423bake ?d \u2423c ake s"

    def test_characters_first_seen(self):
        self.assertTrue(self.page.get_by_label("first seen").is_checked(), "first seen is the tutorial's rule")
        before = self.screen()
        self.assertEqual((before["k"], before["V"], before["L"]), ("0", "16", "50"))
        self.assertEqual(before["words"], self.WORDS)
        self.assertEqual(before["test"], "t h e \u2423 ?m a k e r \u2423 b a k e ?d \u2423 c a k e s")
        for k, merge in enumerate(self.FIRST_SEEN, start=1):
            self.click_next(1)
            shown = self.screen()
            self.assertEqual((shown["k"], shown["V"], shown["L"]), (str(k), str(16 + k), str(merge[3])))
        self.assertEqual(self.merges_shown(), self.FIRST_SEEN)
        self.assertEqual(self.screen()["test"], self.SPLIT_WITH_UNKNOWNS)
        self.assertIn("Unknown: m, d", self.page.text_content("#unknown-note"))

    def test_characters_smallest_pair(self):
        self.page.get_by_label("smallest pair").check()
        self.click_next(5)
        self.assertEqual(self.merges_shown(), self.SMALLEST)
        shown = self.screen()
        self.assertEqual((shown["k"], shown["V"], shown["L"]), ("5", "21", "33"))
        self.assertEqual(shown["test"], self.SPLIT_WITH_UNKNOWNS)

    def test_bytes_first_seen(self):
        self.page.get_by_label("start from UTF-8 bytes").check()
        before = self.screen()
        self.assertEqual((before["k"], before["V"], before["L"]), ("0", "17", "53"))
        self.assertEqual(before["words"], self.WORDS, "the words do not depend on the level")
        self.click_next(5)
        merges = self.merges_shown()
        self.assertEqual(merges[3], ("\u00e9[1/2]", "\u00e9[2/2]", 3, 39), "merge 4 joins the two bytes of \u00e9")
        self.assertEqual(self.page.text_content("#merges tr:nth-child(4) td:nth-child(4)"), "\u00e9")
        self.assertEqual(self.screen()["test"], "t h e \u2423 m ake r \u2423b ake d \u2423c ake s")
        self.click_next(1)
        shown = self.screen()
        self.assertEqual((shown["k"], shown["V"], shown["L"]), ("6", "23", "33"))
        self.assertEqual(shown["test"], self.SPLIT, "\u2423bake forms at merge 6; at the byte level nothing is unknown")

    def test_bytes_smallest_pair(self):
        self.page.get_by_label("start from UTF-8 bytes").check()
        self.page.get_by_label("smallest pair").check()
        self.click_next(5)
        self.assertEqual([merge[:3] for merge in self.merges_shown()], [merge[:3] for merge in self.SMALLEST])
        shown = self.screen()
        self.assertEqual((shown["k"], shown["V"], shown["L"]), ("5", "22", "36"))
        self.assertEqual(shown["test"], self.SPLIT)

    def test_back_reset_and_the_end_of_training(self):
        self.click_next(3)
        self.button("Back").click()
        self.assertEqual(self.merges_shown(), self.FIRST_SEEN[:2])
        self.button("Reset").click()
        self.assertEqual(self.screen()["k"], "0")
        self.assertTrue(self.button("Back").is_disabled(), "there is nothing to go back to")
        self.quick_clicks("next", 100)
        history = bpe.Tokenizer.train(widget.DEFAULT_TEXT, 1000, pattern="gpt2", ties="first-seen").history
        shown = self.screen()
        self.assertEqual(shown["k"], str(len(history)), "training stops where bpe.py's does")
        self.assertFalse(shown["next"])
        self.assertIn("no pair occurs twice", shown["status"])

    def test_every_tie_rule_and_the_minimum_count_on_the_page(self):
        self.page.get_by_label("start from UTF-8 bytes").check()
        for ties, label in (("greatest", "greatest pair"), ("huggingface", "Hugging Face"), ("rustbpe", "rustbpe")):
            with self.subTest(ties=ties):
                self.page.get_by_label(label).check()
                self.click_next(4)
                self.assertEqual(self.state()["merges"], expected_merges(widget.DEFAULT_TEXT, True, ties)[:4])
                self.button("Reset").click()
        self.page.fill("#min-count", "1")
        self.quick_clicks("next", 200)
        shown = self.screen()
        self.assertEqual(shown["k"], str(len(expected_merges(widget.DEFAULT_TEXT, True, "rustbpe", 1))))
        self.assertIn("no pair is left", shown["status"])

    def test_keyboard(self):
        self.page.focus("#text")
        self.page.keyboard.press("Tab")
        self.assertEqual(self.focused(), "next")
        self.assertNotEqual(self.page.evaluate("getComputedStyle(document.activeElement).outlineStyle"), "none",
                            "the focus is visible")
        self.page.keyboard.press("Enter")
        self.page.keyboard.press("Space")
        self.assertEqual(self.screen()["k"], "2")
        self.page.keyboard.press("Tab")
        self.assertEqual(self.focused(), "back")
        self.page.keyboard.press("Space")
        self.page.keyboard.press("Enter")
        self.assertEqual(self.screen()["k"], "0")
        self.assertEqual(self.focused(), "next", "Back, now disabled, hands the focus to Next merge")
        self.page.keyboard.press("Tab")  # Back is disabled, so Tab goes on to Reset
        self.assertEqual(self.focused(), "reset")
        self.page.keyboard.press("Tab")
        self.assertEqual(self.focused(), "bytes")
        self.page.keyboard.press("Space")
        self.assertEqual(self.screen()["V"], "17")
        self.page.keyboard.press("Tab")
        self.assertEqual(self.focused(), "first-seen")
        self.page.keyboard.press("ArrowLeft")
        self.assertTrue(self.page.get_by_label("smallest pair").is_checked())

    def focused(self):
        """The focused control: its id, or a radio button's value."""
        return self.page.evaluate("document.activeElement.id || document.activeElement.value")


class SameMergesAsBpePy(WidgetTest):
    """``window.bpeWidget.train`` learns what ``bpe.Tokenizer.train`` learns, at both levels, under both tie rules."""

    # Characters that make words: ASCII, accented letters, letters above U+FFFF
    # next to letters just below it (where UTF-16 order and code-point order
    # disagree), digits of other scripts, a combining accent, emoji with a skin
    # tone, and U+FEFF (whitespace to JavaScript's \s, not to Python).
    LETTERS = "abcdeklmnorst" "ABC" "\u00e9\u00e8\u00fc\u00f1\u00e7\u00f8" "\ufb01\uff76\U0001d49c\U0001d51e"
    OTHERS = "019\u0663\u00bd" ".,;!?'\"()-" "\u0301" "\U0001f600\U0001f44d\U0001f3fd" "\ufeff"
    # Between words: spaces and line breaks, GPT-2's contractions, and the
    # rarer characters Python's str.isspace counts as whitespace.
    GAPS = [" "] * 12 + ["  ", "\n", "\t", "\r\n", " \n ", ", ", "'s ", "'ll ", "'d ", "'t ", "'re ", "'ve ", "'m ",
                         "'D ", "\u00a0", "\u3000", "\x1c", "\x85", "\u2028", "\u2009 ", ""]

    def random_text(self, rng):
        """A text made of a few repeated words, so that pairs recur and merges have something to do."""
        pool = self.LETTERS + self.OTHERS
        words = ["".join(rng.choice(pool if rng.random() < 0.3 else self.LETTERS) for _ in range(rng.randint(1, 7)))
                 for _ in range(rng.randint(3, 12))]
        return "".join(rng.choice(words) + rng.choice(self.GAPS) for _ in range(rng.randint(5, 60)))

    def test_random_texts(self):
        texts = [self.random_text(random.Random(seed)) for seed in range(30)]
        # Ties between a letter below U+FFFF and one above it, and the tutorial's review.
        texts += ["\ufb01a \ufb01a \U0001d49ca \U0001d49ca", "\U0001d49ca \U0001d49ca \ufb01a \ufb01a",
                  widget.DEFAULT_TEXT]
        options = [{"bytes": level, "ties": ties, "minCount": 1 + number % 2}
                   for level in (False, True) for number, ties in enumerate(bpe.TIE_RULES)]
        trained = self.page.evaluate("""([texts, options]) =>
            texts.map(text => options.map(option => window.bpeWidget.train(text, option)))""", [texts, options])
        compared = 0
        for text, runs in zip(texts, trained):
            for option, merges in zip(options, runs):
                with self.subTest(text=text, **option):
                    self.assertEqual(merges, expected_merges(text, option["bytes"], option["ties"], option["minCount"]))
                    compared += len(merges)
        self.assertGreater(compared, 1000, "the random texts should give plenty of merges")

    def test_every_script_as_the_command_line_draws_it(self):
        """On each script, the merges and the split on screen are in the readable form ``bpe show`` draws, at both
        levels: a byte of a cut character as ``é[1/2]``, a ZWJ as ``⟨ZWJ⟩``, the same marks for spaces."""
        texts = [(text + " ") * 3 for text in FORM_SCRIPTS.values()]
        levels = [{"bytes": level, "ties": "first-seen"} for level in (False, True)]
        trained = self.page.evaluate("""([texts, levels]) =>
            texts.map(text => levels.map(level => window.bpeWidget.train(text, level)))""", [texts, levels])
        for text, runs in zip(texts, trained):
            for level, merges in zip(levels, runs):
                self.assertEqual(merges, expected_merges(text, level["bytes"], "first-seen"))
        cases = [(script, text, level) for level in (False, True) for script, text in FORM_SCRIPTS.items()]
        screens = self.page.evaluate(TYPE_AND_MERGE_3, [[(text + " ") * 3, text, level] for _, text, level in cases])
        for (script, text, level), (k, split) in zip(cases, screens):
            size = (256 if level else 1 + len(set((text + " ") * 3))) + int(k)
            tok = bpe.Tokenizer.train((text + " ") * 3, size, byte_level=level, pattern="gpt2", ties="first-seen")
            with self.subTest(script=script, bytes=level):
                self.assertEqual(split.split(" "), tok.readable_tokens(text))

    def test_a_few_merges(self):
        merges = self.page.evaluate("window.bpeWidget.train('aaabdaaabac', {merges: 2})")
        self.assertEqual([merge["token"] for merge in merges], ["aa", "ab"])


def readable_pair(left, right, byte_level):
    """A pair and the token it makes in the readable form, as the widget reads them: the two parts together, the
    token alone (``bpelab.text.readable``, the command line's form)."""
    if not byte_level:
        return [readable.visible(left), readable.visible(right)], readable.visible(left + right)
    pair = readable.bytes_texts([bpe.display_to_bytes(left), bpe.display_to_bytes(right)])
    return pair, readable.bytes_texts([bpe.display_to_bytes(left + right)])[0]


def expected_merges(text, byte_level, ties, min_count=2):
    """bpe.py's merges for ``text`` in the form ``window.bpeWidget.train`` gives, trained until no pair occurs twice.

    ``left`` (the text's length in tokens after each merge) is recounted the
    plain way: every chunk of the text, the merges replayed on it in order.
    """
    history = bpe.Tokenizer.train(text, 100_000, byte_level=byte_level, pattern="gpt2", ties=ties,
                                  min_count=min_count).history
    tokens = [tuple(bpe.bytes_to_display(chunk.encode()) if byte_level else chunk)
              for chunk in bpe.chunks(text, "gpt2")]
    expected = []
    for entry in history:
        tokens = [bpe.merge_pair(chunk, tuple(entry["pair"])) for chunk in tokens]
        pair, token = readable_pair(*entry["pair"], byte_level)
        expected.append({"pair": pair, "token": token, "count": entry["count"], "left": sum(map(len, tokens))})
    return expected


class LayoutAndLimits(WidgetTest):
    """The page fits a phone, keeps still while stepping, refuses long texts, and survives any text."""

    def layout(self):
        """Where the page's parts are, and how wide and tall it is."""
        return self.page.evaluate("""() => ({
            boxes: ["next", "back", "reset", "status", "bytes", "k", "words-box", "pairs-box", "merges-box",
                    "test-split", "unknown-note"].map(id => {
                const box = document.getElementById(id).getBoundingClientRect();
                return [id, box.x, box.y, box.width, box.height];
            }),
            height: document.documentElement.scrollHeight,
            overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        })""")

    def test_screenshots_fit_and_no_layout_shift(self):
        folder = tempfile.mkdtemp(prefix="bpe-widget-screenshots-")
        for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            with self.subTest(viewport=name):
                self.page.set_viewport_size(viewport)
                for use_bytes in (False, True):
                    self.page.evaluate("on => { const box = document.getElementById('bytes'); "
                                       "if (box.checked !== on) box.click(); }", use_bytes)
                    self.quick_clicks("reset", 1)
                    start = self.layout()
                    self.assertLessEqual(start["overflow"], 0, "the page must not scroll sideways")
                    for _ in range(12):  # to the end of training and one click past it
                        self.quick_clicks("next", 1)
                        self.assertEqual(self.layout(), start, "stepping must not move anything")
                    self.quick_clicks("reset", 1)
                    self.quick_clicks("next", 5)
                    path = os.path.join(folder, f"widget-{name}-{'bytes' if use_bytes else 'characters'}-5-merges.png")
                    self.page.screenshot(path=path, full_page=True)
                    print(f"\nscreenshot: {path}", end=" ")

    def test_long_text_is_refused(self):
        limit = widget.MAX_CHARS
        self.page.fill("#text", "ab " * (limit // 3 + 1))
        shown = self.screen()
        self.assertIn(f"at most {limit:,}", shown["status"])
        self.assertFalse(shown["next"])
        self.assertEqual((shown["k"], shown["V"], shown["L"]), ("\u2013",) * 3)
        with self.assertRaisesRegex(BrowserError, "at most"):
            self.page.evaluate("text => window.bpeWidget.train(text)", "x" * (limit + 1))
        self.page.fill("#text", "ab " * 10)
        self.quick_clicks("next", 1)
        self.assertEqual(self.state()["merges"][0]["token"], "ab", "a shorter text trains again")

    def test_any_text_is_embedded_safely(self):
        text = "</script><script>window.hacked = 1</script> <!-- it's \"quoted\" & caf\u00e9 \U0001f600 \u2028 \\ end"
        test = "</SCRIPT> \ud800 '"
        html = widget.page(text, test)
        self.assertTrue(html.isascii(), "the page reads the same in any encoding")
        self.assertEqual(html.lower().count("</script"), 1, "only the page's own script ends")
        self.page.goto(write_page(_browser["folder"].name, "unsafe.html", html))
        self.assertEqual(self.page.evaluate("[window.hacked, document.getElementById('text').value]"), [None, text])
        self.assertEqual(self.page.input_value("#test"), test)
        self.assertEqual(self.state()["k"], 0)
        self.quick_clicks("next", 1)
        self.assertEqual(self.state()["k"], 1)



class PageArguments(unittest.TestCase):
    def test_arguments_must_be_text(self):
        with self.assertRaises(TypeError):
            widget.page(b"bytes")


if __name__ == "__main__":
    unittest.main()
