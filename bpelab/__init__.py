"""The machinery behind ``bpe.py``: one module per concern, each saying which definition in ``bpe.py`` it equals.

``bpe.py`` is the lesson (BPE by definition, the lab's chunks, the
``Tokenizer``); read it first. The ``Tokenizer`` reaches everything here
through thin delegations, and nothing here imports ``bpe`` except the two
programs at the top, which use its public API. Read from the bottom up, each
module uses only those below it:

    cli, widget           the command line (``python3 bpe.py --help``) and the training page
    terminal, display     the command line's input and output; tokens drawn for a person
    cluster               chunks counted and token files written on Dask (optional, never imports it)
    tiktoken_files        tiktoken's ``.tiktoken`` files, in and out
    huggingface           Hugging Face's ``tokenizer.json``, in and out
    token_files, counting a corpus encoded into a flat file of IDs; chunks counted for training
    formats               the lab's tokenizer files (formats 1 and 2)
    files                 reading with limits, writing atomically
    training              chunk counts and the options every trainer shares
    workers               the worker processes encoding and counting share, in order
    engine                the fast trainer and encoder (equal to ``reference_train`` and ``reference_encode``)
    specials              special tokens: their IDs and where they are in text
    checks                what arguments, alphabets, merge lists and IDs must be
    byte_level            GPT-2's printable form of the 256 bytes
    blocks                long text and files read a block at a time
    patterns              named chunk patterns (equal to ``bpe.chunks``) and safe cuts
    unicode_ranges        the Unicode 14.0.0 classes they are spelled with (generated)
    messages              how errors quote values and file names

``tools/`` holds the development scripts (the benchmark, the table
generator) and ``docs/`` the reference prose.
"""
