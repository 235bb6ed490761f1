"""The tests of ``bpelab.text`` (see its ``__init__``), found by ``python3 -m unittest``."""
