//===- DynamicBatchUtil.h - The dynamic-batch fixture's tensors -*- C++ -*-===//
//
// Buffers for fixtures/dynamic_batch_model.c (x float32[B,3], bias
// float32[B,1] -> y float32[B,3], batch int32[B,1]) and its exported hooks.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_UNITTESTS_RUNTIME_DYNAMICBATCHUTIL_H
#define TESSEL_UNITTESTS_RUNTIME_DYNAMICBATCHUTIL_H

#include "tessel/runtime.h"

#include <cstdint>
#include <dlfcn.h>
#include <vector>

namespace tessel::test {

/// The tensors of one run of `samples` samples (0 allowed), with shapes
/// and sizes a test may break. x[r] = {r, r + 0.5, r + 0.25}, bias[r] =
/// 10 * r; y and batch start at -7.
struct DynamicRows {
  explicit DynamicRows(int64_t samples)
      : x(size_t(3 * samples)), bias(size_t(samples)),
        y(size_t(3 * samples), -7.0f),
        batch(size_t(samples), -7), xShape{samples, 3}, biasShape{samples, 1},
        yShape{samples, 3}, batchShape{samples, 1},
        xBytes(x.size() * sizeof(float)),
        biasBytes(bias.size() * sizeof(float)),
        yBytes(y.size() * sizeof(float)),
        batchBytes(batch.size() * sizeof(int32_t)) {
    for (int64_t r = 0; r < samples; ++r) {
      x[size_t(3 * r)] = float(r);
      x[size_t(3 * r + 1)] = float(r) + 0.5f;
      x[size_t(3 * r + 2)] = float(r) + 0.25f;
      bias[size_t(r)] = 10.0f * float(r);
    }
  }
  std::vector<tessel_tensor_view> inputs() {
    return {{x.data(), TESSEL_DTYPE_F32, 2, xShape, xBytes},
            {bias.data(), TESSEL_DTYPE_F32, 2, biasShape, biasBytes}};
  }
  std::vector<tessel_tensor_view> outputs() {
    return {{y.data(), TESSEL_DTYPE_F32, 2, yShape, yBytes},
            {batch.data(), TESSEL_DTYPE_I32, 2, batchShape, batchBytes}};
  }
  /// Whether every row of y is x + bias.
  bool correct() const {
    for (size_t i = 0; i < y.size(); ++i)
      if (y[i] != x[i] + bias[i / 3])
        return false;
    return true;
  }

  std::vector<float> x, bias, y;
  std::vector<int32_t> batch;
  int64_t xShape[2], biasShape[2], yShape[2], batchShape[2];
  size_t xBytes, biasBytes, yBytes, batchBytes;
};

/// The fixture's log, through its exported hooks (the test opens the same
/// file, so it shares the state of the runtime's copy).
class DynamicHooks {
public:
  DynamicHooks() = default;
  DynamicHooks(const DynamicHooks &) = delete;
  DynamicHooks &operator=(const DynamicHooks &) = delete;
  ~DynamicHooks() { close(); }

  /// Opens the fixture at `path` and clears its log.
  void open(const char *path) {
    close();
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      return;
    logFn = reinterpret_cast<int (*)(int *, int)>(
        dlsym(handle, "dynamic_fixture_log"));
    rowsFn =
        reinterpret_cast<long (*)()>(dlsym(handle, "dynamic_fixture_rows"));
    resetFn =
        reinterpret_cast<void (*)()>(dlsym(handle, "dynamic_fixture_reset"));
    reset();
  }
  void close() {
    if (handle)
      dlclose(handle);
    handle = nullptr;
  }
  /// The batch of every entry called since the reset, in order.
  std::vector<int> log() const {
    std::vector<int> out(4096);
    out.resize(size_t(logFn ? logFn(out.data(), int(out.size())) : 0));
    return out;
  }
  long rows() const { return rowsFn ? rowsFn() : -1; }
  void reset() {
    if (resetFn)
      resetFn();
  }

private:
  void *handle = nullptr;
  int (*logFn)(int *, int) = nullptr;
  long (*rowsFn)() = nullptr;
  void (*resetFn)() = nullptr;
};

} // namespace tessel::test

#endif // TESSEL_UNITTESTS_RUNTIME_DYNAMICBATCHUTIL_H
