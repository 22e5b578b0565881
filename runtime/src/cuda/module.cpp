//===- module.cpp - CUDA modules, kernels and launches --------------------===//

#include "handles.h"

#include <vector>

using namespace tessel::runtime;
using namespace tessel::runtime::cuda;

extern "C" {

tessel_status tessel_cuda_module_load(tessel_cuda_device *device,
                                      const void *image, size_t size,
                                      tessel_cuda_module **out_module) {
  return guard([&]() -> tessel_status {
    const char *function = "tessel_cuda_module_load";
    if (!device)
      return nullArgument(function, "device");
    if (!image)
      return nullArgument(function, "image");
    if (!out_module)
      return nullArgument(function, "out_module");
    if (size == 0)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        std::string(function) + ": the image is empty");
    // cuModuleLoadData takes no size: PTX must end in a NUL, which a
    // caller's buffer need not have. A cubin or fatbin ignores it.
    std::vector<char> copy(static_cast<const char *>(image),
                           static_cast<const char *>(image) + size);
    copy.push_back('\0');
    if (tessel_status status = makeCurrent(*device))
      return status;
    auto module = std::make_unique<tessel_cuda_module>();
    if (tessel_status status = TESSEL_CU(*device->driver, cuModuleLoadData,
                                         &module->module, copy.data()))
      return status;
    tessel_cuda_device_retain(device);
    module->device = device;
    *out_module = module.release();
    return nullptr;
  });
}

void tessel_cuda_module_release(tessel_cuda_module *module) {
  if (!module)
    return;
  tessel_cuda_device *device = module->device;
  if (tessel_status status = makeCurrent(*device))
    tessel_status_free(status); // dropped: no one to report it to
  device->driver->cuModuleUnload(module->module);
  delete module;
  tessel_cuda_device_release(device);
}

tessel_status
tessel_cuda_module_get_function(tessel_cuda_module *module, const char *name,
                                const tessel_cuda_function **out_function) {
  return guard([&]() -> tessel_status {
    const char *function = "tessel_cuda_module_get_function";
    if (!module)
      return nullArgument(function, "module");
    if (!name)
      return nullArgument(function, "name");
    if (!out_function)
      return nullArgument(function, "out_function");
    std::lock_guard<std::mutex> lock(module->mutex);
    auto found = module->functions.find(name);
    if (found != module->functions.end()) {
      *out_function = found->second.get();
      return nullptr;
    }
    if (tessel_status status = makeCurrent(*module->device))
      return status;
    auto kernel = std::make_unique<tessel_cuda_function>();
    kernel->module = module;
    if (tessel_status status =
            TESSEL_CU(*module->device->driver, cuModuleGetFunction,
                      &kernel->function, module->module, name)) {
      std::string message = tessel_status_get_message(status);
      tessel_status_code code = tessel_status_get_code(status);
      tessel_status_free(status);
      return makeStatus(code, message + " (kernel " + quoted(name) + ")");
    }
    const tessel_cuda_function *result = kernel.get();
    module->functions.emplace(name, std::move(kernel));
    *out_function = result;
    return nullptr;
  });
}

tessel_status tessel_cuda_launch(const tessel_cuda_function *function,
                                 const tessel_cuda_launch_config *config,
                                 void **params, tessel_cuda_stream *stream) {
  return guard([&]() -> tessel_status {
    const char *name = "tessel_cuda_launch";
    if (!function)
      return nullArgument(name, "function");
    if (!config)
      return nullArgument(name, "config");
    if (!stream)
      return nullArgument(name, "stream");
    if (config->struct_size < sizeof(tessel_cuda_launch_config))
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        std::string(name) + ": config->struct_size is " +
                            std::to_string(config->struct_size) +
                            ", expected at least " +
                            std::to_string(sizeof(tessel_cuda_launch_config)));
    for (int i = 0; i < 3; ++i)
      if (config->grid[i] == 0 || config->block[i] == 0)
        return makeStatus(TESSEL_INVALID_ARGUMENT,
                          std::string(name) + ": the " +
                              (config->grid[i] == 0 ? "grid" : "block") +
                              " extent " + "xyz"[i] + " is 0");
    tessel_cuda_device &device = *function->module->device;
    if (device.context != stream->device->context)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        std::string(name) + ": the kernel is on device " +
                            std::to_string(device.ordinal) +
                            ", the stream on device " +
                            std::to_string(stream->device->ordinal));
    if (tessel_status status = makeCurrent(device))
      return status;
    return TESSEL_CU(*device.driver, cuLaunchKernel, function->function,
                     config->grid[0], config->grid[1], config->grid[2],
                     config->block[0], config->block[1], config->block[2],
                     config->shared_memory_bytes, stream->stream, params,
                     nullptr);
  });
}

} // extern "C"
