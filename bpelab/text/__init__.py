"""Text: how text is cut before any merge, and how a token reads as text.

Every tokenizer cuts its text into chunks that merges never cross; this wing
holds the cutting, from the Unicode tables up. It uses only the ground
(``bpelab.messages``, ``checks``, ``byte_level``, ``reading``, ``writing``).
Its modules, bottom up, each with the ``bpe.py`` definition it equals:

    unicode_ranges  the Unicode 14.0.0 tables the patterns are spelled with (generated; no definition)
    oniguruma          Oniguruma's regex syntax (Hugging Face's, tiktoken's) read into a tree, or refused by name
    pattern_automaton  that tree's automaton as ``re`` runs it: states, counted ways, sure states
    matching_time      a tree read only if ``re`` finds all its matches in quadratic time, decided on that automaton
    chunk_regex        that tree written as Python ``re``, exactly (held to Oniguruma and the ``regex`` package)
    regex_cuts         where a regex's matches may be cut, and whether it leaves text between them
    patterns        the chunk patterns, named or regexes, and their safe cuts: ``bpe.chunks``
    specials        special tokens, their IDs and where they are in text (no definition: ``Tokenizer.encode``'s rule)
    blocks          long text and files cut a block at a time at safe cuts: ``bpe.chunks`` of the whole text
    readable        each token as the text it stands for, and its readable form (no definition: ``Tokenizer.readable_tokens``)
    offsets         each token's span of the text, in bytes or characters (no definition: ``Tokenizer.encode_with_offsets``)
"""
