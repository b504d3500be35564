"""The host-time scripts' measuring loop (scripts/bench/host_time_rounds.py),
without torch or a GPU: a fake clock and counters stand in for perf_counter and
torch.cuda.synchronize."""
import contextlib
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "host_time_rounds", os.path.join(HERE, "..", "..", "scripts", "bench", "host_time_rounds.py"))
rounds = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rounds)


def test_order_rotates_every_round():
    names = ["a", "b", "c"]
    assert [rounds.round_order(names, r) for r in range(4)] == [
        ["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"], ["a", "b", "c"]]


def test_samples_are_per_call_microseconds_and_synchronised_outside_the_span():
    now = [0.0]
    log = []

    def clock():
        return now[0]

    def make(name, seconds_per_call):
        def fn():
            log.append(name)
            now[0] += seconds_per_call
        return (contextlib.nullcontext, fn)

    syncs = []

    def synchronize():
        syncs.append(len(log))
        now[0] += 1.0  # a drain that must not count in any sample

    impls = {"fast": make("fast", 2e-6), "slow": make("slow", 5e-6)}
    samples = rounds.time_rounds(impls, ["fast", "slow"], rounds=3, calls=4,
                                 synchronize=synchronize, clock=clock)
    assert [len(samples[n]) for n in ("fast", "slow")] == [3, 3]
    for value in samples["fast"]:
        assert abs(value - 2.0) < 1e-9
    for value in samples["slow"]:
        assert abs(value - 5.0) < 1e-9
    # One sync after each sample of 4 calls, and round 1 starts with "slow".
    assert syncs == [4, 8, 12, 16, 20, 24]
    assert log[8:12] == ["slow"] * 4


def test_summary_is_median_and_minimum():
    out = rounds.summarize({"x": [3.0, 1.0, 2.0, 10.0, 4.0]}, ["x"])
    assert out["x"]["median"] == 3.0 and out["x"]["min"] == 1.0
    assert out["x"]["all"] == [3.0, 1.0, 2.0, 10.0, 4.0]


def test_warm_up_leaves_out_what_raises_and_reports_it():
    calls = []

    def ok():
        calls.append("ok")

    def refuses():
        raise RuntimeError("no kernel for this problem")

    reported = []
    impls = {"ok": (contextlib.nullcontext, ok), "refuses": (contextlib.nullcontext, refuses)}
    names = rounds.warm_up(impls, 5, lambda name, e: reported.append((name, str(e))))
    assert names == ["ok"] and calls == ["ok"] * 5
    assert reported == [("refuses", "no kernel for this problem")]
