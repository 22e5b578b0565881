//===- model.cpp - tessel._tessel_ext.Model -------------------------------===//
//
// A loaded artifact. Its metadata is copied into Python objects at load
// time, so it stays readable after close().
//
//===----------------------------------------------------------------------===//

#include "objects.h"

#include <nanobind/stl/string.h>

#include <cstddef>
#include <cstdint>

namespace tessel::python {

static std::string text(const char *value) { return value ? value : ""; }

/// (name, dtype name, shape tuple) of a tensor description.
static nb::tuple tensorInfo(const tessel_tensor_desc *desc) {
  nb::list shape;
  for (int32_t i = 0; i < desc->rank; ++i)
    shape.append(desc->shape[i]);
  return nb::make_tuple(text(desc->name), tessel_dtype_name(desc->dtype),
                        nb::tuple(shape));
}

Model::Model(tessel_model *model, std::string path)
    : guard(model, tessel_model_release, "model"), path(std::move(path)) {
  const tessel_model_desc *desc = tessel_model_descriptor(model);
  name = text(desc->model_name);
  for (size_t i = 0, e = tessel_model_num_inputs(model); i < e; ++i)
    inputs.append(tensorInfo(tessel_model_input(model, i)));
  for (size_t i = 0, e = tessel_model_num_outputs(model); i < e; ++i)
    outputs.append(tensorInfo(tessel_model_output(model, i)));
  descriptor["compiler_version"] = text(desc->compiler_version);
  descriptor["compile_flags"] = text(desc->compile_flags);
  descriptor["target"] = desc->target ? desc->target : "cpu";
  descriptor["target_cpu"] = text(desc->target_cpu);
  descriptor["target_features"] = text(desc->target_features);
  descriptor["abi_version"] = nb::make_tuple(desc->abi_major, desc->abi_minor);
  descriptor["workspace_size"] = desc->workspace_size;
  descriptor["weights_size"] = desc->weights_size;
  // ABI 1.2's flags; an older artifact has none.
  constexpr size_t kFlagsEnd =
      offsetof(tessel_model_desc, flags) + sizeof(uint32_t);
  descriptor["nondeterministic"] =
      desc->struct_size >= kFlagsEnd &&
      (desc->flags & TESSEL_MODEL_NONDETERMINISTIC) != 0;
  // ABI 1.4's dynamic batch: dimension 0 of every input and output.
  int64_t min = 0, max = 0;
  batchRange = nb::none();
  if (tessel_model_batch_range(model, &min, &max)) {
    batchRange = nb::make_tuple(min, max);
    descriptor["batch_name"] = text(desc->batch_name);
  } else {
    descriptor["batch_name"] = nb::none();
  }
  // ABI 1.5's padded dimension: where each input and output holds it.
  paddedRange = nb::none();
  descriptor["padded_name"] = nb::none();
  descriptor["padded_input_dims"] = nb::none();
  descriptor["padded_output_dims"] = nb::none();
  if (tessel_model_padded_range(model, &min, &max)) {
    paddedRange = nb::make_tuple(min, max);
    descriptor["padded_name"] = text(desc->padded_name);
    nb::list inputDims, outputDims;
    for (uint32_t i = 0; i < desc->num_inputs; ++i)
      inputDims.append(desc->padded_input_dims[i]);
    for (uint32_t i = 0; i < desc->num_outputs; ++i)
      outputDims.append(desc->padded_output_dims[i]);
    descriptor["padded_input_dims"] = nb::tuple(inputDims);
    descriptor["padded_output_dims"] = nb::tuple(outputDims);
  }
}

static Model *load(const std::string &path) {
  tessel_model *model = nullptr;
  tessel_status status;
  {
    // Loading reads the file and runs the artifact's initializers.
    nb::gil_scoped_release noGil;
    status = tessel_model_load(path.c_str(), &model);
  }
  check(status);
  return new Model(model, path);
}

static Session *createSession(Model &model, int32_t numThreads,
                              uint64_t resultCacheBytes) {
  tessel_session_options options{sizeof(tessel_session_options), numThreads,
                                 resultCacheBytes};
  tessel_session *session = nullptr;
  check(model.guard.callOpen([&](tessel_model *handle) {
    return tessel_session_create(handle, &options, &session);
  }));
  return new Session(session);
}

void bindModel(nb::module_ &module) {
  nb::class_<Model>(module, "Model")
      .def_static("load", &load, nb::arg("path"),
                  "Loads the artifact at `path`; raises TesselError.")
      .def_ro("path", &Model::path)
      .def_ro("name", &Model::name)
      .def_ro("inputs", &Model::inputs,
              "[(name, dtype name, shape)] in descriptor order")
      .def_ro("outputs", &Model::outputs)
      .def_ro("descriptor", &Model::descriptor)
      .def_ro("batch_range", &Model::batchRange,
              "None, or (min, max) of a dynamic batch: dimension 0 of "
              "every input and output")
      .def_ro("padded_range", &Model::paddedRange,
              "None, or (min, max) of a padded dimension: where each input "
              "and output holds it is in the descriptor")
      .def("session", &createSession, nb::arg("num_threads"),
           nb::arg("result_cache_bytes") = 0)
      .def("close", [](Model &model) { model.guard.close(); })
      .def_prop_ro("closed", [](Model &model) { return model.guard.closed(); });
}

} // namespace tessel::python
