"""The machinery behind ``bpe.py``: wings, one per stage of the pipeline, on a ground every wing uses.

``bpe.py`` is the lesson (BPE by definition, the lab's chunks, the
``Tokenizer``); read it first. The ``Tokenizer`` reaches everything here
through thin delegations, and nothing here imports ``bpe`` except the
command line, which uses its public API. Each wing's ``__init__`` lists its
modules bottom up and names the ``bpe.py`` definition each equals. Read
from the bottom up, a wing uses only the ground and the wings below it
(``tests/test_layout.py`` holds the code to this map):

    commands/   the command line, its drawing of tokens, ``compare``, ``view`` and the widget (above the lesson)
    corpora/    what is larger than memory or one process: workers, counting, token files, streaming, Dask
    formats/    one module per file format: the lab's, ``tokenizer.json``, ``.tiktoken``, GPT-2's, the official files
    imported/   other libraries' models, run as they run them: pipelines, added tokens, given vocabularies
    merges/     merges learned and applied fast: the engine, training, SuperBPE, dropout, the leftmost-rank rule
    text/       how text is cut before any merge (patterns, Unicode tables, special tokens, blocks), tokens as text

The ground, used by every wing:

    reading     files and pipes read with limits, JSON parsed strictly
    writing     files written atomically, never replacing what they should not
    checks      what arguments, alphabets, merge lists and IDs must be
    byte_level  GPT-2's printable form of the 256 bytes, and text as UTF-8
    messages    how errors quote values and file names

``tools/`` holds the development scripts (the benchmark, the table
generator, the builder of the tests' small Hugging Face files) and ``docs/``
the reference prose.
"""
