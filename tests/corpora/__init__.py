"""The tests of ``bpelab.corpora`` (see its ``__init__``), found by ``python3 -m unittest``."""
