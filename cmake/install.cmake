# `cmake --install`: the libraries (every area but the libtorch training one) with their headers,
# exported as glimpse::<area> for find_package(glimpse); the workers under libexec/glimpse, where
# the installed runners look for them; the command line; the data under share/glimpse/data. tests/consumer is a project built on
# the installed package (ctest install.consumer_project).
include(CMakePackageConfigHelpers)

set(glimpse_exported_libraries)
foreach(area space measure database replay tuner loop model ir ops codegen process target cpu
             cuda_driver cuda tasks evaluation hardware hwaware perf corpus perf_eval graph onnx compile)
  list(APPEND glimpse_exported_libraries glimpse_${area})
endforeach()

install(TARGETS ${glimpse_exported_libraries} glimpse_warnings glimpse_xgboost
        EXPORT glimpseTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/glimpse DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS glimpse_cpu_worker glimpse_gpu_worker
        RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/glimpse)
install(TARGETS glimpse RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The GPU table, the shipped models and the sample recordings, where GlimpseDataDir looks beside an
# installed executable (<prefix>/share/glimpse/data).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/hardware ${PROJECT_SOURCE_DIR}/data/models
                  ${PROJECT_SOURCE_DIR}/data/recorded
        DESTINATION ${CMAKE_INSTALL_DATADIR}/glimpse/data)

install(EXPORT glimpseTargets NAMESPACE glimpse::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/glimpse)
set(GLIMPSE_WITH_CUDA_TOOLKIT ${CUDAToolkit_FOUND})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/glimpseConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/glimpseConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/glimpse)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/glimpseConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/glimpseConfig.cmake
              ${PROJECT_BINARY_DIR}/glimpseConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/glimpse)
