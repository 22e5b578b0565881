//===- session.cpp - Sessions: checking tensors and calling the entry -----===//

#include "model.h"
#include "parallel.h"
#include "shape.h"
#include "status.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

using namespace tessel::runtime;

struct tessel_session {
  tessel_model *model = nullptr; // one reference, dropped on release
  int32_t numThreads = 1;
  void *workspace = nullptr; // posix_memalign'ed, NULL when size is 0
  tessel_runtime_services services{};
  std::mutex runMutex; // guards the workspace and the pointer tables
  std::vector<void *> inputPointers;
  std::vector<void *> outputPointers;

  ~tessel_session() {
    std::free(workspace);
    tessel_model_release(model);
  }
};

namespace {

/// Checks one caller view against its description; `kind` is "input" or
/// "output". Builds no strings unless the view is wrong: this runs on every
/// call.
tessel_status checkView(const tessel_tensor_view &view,
                        const tessel_tensor_desc &desc, const char *kind) {
  auto fail = [&](const std::string &what) {
    return makeStatus(TESSEL_INVALID_ARGUMENT, std::string(kind) + " " +
                                                   quoted(desc.name) + ": " +
                                                   what);
  };
  auto expected = [&] {
    return formatTensorType(desc.dtype, desc.rank, desc.shape);
  };
  bool sameType = view.dtype == desc.dtype && view.rank == desc.rank &&
                  (view.rank <= 0 || view.shape);
  for (int32_t i = 0; sameType && i < desc.rank; ++i)
    sameType = view.shape[i] == desc.shape[i];
  if (!sameType)
    return fail("expected " + expected() + ", got " +
                formatTensorType(view.dtype, view.rank, view.shape));
  size_t bytes = 0;
  denseByteSize(desc.dtype, desc.rank, desc.shape, bytes);
  if (view.size_bytes != bytes)
    return fail("size_bytes is " + std::to_string(view.size_bytes) + ", but " +
                expected() + " holds " + std::to_string(bytes));
  if (!view.data && bytes > 0)
    return fail("data is NULL");
  size_t elementSize = tessel_dtype_size(desc.dtype);
  if (reinterpret_cast<uintptr_t>(view.data) % elementSize != 0)
    return fail("data is not aligned to " + std::to_string(elementSize) +
                " bytes");
  return nullptr;
}

tessel_status checkViews(const tessel_tensor_view *views, size_t count,
                         const tessel_tensor_desc *descs, uint32_t expected,
                         const char *kind) {
  if (count != expected)
    return makeStatus(TESSEL_INVALID_ARGUMENT,
                      "expected " + std::to_string(expected) + " " + kind +
                          (expected == 1 ? "" : "s") + ", got " +
                          std::to_string(count));
  if (count > 0 && !views)
    return makeStatus(TESSEL_INVALID_ARGUMENT,
                      std::string("the ") + kind + " array is NULL");
  for (size_t i = 0; i < count; ++i)
    if (tessel_status status = checkView(views[i], descs[i], kind))
      return status;
  return nullptr;
}

} // namespace

extern "C" {

tessel_status tessel_session_create(tessel_model *model,
                                    const tessel_session_options *options,
                                    tessel_session **out_session) {
  return guard([&]() -> tessel_status {
    if (!model)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_session_create: model is NULL");
    if (!out_session)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_session_create: out_session is NULL");
    int32_t numThreads = 0;
    if (options) {
      constexpr size_t kOptionsSizeV1 =
          offsetof(tessel_session_options, num_threads) + sizeof(int32_t);
      if (options->struct_size < kOptionsSizeV1)
        return makeStatus(TESSEL_INVALID_ARGUMENT,
                          "tessel_session_create: options->struct_size is " +
                              std::to_string(options->struct_size) +
                              "; set it to sizeof(tessel_session_options)");
      numThreads = options->num_threads;
    }
    if (numThreads < 0)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_session_create: num_threads is " +
                            std::to_string(numThreads) +
                            "; use 0 for all cores or a positive count");

    const tessel_model_desc *desc = model->desc;
    auto session = std::make_unique<tessel_session>();
    session->numThreads = numThreads == 0 ? availableCores() : numThreads;
    if (desc->workspace_size > 0) {
      size_t alignment = desc->workspace_alignment > kBufferAlignment
                             ? size_t(desc->workspace_alignment)
                             : kBufferAlignment;
      size_t size = size_t(desc->workspace_size);
      size = (size + alignment - 1) / alignment * alignment;
      if (posix_memalign(&session->workspace, alignment, size) != 0) {
        session->workspace = nullptr;
        return makeStatus(TESSEL_OUT_OF_MEMORY,
                          "cannot allocate the " +
                              std::to_string(desc->workspace_size) +
                              "-byte workspace of '" + model->path + "'");
      }
    }
    session->inputPointers.resize(desc->num_inputs);
    session->outputPointers.resize(desc->num_outputs);
    session->services.struct_size = sizeof(tessel_runtime_services);
    session->services.num_threads = parallelForConcurrency(session->numThreads);
    session->services.runtime_ctx = session.get();
    session->services.parallel_for = parallelFor;
    tessel_model_retain(model);
    session->model = model;
    *out_session = session.release();
    return nullptr;
  });
}

void tessel_session_release(tessel_session *session) { delete session; }

int32_t tessel_session_num_threads(const tessel_session *session) {
  return session ? session->numThreads : 0;
}

tessel_status tessel_session_run(tessel_session *session,
                                 const tessel_tensor_view *inputs,
                                 size_t num_inputs,
                                 const tessel_tensor_view *outputs,
                                 size_t num_outputs) {
  return guard([&]() -> tessel_status {
    if (!session)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_session_run: session is NULL");
    const tessel_model_desc *desc = session->model->desc;
    if (tessel_status status = checkViews(inputs, num_inputs, desc->inputs,
                                          desc->num_inputs, "input"))
      return status;
    if (tessel_status status = checkViews(outputs, num_outputs, desc->outputs,
                                          desc->num_outputs, "output"))
      return status;

    std::lock_guard<std::mutex> lock(session->runMutex);
    for (size_t i = 0; i < num_inputs; ++i)
      session->inputPointers[i] = inputs[i].data;
    for (size_t i = 0; i < num_outputs; ++i)
      session->outputPointers[i] = outputs[i].data;
    int32_t result =
        desc->entry(&session->services, session->inputPointers.data(),
                    session->outputPointers.data(), session->workspace);
    if (result != 0)
      return makeStatus(
          TESSEL_RUNTIME_ERROR,
          "'" + session->model->path + "': entry " +
              quoted(desc->entry_name ? desc->entry_name : "(unnamed)") +
              " failed with code " + std::to_string(result));
    return nullptr;
  });
}

} // extern "C"
