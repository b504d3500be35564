"""The measuring loop of the host-time scripts (attention-host-time.py,
decode-host-time.py; run by hand on the GPU machine, never in CI).

Host time per call: each round times every implementation once, `calls`
back-to-back calls between two perf_counter reads, in an order rotated from
round to round (so that no implementation always runs first or after the same
neighbour); after each sample, outside the timed span, `synchronize()` lets
the queued GPU work drain. The summary is the median and the minimum over the
rounds. No torch here: the scripts pass torch.cuda.synchronize; the CPU test
(python/tests/test_host_time_rounds.py) passes a counter.
"""
import statistics
import time


def round_order(names, r):
    """The order of round r: `names` rotated left by r (mod their count)."""
    k = r % len(names)
    return names[k:] + names[:k]


def warm_up(impls, calls, report):
    """Calls each of impls[name] = (context, fn) `calls` times (kernels
    loaded, calls prepared); returns the names that ran, in order. One that
    raises (e.g. a backend that does not take the problem) is left out and
    report(name, exception) says so."""
    names = []
    for name, (context, fn) in impls.items():
        try:
            with context():
                for _ in range(calls):
                    fn()
            names.append(name)
        except Exception as e:
            report(name, e)
    return names


def time_rounds(impls, names, rounds, calls, synchronize, clock=time.perf_counter):
    """{name: [µs per call, one per round]} for impls[name] = (context, fn):
    fn() called `calls` times inside context() per sample."""
    samples = {name: [] for name in names}
    for r in range(rounds):
        for name in round_order(names, r):
            context, fn = impls[name]
            with context():
                start = clock()
                for _ in range(calls):
                    fn()
                elapsed = clock() - start
            synchronize()
            samples[name].append(elapsed / calls * 1e6)
    return samples


def summarize(samples, names):
    """{name: {"median", "min", "all"}} over the rounds' samples."""
    return {name: {"median": statistics.median(samples[name]), "min": min(samples[name]),
                   "all": samples[name]} for name in names}
