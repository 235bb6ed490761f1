"""Streaming encode: `encode_iterable` over the open prose file against `encode` of its whole text.

The byte-level prose tokenizer encodes the prose corpus file both ways,
each timed with the file's reading; the IDs are hashed as they come, so
the peak memory is what each holds.
"""

from ..corpora import PROSE, corpus_title
from ..implementations import label
from ..report import format_ratio, mark_agreement, peak_mb, speed_ratio


def run(plan):
    """``encode_iterable`` over the prose file against ``encode`` of its whole text (issue 19): time and memory."""
    prose = plan.corpora[PROSE]
    spec = {"job": "stream", "corpus": prose["path"], "tokenizer": plan.tokenizer(PROSE, True)}
    rows = plan.compared(f"encode {corpus_title(prose)}, byte level, reading the file",
                         [dict(spec, impl=impl) for impl in ("ours", "ours-iterable")], "seconds", prose["bytes"])
    rows[0].name = f"{label('ours')}, encode(whole text)"
    mark_agreement(rows, "digest", "IDs")
    whole, streamed = rows
    ratios = [("time of encode_iterable(open file) / encode(whole text)", format_ratio(speed_ratio(streamed, whole)))]
    if whole.measurement.runs and streamed.measurement.runs:
        ratios.append(("peak RSS of encode_iterable(open file) / encode(whole text)",
                       format_ratio(peak_mb(streamed) / peak_mb(whole))))
    return rows, ratios
