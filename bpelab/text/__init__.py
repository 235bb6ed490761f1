"""Text: how text is cut before any merge, and how a token reads as text.

Every tokenizer cuts its text into chunks that merges never cross; this wing
holds the cutting, from the Unicode tables up. It uses only the ground
(``bpelab.messages``, ``checks``, ``byte_level``, ``reading``, ``writing``).
Its modules, bottom up, each with the ``bpe.py`` definition it equals:

    unicode_ranges  the Unicode 14.0.0 tables the patterns are spelled with (generated; no definition)
    patterns        the named chunk patterns and their safe cuts: ``bpe.chunks``
    specials        special tokens, their IDs and where they are in text (no definition: ``Tokenizer.encode``'s rule)
    blocks          long text and files cut a block at a time at safe cuts: ``bpe.chunks`` of the whole text
    readable        each token as the text it stands for, and its readable form (no definition: ``Tokenizer.readable_tokens``)
    offsets         each token's span of the text, in bytes or characters (no definition: ``Tokenizer.encode_with_offsets``)
"""
