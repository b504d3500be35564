// flash-extract-attention-kernels: the kernel side of a host function. One
// function per distinct key (element type, D, Dv, causal; the lengths, heads
// and scale are run-time values of the plans) at the representative length
// 1024, named by the key; everything else of the module is dropped.
// RUN: flash-opt %s --flash-extract-attention-kernels | FileCheck %s

// CHECK-LABEL: func.func @flash_fwd_bf16_d64_causal(
// CHECK-SAME: %[[Q:.+]]: tensor<1x1x1024x64xbf16>, %[[K:.+]]: tensor<1x1x1024x64xbf16>, %[[V:.+]]: tensor<1x1x1024x64xbf16>) -> tensor<1x1x1024x64xbf16>
// CHECK-NEXT: %[[O:.+]] = flash.attention %[[Q]], %[[K]], %[[V]] {causal} :
// CHECK-NEXT: return %[[O]]
// CHECK-LABEL: func.func @flash_fwd_bf16_d64(
// CHECK-NEXT: flash.attention
// CHECK-NOT: scale
// CHECK-LABEL: func.func @flash_fwd_f16_d128_dv64(
// CHECK-SAME: tensor<1x1x1024x128xf16>, %{{.+}}: tensor<1x1x1024x128xf16>, %{{.+}}: tensor<1x1x1024x64xf16>) -> tensor<1x1x1024x64xf16>
// CHECK-NOT: func.func
// CHECK-NOT: tensor.extract_slice
func.func @host(%q: tensor<1x2x256x64xbf16>, %k: tensor<1x2x256x64xbf16>) -> (tensor<1x2x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>) {
  %o = flash.attention %q, %k, %k {causal} : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  %s = tensor.extract_slice %o[0, 1, 0, 0] [1, 1, 256, 64] [1, 1, 1, 1] : tensor<1x2x256x64xbf16> to tensor<1x1x256x64xbf16>
  %o2 = flash.attention %s, %s, %s {scale = 0.125 : f32} : tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16> -> tensor<1x1x256x64xbf16>
  %o3 = flash.attention %s, %s, %s {causal, scale = 0.5 : f32} : tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16> -> tensor<1x1x256x64xbf16>
  return %o, %o2, %o3 : tensor<1x2x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>
}
func.func private @other(%q: tensor<?x4x?x128xf16>, %v: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x128xf16>) -> tensor<?x4x?x64xf16> {
  %o = flash.attention %q, %k, %v : tensor<?x4x?x128xf16>, tensor<?x2x?x128xf16>, tensor<?x2x?x64xf16> -> tensor<?x4x?x64xf16>
  return %o : tensor<?x4x?x64xf16>
}
