"""Pictures of what hundreds of languages cost: a dot chart per measure and a map, standard-library SVG.

``bpe compare --udhr DIR -o chart.svg --map map.svg`` draws the rows of
``bpelab.commands.measures`` (each one text encoded by ``bpe.Tokenizer``):

- ``dot_chart``: one row per document, grouped by script (the cheapest script
  first), sorted within its group by the first tokenizer's value; one dot per
  tokenizer on a log scale for a ratio (premium, bytes or characters per
  token), a linear one for a share; the lessons' 14 languages labelled, every
  dot named by its ``<title>``. Beside it, the share of characters in unknown
  tokens, so that a cheap row made of ``<unk>`` shows what it lost; an invalid
  premium (over 10% of characters unknown) is a hollow dot;
- ``premium_map``: one tokenizer's premium, each language at its position
  over a world-atlas base map (Natural Earth's land, TopoJSON), coloured by
  premium, with a dark wedge for its unknown characters' share; without the
  atlas, a strip of the languages sorted by latitude. Documents without a
  real position are left off and listed under it.

Like ``compare``'s chart, each is one SVG document that loads nothing: no
script, no link, no external font; every label is escaped text, and each
mark carries its value (``data-value``, the number in full) for checking.
"""

import html
import math
import os

from bpelab.commands.compare import PALETTE, shorten
from bpelab.commands.measures import INVALID_SHARE, MEASURES
from bpelab.messages import named
from bpelab.reading import read_json

TITLES = {"premium": "Premium: tokens over English's for the same text",
          "bytes_per_token": "UTF-8 bytes per token", "chars_per_token": "Characters per token",
          "unknown_share": "Share of tokens that are the unknown token",
          "unknown_character_share": "Share of characters in unknown tokens",
          "partial_share": "Share of tokens holding part of a character only",
          "efficiency": "Rényi efficiency (alpha 2.5)"}
"""What each chart shows, as its title."""

RATIOS = {"premium", "bytes_per_token", "chars_per_token"}
"""Measures drawn on a log scale (twice as many is as far from 1 as half as many); shares are linear, 0 to 1."""

ROW, HEADER, LABEL_GAP = 4, 14, 11
"""A document's row height, a script's header row, and the least distance between two labels (pixels)."""


def esc(text):
    """Text as XML character data or an attribute value."""
    return html.escape(str(text), quote=True)


def number(value):
    """A coordinate, to a tenth of a pixel."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


class Scale:
    """Values to x positions, on a log scale or a linear one, with tick values to mark."""

    def __init__(self, values, start, width, log):
        self.start, self.width, self.log = start, width, log
        if log:
            steps = [mantissa * 10.0 ** power for power in range(-3, 4) for mantissa in (1, 2, 5)]
            low, high = min(values + [1.0]), max(values + [1.0])
            self.ticks = [step for step in steps if low / 2.5 < step < high * 2.5]
            self.low, self.high = math.log(min(low, self.ticks[0])), math.log(max(high, self.ticks[-1]))
        else:
            self.ticks, self.low, self.high = [0.0, 0.25, 0.5, 0.75, 1.0], 0.0, 1.0

    def __call__(self, value):
        where = math.log(value) if self.log else value
        return self.start + (where - self.low) / (self.high - self.low) * self.width

    def label(self, value):
        return f"{value:g}" if self.log else f"{value:.0%}"


def svg_document(width, height, title, parts):
    """The parts in one self-contained SVG document with a white background."""
    return "\n".join([f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                      f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="10">',
                      f"<title>{esc(title)}</title>", f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
                      *parts, "</svg>"]) + "\n"


def legend(labels, y, extra=()):
    """The tokenizers' colours in a row (or several), then ``extra`` notes, from ``y``; and the y below it."""
    parts, x = [], 8
    for index, label in enumerate(labels):
        if x > 560:
            x, y = 8, y + 14
        parts.append(f'<circle cx="{x + 4}" cy="{y - 3}" r="3.5" fill="{colour(index)}"/>')
        parts.append(f'<text x="{x + 11}" y="{y}">{esc(shorten(label, 28))}</text>')
        x += 24 + 6 * len(shorten(label, 28))
    for note in extra:
        y += 13
        parts.append(f'<text x="8" y="{y}" fill="#444444">{esc(note)}</text>')
    return parts, y + 10


def colour(index):
    return PALETTE[index % len(PALETTE)]


def grouped(rows, measure):
    """The documents' rows by script, ``[(script, [[row per tokenizer], ...]), ...]``: scripts by the median of the
    first tokenizer's values (lowest first), documents by that value within each (none, or invalid, last)."""
    documents = {}
    for row in rows:
        documents.setdefault(row["code"], []).append(row)

    def key(doc_rows):
        value = doc_rows[0][measure]
        missing = value is None or measure == "premium" and doc_rows[0]["invalid"]
        return (missing, 0.0 if missing else value, doc_rows[0]["code"])

    scripts = {}
    for doc_rows in documents.values():
        scripts.setdefault(doc_rows[0]["script"], []).append(doc_rows)
    groups = []
    for script, docs in scripts.items():
        docs.sort(key=key)
        valid = [key(doc)[1] for doc in docs if not key(doc)[0]]
        median = sorted(valid)[len(valid) // 2] if valid else math.inf
        groups.append((median, script, docs))
    return [(script, docs) for _, script, docs in sorted(groups)]


def spread_labels(wanted, top, gap=LABEL_GAP):
    """Label positions as near ``wanted`` (sorted y positions) as can be while ``gap`` apart and below ``top``."""
    placed = []
    for y in wanted:
        placed.append(max(y, top, placed[-1] + gap if placed else top))
    return placed


def dot_chart(rows, measure="premium"):
    """``measures`` rows drawn as dots, one row per document and a dot per tokenizer: one SVG document (str)."""
    if measure not in MEASURES:
        raise ValueError(f"no chart of {measure!r}; choose one of {', '.join(MEASURES)}")
    if not rows:
        raise ValueError("no rows to draw")
    labels = list(dict.fromkeys(row["tokenizer"] for row in rows))
    groups = grouped(rows, measure)
    left, width, gap, side = 220, 460, 36, 130
    with_unknown = measure not in ("unknown_share", "unknown_character_share")
    total = left + width + (gap + side if with_unknown else 0) + 20
    notes = [f"{TITLES[measure]}{' (log scale)' if measure in RATIOS else ''}: one row per text, grouped by script, "
             "sorted by the first tokenizer; hover a dot for its row.",
             "Hollow: invalid, over 10% of its characters in unknown tokens (Petrov et al., 2023)."
             if measure == "premium" else "Labelled: the lessons' 14 languages."]
    parts, top = legend(labels, 18, notes)
    values = [row[measure] for row in rows if row[measure] is not None and (row[measure] > 0 or measure not in RATIOS)]
    scale = Scale(values, left, width, measure in RATIOS)
    share = Scale([], left + width + gap, side, False)
    axis_top = top + 12
    y, marks, lesson = axis_top + 6, [], []
    for band, (script, docs) in enumerate(groups):
        height = HEADER + ROW * len(docs)
        marks.append(f'<rect x="{left}" y="{y}" width="{total - left - 20}" height="{height}" '
                     f'fill="{"#f3f3f3" if band % 2 else "#ffffff"}"/>')
        marks.append(f'<text class="script" x="{left + 3}" y="{y + 10}" fill="#555555">'
                     f'{esc(script)} ({len(docs):,})</text>')
        y += HEADER
        for doc_rows in docs:
            middle = y + ROW / 2
            if doc_rows[0]["lesson"]:
                lesson.append((middle, doc_rows[0]))
            for index, row in enumerate(doc_rows):
                marks += dot_marks(row, index, measure, scale, middle)
                if with_unknown and row["unknown_character_share"]:
                    marks.append(mark("unknown", row, "unknown_character_share", share(row["unknown_character_share"]),
                                      middle, colour(index), False))
            y += ROW
    bottom = y
    parts += axis(scale, axis_top, bottom, "1 = English" if measure == "premium" else None)
    if with_unknown:
        parts += axis(share, axis_top, bottom, None)
        parts.append(f'<text x="{left + width + gap}" y="{axis_top - 16}" fill="#444444">characters in unknown '
                     "tokens</text>")
    parts += marks
    for (wanted, row), placed in zip(lesson, spread_labels([where for where, _ in lesson], axis_top + 6)):
        parts.append(f'<line x1="{left - 4}" y1="{number(placed - 3)}" x2="{left}" y2="{number(wanted)}" '
                     'stroke="#888888"/>')
        parts.append(f'<text class="label" x="{left - 6}" y="{number(placed)}" text-anchor="end" '
                     f'data-code="{esc(row["code"])}">{esc(shorten_name(row["name"]))} ({esc(row["code"])})</text>')
    height = max(bottom, (placed + 4) if lesson else 0) + 30
    return svg_document(total, int(height), TITLES[measure], parts)


def shorten_name(name, most=26):
    """A language's name for a label, cut at ``most`` characters."""
    return name if len(name) <= most else name[:most - 1] + "…"


def dot_marks(row, index, measure, scale, middle):
    """The dot of one row on the main scale (none for a missing value, or zero on a log scale)."""
    value = row[measure]
    if value is None or value <= 0 and measure in RATIOS:
        return []
    return [mark("dot", row, measure, scale(value), middle, colour(index), measure == "premium" and row["invalid"])]


def mark(kind, row, measure, x, y, fill, hollow):
    """One dot with its row's value in full and a title that says it in words."""
    paint = f'fill="none" stroke="{fill}"' if hollow else f'fill="{fill}"'
    return (f'<circle class="{kind}" cx="{number(x)}" cy="{number(y)}" r="2.2" {paint} data-code="{esc(row["code"])}" '
            f'data-tokenizer="{esc(row["tokenizer"])}" data-value="{row[measure]!r}"><title>{esc(describe(row))}'
            "</title></circle>")


def describe(row):
    """A row in words, for a dot's title."""
    said = f"{row['name']} ({row['code']}), {row['tokenizer']}: "
    if row["premium"] is None:
        return said + "no tokens"
    said += f"×{row['premium']:.2f}, {row['bytes_per_token']:.2f} bytes/token, " \
        f"{row['unknown_character_share']:.1%} of characters unknown" + (" (invalid)" if row["invalid"] else "")
    if row["partial_share"]:
        said += f", {row['partial_share']:.1%} of tokens part of a character"
    return said


def axis(scale, top, bottom, reference):
    """Grid lines at the scale's ticks, labelled above and below, and a dashed line at 1 with its note."""
    parts = []
    for tick in scale.ticks:
        x = number(scale(tick))
        parts.append(f'<line x1="{x}" y1="{top}" x2="{x}" y2="{bottom}" stroke="#dddddd"/>')
        for y in (top - 3, bottom + 12):
            parts.append(f'<text x="{x}" y="{y}" text-anchor="middle" fill="#444444">{esc(scale.label(tick))}</text>')
    if reference is not None:
        x = number(scale(1.0))
        parts.append(f'<line x1="{x}" y1="{top}" x2="{x}" y2="{bottom}" stroke="#555555" stroke-dasharray="3 3"/>')
        parts.append(f'<text x="{x}" y="{bottom + 24}" text-anchor="middle">{esc(reference)}</text>')
    return parts


# ---------------------------------------------------------------------------
# The map
# ---------------------------------------------------------------------------

VIRIDIS = ("#440154", "#3b528b", "#21918c", "#5ec962", "#fde725")
"""Colours from low premium to high (viridis: ordered in lightness, told apart with any colour vision)."""


def premium_colour(value, low, high):
    """The colour of a premium between ``low`` and ``high`` on a log scale."""
    where = 0.0 if high <= low else min(max((math.log(value) - math.log(low)) / (math.log(high) - math.log(low)), 0), 1)
    step = min(int(where * (len(VIRIDIS) - 1)), len(VIRIDIS) - 2)
    into = where * (len(VIRIDIS) - 1) - step
    first, second = (tuple(int(code[i:i + 2], 16) for i in (1, 3, 5)) for code in VIRIDIS[step:step + 2])
    return "#" + "".join(f"{round(a + (b - a) * into):02x}" for a, b in zip(first, second))


def read_land(path):
    """Natural Earth's land from a world-atlas TopoJSON file (or its package folder: ``land-110m.json``), as rings
    of (longitude, latitude)."""
    if os.path.isdir(path):
        path = os.path.join(path, "land-110m.json")
    topology = read_json(path)
    try:
        scale_x, scale_y = topology["transform"]["scale"]
        move_x, move_y = topology["transform"]["translate"]
        arcs = []
        for arc in topology["arcs"]:
            x = y = 0
            points = []
            for dx, dy in arc:
                x, y = x + dx, y + dy
                points.append((x * scale_x + move_x, y * scale_y + move_y))
            arcs.append(points)
        rings = []
        for geometry in topology["objects"]["land"]["geometries"]:
            polygons = geometry["arcs"] if geometry["type"] == "MultiPolygon" else [geometry["arcs"]]
            for polygon in polygons:
                for ring in polygon:
                    points = []
                    for index in ring:
                        arc = arcs[index] if index >= 0 else arcs[~index][::-1]
                        points += arc if not points else arc[1:]
                    rings.append(points)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise ValueError(f"{named(path)}: not a world-atlas TopoJSON file with a 'land' object ({error!r})") from None
    return rings


def premium_map(rows, land=None):
    """One tokenizer's rows as a map of premiums (over ``land``, rings from ``read_land``) or, without it, a strip
    of the languages sorted by latitude: one SVG document (str)."""
    labels = list(dict.fromkeys(row["tokenizer"] for row in rows))
    if len(labels) != 1:
        raise ValueError(f"a map shows one tokenizer's rows, not {len(labels)} tokenizers'")
    placed = [row for row in rows if row["latitude"] is not None and row["longitude"] is not None]
    left_off = [row for row in rows if row not in placed]
    valid = [row["premium"] for row in placed if row["premium"] and not row["invalid"]] or [1.0]
    low, high = min(valid + [1.0]), max(valid)
    width = 960
    title = f"{labels[0]}: premium by where each language is written"
    parts = [f'<text x="8" y="18" font-size="13" font-weight="bold">{esc(shorten(labels[0], 40))}: the premium '
             "(tokens over English's for the same text) where each language is at home</text>"]
    parts += colour_key(low, high, 32)
    top = 78
    marks, height = (map_marks(placed, land, low, high, top, width) if land is not None
                     else strip_marks(placed, low, high, top, width))
    parts += marks
    y = top + height + 20
    names = ", ".join(row["code"] + (f" {row['name']}" if row["name"].startswith("(") else f" ({row['name']})")
                      for row in left_off)
    lines = wrap(f"Left off, without a real position ({len(left_off):,}): {names or 'none'}.", 150)
    for line in lines:
        parts.append(f'<text class="left-off" x="8" y="{y}" fill="#444444">{esc(line)}</text>')
        y += 13
    return svg_document(width, y + 8, title, parts)


def colour_key(low, high, y):
    """The colour scale, low to high premium, and what hollow dots and wedges mean."""
    parts, steps = [], 40
    for step in range(steps):
        value = math.exp(math.log(low) + (math.log(high) - math.log(low)) * step / (steps - 1)) if high > low else low
        parts.append(f'<rect x="{8 + step * 6}" y="{y}" width="6" height="10" '
                     f'fill="{premium_colour(value, low, high)}"/>')
    parts.append(f'<text x="8" y="{y + 22}">×{low:.2f}</text>')
    parts.append(f'<text x="{8 + steps * 6}" y="{y + 22}" text-anchor="end">×{high:.2f}</text>')
    parts.append(f'<text x="{30 + steps * 6}" y="{y + 9}" fill="#444444">dark wedge: the share of characters in '
                 f"unknown tokens; hollow: over {INVALID_SHARE:.0%} of them, an invalid premium</text>")
    return parts


def map_marks(rows, land, low, high, top, width):
    """The land and a dot per row, in the equirectangular projection from 60°S to 85°N; and the map's height."""
    north, south = 85, -60
    height = width / 360 * (north - south)

    def point(longitude, latitude):
        return 8 + (longitude + 180) / 360 * (width - 16), top + (north - latitude) / (north - south) * height

    rings = " ".join("M" + "L".join(f"{number(x)},{number(y)}" for x, y in (point(*p) for p in ring)) + "Z"
                     for ring in unwrapped(land))
    parts = [f'<svg x="8" y="{top}" width="{width - 16}" height="{number(height)}" viewBox="8 {top} {width - 16} '
             f'{number(height)}" overflow="hidden">', f'<rect x="8" y="{top}" width="{width - 16}" '
             f'height="{number(height)}" fill="#eef3f7"/>', f'<path d="{rings}" fill="#d9d9d9" stroke="#bbbbbb" '
             'stroke-width="0.5"/>']
    for row in sorted(rows, key=lambda row: row["premium"] or 0):
        x, y = point(row["longitude"], row["latitude"])
        parts += map_dot(row, x, y, low, high)
    parts.append("</svg>")
    return parts, height


def unwrapped(rings):
    """Each ring with its longitudes made continuous (a ring across the 180th meridian runs past it rather than
    back across the map), and a copy one turn over for a ring that runs past either edge, for the map to clip."""
    for ring in rings:
        points, shift = [ring[0]], 0.0
        for (before, _), (longitude, latitude) in zip(ring, ring[1:]):
            if longitude - before > 180:
                shift -= 360
            elif before - longitude > 180:
                shift += 360
            points.append((longitude + shift, latitude))
        yield points
        lowest, highest = min(x for x, _ in points), max(x for x, _ in points)
        if highest > 180 or lowest < -180:
            turn = -360 if highest > 180 else 360
            yield [(longitude + turn, latitude) for longitude, latitude in points]


def strip_marks(rows, low, high, top, width):
    """Without a base map: a cell per row, sorted from south to north, and its unknown share below it."""
    rows = sorted(rows, key=lambda row: (row["latitude"], row["code"]))
    cell = (width - 16) / max(len(rows), 1)
    parts = [f'<text x="8" y="{top - 4}" fill="#444444">sorted by latitude, south (left) to north (right)</text>']
    for place, row in enumerate(rows):
        x = 8 + place * cell
        fill = "#ffffff" if row["invalid"] or not row["premium"] else premium_colour(row["premium"], low, high)
        parts.append(f'<rect class="place" x="{number(x)}" y="{top}" width="{number(cell)}" height="60" fill="{fill}" '
                     f'stroke="{"#888888" if fill == "#ffffff" else fill}" stroke-width="0.3" '
                     f'data-code="{esc(row["code"])}" data-value="{row["premium"]!r}"><title>{esc(describe(row))}'
                     "</title></rect>")
        lost = row["unknown_character_share"] or 0
        if lost:
            parts.append(f'<rect x="{number(x)}" y="{top + 62}" width="{number(cell)}" height="{number(30 * lost)}" '
                         'fill="#333333"/>')
    for latitude in (-30, 0, 30, 60):
        place = next((place for place, row in enumerate(rows) if row["latitude"] >= latitude), None)
        if place is not None:
            x = number(8 + place * cell)
            parts.append(f'<line x1="{x}" y1="{top}" x2="{x}" y2="{top + 96}" stroke="#555555" stroke-dasharray="2 2"/>')
            parts.append(f'<text x="{x}" y="{top + 106}" text-anchor="middle" fill="#444444">{latitude}°</text>')
    parts.append(f'<text x="8" y="{top + 122}" fill="#444444">below the strip: the share of characters in unknown '
                 "tokens (full height: all); dashed: where the latitudes pass 30°S, the equator, 30°N, 60°N</text>")
    return parts, 126


def map_dot(row, x, y, low, high):
    """A dot coloured by its premium (hollow when invalid), with a wedge for its unknown characters' share."""
    hollow = row["invalid"] or not row["premium"]
    fill = "#ffffff" if hollow else premium_colour(row["premium"], low, high)
    parts = [f'<circle class="place" cx="{number(x)}" cy="{number(y)}" r="3.5" fill="{fill}" stroke="#333333" '
             f'stroke-width="{0.9 if hollow else 0.3}" data-code="{esc(row["code"])}" data-value="{row["premium"]!r}">'
             f"<title>{esc(describe(row))}</title></circle>"]
    lost = row["unknown_character_share"] or 0
    if lost >= 1:
        parts.append(f'<circle cx="{number(x)}" cy="{number(y)}" r="3.5" fill="#333333"/>')
    elif lost > 0:
        angle = 2 * math.pi * lost
        end_x, end_y = x + 3.5 * math.sin(angle), y - 3.5 * math.cos(angle)
        parts.append(f'<path d="M{number(x)},{number(y)} L{number(x)},{number(y - 3.5)} A3.5,3.5 0 '
                     f'{1 if lost > 0.5 else 0},1 {end_x:.2f},{end_y:.2f} Z" fill="#333333"/>')
    return parts


def wrap(text, width):
    """``text`` in lines of at most ``width`` characters, broken at spaces."""
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + [line]
