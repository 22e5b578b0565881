//===- RandomInputs.h - Seeded random input tensors -------------*- C++ -*-===//

#ifndef TESSEL_TOOLS_TESSEL_BENCH_RANDOMINPUTS_H
#define TESSEL_TOOLS_TESSEL_BENCH_RANDOMINPUTS_H

#include "tessel/tensor_io.hpp"

#include <random>

namespace tessel::bench {

/// Fills `tensor` (already sized) with seeded random values for its dtype:
/// floats uniform in [-1, 1) (halves exactly representable), integers
/// uniform in [0, 4), booleans 0/1.
void fillRandom(io::HostTensor &tensor, std::mt19937_64 &rng);

} // namespace tessel::bench

#endif // TESSEL_TOOLS_TESSEL_BENCH_RANDOMINPUTS_H
