"""Clusters: Dask and Ray, as the cluster modules use them, so either gives the same results.

``cluster_counting`` and ``cluster_shards`` hand partitions to a cluster's
workers and take the results back in partition order; this module is the
only place where Dask and Ray differ. Their ``client`` is a
``dask.distributed.Client``, or the ``ray`` module itself once
``ray.init()`` has run (on one machine or joined to a cluster). Neither is
imported here: the lab needs them only to run on a cluster. Nothing here
changes a result (``bpe.count_chunks``, ``bpe.Tokenizer.encode_files``): it
only decides where work runs.

On Ray a task is never retried (``max_retries=0``): a worker that dies is
an error naming its shard (``WorkerLost``), and an error inside a task is
raised as itself, without Ray's wrapping and its remote traceback.
"""

from bpelab.messages import named


class WorkerLost(RuntimeError):
    """A cluster's worker died (killed, out of memory, its machine gone) while it worked on a partition."""


def partition_name(partition):
    """Where a partition's text is, for messages: ``FILE bytes START to END``, or from one file to another."""
    first, last = partition[0], partition[-1]
    if first.path == last.path:
        return f"{named(first.path)} bytes {first.start:,} to {last.end:,}"
    return f"{named(first.path)} byte {first.start:,} to {named(last.path)} byte {last.end:,}"


def cluster(client):
    """The calls the cluster modules make, on Dask's ``client`` or on the ``ray`` module."""
    return _Ray(client) if getattr(client, "__name__", None) == "ray" else _Dask(client)


class _Dask:
    """A ``dask.distributed.Client``'s futures."""

    def __init__(self, client):
        self.client = client

    def share(self, value):
        """``value`` sent once to every worker; pass what this returns to ``map``."""
        return self.client.scatter(value, broadcast=True, hash=False)  # its own key: an earlier run's may be leaving

    def map(self, function, *columns, **fixed):
        """A task for each row of ``columns``: ``function(*row, **fixed)`` on a worker; the tasks in order."""
        return self.client.map(function, *columns, **fixed, pure=False)

    def results(self, tasks, names):
        """Each task's result, in order, each task taken off the list ``tasks`` and let go as its result is taken
        (``names`` say what each is, for messages)."""
        while tasks:
            task = tasks.pop(0)
            yield task.result()
            task.release()

    def wait(self, tasks):
        """Wait until every task has ended, however it ends."""
        self.client.gather(tasks, errors="skip")


class _Ray:
    """The ``ray`` module's tasks and object references."""

    def __init__(self, ray):
        self.ray = ray

    def share(self, value):
        """``value`` put in Ray's object store once; a task given what this returns gets the value."""
        return self.ray.put(value)

    def map(self, function, *columns, **fixed):
        """A task for each row of ``columns``: ``function(*row, **fixed)`` on a worker, never retried."""
        remote = self.ray.remote(max_retries=0)(function)
        return [remote.remote(*row, **fixed) for row in zip(*columns)]

    def results(self, tasks, names):
        """Each task's result, in order, each task taken off the list ``tasks`` as its result is taken, so it
        leaves the object store; a task's error is raised as itself."""
        exceptions = self.ray.exceptions
        names = list(names)
        while tasks:
            task, name = tasks.pop(0), names.pop(0)
            try:
                yield self.ray.get(task)
            except exceptions.RayTaskError as error:
                raise error.cause from None
            except (exceptions.WorkerCrashedError, exceptions.NodeDiedError, exceptions.OutOfMemoryError) as error:
                raise WorkerLost(f"{name}: the worker running it died ({type(error).__name__}); "
                                 "nothing of this run is kept") from None

    def wait(self, tasks):
        """Wait until every task has ended, however it ends."""
        if tasks:
            self.ray.wait(tasks, num_returns=len(tasks))
