"""Batch maps (flash-opt --flash-to-ptx="... batch-maps=true", flash_mlir.compile
--batch-maps): sm_90a's tensor maps of rank 4 over (D, N, H, B), so that
B×N×H×D views of any batch run in ONE launch, forward and backward, with the
maps carrying the views' strides (no copy). No GPU: the plans are compiled by
flash-opt and planned by libflash_runtime.so through its C ABI (CI runs
these), and the library's launches are counted through a stand-in bundle
(CPU torch; skipped without torch).
"""

import ctypes
import json
import pathlib

import pytest

from flash_mlir.compiler import compile as fcompile
from flash_mlir.runtime import capi

BATCH_MAPS = ["batch-maps=true"]
FORWARD = fcompile.KernelSpec("bf16", 64, True, True, "sm_90a")
BACKWARD = fcompile.BackwardSpec("bf16", 64, True, False, "sm_90a", 0)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    out = tmp_path_factory.mktemp("batch-maps")
    paths = {"forward": fcompile.compile_bundle(FORWARD, str(out), seq_range=(0, None),
                                                extra_options=BATCH_MAPS),
             "backward": fcompile.compile_backward_bundle(BACKWARD, str(out),
                                                          extra_options=BATCH_MAPS)}
    c = capi.lib()
    handle = ctypes.c_void_p()
    capi.check(c.flash_library_open(str(out).encode(), ctypes.byref(handle)))
    plans = {}
    for i in range(c.flash_library_plan_count(handle)):
        plan = c.flash_library_plan(handle, i)
        info = capi.PlanInfo()
        capi.check(c.flash_plan_get_info(plan, ctypes.byref(info)))
        plans[info.op.decode()] = plan
    yield out, {k: json.loads(pathlib.Path(p).read_text()) for k, p in paths.items()}, plans
    c.flash_library_close(handle)


def _maps(plan_json):
    return [(kernel["name"], arg["name"], arg["tensor_map"])
            for kernel in plan_json["kernels"] for arg in kernel["args"]
            if arg["type"] == "tensormap"]


def test_plans_have_rank_4_maps_over_d_n_h_b(compiled):
    out, plans, _ = compiled
    forward = _maps(plans["forward"])
    backward = _maps(plans["backward"])
    assert [a for _, a, _ in forward] == ["q", "k", "v", "o"]
    assert [a for _, a, _ in backward] == ["q", "k", "v", "dout", "dk", "dv"]
    for _, name, m in forward + backward:
        n, h = (["Nq", "Hq"] if name in ("q", "o", "dout") else ["Nk", "Hkv"])
        c = "Dv" if name in ("v", "dv", "o", "dout") else "D"
        assert m["dims"] == [c, n, h, "B"], name
        # A contiguous tensor's byte strides of N, H and B.
        assert m["strides"] == [["mul", c, 2], ["mul", c, n, 2], ["mul", c, n, h, 2]]
        assert len(m["box"]) == 4 and m["box"][2:] == [1, 1]
        assert m["element_strides"] == [1, 1, 1, 1]
    # The kernels address boxes with four coordinates, never three.
    for key in ("forward", "backward"):
        ptx = (out / plans[key]["kernels"][0]["files"]["ptx"]).read_text()
        assert "cp.async.bulk.tensor.4d" in ptx
        assert "cp.async.bulk.tensor.3d" not in ptx


def _bnhd(base, b, h, n, d):
    """A B×N×H×D buffer viewed as B×H×N×D (transpose(1, 2))."""
    return capi.tensor(base, "bf16", (b, h, n, d), (n * h * d, d, h * d, 1))


def _info(plan, a):
    info = capi.LaunchInfo()
    rc = capi.lib().flash_plan_launch_info(plan, 0, ctypes.byref(a), 132, ctypes.byref(info))
    assert rc == 0, capi.lib().flash_last_error().decode()
    return [info.args[i] for i in range(info.num_args)]


@pytest.mark.parametrize("b", [1, 4])
def test_bnhd_views_of_any_batch_are_one_launch_with_their_strides(compiled, b):
    """B×N×H×D views with B = 4 (B and H do not merge) are planned as one
    launch whose maps carry the views' N, H and B strides; rank-3 plans
    refuse them (test_launch_plan.py), which is why the library looped."""
    _, _, plans = compiled
    hq, hkv, n, d = 8, 2, 100, 64
    a = capi.AttentionArgs()
    a.q, a.o = _bnhd(0x100000, b, hq, n, d), _bnhd(0x400000, b, hq, n, d)
    a.k, a.v = _bnhd(0x200000, b, hkv, n, d), _bnhd(0x300000, b, hkv, n, d)
    a.lse = capi.tensor(0x500000, "f32", (b, hq, n))
    a.workspaces[0] = 0xC0C0
    maps = _info(plans["attention_forward"], a)[:4]
    for m, h in zip(maps, (hq, hkv, hkv, hq)):
        assert list(m.map_dims[:4]) == [d, n, h, b]
        assert list(m.map_strides[:3]) == [h * d * 2, d * 2, n * h * d * 2]  # N, H, B bytes
    # Contiguous B×H×N×D: the plan's strides.
    c = capi.AttentionArgs()
    c.q = capi.tensor(0x100000, "bf16", (b, hq, n, d))
    c.o = capi.tensor(0x400000, "bf16", (b, hq, n, d))
    c.k = capi.tensor(0x200000, "bf16", (b, hkv, n, d))
    c.v = capi.tensor(0x300000, "bf16", (b, hkv, n, d))
    c.lse = a.lse
    c.workspaces[0] = 0xC0C0
    m = _info(plans["attention_forward"], c)[0]
    assert list(m.map_strides[:3]) == [d * 2, n * d * 2, hq * n * d * 2]


def test_backward_takes_strided_q_k_v_and_writes_strided_dk_dv(compiled):
    _, _, plans = compiled
    b, hq, hkv, n, d = 4, 8, 2, 100, 64
    a = capi.AttentionArgs()
    a.q = _bnhd(0x100000, b, hq, n, d)
    a.k, a.v = _bnhd(0x200000, b, hkv, n, d), _bnhd(0x300000, b, hkv, n, d)
    a.dk, a.dv = _bnhd(0x600000, b, hkv, n, d), _bnhd(0x700000, b, hkv, n, d)
    a.o = capi.tensor(0x400000, "bf16", (b, hq, n, d))
    a.dout = capi.tensor(0x800000, "bf16", (b, hq, n, d))
    a.dq = capi.tensor(0x900000, "bf16", (b, hq, n, d))
    a.lse = capi.tensor(0x500000, "f32", (b, hq, n))
    plan = plans["attention_backward"]
    info = capi.LaunchInfo()
    # The main kernel (launch 1) takes the six maps.
    assert capi.lib().flash_plan_launch_info(plan, 1, ctypes.byref(a), 132,
                                              ctypes.byref(info)) == 0, \
        capi.lib().flash_last_error().decode()
    maps = [info.args[i] for i in range(6)]
    for m, h in zip(maps, (hq, hkv, hkv, hq, hkv, hkv)):
        assert list(m.map_dims[:4]) == [d, n, h, b]
    for m, h in zip([maps[i] for i in (0, 1, 2, 4, 5)], (hq, hkv, hkv, hkv, hkv)):
        assert list(m.map_strides[:3]) == [h * d * 2, d * 2, n * h * d * 2]
    # O and dO strided too: the preprocess takes their strides (elements of
    # B, H, N), the main kernel's dO map carries them; dQ strided: the
    # convert writes it with its strides. Every kernel of the plan, one launch.
    a.o, a.dout = _bnhd(0x400000, b, hq, n, d), _bnhd(0x800000, b, hq, n, d)
    a.dq = _bnhd(0x900000, b, hq, n, d)
    infos = []
    for kernel in range(3):
        info = capi.LaunchInfo()
        assert capi.lib().flash_plan_launch_info(plan, kernel, ctypes.byref(a), 132,
                                                  ctypes.byref(info)) == 0, \
            capi.lib().flash_last_error().decode()
        infos.append({info.args[i].name.decode(): info.args[i] for i in range(info.num_args)})
    bnhd_strides = [n * hq * d, d, hq * d]
    assert [infos[0][f"o_stride{i}"].int_value for i in range(3)] == bnhd_strides
    assert [infos[0][f"dout_stride{i}"].int_value for i in range(3)] == bnhd_strides
    assert [infos[2][f"dq_stride{i}"].int_value for i in range(3)] == bnhd_strides
    assert infos[0]["o"].pointer == 0x400000 and infos[2]["dq"].pointer == 0x900000
    assert list(infos[1]["dout"].map_strides[:3]) == [hq * d * 2, d * 2, n * hq * d * 2]


# --- the library's launches (stand-in bundle; CPU torch) ---------------------


class _StandIn:
    """A bundle stand-in: the plan's strided tensors, its maps' rank and a
    counting launch (the addresses and shapes each launch was given)."""
    name = "stand-in"
    writes_lse = True
    strided_tensors = frozenset({"q", "k", "v", "o"})
    mapped_tensors = strided_tensors
    pointer_strided_tensors = frozenset()

    def __init__(self, batch_maps):
        self.batch_maps = batch_maps
        self.launches = []

    def launch(self, q, k, v, o, lse, scale):
        self.launches.append((tuple(q.shape), q.data_ptr(), tuple(o.shape), o.stride()))

    def args(self, *a):
        return capi.AttentionArgs()


@pytest.mark.parametrize("batch_maps, launches", [(True, 1), (False, 4)])
def test_library_launches_b4_views_once_with_batch_maps(batch_maps, launches):
    """KernelLibrary.attention on B×N×H×D views, B = 4: ONE launch on the
    whole views with a batch-maps plan (fails if the per-batch loop comes
    back for it), B launches with a rank-3 plan; O in q's layout, no copy."""
    torch = pytest.importorskip("torch")
    from flash_mlir.runtime.library import KernelLibrary
    b, n, h, d = 4, 32, 6, 64
    qkv = torch.zeros(b, n, 3 * h * d, dtype=torch.bfloat16)
    q, k, v = (t.view(b, n, h, d).transpose(1, 2) for t in qkv.split(h * d, dim=2))
    lib = object.__new__(KernelLibrary)
    lib._prepared = {}
    bundle = _StandIn(batch_maps)
    o, lse = lib._attention_strided(bundle, q, k, v, 0.125, True, None, None)
    assert len(bundle.launches) == launches
    assert o.stride() == torch.empty_like(q).stride() and not o.is_contiguous()
    if batch_maps:
        assert bundle.launches[0][:2] == ((b, h, n, d), q.data_ptr())  # the view itself
    else:
        assert all(shape[0] == 1 for shape, *_ in bundle.launches)


@pytest.mark.parametrize("like", [(True, True, True), (False, True, True)])
def test_prepared_strided_backward_allocates_gradients_as_the_first_call(like):
    """A prepared backward allocates each gradient as the call it was
    prepared from did: like q, k, v (empty_like) where the plan writes it
    with its strides, else contiguous (e.g. a plan whose dQ kernel
    addresses dQ from the shapes)."""
    torch = pytest.importorskip("torch")
    from flash_mlir.runtime.library import _PreparedBackward

    class _B:
        _handle = None
        name = "stand-in"
    call = _PreparedBackward(_B(), capi.AttentionArgs(), torch.device("cuda", 0), like)
    call._stream = lambda: 0  # no GPU here
    seen = []
    call._launch = lambda handle, ref, stream: seen.append(1) or 0
    b, n, h, d = 4, 16, 2, 64
    q, k, v, o, do = (torch.zeros(b, n, h, d, dtype=torch.bfloat16).transpose(1, 2)
                      for _ in range(5))
    dq, dk, dv = call(q, k, v, o, do, torch.zeros(b, h, n))
    assert len(seen) == 1
    assert (dq.stride() == q.stride()) == like[0] and dq.is_contiguous() != like[0]
    assert dk.stride() == k.stride() and dv.stride() == v.stride()


class _BackwardStandIn:
    """A backward bundle stand-in: which tensors its kernels take strided,
    and a launch that records the tensors it was given."""
    name = "stand-in-backward"
    batch_maps = True
    variant = ""
    op, dtype, head_dim, causal, arch, writes_lse = (
        "attention_backward", "bf16", 64, False, "sm_90a", False)

    def __init__(self, strided, mapped=frozenset({"q", "k", "v", "dout", "dk", "dv"}),
                 pointer=frozenset({"o", "dout", "dq"})):
        self.strided_tensors = frozenset(strided)
        self.mapped_tensors = frozenset(mapped) & self.strided_tensors
        self.pointer_strided_tensors = frozenset(pointer) & self.strided_tensors
        self.launched = None

    def launch_named(self, tensors, scale, device):
        self.launched = dict(tensors)

    def named_args(self, tensors, scale):
        return capi.AttentionArgs()


def _backward_call(bundle, b=4, n=32, hq=4, hkv=2, d=64):
    """KernelLibrary.attention_backward on B×N×H×D views (CPU tensors standing
    in: the stand-in bundle launches nothing)."""
    torch = pytest.importorskip("torch")
    from flash_mlir.runtime.library import KernelLibrary
    lib = object.__new__(KernelLibrary)
    lib._prepared = {}
    lib.find_backward = lambda *a, **kw: bundle

    def no_variant(*a, **kw):
        raise ValueError("no launch plan")  # the library holds no twin
    lib.find = no_variant
    lib._chosen = {}
    lib._capability = lambda device: 90
    lib._shared_memory = lambda device: 232448
    lib._remember = lambda signature, prepared: None
    q, o, do = (torch.zeros(b, n, hq, d, dtype=torch.bfloat16).transpose(1, 2)
                for _ in range(3))
    k, v = (torch.zeros(b, n, hkv, d, dtype=torch.bfloat16).transpose(1, 2) for _ in range(2))
    return lib, (q, k, v, o, do, torch.zeros(b, hq, n))


@pytest.mark.parametrize("strided, copied, like", [
    # sm_90a with batch maps: nothing copied, every gradient in its input's layout.
    ({"q", "k", "v", "o", "dout", "dq", "dk", "dv"}, set(), ("dq", "dk", "dv")),
    # sm_80: only O (the preprocess) and dQ (the convert) carry strides.
    ({"o", "dq"}, {"q", "k", "v", "dout"}, ("dq",)),
])
def test_backward_copies_only_what_the_plan_cannot_take(monkeypatch, strided, copied, like):
    torch = pytest.importorskip("torch")
    from flash_mlir.runtime import library as L
    bundle = _BackwardStandIn(strided)
    lib, (q, k, v, o, do, lse) = _backward_call(bundle)
    monkeypatch.setattr(torch.Tensor, "is_cuda", property(lambda self: True))  # CPU stands in
    prepared = []  # the prepared call is recorded, not built (it would ask for a CUDA device)
    monkeypatch.setattr(L, "_PreparedBackward",
                        lambda bundle, args, device, like: prepared.append(tuple(like)))
    dq, dk, dv = L.KernelLibrary.attention_backward(lib, q, k, v, o, do, lse)
    # A call with copies is not prepared; one that took everything as it is is.
    assert prepared == ([] if copied else [tuple(name in like for name in ("dq", "dk", "dv"))])
    given = {"q": q, "k": k, "v": v, "o": o, "dout": do}
    for name, t in given.items():
        launched = bundle.launched[name]
        assert (launched is t) == (name not in copied), name
        if name in copied:
            assert launched.is_contiguous()
    for name, g, t in (("dq", dq, q), ("dk", dk, k), ("dv", dv, v)):
        assert (g.stride() == t.stride()) == (name in like), name
        assert bundle.launched[name] is g
    # The copies of one shape in one op (one buffer): q with dO, k with v.
    storage = {name: bundle.launched[name].untyped_storage().data_ptr() for name in copied}
    if copied:
        assert storage["q"] == storage["dout"] and storage["k"] == storage["v"]
        assert storage["q"] != storage["k"]


def test_compile_refuses_batch_maps_for_sm80(capsys):
    with pytest.raises(SystemExit):
        fcompile.main(["--out", "/nonexistent", "--arch", "sm_80", "--batch-maps"])
    assert "--batch-maps is for sm_90a" in capsys.readouterr().err


# --- both forms in one library (compile --batch-maps variant) ----------------


@pytest.fixture(scope="module")
def both_forms(tmp_path_factory):
    """sm_90a bf16 D = 64 non-causal forward (with LSE) and backward (both
    plans) compiled with --batch-maps variant."""
    out = tmp_path_factory.mktemp("batch-maps-variant")
    common = ["--out", str(out), "--arch", "sm_90a", "--dtypes", "bf16", "--head-dims", "64",
              "--causal", "no", "--batch-maps", "variant"]
    assert fcompile.main(common + ["--ops", "forward", "--lse", "yes",
                                   "--seq-lens", "1024"]) == 0
    assert fcompile.main(common + ["--ops", "backward", "--deterministic", "both"]) == 0
    return out


def test_variant_mode_compiles_rank_3_plans_and_batch_maps_variants(both_forms):
    """Each forward and atomic backward plan twice: the shipped rank-3 one
    (the model's form, what the runtime selects by default) and its rank-4
    twin as the variant "batch_maps"; the deterministic plan has no twin."""
    from flash_mlir.runtime.library import KernelLibrary
    lib = KernelLibrary(str(both_forms))
    names = sorted(b.name for b in lib.all)
    assert names == ["flash_bwd_sm_90a_bf16_d64", "flash_bwd_sm_90a_bf16_d64_batch_maps",
                     "flash_bwd_sm_90a_bf16_d64_deterministic",
                     "flash_fwd_sm_90a_bf16_d64_lse", "flash_fwd_sm_90a_bf16_d64_lse_batch_maps"]
    for b in lib.all:
        assert b.batch_maps == b.name.endswith("_batch_maps"), b.name
        assert b.variant == ("batch_maps" if b.batch_maps else
                             "deterministic" if "deterministic" in b.name else ""), b.name
    forward = lib.find("bf16", 64, False, True, 4096, compute_capability=90)
    backward = lib.find_backward("bf16", 64, False, 4096, compute_capability=90)
    assert not forward.batch_maps and not backward.batch_maps  # the default: rank 3
    twin = lib.find("bf16", 64, False, True, 4096, compute_capability=90,
                    variant="batch_maps")
    assert twin.name == "flash_fwd_sm_90a_bf16_d64_lse_batch_maps" and twin.batch_maps
    twin = lib.find("bf16", 64, False, False, 4096, compute_capability=90,
                    variant="batch_maps", op="attention_backward")
    assert twin.name == "flash_bwd_sm_90a_bf16_d64_batch_maps" and twin.batch_maps
    # The rank-3 plans' PTX is the shipped kernels': only the twins have 4-D boxes.
    for b in lib.all:
        ptx = (both_forms / b.plan["kernels"][0]["files"]["ptx"]).read_text()
        assert ("cp.async.bulk.tensor.4d" in ptx) == b.batch_maps, b.name


def _two_forms_library(forward_bundles, backward_bundles):
    """A KernelLibrary whose find() answers with stand-ins: the rank-3 plan
    by default, its twin for variant "batch_maps" (None: the library has
    none), recording what was asked."""
    from flash_mlir.runtime.library import KernelLibrary
    lib = object.__new__(KernelLibrary)
    lib._prepared, lib._chosen, lib.asked = {}, {}, []

    def find(dtype, head_dim, causal, lse, seq_len=None, compute_capability=0, arch=None,
             variant=None, op="attention_forward", shared_memory=0):
        lib.asked.append((op, variant))
        rank3, twin = forward_bundles if op == "attention_forward" else backward_bundles
        if variant == "batch_maps":
            if twin is None:
                raise ValueError("no launch plan")
            return twin
        return rank3
    lib.find = find
    lib.find_backward = lambda *a, **kw: backward_bundles[0]
    lib._capability = lambda device: 90
    lib._shared_memory = lambda device: 232448
    return lib


def _forward_stand_in(batch_maps):
    bundle = _StandIn(batch_maps)
    bundle.name = "fwd_batch_maps" if batch_maps else "fwd"
    bundle.variant = "batch_maps" if batch_maps else ""
    bundle.op, bundle.dtype, bundle.head_dim, bundle.causal, bundle.arch = (
        "attention_forward", "bf16", 64, False, "sm_90a")
    return bundle


@pytest.mark.parametrize("b, has_twin, twin_used", [
    (4, True, True),    # B×N×H×D views, B > 1: the twin, once, on the views
    (1, True, False),   # B = 1: B and H merge, the rank-3 plan takes them
    (4, False, False),  # a library without twins: rank 3, once per batch entry
])
def test_library_runs_views_on_the_batch_maps_variant(monkeypatch, b, has_twin, twin_used):
    torch = pytest.importorskip("torch")
    from flash_mlir.runtime import library as L
    rank3, twin = _forward_stand_in(False), _forward_stand_in(True)
    lib = _two_forms_library((rank3, twin if has_twin else None), (None, None))
    monkeypatch.setattr(torch.Tensor, "is_cuda", property(lambda self: True))  # CPU stands in
    monkeypatch.setattr(L, "_PreparedCall", lambda *a, **kw: None)
    monkeypatch.setattr(L, "_PreparedStridedCall", lambda *a, **kw: None)
    n, h, d = 32, 6, 64
    # Contiguous tensors: the rank-3 plan; no twin is looked for.
    q = torch.zeros(b, h, n, d, dtype=torch.bfloat16)
    L.KernelLibrary.attention(lib, q, q, q)
    assert len(rank3.launches) == 1 and ("attention_forward", "batch_maps") not in lib.asked
    rank3.launches.clear()
    qkv = torch.zeros(b, n, 3 * h * d, dtype=torch.bfloat16)
    q, k, v = (t.view(b, n, h, d).transpose(1, 2) for t in qkv.split(h * d, dim=2))
    o = L.KernelLibrary.attention(lib, q, k, v)
    assert o.stride() == torch.empty_like(q).stride()
    if twin_used:
        assert rank3.launches == [] and len(twin.launches) == 1
        assert twin.launches[0][:2] == ((b, h, n, d), q.data_ptr())  # the views themselves
    else:
        assert twin.launches == [] and len(rank3.launches) == (b if b > 1 else 1)


@pytest.mark.parametrize("has_twin", [True, False])
def test_backward_runs_views_on_the_batch_maps_variant(monkeypatch, has_twin):
    """A rank-3 sm_90a backward plan cannot take B×N×H×D views of B > 1
    through its maps (q, k, v, dO are copied, dK and dV written contiguous);
    its batch_maps twin takes them all as they are."""
    torch = pytest.importorskip("torch")
    from flash_mlir.runtime import library as L
    rank3 = _BackwardStandIn({"q", "k", "v", "o", "dout", "dq", "dk", "dv"})
    rank3.batch_maps, rank3.variant, rank3.name = False, "", "bwd"
    twin = _BackwardStandIn({"q", "k", "v", "o", "dout", "dq", "dk", "dv"})
    twin.variant, twin.name = "batch_maps", "bwd_batch_maps"
    for s in (rank3, twin):
        s.op, s.dtype, s.head_dim, s.causal, s.arch, s.writes_lse = (
            "attention_backward", "bf16", 64, False, "sm_90a", False)
    lib, (q, k, v, o, do, lse) = _backward_call(rank3)
    lib2 = _two_forms_library((None, None), (rank3, twin if has_twin else None))
    lib2._remember = lib._remember
    monkeypatch.setattr(torch.Tensor, "is_cuda", property(lambda self: True))
    monkeypatch.setattr(L, "_PreparedBackward", lambda *a, **kw: None)
    dq, dk, dv = L.KernelLibrary.attention_backward(lib2, q, k, v, o, do, lse)
    used = twin if has_twin else rank3
    assert used.launched is not None and (rank3.launched is None) == has_twin
    for name, t in (("q", q), ("k", k), ("v", v), ("dout", do)):
        assert (used.launched[name] is t) == has_twin, name
    assert (dk.stride() == k.stride()) == has_twin and (dv.stride() == v.stride()) == has_twin
