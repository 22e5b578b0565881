//===- handles.cpp - Errors and array views of the Python binding ---------===//

#include "handles.h"

#include <nanobind/stl/string.h>

namespace tessel::python {

void raiseError(const char *codeName, const std::string &message) {
  nb::object type = nb::module_::import_("tessel._errors").attr("TesselError");
  nb::object error = type(codeName, message);
  PyErr_SetObject(type.ptr(), error.ptr());
  throw nb::python_error();
}

void check(tessel_status status) {
  if (!status)
    return;
  const char *name = tessel_status_code_name(tessel_status_get_code(status));
  std::string codeName = name ? name : "unknown error";
  std::string message = tessel_status_get_message(status);
  tessel_status_free(status);
  raiseError(codeName.c_str(), message);
}

bool interpreterAlive() {
#if PY_VERSION_HEX >= 0x030D0000
  return !Py_IsFinalizing();
#else
  return !_Py_IsFinalizing();
#endif
}

/// The Tessel code of a DLPack element type; -1 when Tessel has none.
static int32_t dtypeCode(nb::dlpack::dtype type) {
  if (type.lanes != 1)
    return -1;
  using Code = nb::dlpack::dtype_code;
  switch (static_cast<Code>(type.code)) {
  case Code::Float:
    return type.bits == 16   ? TESSEL_DTYPE_F16
           : type.bits == 32 ? TESSEL_DTYPE_F32
           : type.bits == 64 ? TESSEL_DTYPE_F64
                             : -1;
  case Code::Int:
    return type.bits == 8    ? TESSEL_DTYPE_I8
           : type.bits == 16 ? TESSEL_DTYPE_I16
           : type.bits == 32 ? TESSEL_DTYPE_I32
           : type.bits == 64 ? TESSEL_DTYPE_I64
                             : -1;
  case Code::UInt:
    return type.bits == 8    ? TESSEL_DTYPE_U8
           : type.bits == 16 ? TESSEL_DTYPE_U16
           : type.bits == 32 ? TESSEL_DTYPE_U32
           : type.bits == 64 ? TESSEL_DTYPE_U64
                             : -1;
  case Code::Bool:
    return type.bits == 8 ? TESSEL_DTYPE_BOOL : -1;
  case Code::Bfloat:
    return type.bits == 16 ? TESSEL_DTYPE_BF16 : -1;
  default:
    return -1;
  }
}

/// True when `array` is dense row-major (extents of 0 or 1 allow any
/// stride, as NumPy's flags do).
template <typename Array> static bool isCContiguous(const Array &array) {
  for (size_t i = 0; i < array.ndim(); ++i)
    if (array.shape(i) == 0)
      return true;
  int64_t expected = 1;
  for (size_t i = array.ndim(); i-- > 0;) {
    int64_t extent = static_cast<int64_t>(array.shape(i));
    if (extent != 1 && array.stride(i) != expected)
      return false;
    expected *= extent;
  }
  return true;
}

Views::Views(nb::handle arrays, bool writable, const char *what) {
  using ReadOnly = nb::ndarray<nb::ro, nb::device::cpu>;
  using Writable = nb::ndarray<nb::device::cpu>;
  size_t count = nb::len(arrays);
  shapes.resize(count);
  views.resize(count);
  size_t index = 0;
  for (nb::handle item : arrays) {
    // No conversion: a converted array would be a temporary that the
    // runtime would read (or write) after it is gone.
    std::string name = std::string(what) + " " + std::to_string(index);
    auto fill = [&](const auto &array, void *data) {
      if (!isCContiguous(array))
        raiseError(invalidArgument, name + " is not C-contiguous");
      int32_t code = dtypeCode(array.dtype());
      if (code < 0)
        raiseError(invalidArgument, name + " has no Tessel element type");
      std::vector<int64_t> &shape = shapes[index];
      for (size_t i = 0; i < array.ndim(); ++i)
        shape.push_back(static_cast<int64_t>(array.shape(i)));
      tessel_tensor_view &view = views[index];
      view.data = data;
      view.dtype = code;
      view.rank = static_cast<int32_t>(array.ndim());
      view.shape = shape.empty() ? nullptr : shape.data();
      view.size_bytes = array.nbytes();
    };
    if (writable) {
      Writable array;
      if (!nb::try_cast(item, array, /*convert=*/false))
        raiseError(invalidArgument, name + " is not a writable CPU array");
      fill(array, array.data());
    } else {
      ReadOnly array;
      if (!nb::try_cast(item, array, /*convert=*/false))
        raiseError(invalidArgument, name + " is not a CPU array");
      fill(array, const_cast<void *>(array.data()));
    }
    ++index;
  }
}

} // namespace tessel::python
