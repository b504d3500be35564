import ctypes, torch, sys, subprocess
sys.path.insert(0, "python")
from flash_mlir.runtime import _Driver
torch.zeros(1, device="cuda")
drv = _Driver.get(); cu = drv.cu
mod = ctypes.c_void_p(); drv.check(cu.cuModuleLoadData(ctypes.byref(mod), open("proto/mufu/mufu2.cubin", "rb").read()), "load")
out = torch.zeros(1 << 20, device="cuda", dtype=torch.float32)
iters = 4096; blocks = 132 * 8; threads = 256
for name, on in (("k_plain", 1), ("k_pred", 1), ("k_pred", 0)):
    f = ctypes.c_void_p(); drv.check(cu.cuModuleGetFunction(ctypes.byref(f), mod, name.encode()), name)
    a = ctypes.c_uint64(out.data_ptr()); n = ctypes.c_uint32(iters); o = ctypes.c_uint32(on)
    params = (ctypes.c_void_p * 3)(ctypes.addressof(a), ctypes.addressof(n), ctypes.addressof(o))
    launch = lambda: drv.check(cu.cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, None, ctypes.cast(params, ctypes.c_void_p), None), "launch")
    launch(); torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); [launch() for _ in range(5)]; e.record(); torch.cuda.synchronize()
    ms = s.elapsed_time(e) / 5
    warp_mufu = blocks * threads // 32 * iters * 8
    print(f"{name} on={on}: {ms:.3f} ms, {ms * 1e-3 * 1.98e9 * 4 * 132 / warp_mufu:.2f} SMSP-cycles per warp MUFU")
sass = subprocess.run(["cuobjdump", "--dump-sass", "proto/mufu/mufu2.cubin"], capture_output=True, text=True).stdout
print("\n".join(l.strip()[:90] for l in sass.splitlines() if "MUFU" in l or "Function" in l))
