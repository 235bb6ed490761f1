"""The tests of ``bpelab.formats`` (see its ``__init__``), found by ``python3 -m unittest``."""
