"""Typing in ``bpe view``'s page: how long after the last key every tokenizer's result for the text is shown.

The page is the real command, ``bpe.py view -t TOK ...``, started as a
child process beside the ``bpe.py`` the job measures (so ``--compare``
types into the other commit's page), opened in Debian's Chromium by
Playwright (launched by its path, never a downloaded browser). The box
gets a long text and the page is left to draw it; then, each trial, ten
letters are typed at the end of the text, one every tenth of a second, and
the time is taken from the moment the last key was due until every
tokenizer's section counts the final text's characters, as the page says
it (``20,010 characters``): read by the page's own thread, so a page busy
drawing answers only once it has drawn. A key the browser could not take
in time (its thread was busy) still counts from when it was due: that is
when the person pressed it.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import time

from .probes import Unmeasured

KEYS = "abcdefghij"
"""The letters typed in one trial, one every ``KEY_INTERVAL`` seconds."""

KEY_INTERVAL = 0.1
"""Ten keys a second."""

TRIAL_LIMIT = 120.0
"""A trial still waiting this long after its last key is given up on (and the job fails)."""

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)

BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-extensions"]
"""Headless and quiet, as the tests start it (root, offline, no GPU)."""

SHOWN = """([sections, length]) => {
    const wanted = ", " + length.toLocaleString("en") + " characters,";
    const counts = [...document.querySelectorAll("#out section .counts")];
    return counts.length === sections && counts.every(count => count.textContent.includes(wanted));
}"""
"""Whether every section counts ``length`` characters (its result for the text of that length is in the page)."""


def languages_text(root, length):
    """The lab's sentences in its 14 languages (``languages.json``), one a line, repeated to ``length`` characters."""
    with open(os.path.join(root, "bpelab", "commands", "languages.json"), encoding="utf-8") as stream:
        languages = json.load(stream)["languages"]
    lines = "".join(sentence + "\n" for language in languages for sentence in language["sentences"])
    return (lines * (length // len(lines) + 1))[:length]


def start_view(root, tokenizers):
    """``bpe.py view`` of ``tokenizers`` as a child process, and the address it prints."""
    command = [sys.executable, os.path.join(root, "bpe.py"), "view"] + [part for name in tokenizers
                                                                         for part in ("-t", name)]
    process = subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if not line.startswith("http://"):
        process.kill()
        raise RuntimeError(f"bpe view did not start: {line or process.stderr.read().strip()}")
    return process, line.split()[0]


def wait_shown(page, sections, length, since):
    """Seconds from ``since`` until the page shows every section's result for a text of ``length`` characters."""
    while not page.evaluate(SHOWN, [sections, length]):
        if time.perf_counter() - since > TRIAL_LIMIT:
            raise RuntimeError(f"the page did not show the text of {length:,} characters within {TRIAL_LIMIT} s")
        time.sleep(0.005)
    return time.perf_counter() - since


def type_keys(page):
    """Type ``KEYS`` at the end of the box, one every ``KEY_INTERVAL``; when the last key was due."""
    page.focus("#text")
    page.keyboard.press("Control+End")
    start = time.perf_counter()
    for number, key in enumerate(KEYS):
        time.sleep(max(0.0, start + number * KEY_INTERVAL - time.perf_counter()))
        page.keyboard.press(key)
    return start + (len(KEYS) - 1) * KEY_INTERVAL


def typing_times(root, tokenizers, length, trials):
    """Each trial's seconds from the last key until every result is shown, in ``bpe view`` of ``tokenizers``."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise Unmeasured("not installed (playwright)") from None
    if CHROMIUM is None:
        raise Unmeasured("no Chromium (looked for chromium on the PATH and /usr/bin/chromium)")
    process, address = start_view(root, tokenizers)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=BROWSER_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(address)
            text = languages_text(root, length)
            page.fill("#text", text)
            wait_shown(page, len(tokenizers), length, time.perf_counter())
            times = []
            for trial in range(1, trials + 1):
                last_key = type_keys(page)
                times.append(wait_shown(page, len(tokenizers), length + trial * len(KEYS), last_key))
            browser.close()
    finally:
        process.kill()
        process.wait()
    return times


def typing_result(root, tokenizers, length, trials):
    """The page job's figures: the median and the worst trial, and every trial's time in the note."""
    times = typing_times(root, tokenizers, length, trials)
    return {"seconds": statistics.median(times), "worst": max(times),
            "note": f"worst {max(times):.2f} s of {trials} (" + ", ".join(f"{seconds:.2f}" for seconds in times)
                    + ")"}
