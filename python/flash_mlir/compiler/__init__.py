"""The compile side of FlashMLIR (build machine: flash-opt, ptxas).

  flash_mlir.compiler.compile   compile kernel bundles (PTX, cubins, launch plans)
"""
