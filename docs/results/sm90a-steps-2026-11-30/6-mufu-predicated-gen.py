# Does a MUFU.EX2 whose predicate is false for the whole warp still take MUFU pipe time?
def kernel(name, pred_expr):
    L = [f".visible .entry {name}(.param .u64 out, .param .u32 iters, .param .u32 on) {{",
         "  .reg .f32 %x<8>;", "  .reg .u32 %i, %n, %t, %on;", "  .reg .u64 %p;", "  .reg .pred %q, %live;",
         "  ld.param.u32 %n, [iters];", "  ld.param.u32 %on, [on];", "  mov.u32 %t, %tid.x;",
         f"  setp.ne.u32 %live, %on, 0;"]
    for c in range(8):
        L.append(f"  cvt.rn.f32.u32 %x{c}, %t; mul.f32 %x{c}, %x{c}, 0f3A800000; add.f32 %x{c}, %x{c}, 0fBF{c}00000;")
    L += ["  mov.u32 %i, 0;", "L:"]
    for c in range(8):
        L.append(f"  {pred_expr} ex2.approx.ftz.f32 %x{c}, %x{c};")
        L.append(f"  add.f32 %x{c}, %x{c}, 0fBF800000;")
    L += ["  add.u32 %i, %i, 1;", "  setp.lt.u32 %q, %i, %n;", "  @%q bra L;",
          "  ld.param.u64 %p, [out];", "  cvta.to.global.u64 %p, %p;"]
    for c in range(1, 8):
        L.append(f"  add.f32 %x0, %x0, %x{c};")
    L += ["  st.global.f32 [%p], %x0;", "  ret;", "}"]
    return "\n".join(L)
src = [".version 8.0", ".target sm_90a", ".address_size 64", kernel("k_plain", ""), kernel("k_pred", "@%live")]
open("mufu2.ptx", "w").write("\n".join(src) + "\n")
