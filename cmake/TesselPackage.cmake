# find_package(Tessel) from an install prefix and from a build tree: the
# compiler's headers installed beside the runtime's, and TesselConfig.cmake
# (cmake/TesselConfig.cmake.in) for both places.
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tessel/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tessel COMPONENT devel
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/tessel/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tessel COMPONENT devel
  FILES_MATCHING PATTERN "*.inc")

set(TESSEL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Tessel)
set(TESSEL_VERSION_FILE ${PROJECT_BINARY_DIR}/cmake/TesselConfigVersion.cmake)
write_basic_package_version_file(${TESSEL_VERSION_FILE}
  VERSION ${TESSEL_VERSION} COMPATIBILITY SameMajorVersion)

# Installed: paths relative to the prefix the package is found in.
set(TESSEL_CONFIG_INCLUDE_DIRS "\${PACKAGE_PREFIX_DIR}/${CMAKE_INSTALL_INCLUDEDIR}")
set(TESSEL_CONFIG_BIN_DIR "\${PACKAGE_PREFIX_DIR}/${CMAKE_INSTALL_BINDIR}")
set(TESSEL_RUNTIME_CONFIG_HINT "")
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/TesselConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/install/TesselConfig.cmake
  INSTALL_DESTINATION ${TESSEL_CMAKE_DIR})
install(FILES ${PROJECT_BINARY_DIR}/cmake/install/TesselConfig.cmake
  ${TESSEL_VERSION_FILE}
  DESTINATION ${TESSEL_CMAKE_DIR} COMPONENT devel)

# The build tree: -DTessel_DIR=<build>/lib/cmake/Tessel, no install needed.
set(TESSEL_CONFIG_INCLUDE_DIRS
  "${PROJECT_SOURCE_DIR}/include;${PROJECT_BINARY_DIR}/include")
set(TESSEL_CONFIG_BIN_DIR "${PROJECT_BINARY_DIR}/bin")
set(TESSEL_RUNTIME_CONFIG_HINT "${PROJECT_BINARY_DIR}/lib/cmake/TesselRuntime")
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/TesselConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lib/cmake/Tessel/TesselConfig.cmake
  INSTALL_DESTINATION ${PROJECT_BINARY_DIR}/lib/cmake/Tessel)
configure_file(${TESSEL_VERSION_FILE}
  ${PROJECT_BINARY_DIR}/lib/cmake/Tessel/TesselConfigVersion.cmake COPYONLY)
