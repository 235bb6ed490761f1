"""Merges: learned and applied fast, each fast path equal to a definition in ``bpe.py``.

``bpe.py``'s section 1 defines BPE as simply as it can be written; this wing
makes it fast, and the tests hold each module to its definition on many
random inputs. It uses the ground and ``bpelab.text``. Its modules, bottom
up, each with the definition it equals:

    rules      the tie rules, the order of base tokens and progress reports, shared by the definitions and the engine
    engine     the fast trainer and chunk encoder: ``reference_train``, ``reference_encode``
    ranked     Hugging Face's rule, lowest rank then leftmost, one occurrence at a time (its own definition,
               ``reference_encode_leftmost``, which equals ``reference_encode`` on lab-ordered merges)
    dropout    BPE-dropout's three rules: subword-nmt's, ``reference_encode(..., dropout=p)``; the paper's
               code's and Hugging Face's, each its source's own (restated in the tests)
    training   the options of a run, checked once (SuperBPE's among them), and chunk counts, whole or line by
               line: the input of ``reference_train``
    superbpe   SuperBPE's two stages as its official code trains them (the fork's trainer restated in the
               tests); with the choices of before, ``reference_superbpe``
    learning   the step every trainer shares: counts in, merges learned, a ``Tokenizer`` out (no definition)
    prepared   a merge list with the tables a model derives from it, kept by the vocabulary cache (no definition)
    lab_model  the lab's kind of model, encoding as ``reference_encode`` does; the interface every model has
    picky_model  a tokenizer whose training removed tokens: its kind of model, encoding as ``picky_tokenize.py`` does
    parity     parity-aware BPE, a corpus per language: ``tokenizers``' ``ParityBpeTrainer``, restated in the tests
    picky      PickyBPE's merges and removals: ``bpe_trainer.py`` of pchizhov/picky_bpe, restated in the tests

The last three are variants with no definition in ``bpe.py``: each equals its source.
"""
