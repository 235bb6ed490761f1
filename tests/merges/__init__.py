"""The tests of ``bpelab.merges`` (see its ``__init__``), found by ``python3 -m unittest``."""
