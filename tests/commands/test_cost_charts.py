"""The pictures of what languages cost (bpelab/commands/cost_charts.py): their shape, their values, and in Chromium.

The charts are read back with ElementTree (only drawing elements, nothing
loaded, every dot's value and title), then opened in Debian's Chromium
through Playwright, as tests/commands/test_widget.py opens its page: they
render without error, no two labels overlap, and the values drawn are the
table's, in the order of the scale. The rows are the five-declaration
fixture's, and a made-up table of 60 languages whose 14 labelled rows sit
side by side, where labels would overlap if nothing moved them.
"""

import json
import math
import os
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

from bpelab.commands import cost_charts, measures, parallel_texts
from tests.clients import package_folder, require_packages, skip_or_fail
from tests.commands.test_measures import BYTES, LAB
from tests.commands.test_parallel_texts import write_udhr
from tests.commands.test_widget import CHROMIUM, open_browser

try:
    from playwright.sync_api import sync_playwright
except ImportError:
    sync_playwright = None

SVG = "{http://www.w3.org/2000/svg}"
DRAWING = {"svg", "title", "rect", "text", "line", "circle", "path"}


def made_up_rows(count=60, lessons=14):
    """Rows of two tokenizers for ``count`` languages of one script, the first ``lessons`` of them labelled and
    with nearly the same premium, so their rows are neighbours; the last one invalid."""
    rows = []
    for number in range(count):
        for index, label in enumerate(("one", "two <&>")):
            premium = 1.0 + number * 0.01 + index * 0.5 if number >= lessons else 2.0 + number * 1e-4 + index
            unknown = 0.5 if number == count - 1 else 0.0
            row = dict.fromkeys(measures.ROW_KEYS)
            row.update(tokenizer=label, code=f"l{number:02d}", name=f"Language {number}", language=f"l{number:02d}",
                       script="Latin" if number % 3 else "Cyrillic", tokens=10, premium=premium,
                       invalid=unknown > measures.INVALID_SHARE, bytes_per_token=2.0, chars_per_token=1.5,
                       unknown_share=unknown, unknown_character_share=unknown, partial_share=0.0, efficiency=0.5,
                       latitude=number - 30.0, longitude=number * 5.0 - 150, lesson=number < lessons)
            rows.append(row)
    return rows


def parse(svg):
    return ElementTree.fromstring(svg)


def circles(root, kind):
    return [element for element in root.iter(SVG + "circle") if element.get("class") == kind]


class Shapes(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        documents, _ = parallel_texts.read_udhr(write_udhr(cls.folder.name), incomplete=True)
        cls.rows = measures.measure_documents({"lab": LAB, "bytes": BYTES}, documents)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def assert_self_contained(self, svg):
        root = parse(svg)
        self.assertLessEqual({element.tag.removeprefix(SVG) for element in root.iter()}, DRAWING)
        self.assertNotIn("href", svg)
        self.assertNotIn("style", svg)
        return root

    def test_a_dot_per_row_with_its_value_and_title(self):
        for measure in measures.MEASURES:
            with self.subTest(measure=measure):
                root = self.assert_self_contained(cost_charts.dot_chart(self.rows, measure))
                dots = circles(root, "dot")
                drawn = [row for row in self.rows if row[measure] is not None and
                         (row[measure] > 0 or measure not in cost_charts.RATIOS)]
                self.assertEqual(sorted((dot.get("data-code"), dot.get("data-tokenizer"), dot.get("data-value"))
                                        for dot in dots),
                                 sorted((row["code"], row["tokenizer"], repr(row[measure])) for row in drawn))
                for dot in dots:
                    row = next(row for row in drawn if (row["code"], row["tokenizer"]) ==
                               (dot.get("data-code"), dot.get("data-tokenizer")))
                    self.assertEqual(dot.find(SVG + "title").text, cost_charts.describe(row))
                    self.assertEqual(dot.get("fill") == "none", measure == "premium" and row["invalid"])
                unknown = circles(root, "unknown")
                if measure in ("unknown_share", "unknown_character_share"):
                    self.assertEqual(unknown, [])
                else:
                    self.assertEqual(len(unknown), sum(1 for row in self.rows if row["unknown_character_share"]))
                labels = [text.get("data-code") for text in root.iter(SVG + "text") if text.get("class") == "label"]
                self.assertEqual(sorted(labels), sorted({row["code"] for row in self.rows if row["lesson"]}))

    def test_grouped_by_script_and_sorted_by_the_first_tokenizer(self):
        groups = cost_charts.grouped(made_up_rows(), "premium")
        self.assertEqual(sorted(script for script, _ in groups), ["Cyrillic", "Latin"])
        medians = []
        for _, docs in groups:
            values = [doc[0]["premium"] for doc in docs if not doc[0]["invalid"]]
            self.assertEqual(values, sorted(values))
            self.assertFalse(any(doc[0]["invalid"] for doc in docs[:len(values)]), "invalid ones last")
            self.assertEqual({row["tokenizer"] for doc in docs for row in doc[:1]}, {"one"})
            medians.append(values[len(values) // 2])
        self.assertEqual(medians, sorted(medians), "the script with the lower median first")

    def test_labels_are_moved_apart(self):
        self.assertEqual(cost_charts.spread_labels([10, 10, 12, 40, 41], 5, gap=11), [10, 21, 32, 43, 54])
        self.assertEqual(cost_charts.spread_labels([1, 30], 5, gap=11), [5, 30])

    def test_the_map_and_the_strip(self):
        lab = [row for row in self.rows if row["tokenizer"] == "lab"]
        land = [[(-10.0, 50.0), (10.0, 50.0), (10.0, 40.0), (-10.0, 50.0)]]
        for picture in (cost_charts.premium_map(lab, land), cost_charts.premium_map(lab)):
            root = self.assert_self_contained(picture)
            places = circles(root, "place") + [rect for rect in root.iter(SVG + "rect") if rect.get("class") == "place"]
            placed = [row for row in lab if row["latitude"] is not None]
            self.assertEqual(sorted((place.get("data-code"), place.get("data-value")) for place in places),
                             sorted((row["code"], repr(row["premium"])) for row in placed))
            left_off = " ".join(text.text for text in root.iter(SVG + "text") if text.get("class") == "left-off")
            self.assertIn("Left off, without a real position (1): rus (Russian).", left_off)
        wedges = [path for path in parse(cost_charts.premium_map(lab, land)).iter(SVG + "path")
                  if path.get("fill") == "#333333"]
        self.assertEqual(len(wedges), sum(1 for row in placed if 0 < row["unknown_character_share"] < 1))
        with self.assertRaisesRegex(ValueError, "a map shows one tokenizer's rows, not 2"):
            cost_charts.premium_map(self.rows)

    def test_reading_topojson(self):
        topology = {"type": "Topology", "transform": {"scale": [0.5, 0.25], "translate": [-180, -90]},
                    "arcs": [[[0, 0], [4, 0], [0, 4]], [[4, 4], [-4, -4]], [[700, 200], [20, 0], [0, 8], [-20, -8]]],
                    "objects": {"land": {"type": "GeometryCollection", "geometries": [
                        {"type": "Polygon", "arcs": [[0, 1]]}, {"type": "MultiPolygon", "arcs": [[[~2]]]}]}}}
        path = os.path.join(self.folder.name, "land.json")
        with open(path, "w", encoding="utf-8") as stream:
            json.dump(topology, stream)
        first, second = cost_charts.read_land(path)
        self.assertEqual(first, [(-180.0, -90.0), (-178.0, -90.0), (-178.0, -89.0), (-180.0, -90.0)])
        self.assertEqual(second, [(170.0, -40.0), (180.0, -38.0), (180.0, -40.0), (170.0, -40.0)], "~2: backwards")
        across = [(170.0, 0.0), (-170.0, 0.0), (-170.0, 5.0), (170.0, 5.0)]
        self.assertEqual(list(cost_charts.unwrapped([across])),
                         [[(170.0, 0.0), (190.0, 0.0), (190.0, 5.0), (170.0, 5.0)],
                          [(-190.0, 0.0), (-170.0, 0.0), (-170.0, 5.0), (-190.0, 5.0)]])
        with open(path, "w", encoding="utf-8") as stream:
            json.dump({"type": "Topology", "arcs": []}, stream)
        with self.assertRaisesRegex(ValueError, "land.json: not a world-atlas TopoJSON file"):
            cost_charts.read_land(path)

    @require_packages("world-atlas")
    def test_the_real_base_map(self):
        rings = cost_charts.read_land(package_folder("world-atlas"))
        self.assertGreater(len(rings), 100)
        for ring in rings:
            self.assertEqual(ring[0], ring[-1], "each ring closes")
            self.assertTrue(all(-180 <= lon <= 180 and -90 <= lat <= 90 for lon, lat in ring))


def setUpModule():
    if sync_playwright is None:
        skip_or_fail("Playwright for Python is not installed")
    if CHROMIUM is None:
        skip_or_fail("no Chromium found (looked for 'chromium' on the PATH and /usr/bin/chromium)")


READ_MARKS = """() => {
    const boxes = [...document.querySelectorAll("text.label")].map(label => {
        const box = label.getBBox();
        return [label.getAttribute("data-code"), box.x, box.y, box.width, box.height];
    });
    const dots = [...document.querySelectorAll("circle.dot, circle.place")].map(dot => [
        dot.getAttribute("data-code"), dot.getAttribute("data-tokenizer"), Number(dot.getAttribute("data-value")),
        dot.getBBox().x + dot.getBBox().width / 2, dot.getBBox().width]);
    return {boxes, dots, width: document.documentElement.getBBox().width};
}"""


@unittest.skipIf(sync_playwright is None or CHROMIUM is None, "needs Playwright and Chromium (see setUpModule)")
class InChromium(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        cls.playwright, cls.browser, cls.page, cls.errors = open_browser()

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.playwright.stop()
        cls.folder.cleanup()

    def open(self, name, svg):
        path = os.path.join(self.folder.name, name)
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(svg)
        self.errors.clear()
        self.page.goto("file://" + path)
        found = self.page.evaluate(READ_MARKS)
        self.assertEqual(self.errors, [])
        self.assertGreater(found["width"], 0)
        return found

    def test_the_chart_renders_its_values_without_overlapping_labels(self):
        rows = made_up_rows()
        found = self.open("chart.svg", cost_charts.dot_chart(rows))
        self.assertEqual(len(found["boxes"]), 14)
        boxes = sorted(found["boxes"], key=lambda box: box[2])
        for upper, lower in zip(boxes, boxes[1:]):
            self.assertLessEqual(upper[2] + upper[4], lower[2] + 0.01, f"{upper[0]} overlaps {lower[0]}")
        table = {(row["code"], row["tokenizer"]): row["premium"] for row in rows}
        self.assertEqual(len(found["dots"]), len(table))
        for code, tokenizer, value, _, _ in found["dots"]:
            self.assertEqual(value, table[code, tokenizer])
        ordered = sorted(found["dots"], key=lambda dot: dot[2])
        self.assertEqual([dot[3] for dot in ordered], sorted(dot[3] for dot in ordered), "on one increasing scale")
        spread = [math.log(dot[2]) for dot in ordered]
        positions = [dot[3] for dot in ordered]
        ratio = (positions[-1] - positions[0]) / (spread[-1] - spread[0])
        for where, value in zip(positions, spread):
            self.assertAlmostEqual(where, positions[0] + (value - spread[0]) * ratio, delta=0.2, msg="a log scale")

    def test_the_map_renders_a_dot_per_placed_language(self):
        rows = [row for row in made_up_rows() if row["tokenizer"] == "one"]
        found = self.open("map.svg", cost_charts.premium_map(rows, [[(-10.0, 50.0), (10.0, 50.0), (0.0, 40.0)]]))
        self.assertEqual(sorted((dot[0], dot[2]) for dot in found["dots"]),
                         sorted((row["code"], row["premium"]) for row in rows))
        west_to_east = sorted(found["dots"], key=lambda dot: dot[3])
        self.assertEqual([dot[0] for dot in west_to_east], [row["code"] for row in rows], "at their longitudes")


if __name__ == "__main__":
    unittest.main()
