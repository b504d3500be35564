# PTX microbenchmark: throughput of ex2.approx.ftz.f32 vs ex2.approx.f16x2 vs ex2.approx.ftz.bf16x2
# Each thread runs ITER iterations of 8 independent chains.
def kernel(name, ty, op, reg):
    lines = [f".visible .entry {name}(.param .u64 out, .param .u32 iters) {{",
             f"  .reg .{reg} %x<8>;", "  .reg .u32 %i, %n, %t;", "  .reg .u64 %p;", "  .reg .pred %q;",
             "  ld.param.u32 %n, [iters];", "  mov.u32 %t, %tid.x;"]
    for c in range(8):
        if reg == "f32":
            lines.append(f"  cvt.rn.f32.u32 %x{c}, %t; mul.f32 %x{c}, %x{c}, 0f3A800000; add.f32 %x{c}, %x{c}, 0fBF{c}00000;")
        else:
            lines.append(f"  mov.b32 %x{c}, 0xBC00BC0{c};")
    lines += ["  mov.u32 %i, 0;", "L:"]
    for c in range(8):
        lines.append(f"  {op} %x{c}, %x{c};")
    lines += ["  add.u32 %i, %i, 1;", "  setp.lt.u32 %q, %i, %n;", "  @%q bra L;"]
    lines += ["  ld.param.u64 %p, [out];", "  cvta.to.global.u64 %p, %p;"]
    for c in range(1, 8):
        lines.append(f"  {'add.f32' if reg=='f32' else 'xor.b32'} %x0, %x0, %x{c};")
    lines += ["  mul.wide.u32 %p, %t, 4;" if False else "", f"  st.global.{'f32' if reg=='f32' else 'b32'} [%p], %x0;", "  ret;", "}"]
    return "\n".join(lines)
src = [".version 8.0", ".target sm_90a", ".address_size 64"]
src.append(kernel("k_f32", "f32", "ex2.approx.ftz.f32", "f32"))
src.append(kernel("k_f16x2", "b32", "ex2.approx.f16x2", "b32"))
src.append(kernel("k_bf16x2", "b32", "ex2.approx.ftz.bf16x2", "b32"))
open("mufu.ptx", "w").write("\n".join(src) + "\n")
