"""Corpora: what is larger than memory or than one process, with the results of one process.

A corpus is read a block at a time and shared among worker processes or a
cluster, and every result equals what one process gives on the whole text.
It uses the ground and the wings below it. Its modules, bottom up:

    cuts              where text may be cut into blocks that encode alike: ``bpe.Tokenizer.encode`` of the whole
    workers           a pool whose processes end with their parent, work handed out in order (no definition)
    counting          chunk counts made in worker processes: ``training.count_chunks``, order included
    token_formats     what Megatron-LM's and datatrove's token files hold beside the IDs (no definition)
    resuming          a stopped token-file run's checkpoint, and where it goes on from (no definition)
    token_files       a corpus encoded into flat files of IDs for training a model: ``bpe.Tokenizer.encode``
    streaming         a stream of text encoded lazily: ``bpe.Tokenizer.encode`` of it joined
    clusters          Dask's and Ray's calls, as the two modules after it make them (no definition)
    cluster_counting  chunks counted on a Dask or Ray cluster: ``training.count_chunks`` of the files as one text
    cluster_shards    token files written on a Dask or Ray cluster: ``Tokenizer.encode_files``, shard by shard
"""
