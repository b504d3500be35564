"""sm_80 forward plans with stride arguments (flash-opt --flash-to-ptx="...
strides=true", flash_mlir.compile --strides variant): the kernel takes
q_stride0..2, k_stride0..2, v_stride0..2, o_stride0..2 (elements of B, H, N)
and addresses every row through them, so strided views (B×N×H×D tensors
viewed as B×H×N×D) run without a copy. Compiled as the variant "strided"
beside the shipped plans, whose PTX does not change. No GPU: flash-opt
compiles, libflash_runtime.so plans through its C ABI (CI runs these); the
library's choice is checked on stand-ins with CPU torch (skipped without).
"""

import ctypes
import pathlib

import pytest

from flash_mlir.compiler import compile as fcompile
from flash_mlir.runtime import capi


@pytest.fixture(scope="module")
def both_forms(tmp_path_factory):
    out = tmp_path_factory.mktemp("strided-variant")
    assert fcompile.main(["--out", str(out), "--arch", "sm_80", "--dtypes", "bf16",
                          "--head-dims", "64", "--causal", "no", "--lse", "yes",
                          "--ops", "forward", "--seq-lens", "1024",
                          "--strides", "variant"]) == 0
    return out


def test_variant_mode_compiles_the_shipped_plan_and_a_strided_twin(both_forms):
    from flash_mlir.runtime.library import KernelLibrary
    lib = KernelLibrary(str(both_forms))
    by_name = {b.name: b for b in lib.all}
    assert sorted(by_name) == ["flash_fwd_sm_80_bf16_d64_lse",
                               "flash_fwd_sm_80_bf16_d64_lse_strided"]
    plain, twin = by_name["flash_fwd_sm_80_bf16_d64_lse"], by_name[
        "flash_fwd_sm_80_bf16_d64_lse_strided"]
    assert (plain.variant, twin.variant) == ("", "strided")
    # The shipped plan addresses q, k, v from the shapes; the twin takes all
    # four tensors strided, through pointers with strides (16-byte and 2^31
    # rules: the runtime checks them).
    assert plain.strided_tensors == frozenset()
    assert twin.strided_tensors == {"q", "k", "v", "o"}
    assert twin.pointer_strided_tensors == {"q", "k", "v", "o"}
    names = [a["name"] for a in twin.plan["kernels"][0]["args"]]
    assert names[11:] == [f"{t}_stride{d}" for t in "qkvo" for d in range(3)]
    # By default the runtime selects the shipped plan; the twin by its variant.
    assert lib.find("bf16", 64, False, True, 4096, compute_capability=80).name == plain.name
    assert lib.find("bf16", 64, False, True, 4096, compute_capability=80,
                    variant="strided").name == twin.name
    # The twin's PTX loads through the stride arguments; the shipped one has none.
    ptx = {b.name: (both_forms / b.plan["kernels"][0]["files"]["ptx"]).read_text()
           for b in (plain, twin)}
    assert "_param_22" in ptx[twin.name] and "_param_11" not in ptx[plain.name]


def _bnhd(base, b, h, n, d):
    """A B×N×H×D buffer viewed as B×H×N×D (transpose(1, 2))."""
    return capi.tensor(base, "bf16", (b, h, n, d), (n * h * d, d, h * d, 1))


def test_the_runtime_binds_a_calls_strides(both_forms):
    """B×N×H×D views (B = 4, GQA 8/2) in one launch: each tensor's strides
    in elements, K's and V's their own; contiguous tensors their row-major
    ones; a stride that is not a multiple of 16 bytes is refused."""
    c = capi.lib()
    handle = ctypes.c_void_p()
    capi.check(c.flash_library_open(str(both_forms).encode(), ctypes.byref(handle)))
    try:
        plan = None
        for i in range(c.flash_library_plan_count(handle)):
            p = c.flash_library_plan(handle, i)
            info = capi.PlanInfo()
            capi.check(c.flash_plan_get_info(p, ctypes.byref(info)))
            if info.variant.decode() == "strided":
                plan = p
        b, hq, hkv, n, d = 4, 8, 2, 100, 64

        def launch(a):
            info = capi.LaunchInfo()
            rc = c.flash_plan_launch_info(plan, 0, ctypes.byref(a), 132, ctypes.byref(info))
            assert rc == 0, c.flash_last_error().decode()
            return {info.args[i].name.decode(): info.args[i] for i in range(info.num_args)}

        a = capi.AttentionArgs()
        a.q, a.o = _bnhd(0x100000, b, hq, n, d), _bnhd(0x400000, b, hq, n, d)
        a.k = _bnhd(0x200000, b, hkv, n, d)
        a.v = capi.tensor(0x300000, "bf16", (b, hkv, n, d))  # contiguous
        a.lse = capi.tensor(0x500000, "f32", (b, hq, n))
        args = launch(a)
        strides = lambda t: [args[f"{t}_stride{i}"].int_value for i in range(3)]
        assert strides("q") == strides("o") == [n * hq * d, d, hq * d]
        assert strides("k") == [n * hkv * d, d, hkv * d]
        assert strides("v") == [hkv * n * d, n * d, d]
        assert args["q"].pointer == 0x100000 and args["k"].pointer == 0x200000
        # Rows 8 elements (16 bytes) apart are fine; 4 are not.
        a.k = capi.tensor(0x200000, "bf16", (b, hkv, n, d), (n * hkv * 68, 68, hkv * 68, 1))
        info = capi.LaunchInfo()
        assert c.flash_plan_launch_info(plan, 0, ctypes.byref(a), 132, ctypes.byref(info)) != 0
        assert "16" in c.flash_last_error().decode()
    finally:
        c.flash_library_close(handle)


# --- the library's choice (stand-ins; CPU torch) ------------------------------


class _StandIn:
    """A forward bundle stand-in: what its kernels take strided, and a
    counting launch."""
    mapped_tensors = frozenset()
    batch_maps = False
    writes_lse = False
    op, dtype, head_dim, causal, arch = "attention_forward", "bf16", 64, False, "sm_80"

    def __init__(self, strided):
        self.variant = "strided" if strided else ""
        self.name = "fwd_strided" if strided else "fwd"
        self.strided_tensors = self.pointer_strided_tensors = (
            frozenset({"q", "k", "v", "o"}) if strided else frozenset())
        self.launches = []

    def launch(self, q, k, v, o, lse, scale):
        self.launches.append((q, k, v, o))

    def args(self, *a):
        return capi.AttentionArgs()


@pytest.mark.parametrize("has_twin", [True, False])
def test_library_runs_strided_views_on_the_twin(monkeypatch, has_twin):
    torch = pytest.importorskip("torch")
    from flash_mlir.runtime import library as L
    plain, twin = _StandIn(False), _StandIn(True)
    lib = object.__new__(L.KernelLibrary)
    lib._prepared, lib._chosen, asked = {}, {}, []

    def find(dtype, head_dim, causal, lse, seq_len=None, compute_capability=0, arch=None,
             variant=None, op="attention_forward", shared_memory=0):
        asked.append(variant)
        if variant == "strided":
            if not has_twin:
                raise ValueError("no launch plan")
            return twin
        return plain
    lib.find = find
    lib._capability = lambda device: 80
    lib._shared_memory = lambda device: 166912
    monkeypatch.setattr(torch.Tensor, "is_cuda", property(lambda self: True))  # CPU stands in
    monkeypatch.setattr(L, "_PreparedCall", lambda *a, **kw: None)
    monkeypatch.setattr(L, "_PreparedStridedCall", lambda *a, **kw: None)
    b, n, h, d = 4, 32, 6, 64
    q = torch.zeros(b, h, n, d, dtype=torch.bfloat16)
    L.KernelLibrary.attention(lib, q, q, q)  # contiguous: the shipped plan, no twin asked
    assert len(plain.launches) == 1 and asked == [None]
    plain.launches.clear()
    qkv = torch.zeros(b, n, 3 * h * d, dtype=torch.bfloat16)
    q, k, v = (t.view(b, n, h, d).transpose(1, 2) for t in qkv.split(h * d, dim=2))
    o = L.KernelLibrary.attention(lib, q, k, v)
    # O in q's layout where the twin writes it so; contiguous from the
    # shipped plan (which writes rows of D).
    assert (o.stride() == torch.empty_like(q).stride()) == has_twin
    used = twin if has_twin else plain
    assert len(used.launches) == 1 and (plain.launches == []) == has_twin
    launched = used.launches[0]
    for given, t in zip((q, k, v), launched[:3]):
        assert (t is given) == has_twin  # the views themselves, or contiguous copies
        assert has_twin or t.is_contiguous()
    assert launched[0].shape == (b, h, n, d)  # one launch for the whole batch
