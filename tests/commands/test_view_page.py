"""``bpe view``'s page in Chromium: what it draws, how fast it keeps up, the keyboard, and what learners use.

The page is driven by Playwright in Debian's Chromium, launched by its path
as the widget's tests launch it, one browser for every test; the servers
(bpelab/commands/view.py) run in this process, in threads, on small
tokenizers (the lab's, and a byte-level one trained here), GPT-4o's, and
cl100k and Llama 2 for a character cut between tokens. How fast the page
keeps up on a long text with six tokenizers is the benchmark's ``page``
phase; here, that it draws only what is in view, cancels what it no longer
needs and dims what it is working out.
"""

import os
import random
import re
import tempfile
import time
import unittest

from bpelab.commands import drawing, page_tokens, view
from tests.clients import model_file, official_tokenizer, open_model, skip_or_fail
from tests.commands.test_view import HOSTILE, LAB, STORY, Server, random_text
from tests.commands.test_widget import CHROMIUM, DESKTOP, PHONE, open_browser
from tests.lab_samples import FORM_SCRIPTS

try:
    from playwright.sync_api import sync_playwright
except ImportError:
    sync_playwright = None


def explain_steps(tok, text):
    """The merge steps ``bpe explain`` prints for a one-chunk text, as ``merge N: left + right``."""
    lines = drawing.explain_chunk(tok, text, "")
    return sorted({match.group(1) for line in lines for match in [re.match(r"  (merge \d+: .+?)\s{2,}", line)]
                   if match})


READ_PAGE = """async () => {
    for (const section of document.querySelectorAll("#out section")) {  // each draws its chips once in sight
        section.scrollIntoView();
        await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
    }
    window.scrollTo(0, 0);
    return [...document.querySelectorAll("#out section")].map(section => ({
        label: section.querySelector("h2").textContent,
        ids: [...section.querySelectorAll(".tok")].map(token => Number(token.querySelector(".id").textContent)),
        shown: [...section.querySelectorAll(".tok .piece")].map(piece => piece.textContent),
        titles: [...section.querySelectorAll(".tok")].map(token => token.title),
        shared: [...section.querySelectorAll(".group")].map(group => [...group.children].map(child =>
            child.classList.contains("char") ? [child.textContent, child.style.gridColumn] : child.style.gridColumn)),
        counts: section.querySelector(".counts").textContent,
    }));
}"""


def chip_texts(drawn):
    """What each chip of ``page_tokens.drawn_tokens`` shows: its readable form, a share of a cut character as the bytes it
    holds (the character itself is drawn once, under the chips that share it)."""
    return [shown if parts is None else "".join(part if isinstance(part, str) else f"[{part[0]}]" for part in parts)
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
    """The page in Chromium shows what ``encode`` gives, builds the tree ``explain`` shows, takes the keyboard, keeps
    up, says what it cut and when the server is gone, and offers what learners use in the Tiktokenizer page."""

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
        cls.lab_served = Server({"lab": LAB})  # (quick on the longest texts)
        try:
            cls.playwright, cls.browser, cls.page, cls.errors = open_browser()
        except BaseException:
            cls.served.stop()
            cls.kinds_served.stop()
            cls.lab_served.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.playwright.stop()
        cls.served.stop()
        cls.kinds_served.stop()
        cls.lab_served.stop()

    def setUp(self):
        self.open(self.served)

    def open(self, served):
        """Open the page of ``served`` and wait until it has drawn its first text."""
        self.page.goto(served.origin + "/")
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
                drawn = page_tokens.drawn_tokens(tok, ids, text)
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
                    drawn = page_tokens.drawn_tokens(tok, ids, text)
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

    def focused(self):
        """Where the focus is: ``[section, position]`` on a token, else the focused element's id or tag."""
        return self.page.evaluate("""() => {
            const focused = document.activeElement, section = focused.closest('#out section');
            if (!section || !focused.classList.contains('tok')) return focused.id || focused.tagName;
            return [[...document.querySelectorAll('#out section')].indexOf(section), Number(focused.dataset.position)];
        }""")

    def test_one_tab_stop_per_tokenizer_and_the_arrows_within(self):
        shown = self.type_text("mia has a café")
        self.page.focus("#text")
        stops = []
        while not stops or stops[-1] != "ids":
            self.page.keyboard.press("Tab")
            stops.append(self.focused())
            self.assertLess(len(stops), 40, stops)
        self.assertEqual([stop for stop in stops if isinstance(stop, list)], [[index, 0] for index in range(3)])
        self.page.locator("#out section").nth(1).locator(".tok").first.focus()
        self.assertNotEqual(self.page.evaluate("getComputedStyle(document.activeElement).outlineStyle"), "none")
        last = len(shown[1]["ids"]) - 1
        for key, place in (("ArrowRight", 1), ("ArrowRight", 2), ("ArrowLeft", 1), ("End", last), ("ArrowRight", last),
                           ("Home", 0), ("ArrowLeft", 0), ("ArrowDown", 1)):
            self.page.keyboard.press(key)
            self.wait_until("place => document.activeElement.dataset.position === String(place)", place)
            self.assertEqual(self.focused(), [1, place], key)
        self.page.keyboard.press("Enter")
        self.wait_until("id => document.querySelectorAll('#out .built')[1].textContent.startsWith('ID ' + id + ':')",
                        shown[1]["ids"][1])
        self.page.keyboard.press("Shift+Tab")
        self.assertNotIsInstance(self.focused(), list, "Shift+Tab leaves the tokens at once")
        self.page.keyboard.press("Tab")
        self.assertEqual(self.focused(), [1, 1], "and Tab comes back to the token left")

    def test_a_long_text_draws_what_is_in_view(self):
        """A text of thousands of tokens draws a box full at first, more as it scrolls, and End reaches the last."""
        self.open(self.lab_served)
        text = "mia has a red kite. " * 300
        ids = LAB.encode(text)
        self.assertGreater(len(ids), 2 * view.WINDOW)
        self.type_text(text)
        drawn = self.page.evaluate("document.querySelectorAll('#out .tok').length")
        self.assertTrue(0 < drawn <= 600, drawn)
        self.page.evaluate("() => { const box = document.querySelector('#out .tokens'); box.scrollTop = 1e6; }")
        self.wait_until("drawn => document.querySelectorAll('#out .tok').length > drawn", drawn)
        self.page.locator("#out .tok").first.focus()
        self.page.keyboard.press("End")
        self.wait_until("last => document.activeElement.dataset.position === String(last)", len(ids) - 1)
        shown = self.page.evaluate(READ_PAGE)[0]
        self.assertEqual(shown["ids"], ids, "every token, received window by window, is the one encode gives")
        self.assertEqual(shown["shown"], LAB.readable_tokens(text))

    def test_stale_requests_are_cancelled_and_their_results_dimmed(self):
        self.page.evaluate("""() => {
            window.asked = [];
            const fetchOf = window.fetch;
            window.fetch = (route, options) => { window.asked.push({route, options}); return fetchOf(route, options); };
        }""")
        seen = self.page.evaluate("""async () => {
            const box = document.getElementById('text'), out = document.getElementById('out');
            box.value = 'mia has';
            box.dispatchEvent(new Event('input'));
            const dimmed = out.classList.contains('stale') && getComputedStyle(out.querySelector('section')).opacity;
            const first = window.bpeView.update();
            box.value = 'mia has a kite';
            await Promise.all([first, window.bpeView.update()]);
            return {dimmed, aborted: window.asked.map(asked => asked.options.signal.aborted),
                    after: out.classList.contains('stale') || getComputedStyle(out.querySelector('section')).opacity};
        }""")
        self.assertEqual(seen, {"dimmed": "0.45", "aborted": [True, False], "after": "1"})
        self.assertIn(", 14 characters,", self.page.text_content("#out .counts"))
        self.page.evaluate("window.asked = []")
        self.page.focus("#text")
        self.page.keyboard.type(" and a ball", delay=10)
        self.wait_until("() => window.bpeView.ready() && window.asked.length > 0")
        self.assertEqual(self.page.evaluate("window.asked.length"), 1, "eleven keys in a burst: one request")
        self.assertIn(", 25 characters,", self.page.text_content("#out .counts"))

    def test_a_limit_is_never_silent(self):
        """The page counts characters as the server does (an emoji is one, not two UTF-16 units), and says what it
        cuts from a longer text."""
        self.open(self.lab_served)
        self.type_text("\U0001f642" * view.MAX_CHARS)
        self.assertEqual(self.page.text_content("#length"), "100,000 characters of at most 100,000 characters")
        self.assertIn(", 100,000 characters,", self.page.text_content("#out .counts"))
        self.type_text("mia " * (view.MAX_CHARS // 4) + "has a red kite")
        self.assertEqual(self.page.text_content("#length"), "The text has 100,014 characters; the tokenizers see only "
                         "the first 100,000: the last 14 (from “has a red ki…” on) are cut.")
        self.assertIn(", 100,000 characters,", self.page.text_content("#out .counts"))
        self.assertEqual(self.page.text_content("#status"), "")

    def test_a_stopped_server_says_so_and_the_old_results_stay_dimmed(self):
        served = Server({"lab": LAB})
        self.open(served)
        served.stop()
        self.page.fill("#text", "mia has a kite")
        self.wait_until("() => document.getElementById('status').textContent !== ''")
        self.assertEqual(self.page.text_content("#status"), "The server does not answer: bpe view has stopped, or "
                         "this page lost it. Start bpe view again and open the address it prints.")
        self.assertEqual(self.page.evaluate("getComputedStyle(document.querySelector('#out section')).opacity"), "0.45")
        self.errors.clear()  # Chromium logs the refused connection on the console

    def test_the_legend_names_colours_and_marks(self):
        legend = self.page.text_content("#legend")
        for words in ("five colours", "unknown token", "special token", "part of a character", "Dimmed"):
            self.assertIn(words, legend)
        text = "mia 🙂 <|end|>"
        self.type_text(text)
        marks = self.page.evaluate("""() => [...document.querySelectorAll('#out section')].map(section =>
            [...section.querySelectorAll('.tok')].map(token => [token.className.replace(/ ?c\\d/, ''),
                token.querySelector('.mark')?.textContent ?? '']))""")
        for section, tok in zip(marks, self.tokenizers.values()):
            ids = tok.encode(text, allowed_special="all")
            expected = [["tok unknown", "?"] if token_id == 0 and not tok.byte_level else
                        ["tok special", "★"] if token_id in tok.special_tokens.values() else ["tok", ""]
                        for token_id in ids]
            self.assertEqual(section, expected)
        self.assertIn(["tok unknown", "?"], marks[1])
        self.assertIn(["tok special", "★"], marks[2])

    def test_choose_which_tokenizers_to_show(self):
        labels = self.page.evaluate("[...document.querySelectorAll('#choose label')].map(label => label.textContent)")
        self.assertEqual([label.strip() for label in labels], list(self.tokenizers))
        self.page.locator("#choose input").nth(1).uncheck()
        self.type_text("mia has a kite")
        visible = "[...document.querySelectorAll('#out section')].map(section => section.checkVisibility())"
        self.assertEqual(self.page.evaluate(visible), [True, False, True])
        self.page.locator("#choose input").nth(1).check()
        self.assertEqual(self.page.evaluate(visible), [True, True, True])
        self.assertEqual(self.page.evaluate(READ_PAGE)[1]["ids"], LAB.encode("mia has a kite"))

    def test_copy_the_ids(self):
        self.page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=self.served.origin)
        text = "mia has a café 🙂"
        self.type_text(text)
        self.page.locator("#out .copy").nth(2).click()
        self.wait_until("() => document.getElementById('status').textContent.startsWith('Copied')")
        ids = STORY.encode(text)
        self.assertEqual(self.page.text_content("#status"), f"Copied {len(ids)} IDs of story <&> bytes.")
        self.assertEqual(self.page.evaluate("navigator.clipboard.readText()"), ", ".join(map(str, ids)))

    def test_paste_ids_to_decode(self):
        text = "mia has a <b>kite</b> 🙂<|end|>"
        ids = STORY.encode(text, allowed_special="all")
        self.page.select_option("#decode-with", "2")
        for pasted, decoded in (("[" + ", ".join(map(str, ids)) + "]", STORY.decode(ids)),
                                (" ".join(map(str, ids[:3])) + "\n", STORY.decode(ids[:3])),
                                ("1 2 x", "“x” is not a token ID (IDs are whole numbers from 0 on)."),
                                (str(len(STORY)), f"ids must be a list of token IDs from 0 to {len(STORY) - 1}")):
            with self.subTest(pasted=pasted):
                self.page.fill("#ids", pasted)
                self.page.evaluate("document.getElementById('decoded').textContent = ''")
                self.page.click("#decode")
                self.wait_until("() => document.getElementById('decoded').textContent !== ''")
                self.assertEqual(self.page.text_content("#decoded"), decoded)
        self.assertEqual(self.page.evaluate("document.querySelectorAll('#decoded *').length"), 0, "text, not HTML")
        self.errors.clear()  # the refused request is logged on the console

    def test_pointing_lights_the_text_and_the_tokens(self):
        text = "mia has a red kite 🙂 and a ball"
        self.type_text(text)
        lit = "() => CSS.highlights.get('lit') ? [...CSS.highlights.get('lit')][0].toString() : null"
        for index, tok in enumerate(self.tokenizers.values()):
            for position, (_, start, end) in list(enumerate(tok.encode_with_offsets(text)))[3:6]:
                self.page.locator("#out section").nth(index).locator(".tok").nth(position).hover()
                self.wait_until(f"() => ({lit})() === {text[start:end]!r}")
        kite = text.index("kite") + 1
        self.page.evaluate("document.getElementById('mirror').scrollIntoView()")
        x, y = self.page.evaluate("""at => {
            const range = new Range(), text = document.getElementById('mirror').firstChild;
            range.setStart(text, at);
            range.setEnd(text, at + 1);
            const box = range.getBoundingClientRect();
            return [box.x + box.width / 2, box.y + box.height / 2];
        }""", kite)
        self.page.mouse.move(x, y)
        self.wait_until("() => document.querySelectorAll('#out .lit').length === 3")
        lit_tokens = self.page.evaluate("[...document.querySelectorAll('#out .lit')].map(t => Number(t.dataset.position))")
        self.assertEqual(lit_tokens, [next(position for position, (_, start, end) in enumerate(tok.encode_with_offsets(text))
                                           if start <= kite < end) for tok in self.tokenizers.values()])

    def test_the_whitespace_toggle(self):
        text = "mia has\ta kite\n\nand ␣"
        shown = self.type_text(text)
        plain = {"␣": " ", "↵": "\n", "⇥": "\t", "␍": "\r"}
        self.page.uncheck("#whitespace")
        unmarked = self.page.evaluate(READ_PAGE)
        for before, after, tok in zip(shown, unmarked, self.tokenizers.values()):
            forms = chip_texts(page_tokens.drawn_tokens(tok, tok.encode(text, allowed_special="all"), text))
            self.assertEqual(before["shown"], forms)
            self.assertEqual(after["shown"], [re.sub("[␣↵⇥␍]", lambda mark: plain[mark.group()], form) for form in forms])
        self.assertIn("⟨U+2423⟩", "".join(unmarked[1]["shown"]), "a real ␣ in the text stays named")
        self.page.check("#whitespace")
        self.assertEqual(self.page.evaluate(READ_PAGE), shown)
