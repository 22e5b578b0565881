//===- dtype.cpp - Element type names and sizes, runtime version ----------===//

#include "build_info.h"
#include "tessel/runtime.h"

#ifndef TESSEL_RUNTIME_VERSION
#error "TESSEL_RUNTIME_VERSION must be defined by the build"
#endif

extern "C" {

const char *tessel_runtime_version(void) { return TESSEL_RUNTIME_VERSION; }

const char *tessel_runtime_revision(void) {
  return tessel::build::gitRevision();
}

const char *tessel_dtype_name(int32_t dtype) {
  switch (dtype) {
  case TESSEL_DTYPE_F32:
    return "float32";
  case TESSEL_DTYPE_F16:
    return "float16";
  case TESSEL_DTYPE_F64:
    return "float64";
  case TESSEL_DTYPE_I8:
    return "int8";
  case TESSEL_DTYPE_U8:
    return "uint8";
  case TESSEL_DTYPE_I16:
    return "int16";
  case TESSEL_DTYPE_U16:
    return "uint16";
  case TESSEL_DTYPE_I32:
    return "int32";
  case TESSEL_DTYPE_U32:
    return "uint32";
  case TESSEL_DTYPE_I64:
    return "int64";
  case TESSEL_DTYPE_U64:
    return "uint64";
  case TESSEL_DTYPE_BOOL:
    return "bool";
  case TESSEL_DTYPE_BF16:
    return "bfloat16";
  default:
    return "invalid";
  }
}

size_t tessel_dtype_size(int32_t dtype) {
  switch (dtype) {
  case TESSEL_DTYPE_I8:
  case TESSEL_DTYPE_U8:
  case TESSEL_DTYPE_BOOL:
    return 1;
  case TESSEL_DTYPE_F16:
  case TESSEL_DTYPE_BF16:
  case TESSEL_DTYPE_I16:
  case TESSEL_DTYPE_U16:
    return 2;
  case TESSEL_DTYPE_F32:
  case TESSEL_DTYPE_I32:
  case TESSEL_DTYPE_U32:
    return 4;
  case TESSEL_DTYPE_F64:
  case TESSEL_DTYPE_I64:
  case TESSEL_DTYPE_U64:
    return 8;
  default:
    return 0;
  }
}

} // extern "C"
