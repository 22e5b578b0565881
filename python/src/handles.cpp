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

PyObject *setError(tessel_status status) {
  try {
    check(status);
  } catch (nb::python_error &error) {
    error.restore();
  } catch (const std::exception &error) {
    PyErr_SetString(PyExc_RuntimeError, error.what());
  }
  return nullptr;
}

void addRawMethod(nb::handle cls, PyMethodDef *def) {
  nb::object method = nb::steal(
      PyDescr_NewMethod(reinterpret_cast<PyTypeObject *>(cls.ptr()), def));
  if (!method.is_valid() ||
      PyObject_SetAttrString(cls.ptr(), def->ml_name, method.ptr()) != 0)
    throw nb::python_error();
}

bool interpreterAlive() {
#if PY_VERSION_HEX >= 0x030D0000
  return !Py_IsFinalizing();
#else
  return !_Py_IsFinalizing();
#endif
}

// One character, optionally after a native byte-order prefix; none for
// complex numbers, objects, records or the other byte order.
int32_t formatCode(const char *format, Py_ssize_t itemsize) {
  if (!format)
    format = "B"; // PEP 3118: no format means unsigned bytes.
  bool littleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
  if (*format == '@' || *format == '=' || (littleEndian && *format == '<') ||
      (!littleEndian && (*format == '>' || *format == '!')))
    ++format;
  if (format[0] == '\0' || format[1] != '\0')
    return -1;
  switch (format[0]) {
  case 'e':
  case 'f':
  case 'd':
    return itemsize == 2   ? TESSEL_DTYPE_F16
           : itemsize == 4 ? TESSEL_DTYPE_F32
           : itemsize == 8 ? TESSEL_DTYPE_F64
                           : -1;
  case 'b':
  case 'h':
  case 'i':
  case 'l':
  case 'q':
  case 'n':
    return itemsize == 1   ? TESSEL_DTYPE_I8
           : itemsize == 2 ? TESSEL_DTYPE_I16
           : itemsize == 4 ? TESSEL_DTYPE_I32
           : itemsize == 8 ? TESSEL_DTYPE_I64
                           : -1;
  case 'B':
  case 'H':
  case 'I':
  case 'L':
  case 'Q':
  case 'N':
    return itemsize == 1   ? TESSEL_DTYPE_U8
           : itemsize == 2 ? TESSEL_DTYPE_U16
           : itemsize == 4 ? TESSEL_DTYPE_U32
           : itemsize == 8 ? TESSEL_DTYPE_U64
                           : -1;
  case '?':
    return itemsize == 1 ? TESSEL_DTYPE_BOOL : -1;
  default:
    return -1;
  }
}

void fillView(const Py_buffer &buffer, int32_t code,
              std::vector<int64_t> &shape, tessel_tensor_view &view) {
  shape.assign(buffer.shape, buffer.shape + buffer.ndim);
  view.data = buffer.buf;
  view.dtype = code;
  view.rank = static_cast<int32_t>(buffer.ndim);
  view.shape = shape.empty() ? nullptr : shape.data();
  view.size_bytes = static_cast<size_t>(buffer.len);
}

// The arrays are read through the buffer protocol, which NumPy answers
// from the array itself: nanobind's ndarray caster asks NumPy for a DLPack
// capsule first, which cost 0.15-0.25 us per array (the one-element
// Identity's ext.run, one input and one output, 0.83-1.43 us that way,
// 0.55-0.95 this way; the run itself is 0.1).
Views::Views(nb::handle arrays, bool writable, const char *what) {
  size_t count = nb::len(arrays);
  shapes.resize(count);
  views.resize(count);
  size_t index = 0;
  for (nb::handle item : arrays) {
    auto fail = [&](const char *problem) {
      raiseError(invalidArgument,
                 std::string(what) + " " + std::to_string(index) + problem);
    };
    // No conversion: a converted array would be a temporary that the
    // runtime would read (or write) after it is gone.
    Py_buffer buffer;
    int flags = PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(item.ptr(), &buffer, flags) != 0) {
      PyErr_Clear();
      fail(writable ? " is not a writable CPU array" : " is not a CPU array");
    }
    bool contiguous = PyBuffer_IsContiguous(&buffer, 'C');
    int32_t code = formatCode(buffer.format, buffer.itemsize);
    fillView(buffer, code, shapes[index], views[index]);
    // Released now: the caller's references keep the arrays, and so their
    // memory, alive until the run is over.
    PyBuffer_Release(&buffer);
    if (!contiguous)
      fail(" is not C-contiguous");
    if (code < 0)
      fail(" has no Tessel element type");
    ++index;
  }
}

} // namespace tessel::python
