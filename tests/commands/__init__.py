"""The tests of ``bpelab.commands`` (see its ``__init__``), found by ``python3 -m unittest``."""
