"""The machinery behind ``bpe.py``: one module per concern, each saying which definition in ``bpe.py`` it equals.

``bpe.py`` is the lesson (BPE by definition, the lab's chunks, the
``Tokenizer``); read it first. The ``Tokenizer`` reaches everything here
through thin delegations, and nothing here imports ``bpe`` except the
command line at the top, which uses its public API. Read from the bottom up,
each module uses only those below it (``tests/test_layout.py`` holds the code
to this map):

    cli                   the command line (``python3 bpe.py --help``): what each command does
    arguments             what each command takes: its arguments, options and help
    widget, view          the training page; the page that looks inside vocabularies (``bpe view``)
    compare               tokenizers side by side, and what each language costs (``bpe.compare``)
    terminal, display     the command line's input and output; tokens drawn for a person
    official              the official vocabularies by name (``Tokenizer.load_named``)
    cluster               chunks counted and token files written on Dask (optional, never imports it)
    streaming             a stream of text encoded lazily (``Tokenizer.encode_iterable``)
    gpt2_files            GPT-2's vocab.json + merges.txt, and course material's bytes in memory
    tiktoken_files        tiktoken's ``.tiktoken`` files, in and out
    huggingface           Hugging Face's ``tokenizer.json``, in and out
    hf_pipeline           its pipeline JSON in the lab's words, and back
    token_files           a corpus encoded into a flat file of IDs, in worker processes
    counting              chunks counted for training, in worker processes
    formats               the lab's tokenizer files (formats 1, 2 and 3)
    format3               format 3: given vocabularies, ranked merges, pipelines
    sentencepiece         an imported character-level model (SentencePiece's kind: Llama 2, Gemma 3), byte fallback
    vocabulary            an imported model's given IDs and ranked merges, encoded as Hugging Face does
    pipeline              the steps around BPE: normalizers, pre-tokenizers, decoders, templates
    added_tokens          Hugging Face's added tokens, matched as it matches them
    superbpe, dropout     SuperBPE's training, BPE-dropout's encoder (``reference_superbpe``, ``reference_encode``)
    training              chunk counts and the options every trainer shares
    ranked                Hugging Face's merge rule, one occurrence at a time (its definition and engine)
    workers               the worker processes encoding and counting share, in order
    engine                the fast trainer and encoder (equal to ``reference_train`` and ``reference_encode``)
    specials              special tokens: their IDs and where they are in text
    blocks                long text and files read a block at a time
    files                 reading with limits, writing atomically
    checks                what arguments, alphabets, merge lists and IDs must be
    byte_level            GPT-2's printable form of the 256 bytes
    patterns              named chunk patterns (equal to ``bpe.chunks``) and safe cuts
    chunk_regex           Hugging Face's (Oniguruma's) chunk regexes translated exactly into ``re``
    oniguruma             Oniguruma's regex syntax read into a tree, or refused by name
    unicode_ranges        the Unicode 14.0.0 tables they are spelled with (generated)
    messages              how errors quote values and file names

``tools/`` holds the development scripts (the benchmark, the table
generator, the builder of the tests' small Hugging Face files) and ``docs/``
the reference prose.
"""
