"""The pages' own files: the HTML, CSS and JavaScript of ``bpe view`` and ``bpe widget``, as package data.

The pages draw what ``bpe.Tokenizer`` gives (``bpelab.commands.view``) and
run the lesson's training in the browser (``bpelab.commands.widget``).

Each page is three files in ``bpelab/commands/pages/`` that a person can
open, lint and diff: ``NAME.html`` links ``NAME.css`` and ``NAME.js`` as a
browser would load them from the folder. ``inline_page(name)`` gives the
one self-contained document the lab serves or writes, with the style and
the script inline (so the page loads nothing), and each ``{{key}}`` of the
HTML replaced by its value; ``source_hash`` gives the
Content-Security-Policy source that allows an inline style or script, worked
out from the very text the page holds.
"""

import base64
import hashlib
from importlib import resources
from typing import NamedTuple


class InlinePage(NamedTuple):
    """A page as one document, and the style and script it holds inline (for its Content-Security-Policy)."""
    html: str
    style: str
    script: str


def read_page_file(name):
    """The text of one of the pages' files (``view.js``, say), as installed with the package."""
    return resources.files(__package__).joinpath("pages", name).read_text(encoding="utf-8")


def inline_page(name, values=()):
    """The page ``name`` (``"view"`` or ``"widget"``) with its style and script inline and ``values`` filled in."""
    html, style, script = (read_page_file(name + ending) for ending in (".html", ".css", ".js"))
    for link, inline in ((f'<link rel="stylesheet" href="{name}.css">', f"<style>{style}</style>"),
                         (f'<script src="{name}.js"></script>', f"<script>{script}</script>")):
        if html.count(link) != 1:
            raise AssertionError(f"pages/{name}.html must hold {link} once")
        html = html.replace(link, inline)
    for key, value in dict(values).items():
        html = html.replace("{{" + key + "}}", value)
    return InlinePage(html, style, script)


def source_hash(source):
    """A Content-Security-Policy source for an inline script or style: the sha256 of its text."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii") + "'"
