"""The runtime's tensor-map cache (CPU: a fake tensor and a counting encoder)."""

from flash_mlir.runtime import _TensorMapCache


class FakeTensor:
    def __init__(self, ptr, shape):
        self._ptr, self.shape = ptr, shape

    def data_ptr(self):
        return self._ptr


class CountingEncoder:
    def __init__(self):
        self.calls = []

    def __call__(self, tensor, dtype, box, swizzle):
        self.calls.append((tensor.data_ptr(), tuple(tensor.shape), dtype, tuple(box), swizzle))
        return object()


def test_same_arguments_reuse_one_map():
    encode = CountingEncoder()
    cache = _TensorMapCache(encode=encode)
    t = FakeTensor(0x1000, (2, 4, 512, 64))
    first = cache.get(t, "bf16", [64, 128, 1], "128B")
    # Another tensor object at the same address with the same shape: the same map.
    again = cache.get(FakeTensor(0x1000, (2, 4, 512, 64)), "bf16", (64, 128, 1), "128B")
    assert again is first
    assert len(encode.calls) == 1


def test_every_input_of_the_map_is_in_the_key():
    encode = CountingEncoder()
    cache = _TensorMapCache(encode=encode)
    base = dict(ptr=0x1000, shape=(2, 4, 512, 64), dtype="bf16", box=(64, 128, 1), swizzle="128B")
    changes = [dict(ptr=0x2000), dict(shape=(2, 4, 513, 64)), dict(dtype="f16"),
               dict(box=(64, 64, 1)), dict(swizzle="64B")]
    maps = set()
    for change in [{}] + changes:
        a = {**base, **change}
        maps.add(id(cache.get(FakeTensor(a["ptr"], a["shape"]), a["dtype"], a["box"], a["swizzle"])))
    assert len(maps) == 1 + len(changes)
    assert len(encode.calls) == 1 + len(changes)


def test_capacity_evicts_the_least_recently_used():
    encode = CountingEncoder()
    cache = _TensorMapCache(capacity=2, encode=encode)
    a, b, c = (FakeTensor(p, (1, 1, 8, 64)) for p in (0x100, 0x200, 0x300))
    map_a = cache.get(a, "bf16", (64, 8, 1), "128B")
    cache.get(b, "bf16", (64, 8, 1), "128B")
    assert cache.get(a, "bf16", (64, 8, 1), "128B") is map_a  # a is now the most recent
    cache.get(c, "bf16", (64, 8, 1), "128B")                  # evicts b
    assert len(cache) == 2
    cache.get(b, "bf16", (64, 8, 1), "128B")                  # encoded again
    assert [call[0] for call in encode.calls] == [0x100, 0x200, 0x300, 0x200]
    assert cache.get(c, "bf16", (64, 8, 1), "128B") is not None
    assert len(encode.calls) == 4
