// Every pass rejects a flash.attention_backward it cannot handle with a
// located diagnostic and a non-zero exit, never a crash.
// RUN: not flash-opt %s --split-input-file --flash-tile 2>&1 | FileCheck %s --check-prefix=NOSCHED
// RUN: not flash-opt %s --split-input-file --flash-io-report 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not flash-opt %s --split-input-file --flash-decompose 2>&1 | FileCheck %s --check-prefix=UNTILED
// RUN: not flash-opt %s --split-input-file --flash-select-schedule=arch=sm_80 2>&1 | FileCheck %s --check-prefix=NOFIT
// RUN: not flash-opt %s --split-input-file --flash-lower-to-reference 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not flash-opt %s --split-input-file --flash-cpu-pipeline 2>&1 | FileCheck %s --check-prefix=DYNAMIC

func.func @plain(%q: tensor<1x1x10x16xf16>, %k: tensor<1x1x10x16xf16>, %v: tensor<1x1x10x16xf16>,
                 %o: tensor<1x1x10x16xf16>, %do: tensor<1x1x10x16xf16>, %lse: tensor<1x1x10xf32>) {
  // NOSCHED: pass-errors-backward.mlir:[[@LINE+3]]:19: error: 'flash.attention_backward' op has no #flash.schedule; run flash-select-schedule first
  // REPORT: pass-errors-backward.mlir:[[@LINE+2]]:19: error: 'flash.attention_backward' op has no #flash.schedule; run flash-select-schedule before flash-io-report
  // UNTILED: pass-errors-backward.mlir:[[@LINE+1]]:19: error: 'flash.attention_backward' op must be tiled (flash-tile) before flash-decompose
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse
      : tensor<1x1x10x16xf16>, tensor<1x1x10x16xf16>, tensor<1x1x10x16xf16>, tensor<1x1x10x16xf16>, tensor<1x1x10x16xf16>, tensor<1x1x10xf32>
      -> tensor<1x1x10x16xf16>, tensor<1x1x10x16xf16>, tensor<1x1x10x16xf16>
  return
}

// -----

// dK and dV accumulators of D = Dv = 1024 fit no sm_80 tile's registers.
// NOFIT: pass-errors-backward.mlir:[[@LINE+3]]:19: error: 'flash.attention_backward' op not supported yet: no backward schedule for sm_80 fits D=1024, Dv=1024 in shared memory and registers
func.func @too_wide(%q: tensor<1x1x10x1024xf16>, %k: tensor<1x1x10x1024xf16>, %v: tensor<1x1x10x1024xf16>,
                    %o: tensor<1x1x10x1024xf16>, %do: tensor<1x1x10x1024xf16>, %lse: tensor<1x1x10xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse
      : tensor<1x1x10x1024xf16>, tensor<1x1x10x1024xf16>, tensor<1x1x10x1024xf16>, tensor<1x1x10x1024xf16>, tensor<1x1x10x1024xf16>, tensor<1x1x10xf32>
      -> tensor<1x1x10x1024xf16>, tensor<1x1x10x1024xf16>, tensor<1x1x10x1024xf16>
  return
}

// -----

// Dynamic dimensions are valid IR; the passes say "not supported yet",
// naming the operand, also when only the LSE or a gradient is dynamic.
// DYNAMIC: pass-errors-backward.mlir:[[@LINE+3]]:19: error: 'flash.attention_backward' op not supported yet: dynamic dimensions (query is 'tensor<?x1x10x16xf32>')
func.func @dynamic(%q: tensor<?x1x10x16xf32>, %k: tensor<?x1x10x16xf32>, %v: tensor<?x1x10x16xf32>,
                   %o: tensor<?x1x10x16xf32>, %do: tensor<?x1x10x16xf32>, %lse: tensor<?x1x10xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse
      : tensor<?x1x10x16xf32>, tensor<?x1x10x16xf32>, tensor<?x1x10x16xf32>, tensor<?x1x10x16xf32>, tensor<?x1x10x16xf32>, tensor<?x1x10xf32>
      -> tensor<?x1x10x16xf32>, tensor<?x1x10x16xf32>, tensor<?x1x10x16xf32>
  return
}

// -----

// DYNAMIC: pass-errors-backward.mlir:[[@LINE+3]]:19: error: 'flash.attention_backward' op not supported yet: dynamic dimensions (lse is 'tensor<1x1x?xf32>')
func.func @dynamic_lse(%q: tensor<1x1x10x16xf32>, %k: tensor<1x1x10x16xf32>, %v: tensor<1x1x10x16xf32>,
                       %o: tensor<1x1x10x16xf32>, %do: tensor<1x1x10x16xf32>, %lse: tensor<1x1x?xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse
      : tensor<1x1x10x16xf32>, tensor<1x1x10x16xf32>, tensor<1x1x10x16xf32>, tensor<1x1x10x16xf32>, tensor<1x1x10x16xf32>, tensor<1x1x?xf32>
      -> tensor<1x1x10x16xf32>, tensor<1x1x10x16xf32>, tensor<1x1x10x16xf32>
  return
}

// -----

// DYNAMIC: pass-errors-backward.mlir:[[@LINE+3]]:19: error: 'flash.attention_backward' op not supported yet: dynamic dimensions (grad_key is 'tensor<1x1x?x16xf32>')
func.func @dynamic_grad(%q: tensor<1x1x10x16xf32>, %k: tensor<1x1x10x16xf32>, %v: tensor<1x1x10x16xf32>,
                        %o: tensor<1x1x10x16xf32>, %do: tensor<1x1x10x16xf32>, %lse: tensor<1x1x10xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse
      : tensor<1x1x10x16xf32>, tensor<1x1x10x16xf32>, tensor<1x1x10x16xf32>, tensor<1x1x10x16xf32>, tensor<1x1x10x16xf32>, tensor<1x1x10xf32>
      -> tensor<1x1x10x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x10x16xf32>
  return
}

// -----

// DYNAMIC: pass-errors-backward.mlir:[[@LINE+3]]:19: error: 'flash.attention_backward' op not supported yet: a dimension above 2^31 - 1 (query is 'tensor<1x1x4294967296x64xbf16>')
func.func @huge(%q: tensor<1x1x4294967296x64xbf16>, %k: tensor<1x1x16x64xbf16>, %v: tensor<1x1x16x64xbf16>,
                %o: tensor<1x1x4294967296x64xbf16>, %do: tensor<1x1x4294967296x64xbf16>, %lse: tensor<1x1x4294967296xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse
      : tensor<1x1x4294967296x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x4294967296x64xbf16>, tensor<1x1x4294967296x64xbf16>, tensor<1x1x4294967296xf32>
      -> tensor<1x1x4294967296x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>
  return
}
