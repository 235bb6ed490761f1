"""Prepared merges: a merge list with the tables a model derives from it, so that a vocabulary is derived once.

``bpe.Tokenizer(alphabet, merges)`` checks its merges and derives its
tables from them: the tokens the merges make, the table from a pair of IDs
to the ID of its merge, what each ID decodes to (``bpelab.merges.lab_model``;
an imported model has a few more, ``bpelab.imported.vocabulary``). For
a vocabulary of 200,000 tokens that is seconds of Python loops, and the
same loops every time the same file is loaded. A ``PreparedMerges`` is the
merge list itself (a tuple of the pairs: it serves wherever merges do) with
a table of what the model derived from it, by name:

- *being filled*, each table the model derives, its checks included, is
  kept as it is made (``derived`` computes it and keeps it);
- *filled*, each table is taken as it was kept, in place of deriving it
  again; the tokenizer is the same, its IDs included.

Only the cache of prepared vocabularies (``bpelab.formats.vocabulary_cache``) makes
them: it fills one on the first load of a file, keeps its tables in the
user's cache folder, and on a later load hands the model one filled from
there, only after checking that the entry is whole and was made from the
same file, by the same code, with the same arguments.
"""


class PreparedMerges(tuple):
    """The merge pairs, and the tables a model derived from them (``tables``: name -> value).

    Made empty it is being filled (``filled`` is False); made with its
    ``tables``, it is filled, and a model takes them as they are.
    """

    def __new__(cls, merges, tables=None):
        prepared = super().__new__(cls, merges)
        prepared.tables = {} if tables is None else dict(tables)
        prepared.filled = tables is not None
        return prepared


def derived(merges, name, compute):
    """The table ``name`` a model derives from ``merges``: ``compute()``, its checks included, unless ``merges`` is
    a filled ``PreparedMerges``, which gives it as it was computed before; a ``PreparedMerges`` being filled keeps it.

    >>> filling = PreparedMerges([("a", "b")])
    >>> derived(filling, "made", lambda: ["ab"]), filling.tables
    (['ab'], {'made': ['ab']})
    >>> derived(PreparedMerges(filling, filling.tables), "made", lambda: 1 / 0)
    ['ab']
    """
    if not isinstance(merges, PreparedMerges):
        return compute()
    if merges.filled:
        return merges.tables[name]
    merges.tables[name] = value = compute()
    return value
