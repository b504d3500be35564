"""FlashMLIR Python package: numerical oracle and test drivers for the flash dialect.

Submodules:
  flash_mlir.oracle            float64 numpy reference of flash.attention (O and LSE)
  flash_mlir.testing.cpu_case  generate / run / check CPU integration cases (mlir-runner)
"""
