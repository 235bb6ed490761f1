"""The tests of ``bpelab.imported`` (see its ``__init__``), found by ``python3 -m unittest``."""
