"""Merges: learned and applied fast, each fast path equal to a definition in ``bpe.py``.

``bpe.py``'s section 1 defines BPE as simply as it can be written; this wing
makes it fast, and the tests hold each module to its definition on many
random inputs. It uses the ground and ``bpelab.text``. Its modules, bottom
up, each with the definition it equals:

    engine    the fast trainer and chunk encoder, and the tie rules: ``reference_train``, ``reference_encode``
    ranked    Hugging Face's rule, lowest rank then leftmost, one occurrence at a time (its own definition,
              ``reference_encode_leftmost``, which equals ``reference_encode`` on lab-ordered merges)
    dropout   BPE-dropout's encoder: ``reference_encode(..., dropout=p)``
    training  chunk counts and the options every trainer shares: the input of ``reference_train``
    superbpe  SuperBPE's two stages: ``reference_superbpe``
"""
