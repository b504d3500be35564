# `cmake --install build --prefix P` gives a CMake package that compilers
# embedding FlashMLIR find with find_package(FlashMLIR CONFIG) (P/lib/cmake/
# FlashMLIR): headers (include/flash, include/flash-c and the generated .inc),
# the static libraries, libflash_runtime.so, flash-opt, and namespaced
# targets (cmake/FlashMLIRConfig.cmake.in lists them). Our add_mlir_library
# calls say DISABLE_INSTALL so that only this export set installs them.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(FLASH_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/FlashMLIR)

# library target -> exported name (FlashMLIR::<name>)
set(FLASH_EXPORTED_LIBRARIES
  MLIRFlash Dialect
  MLIRFlashTransforms Transforms
  MLIRFlashToNVGPU Conversion
  MLIRFlashBundle Bundle
  FlashPipelines Pipelines
  FlashTarget Target
  FlashCAPI CAPI)

add_library(FlashMLIRPasses INTERFACE)
target_link_libraries(FlashMLIRPasses INTERFACE
  MLIRFlashTransforms MLIRFlashToNVGPU MLIRFlashBundle)
list(APPEND FLASH_EXPORTED_LIBRARIES FlashMLIRPasses Passes)
if(TARGET flash_runtime)
  list(APPEND FLASH_EXPORTED_LIBRARIES flash_runtime Runtime)
endif()

set(FLASH_EXPORTED_TARGETS)
while(FLASH_EXPORTED_LIBRARIES)
  list(POP_FRONT FLASH_EXPORTED_LIBRARIES target export_name)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
  target_include_directories(${target} INTERFACE
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  list(APPEND FLASH_EXPORTED_TARGETS ${target})
endwhile()

install(TARGETS ${FLASH_EXPORTED_TARGETS} flash-opt
  EXPORT FlashMLIRTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/flash ${PROJECT_SOURCE_DIR}/include/flash-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/flash
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h.inc"
  PATTERN "CMakeFiles" EXCLUDE)

install(EXPORT FlashMLIRTargets
  NAMESPACE FlashMLIR::
  DESTINATION ${FLASH_INSTALL_CMAKEDIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/FlashMLIRConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/FlashMLIRConfig.cmake
  INSTALL_DESTINATION ${FLASH_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/FlashMLIRConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/FlashMLIRConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/FlashMLIRConfigVersion.cmake
  DESTINATION ${FLASH_INSTALL_CMAKEDIR})
