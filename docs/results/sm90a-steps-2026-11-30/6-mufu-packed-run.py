import ctypes, torch, sys, subprocess
sys.path.insert(0, "python")
from flash_mlir.runtime import _Driver
torch.zeros(1, device="cuda")
drv = _Driver.get(); cu = drv.cu
data = open("proto/mufu/mufu.cubin", "rb").read()
mod = ctypes.c_void_p(); drv.check(cu.cuModuleLoadData(ctypes.byref(mod), data), "load")
out = torch.zeros(1 << 20, device="cuda", dtype=torch.float32)
iters = 4096; blocks = 132 * 8; threads = 256
for name in ("k_f32", "k_f16x2", "k_bf16x2"):
    f = ctypes.c_void_p(); drv.check(cu.cuModuleGetFunction(ctypes.byref(f), mod, name.encode()), name)
    a = ctypes.c_uint64(out.data_ptr()); n = ctypes.c_uint32(iters)
    params = (ctypes.c_void_p * 2)(ctypes.addressof(a), ctypes.addressof(n))
    launch = lambda: drv.check(cu.cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, None, ctypes.cast(params, ctypes.c_void_p), None), "launch")
    launch(); torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); [launch() for _ in range(5)]; e.record(); torch.cuda.synchronize()
    ms = s.elapsed_time(e) / 5
    instrs = blocks * threads * iters * 8
    elems = instrs * (1 if name == "k_f32" else 2)
    print(f"{name}: {ms:.3f} ms, {instrs / ms / 1e6 / 132 / 1980:.2f} thread-instr/clk/SM, {elems / ms / 1e6 / 132 / 1980:.2f} exps/clk/SM (at 1.98 GHz)")
sass = subprocess.run(["cuobjdump", "--dump-sass", "proto/mufu/mufu.cubin"], capture_output=True, text=True).stdout
for line in sass.splitlines():
    if "MUFU" in line or "Function" in line or "HADD2" in line or "F2F" in line or "PRMT" in line: print(line.strip()[:100])
