"""KernelLibrary's prepared call for strided inputs (B×N×H×D views), without
a GPU: the addresses each launch is given. B > 1 views launch once per batch
entry at the entry's addresses (torch needed: skipped in CI)."""

import pytest

from flash_mlir.runtime import capi
from flash_mlir.runtime.library import _PreparedStridedCall


class _Bundle:
    _handle = None
    name = "stand-in"


@pytest.mark.parametrize("batches, with_lse", [(1, False), (3, True)])
def test_prepared_strided_call_launches_each_batch_entry_at_its_addresses(batches, with_lse):
    torch = pytest.importorskip("torch")
    b, n, h, d = batches, 16, 4, 64
    q, k, v = (torch.zeros(b, n, h, d, dtype=torch.bfloat16).transpose(1, 2) for _ in range(3))
    steps = tuple(t.stride(0) * t.element_size() for t in (q, k, v, q)) + (h * n * 4,)
    lse_shape = (b, h, n) if with_lse else None
    call = _PreparedStridedCall(_Bundle(), capi.AttentionArgs(), 0, lse_shape, with_lse,
                                torch.device("cuda", 0), batches, steps)
    call._stream, call._device = (lambda: 0), torch.device("cpu")  # no GPU here
    seen = []

    def launch(handle, ref, stream):
        a = call._call_args()[0]  # this thread's described call, as launched
        seen.append((a.q.data, a.k.data, a.v.data, a.o.data, a.lse.data))
        return 0

    call._launch = launch
    result = call(q, k, v)
    o, lse = result if with_lse else (result, None)
    assert o.shape == q.shape and o.stride() == q.stride()  # O in q's layout
    assert len(seen) == batches
    for i, addresses in enumerate(seen):
        want = [t[i].data_ptr() for t in (q, k, v, o)]
        want.append(lse[i].data_ptr() if with_lse else 0)
        assert list(addresses) == want


def test_prepared_backward_writes_the_nine_addresses_and_is_looked_up():
    """attention_backward's prepared call: each launch gets this call's q, k,
    v, o, dout, lse and new dq, dk, dv (like q, k, v); KernelLibrary finds it
    by the call's signature and the signature tells options apart."""
    torch = pytest.importorskip("torch")
    from flash_mlir.runtime.library import KernelLibrary, _PreparedBackward
    b, hq, hkv, n, d = 2, 4, 2, 16, 64
    call = _PreparedBackward(_Bundle(), capi.AttentionArgs(), torch.device("cuda", 0))
    call._stream = lambda: 0  # no GPU here
    seen = []

    def launch(handle, ref, stream):
        a = call._call_args()[0]
        seen.append([getattr(a, name).data for name in
                     ("q", "k", "v", "o", "dout", "lse", "dq", "dk", "dv")])
        return 0

    call._launch = launch
    for _ in range(2):
        q, o, do = (torch.zeros(b, hq, n, d, dtype=torch.bfloat16) for _ in range(3))
        k, v = (torch.zeros(b, hkv, n, d, dtype=torch.bfloat16) for _ in range(2))
        lse = torch.zeros(b, hq, n)
        grads = call(q, k, v, o, do, lse)
        assert [g.shape for g in grads] == [q.shape, k.shape, v.shape]
        assert seen[-1] == [t.data_ptr() for t in (q, k, v, o, do, lse) + grads]
    assert len(seen) == 2 and seen[0] != seen[1]

    lib = object.__new__(KernelLibrary)  # no runtime: only the lookup
    lib._prepared = {}
    tensors = (q, k, v, o, do, lse)
    key = KernelLibrary._signature("attention_backward", tensors, True, None, False)
    lib._prepared[key] = lambda *tensors: ("prepared", tensors)
    assert lib.attention_backward(q, k, v, o, do, lse, True)[0] == "prepared"
    for other in ((False, None, False), (True, 0.1, False), (True, None, True)):
        assert KernelLibrary._signature("attention_backward", tensors, *other) != key
