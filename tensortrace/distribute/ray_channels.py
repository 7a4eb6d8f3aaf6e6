"""Collectives' messages between Ray workers on one machine through Ray's shared-memory channels
(the mutable objects of Ray's object store that Ray's Compiled Graphs run on). Each worker writes
every message once into its own channel, which all the other workers read: the channel's buffer
is allocated once and reused, so a message costs one copy into shared memory and no Ray task,
and a reader sees the arrays in place.

A reader thread per other worker hands each message to the worker's mailbox and waits until the
training thread has used it (``Mailbox.done``): only then does it read on, which lets the writer
reuse that buffer (Ray waits for the views of it to go too). So a value read from a channel must
not outlive its collective: the communicator copies whatever it returns.

Ray's read spins while it waits for a message. A reader thread spinning through the training
step would take CPU from the computation (on a machine whose cores the workers fill, half a
core), so a reader waits for a message only while a collective of its worker waits for one that
is not in the mailbox yet (``Mailbox.want``), and otherwise just gives the last one back (a
read that times out at once, taking the next message if it is already there)."""

import importlib
import threading
import time

from .. import errors

#: how often a blocked write or read looks at whether its run was aborted
_POLL_SECONDS = 0.5
#: a read that gives the last message back, and takes the next one if it is already there
_RELEASE_SECONDS = 0.001
#: a channel's first buffer; Ray enlarges it to the largest message written
_FIRST_BYTES = 1 << 20


def _channel_module():
    """Ray's shared-memory channel module, or None where this Ray has none."""
    try:
        return importlib.import_module("ray.experimental.channel.shared_memory_channel")
    except ImportError:
        return None


def available(node_ids):
    """Whether workers on ``node_ids`` can talk through channels: one machine, and a Ray
    that has them."""
    return len(set(node_ids)) == 1 and len(node_ids) > 1 and _channel_module() is not None


def open_channel(rank, workers, node_ids):
    """The channel worker ``rank`` (this actor) writes and every other worker reads; made in
    the writing actor, as Ray requires."""
    me = importlib.import_module("ray.experimental.channel.utils").get_self_actor()
    readers = [(w, node) for i, (w, node) in enumerate(zip(workers, node_ids)) if i != rank]
    return _channel_module().Channel(me, readers, _FIRST_BYTES)


class ChannelLink:
    """One worker's ends of the channels: ``send`` writes a message for all the others; reader
    threads deliver theirs to ``mailbox``."""

    def __init__(self, rank, channels, mailbox):
        ray_exceptions = importlib.import_module("ray.exceptions")
        self._timeout_error = ray_exceptions.RayChannelTimeoutError
        self._closed_error = ray_exceptions.RayChannelError
        self._own, self._mailbox, self._closed = channels[rank], mailbox, False
        self._threads = []
        for i, channel in enumerate(channels):
            if i != rank:
                wanted = threading.Event()
                mailbox.read_for(i, wanted)
                self._threads.append(threading.Thread(
                    target=self._read, args=(channel, wanted), daemon=True,
                    name=f"collective-reader-{i}"))
        for t in self._threads:
            t.start()

    def send(self, message, aborted, deadline=None):
        """Write ``message`` for every other worker once each has used the previous one;
        ``aborted()`` (why the run stopped, or None) ends the wait with TF's error, and so
        does ``deadline`` (``time.monotonic``)."""
        while True:
            try:
                self._own.write(message, timeout=_POLL_SECONDS)
                return
            except self._timeout_error:
                why = aborted()
                if why is not None:
                    raise errors.UnavailableError(
                        None, None, f"Collective ops is aborted by: {why}") from None
                if deadline is not None and time.monotonic() >= deadline:
                    raise errors.DeadlineExceededError(
                        None, None, "Collective ops timed out waiting for the other workers "
                        "to read the previous message") from None
            except self._closed_error:
                raise errors.UnavailableError(
                    None, None, "Collective ops is aborted by: the workers are shutting "
                    "down") from None

    def _read(self, channel, wanted):
        """Deliver the messages of one other worker's channel, one at a time, reading only
        while one is wanted or to give the last one back."""
        held = False  # a message was delivered: the next read gives its buffer back
        while not self._closed:
            if not held and not wanted.wait(_POLL_SECONDS):
                continue
            try:
                run, seq, rank, meta, payload = channel.read(
                    timeout=_RELEASE_SECONDS if held else _POLL_SECONDS)
            except self._timeout_error:
                held = False  # given back; nothing new yet (read on while still wanted)
                continue
            except self._closed_error:
                return
            held = True  # delivered below (which clears ``wanted`` unless it is stale)
            used = threading.Event()
            self._mailbox.deliver(run, seq, rank, meta, payload, used.set)
            del payload  # the next read lets the writer reuse the buffer it points into
            while not used.wait(_POLL_SECONDS):
                if self._closed:
                    return

    def close(self):
        self._closed = True
        try:
            self._own.close()
        except Exception:  # noqa: BLE001 - closing while Ray goes away: nothing to keep
            pass

