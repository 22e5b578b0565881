//===- model.cpp - Loading artifacts and reading their descriptors --------===//

#include "library.h"
#include "log.h"
#include "model.h"
#include "status.h"
#include "trace.h"

#include <dlfcn.h>
#include <memory>
#include <utility>

using namespace tessel::runtime;

extern "C" {

tessel_status tessel_model_load(const char *path, tessel_model **out_model) {
  return guard([&]() -> tessel_status {
    if (!path || !*path)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_model_load: the path is NULL or empty");
    if (!out_model)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_model_load: out_model is NULL");
    std::string file = path;
    trace::Span span("model", trace::enabled() ? "load" : "",
                     trace::enabled() ? "\"path\": " + trace::quote(file)
                                      : std::string());
    std::shared_ptr<CheckedLibrary> library;
    if (tessel_status status = loadCheckedLibrary(file, library))
      return status;

    dlerror();
    void *symbol = dlsym(library->handle, TESSEL_MODEL_SYMBOL);
    if (!symbol)
      return makeStatus(TESSEL_INVALID_ARTIFACT,
                        "'" + file +
                            "' is not a Tessel artifact: it does not export " +
                            TESSEL_MODEL_SYMBOL);
    auto getDescriptor = reinterpret_cast<tessel_model_fn>(symbol);
    const tessel_model_desc *desc = getDescriptor();
    if (tessel_status status = validateDescriptor(desc, file))
      return status;
    if (tessel_status status = library->mapWeights(desc, file))
      return status;
    if (log::enabled(log::Info))
      log::message(log::Info,
                   "loaded '" + file + "': model '" +
                       (desc->model_name ? desc->model_name : "") +
                       "', ABI " + std::to_string(desc->abi_major) + "." +
                       std::to_string(desc->abi_minor) + ", compiled by " +
                       (desc->compiler_version ? desc->compiler_version
                                               : "(unknown)") +
                       " for CPU '" +
                       (desc->target_cpu ? desc->target_cpu : "") + "'");

    auto model = std::make_unique<tessel_model>();
    model->path = file;
    model->desc = desc;
    model->library = std::move(library);
    *out_model = model.release();
    return nullptr;
  });
}

void tessel_model_retain(tessel_model *model) {
  if (model)
    model->refCount.fetch_add(1, std::memory_order_relaxed);
}

void tessel_model_release(tessel_model *model) {
  if (!model)
    return;
  if (model->refCount.fetch_sub(1, std::memory_order_acq_rel) != 1)
    return;
  delete model;
}

const tessel_model_desc *tessel_model_descriptor(const tessel_model *model) {
  return model ? model->desc : nullptr;
}

size_t tessel_model_num_inputs(const tessel_model *model) {
  return model ? model->desc->num_inputs : 0;
}

size_t tessel_model_num_outputs(const tessel_model *model) {
  return model ? model->desc->num_outputs : 0;
}

const tessel_tensor_desc *tessel_model_input(const tessel_model *model,
                                             size_t index) {
  if (!model || index >= model->desc->num_inputs)
    return nullptr;
  return &model->desc->inputs[index];
}

const void *tessel_model_input_fixed_value(const tessel_model *model,
                                           size_t index) {
  if (!model || index >= model->desc->num_inputs)
    return nullptr;
  return tessel::runtime::fixedInputValue(model->desc,
                                          static_cast<uint32_t>(index));
}

const tessel_tensor_desc *tessel_model_output(const tessel_model *model,
                                              size_t index) {
  if (!model || index >= model->desc->num_outputs)
    return nullptr;
  return &model->desc->outputs[index];
}

int32_t tessel_model_batch_range(const tessel_model *model, int64_t *out_min,
                                 int64_t *out_max) {
  bool dynamic = model && hasDynamicBatch(model->desc);
  if (out_min)
    *out_min = dynamic ? model->desc->batch_min : 0;
  if (out_max)
    *out_max = dynamic ? model->desc->batch_max : 0;
  return dynamic ? 1 : 0;
}

int32_t tessel_model_padded_range(const tessel_model *model, int64_t *out_min,
                                  int64_t *out_max) {
  bool padded = model && hasPaddedDim(model->desc);
  if (out_min)
    *out_min = padded ? model->desc->padded_min : 0;
  if (out_max)
    *out_max = padded ? model->desc->padded_max : 0;
  return padded ? 1 : 0;
}

} // extern "C"
