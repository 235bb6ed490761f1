"""Resuming: a token-file run that was stopped goes on where it stopped, to the bytes of one uninterrupted run.

With ``resume=True`` (``prepare --resume``), ``bpe.Tokenizer.encode_files`` keeps its
work where a later run finds it: the IDs so far in ``OUT.resume``, and the
checkpoint beside them, ``OUT.resume.json``: the plan (the tokenizer's
sha256, the format, the width of an ID, the separator, the special-token
choice, the block size, each input's path, size and time of change) and
how far the IDs go (the file being read, the byte of it where its next
block begins, the bytes of IDs written, each file's tokens so far, the
separators written). Blocks end at safe cuts, so encoding on from a
checkpoint gives the IDs the uninterrupted run gives from there.

A checkpoint is replaced (atomically) only once the IDs it counts are on
disk, so ``OUT.resume`` may run past its checkpoint, never short of it; a
resumed run cuts it back to the checkpoint's length. A checkpoint made from
other input, another tokenizer or other options is refused, naming it, and
nothing is touched. The run that finishes removes the checkpoint, then puts
the IDs in place as any run does (``writing.atomic_described``). A
checkpoint carries the sha256 of what it holds, so one edited by hand is
refused rather than trusted; the IDs file and the checkpoint are outputs,
so neither may be one of the inputs.
"""

import hashlib
import json
import os
import time

from bpelab.messages import named
from bpelab.reading import read_json
from bpelab.writing import atomic_writer

CHECKPOINT_SECONDS = 2.0
"""At most how often (seconds) a resumable run writes its checkpoint (each costs a flush to disk)."""


def kept_paths(out_path):
    """Where a resumable run keeps its IDs so far, and its checkpoint."""
    return os.fspath(out_path) + ".resume", os.fspath(out_path) + ".resume.json"


def run_plan(tokenizer_sha256, paths, format, dtype, separator, specials, block_size):
    """What a checkpoint must match to be resumed: the tokenizer, the inputs as they are now, every option."""
    inputs = []
    for path in paths:
        status = os.stat(path)
        inputs.append({"path": path, "size": status.st_size, "modified_ns": status.st_mtime_ns})
    plan = {"tokenizer_sha256": tokenizer_sha256, "format": format, "dtype": dtype, "separator": separator,
            "specials": {key: sorted(value) if isinstance(value, (set, frozenset)) else value
                         for key, value in specials.items()},
            "block_size": block_size, "files": inputs}
    return json.loads(json.dumps(plan))  # as a checkpoint holds it (a tuple comes back a list)


def fresh_point(files):
    """Where a run begins that has written nothing yet, as a checkpoint says where a run stopped."""
    return {"file": 0, "offset": 0, "bytes": 0, "counts": [0] * files, "ended": 0}


def starting_point(out_path, plan):
    """Where a resumable run begins: a fresh start, or the checkpoint's point, checked against ``plan``.

    A point is a dict: ``file``, ``offset`` (where that file's next block
    begins), ``bytes`` (of IDs written), ``counts``, ``ended``.
    """
    ids, checkpoint = kept_paths(out_path)
    fresh = fresh_point(len(plan["files"]))
    if not os.path.exists(checkpoint):
        return fresh  # (IDs kept without a checkpoint came before the first one: they are written again)
    saved = read_json(checkpoint, "out_path")
    if not isinstance(saved, dict) or set(saved) != {"plan", "point", "sha256"}:
        raise ValueError(f"{named(checkpoint)}: not a checkpoint of the lab's; remove it to start again")
    if saved["sha256"] != _digest(saved["plan"], saved["point"]):
        raise ValueError(f"{named(checkpoint)}: changed since the run wrote it (its sha256 does not match what it "
                         "holds); remove it and its .resume file to start again")
    if saved["plan"] != plan:
        raise ValueError(f"{named(checkpoint)}: that run was made from {_difference(saved['plan'], plan)}; "
                         "resume it as it was started, or remove it and its .resume file to start again")
    point = saved["point"]
    size = os.path.getsize(ids) if os.path.exists(ids) else 0
    if size < point["bytes"]:
        raise ValueError(f"{named(ids)}: holds {size:,} bytes of IDs where its checkpoint counts "
                         f"{point['bytes']:,}; remove it and {named(checkpoint)} to start again")
    return point


def _digest(plan, point):
    """The sha256 a checkpoint carries of its plan and point, so that a checkpoint edited by hand is refused."""
    return hashlib.sha256(json.dumps([plan, point], sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def _difference(saved, plan):
    """What differs between a checkpoint's plan and this run's, said as what the stopped run was made from."""
    if saved.get("tokenizer_sha256") != plan["tokenizer_sha256"]:
        return f"another tokenizer (sha256 {str(saved.get('tokenizer_sha256'))[:12]}...)"
    old, new = saved.get("files") or [], plan["files"]
    if [entry.get("path") for entry in old] != [entry["path"] for entry in new]:
        return "other input files"
    for before, now in zip(old, new):
        if before != now:
            return f"{named(now['path'])} as it was before it changed"
    changed = [key for key in plan if saved.get(key) != plan[key]]
    return "other options (" + ", ".join(changed) + ")"


class Checkpoints:
    """A resumable run's checkpoints, written at most every ``CHECKPOINT_SECONDS``."""

    def __init__(self, out_path, plan, stream):
        self.path, self.plan, self.stream, self.last = kept_paths(out_path)[1], plan, stream, time.monotonic()

    def passed(self, point):
        """The IDs up to ``point`` are written; make it the checkpoint if it is time."""
        if time.monotonic() - self.last < CHECKPOINT_SECONDS:
            return
        self.stream.flush()
        os.fsync(self.stream.fileno())  # the IDs on disk first: a checkpoint never counts more than there is
        with atomic_writer(self.path, "out_path") as checkpoint:
            body = {"plan": self.plan, "point": point, "sha256": _digest(self.plan, point)}
            checkpoint.write(json.dumps(body, ensure_ascii=False).encode("utf-8"))
        self.last = time.monotonic()

    def finish(self):
        """The run is complete: its checkpoint goes (before the IDs are put in place)."""
        if os.path.exists(self.path):
            os.remove(self.path)
