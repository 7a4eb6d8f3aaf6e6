"""The trace cache of a polymorphic function (a ``tf.function`` or a loaded one): exact call keys,
the traces in least-recently-used order and bounded, the most specific trace admitting a call,
and the counters ``cache_info()`` reports.

    cache = TraceCache(max_traces=128)
    cache.keys.get(key)            # the exact hit: one dict look-up
    cache.find(specs)              # else the most specific trace whose signature admits specs

The owner serializes every change (its trace lock); only ``keys.get`` runs unlocked. The death
of an argument keyed by identity never changes the cache from its finalizer (which the garbage
collector may run in the middle of a look-up): the finalizer only queues the dead key, and the
owner calls ``drain()`` at a safe point, before a key is looked up.
"""

import collections
import weakref

from . import signature

#: Traces kept per function before the least recently used one is dropped.
DEFAULT_MAX_TRACES = 128

CacheInfo = collections.namedtuple("CacheInfo", "hits misses traces evictions size max_traces")


class TraceCache:
    """Concrete functions by call key and by signature.

    ``keys`` maps the key of a call (``signature.key_of`` per argument) to the trace it runs; a
    key dies with the arguments it holds by identity. ``traces`` holds every trace, least
    recently used first, at most ``max_traces`` of them.
    """

    def __init__(self, max_traces=None, traces=()):
        self.keys = {}  # call key -> ConcreteFunction (exact hits)
        self.traces = collections.OrderedDict.fromkeys(traces)  # LRU order, oldest first
        self.max_traces = max_traces or DEFAULT_MAX_TRACES
        self.hits = self.misses = self.evictions = 0
        # keys whose identity argument died: appending is atomic and touches nothing else
        self.dead = collections.deque()

    def __iter__(self):
        return iter(self.traces)

    def latest(self):
        """The trace used or added last, or None."""
        return next(reversed(self.traces), None)

    def info(self, traces_made):
        return CacheInfo(self.hits, self.misses, traces_made, self.evictions, len(self.traces),
                         self.max_traces)

    def find(self, specs):
        """The most specific trace whose signature admits ``specs`` (now the most recently
        used), or None."""
        best = None
        for cf in reversed(self.traces):
            if _admits(cf._specs, specs):
                if best is None or _admits(best._specs, cf._specs):
                    best = cf
        if best is not None:
            self.traces.move_to_end(best)
        return best

    def generalize(self, specs):
        """``specs`` relaxed to also admit the latest trace they can share one with
        (``reduce_retracing``); ``specs`` itself when there is none."""
        for cf in reversed(self.traces):
            general = [signature.supertype(s, g) for s, g in zip(specs, cf._specs)]
            if all(g is not None or s is None for g, s in zip(general, specs)):
                return tuple(general)
        return specs

    def add(self, concrete):
        """Keep a new trace, dropping the least recently used ones (and their keys) beyond the
        bound."""
        self.traces[concrete] = None
        while len(self.traces) > self.max_traces:
            evicted, _ = self.traces.popitem(last=False)
            self.evictions += 1
            for k in [k for k, cf in self.keys.items() if cf is evicted]:
                del self.keys[k]

    def remember(self, key, concrete, values):
        """Make ``key`` an exact hit for ``concrete``; the key is forgotten when an argument it
        holds by identity dies."""
        if len(self.keys) >= 4 * self.max_traces:
            self.keys.pop(next(iter(self.keys)))
        self.keys[key] = concrete
        for obj in _identity_objects(values):
            try:
                weakref.finalize(obj, self.dead.append, key)
            except TypeError:  # not weak-referenceable: the key keeps it alive, as TF does
                pass

    def drain(self):
        """Forget the keys whose identity argument died, and the traces made for them. A dead
        object's finalizer queued its key before its id could be reused, so draining before a
        look-up never lets a new object hit a dead one's key."""
        dead = self.dead
        if not dead:
            return
        while dead:
            self.keys.pop(dead.popleft(), None)
        for cf in [cf for cf in self.traces if _has_dead_identity(cf._specs)]:
            del self.traces[cf]


def _admits(general, specs):
    return all(signature.is_subtype(s, g) for s, g in zip(specs, general))


def _has_dead_identity(specs):
    return any(isinstance(s, signature.IdentitySpec) and s.get() is None
               for s in signature.leaves(specs))


def _identity_objects(values):
    """The arguments keyed by identity: their death must drop the cache entries keyed on them."""
    return [v for v in signature.leaves(values) if signature.key_of(v)[0] == "id"]
