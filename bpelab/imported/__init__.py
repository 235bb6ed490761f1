"""Imported models: other libraries' tokenizers, run exactly as those libraries run them.

A Hugging Face ``tokenizer.json`` brings its own vocabulary, merge rule and
pipeline around BPE; this wing runs them as ``tokenizers`` 0.23.3 does. It
uses the ground, ``bpelab.text`` and ``bpelab.merges``. Its modules, bottom
up (none has a definition in ``bpe.py``: each is held to its library):

    added_tokens       added tokens, matched as Hugging Face matches them
    pipeline           the steps around BPE: normalizers, pre-tokenizers, decoders, templates
    vocabulary         a byte-level model's given IDs and ranked merges (``reference_encode`` where its merges allow)
    sentencepiece      SentencePiece's kind of BPE as Hugging Face stores it (Llama 2, Gemma 3), byte fallback
    safe_cuts          where a pipeline's text may be cut without changing its IDs, proven from its steps
    models             the one door: an imported model of either level, by one constructor
"""
