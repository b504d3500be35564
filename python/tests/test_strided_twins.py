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


# --- the sm_80 backward's strided twins ---------------------------------------


@pytest.fixture(scope="module")
def backward_forms(tmp_path_factory):
    """sm_80 bf16 D = 64 non-causal backward, both plans (atomics and
    deterministic), compiled with --strides variant (no budget plans: at
    D = 64 the H200's shared memory changes nothing)."""
    out = tmp_path_factory.mktemp("strided-backward")
    assert fcompile.main(["--out", str(out), "--arch", "sm_80", "--dtypes", "bf16",
                          "--head-dims", "64", "--causal", "no", "--ops", "backward",
                          "--deterministic", "both", "--strides", "variant"]) == 0
    return out


def test_backward_variant_mode_compiles_twins_of_both_plans(backward_forms):
    from flash_mlir.runtime.library import KernelLibrary
    lib = KernelLibrary(str(backward_forms))
    by_name = {b.name: b for b in lib.all}
    base = "flash_bwd_sm_80_bf16_d64"
    assert sorted(by_name) == sorted([base, base + "_strided", base + "_deterministic",
                                      base + "_deterministic_strided"])
    assert [by_name[base + s].variant for s in ("", "_strided", "_deterministic",
                                                "_deterministic_strided")] == [
        "", "strided", "deterministic", "deterministic_strided"]
    # The shipped plans: only O (the preprocess) and dQ (the convert; the
    # deterministic dQ kernel addresses it from the shapes) carry strides
    # (dO: the main kernel reads it from the shapes).
    assert by_name[base].strided_tensors == {"o", "dq"}
    assert by_name[base + "_deterministic"].strided_tensors == {"o"}
    every = {"q", "k", "v", "o", "dout", "dq", "dk", "dv"}
    for twin in (base + "_strided", base + "_deterministic_strided"):
        assert by_name[twin].strided_tensors == every
        assert by_name[twin].pointer_strided_tensors == every
    # The main kernel: its 15 arguments, then q, k, v, dO, dK, dV's strides
    # (33: more than ABI 4's 24); the deterministic dQ kernel's 13, then q,
    # k, v, dO, dQ's (28).
    main = by_name[base + "_strided"].plan["kernels"][1]
    names = [a["name"] for a in main["args"]]
    assert len(names) == 33 and names[15:] == [f"{t}_stride{d}" for t in
                                               ("q", "k", "v", "dout", "dk", "dv")
                                               for d in range(3)]
    dq = by_name[base + "_deterministic_strided"].plan["kernels"][2]
    names = [a["name"] for a in dq["args"]]
    assert len(names) == 28 and names[13:] == [f"{t}_stride{d}" for t in
                                               ("q", "k", "v", "dout", "dq") for d in range(3)]
    # By default the runtime selects the shipped plans; the twins by variant.
    find = lambda variant=None: lib.find("bf16", 64, False, False, 4096, compute_capability=80,
                                         variant=variant, op="attention_backward").name
    assert find() == base and find("deterministic") == base + "_deterministic"
    assert find("strided") == base + "_strided"
    assert find("deterministic_strided") == base + "_deterministic_strided"
    # The twins' kernels differ only where they address tensors: the
    # preprocess and convert kernels take strides in both forms.
    for plain, twin in ((base, base + "_strided"),
                        (base + "_deterministic", base + "_deterministic_strided")):
        p, t = by_name[plain].plan["kernels"], by_name[twin].plan["kernels"]
        assert [a["name"] for a in p[0]["args"]] == [a["name"] for a in t[0]["args"]]


def test_the_runtime_binds_a_backward_calls_strides(backward_forms):
    """The strided main kernel planned through the C ABI (33 arguments):
    B×N×H×D views of q, k, v, O, dO, dQ, dK, dV (GQA 8/2) bound with their
    own strides; a contiguous dK its row-major ones."""
    c = capi.lib()
    handle = ctypes.c_void_p()
    capi.check(c.flash_library_open(str(backward_forms).encode(), ctypes.byref(handle)))
    try:
        plans = {}
        for i in range(c.flash_library_plan_count(handle)):
            p = c.flash_library_plan(handle, i)
            info = capi.PlanInfo()
            capi.check(c.flash_plan_get_info(p, ctypes.byref(info)))
            plans[info.variant.decode()] = p
        b, hq, hkv, n, d = 4, 8, 2, 100, 64
        a = capi.AttentionArgs()
        a.q, a.o = _bnhd(0x100000, b, hq, n, d), _bnhd(0x400000, b, hq, n, d)
        a.k, a.v = _bnhd(0x200000, b, hkv, n, d), _bnhd(0x300000, b, hkv, n, d)
        a.lse = capi.tensor(0x500000, "f32", (b, hq, n))
        extra = {"dout": _bnhd(0x600000, b, hq, n, d), "dq": _bnhd(0x700000, b, hq, n, d),
                 "dk": _bnhd(0x800000, b, hkv, n, d),
                 "dv": capi.tensor(0x900000, "bf16", (b, hkv, n, d))}
        for name, t in extra.items():
            setattr(a, name, t)

        def planned(plan, kernel):
            info = capi.LaunchInfo()
            rc = c.flash_plan_launch_info(plan, kernel, ctypes.byref(a), 132, ctypes.byref(info))
            assert rc == 0, c.flash_last_error().decode()
            return info, {info.args[i].name.decode(): info.args[i] for i in range(info.num_args)}

        info, args = planned(plans["strided"], 1)
        assert info.num_args == 33
        strides = lambda t: [args[f"{t}_stride{i}"].int_value for i in range(3)]
        assert strides("q") == strides("dout") == [n * hq * d, d, hq * d]
        assert strides("k") == strides("v") == strides("dk") == [n * hkv * d, d, hkv * d]
        assert strides("dv") == [hkv * n * d, n * d, d]
        assert args["dk"].pointer == 0x800000 and args["v"].pointer == 0x300000
        info, args = planned(plans["deterministic_strided"], 2)
        assert info.num_args == 28
        assert [args[f"dq_stride{i}"].int_value for i in range(3)] == [n * hq * d, d, hq * d]
        # The shipped plan refuses a strided q (its main kernel reads rows of D).
        info = capi.LaunchInfo()
        assert c.flash_plan_launch_info(plans[""], 1, ctypes.byref(a), 132,
                                        ctypes.byref(info)) != 0
        assert "must be contiguous" in c.flash_last_error().decode()
    finally:
        c.flash_library_close(handle)


class _BackwardStandIn:
    """An sm_80 backward bundle stand-in (shipped or strided twin, atomics or
    deterministic) recording the tensors it is launched with."""
    mapped_tensors = frozenset()
    batch_maps = False
    writes_lse = False
    op, dtype, head_dim, causal, arch = "attention_backward", "bf16", 64, False, "sm_80"

    def __init__(self, deterministic, strided):
        self.variant = "_".join(v for v in ("deterministic" if deterministic else "",
                                            "strided" if strided else "") if v)
        self.name = "bwd_" + (self.variant or "plain")
        every = {"q", "k", "v", "o", "dout", "dq", "dk", "dv"}
        shipped = {"o"} | (set() if deterministic else {"dq"})
        self.strided_tensors = self.pointer_strided_tensors = frozenset(
            every if strided else shipped)
        self.launched = []

    def launch_named(self, tensors, scale, device):
        self.launched.append(dict(tensors))
        for name in ("dq", "dk", "dv"):  # "gradients" where the plan writes them
            tensors[name].fill_(1.0)

    def named_args(self, tensors, scale):
        return capi.AttentionArgs()


@pytest.mark.parametrize("deterministic", [False, True])
@pytest.mark.parametrize("has_twin", [True, False])
@pytest.mark.parametrize("given_out", [False, True])
def test_library_runs_strided_backward_calls_on_the_twin(monkeypatch, deterministic,
                                                         has_twin, given_out):
    """Contiguous calls run the shipped plan (no twin asked for); B×N×H×D
    views of q, k, v, O, dO run on the twin ("strided", or
    "deterministic_strided") with every tensor as it is and the gradients
    in q, k, v's layout (or written into the caller's strided buffers);
    without a twin, the shipped plan with contiguous copies (gradients
    given strided: written contiguous, copied into them)."""
    torch = pytest.importorskip("torch")
    from flash_mlir.runtime import library as L
    plain = _BackwardStandIn(deterministic, False)
    twin = _BackwardStandIn(deterministic, True)
    lib = object.__new__(L.KernelLibrary)
    lib._prepared, lib._chosen, asked = {}, {}, []
    lib.find_backward = lambda *a, **kw: plain

    def find(dtype, head_dim, causal, lse, seq_len=None, compute_capability=0, arch=None,
             variant=None, op="attention_forward", shared_memory=0):
        asked.append(variant)
        if not has_twin:
            raise ValueError("no launch plan")
        assert op == "attention_backward" and variant == twin.variant
        return twin
    lib.find = find
    lib._capability = lambda device: 80
    lib._shared_memory = lambda device: 232448
    lib._remember = lambda signature, prepared: None
    monkeypatch.setattr(torch.Tensor, "is_cuda", property(lambda self: True))  # CPU stands in
    monkeypatch.setattr(L, "_PreparedBackward", lambda *a, **kw: None)
    b, n, hq, hkv, d = 4, 32, 8, 2, 64
    lse = torch.zeros(b, hq, n)
    contiguous = [torch.zeros(b, h, n, d, dtype=torch.bfloat16) for h in (hq, hkv, hkv, hq, hq)]
    L.KernelLibrary.attention_backward(lib, *contiguous, lse, deterministic=deterministic)
    assert asked == [] and len(plain.launched) == 1
    plain.launched.clear()
    q, o, do = (torch.zeros(b, n, hq, d, dtype=torch.bfloat16).transpose(1, 2)
                for _ in range(3))
    k, v = (torch.zeros(b, n, hkv, d, dtype=torch.bfloat16).transpose(1, 2) for _ in range(2))
    out = None
    if given_out:
        out = (torch.full((b, n, hq, d), 7.0, dtype=torch.bfloat16).transpose(1, 2),
               *(torch.full((b, n, hkv, d), 7.0, dtype=torch.bfloat16).transpose(1, 2)
                 for _ in range(2)))
    dq, dk, dv = L.KernelLibrary.attention_backward(lib, q, k, v, o, do, lse,
                                                    deterministic=deterministic, out=out)
    assert asked == [twin.variant]
    used = twin if has_twin else plain
    assert len(used.launched) == 1 and (plain.launched == []) == has_twin
    launched = used.launched[0]
    for name, t in (("q", q), ("k", k), ("v", v), ("o", o), ("dout", do)):
        taken = name in used.strided_tensors
        assert (launched[name] is t) == taken, name
        assert taken or launched[name].is_contiguous()
    for name, g, like in (("dq", dq, q), ("dk", dk, k), ("dv", dv, v)):
        if given_out:
            # The caller's buffers are returned, written as they are where
            # the plan takes them, else through a contiguous one copied
            # into them.
            assert g is out[("dq", "dk", "dv").index(name)]
            assert (launched[name] is g) == (name in used.strided_tensors), name
            assert launched[name] is g or launched[name].is_contiguous()
            assert bool((g == 1).all())
        else:
            assert launched[name] is g
            assert (g.stride() == like.stride()) == (name in used.strided_tensors), name
