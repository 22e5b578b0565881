# Debian packages: `cpack -G DEB` in a build tree writes
#   tessel-runtime_<version>_<arch>.deb  libtessel_runtime.so, its headers and
#                                        CMake package, tessel-run, tessel-bench,
#                                        tessel-bench-serve; no LLVM
#   tessel-tools_<version>_<arch>.deb    tessel-compile, tessel-opt, the
#                                        compiler's headers, static libraries
#                                        and CMake package (needs the runtime's
#                                        package, LLVM/MLIR 22 and a C compiler
#                                        to link artifacts)
# Their dependencies on Debian's packages are computed by dpkg-shlibdeps from
# what the binaries link. The Python package is a wheel (scripts/python-dist.sh).
set(CPACK_PACKAGE_NAME tessel)
set(CPACK_PACKAGE_VENDOR "Tessel")
set(CPACK_PACKAGE_VERSION ${TESSEL_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Tessel: an ahead-of-time compiler for ONNX models, and its runtime")
set(CPACK_PACKAGE_CONTACT "Tessel developers <tessel@invalid>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libtessel_runtime.so, which the tools link, comes from tessel-runtime.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/lib)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME tessel-runtime)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME tessel-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION devel)
# tessel-compile links artifacts with the system's `cc`.
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS
    "tessel-runtime (= ${TESSEL_VERSION}), gcc | clang")
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
    "Tessel runtime: loads and runs the artifacts tessel-compile writes")
set(CPACK_DEBIAN_TOOLS_DESCRIPTION
    "Tessel compiler: tessel-compile and tessel-opt, with headers for pass plugins")

get_property(tessel_compiler_libs GLOBAL PROPERTY MLIR_ALL_LIBS)
set(CPACK_COMPONENTS_ALL runtime tools devel ${tessel_compiler_libs})
include(CPack)
cpack_add_component_group(runtime)
cpack_add_component_group(tools)
cpack_add_component(runtime GROUP runtime)
foreach(component tools devel ${tessel_compiler_libs})
  cpack_add_component(${component} GROUP tools)
endforeach()
