//===- adaptive_window.h - A window set by a latency target -----*- C++ -*-===//
//
// With `target_p99_us`, the scheduler sets its own window: from its
// measurements of each batch size's run time and of the requests' arrival
// rate, it forms a batch when waiting longer could make the oldest request
// finish past the target, or at once when requests arrive too sparsely for
// another one to come before then, or have paused (a burst is over). The
// practitioners' rule: with p99 <= 200 ms and 50 ms per batch, wait at most
// 150 ms, less when arrivals are sparse.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_ADAPTIVE_WINDOW_H
#define TESSEL_RUNTIME_CORE_ADAPTIVE_WINDOW_H

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace tessel::runtime::batching {

class AdaptiveWindow {
public:
  using Clock = std::chrono::steady_clock;
  using Micros = std::chrono::microseconds;

  /// How many recent runs (per batch size) and arrivals the estimates read.
  static constexpr size_t kHistory = 16;
  /// The share of the target a request may spend queued and running; the
  /// rest covers what the estimates miss (a hand-off to the pool, a slower
  /// run than the recent ones).
  static constexpr double kBudgetShare = 0.9;

  /// `batchSizes`: the models' batch sizes, ascending.
  AdaptiveWindow(Micros target, std::vector<int64_t> batchSizes);

  /// A submission at `at`.
  void recordArrival(Clock::time_point at);
  /// A run of the model of `batchSize` rows that took `took`.
  void recordRun(int64_t batchSize, Micros took);

  /// The time `rows` rows take as the scheduler runs them (the largest
  /// model that fits, then the rest the same way; below the smallest, the
  /// smallest): each run the slowest of its model's recent runs, or, for a
  /// model not run yet, the nearest measured model's scaled by the batch
  /// sizes. Nullopt before any run was measured.
  std::optional<Micros> runTime(size_t rows) const;

  /// The mean gap between the recent arrivals; nullopt before two.
  std::optional<Micros> arrivalGap() const;
  /// The median gap between the recent arrivals (a burst's spacing, when
  /// they come in bursts); nullopt before two.
  std::optional<Micros> medianGap() const;
  /// The latest arrival; nullopt before one.
  std::optional<Clock::time_point> lastArrival() const;

  /// How long a request may take from submission to completion: the
  /// target's budget share, twice that for low priority (negative)
  /// requests, which may wait longer and form larger batches.
  Micros budget(bool lowPriority) const;

  struct Decision {
    /// Form the batch now; else wait until `wakeAt` (or an arrival).
    bool now = false;
    Clock::time_point wakeAt;
  };
  /// Whether `queued` requests (at most `maxBatch` per batch), the most
  /// urgent submitted at `oldest`, form a batch at `now`: when they fill
  /// it, when a full batch started later would finish past the budget of
  /// that request, when the next request is not expected before that
  /// point, or when arrivals have paused (none for twice the median gap:
  /// a burst, or closed-loop clients that all wait for their answers, is
  /// over). Before any run is measured, `fallbackWindow` (the scheduler's
  /// window_us) is the wait, at most the budget.
  Decision decide(Clock::time_point now, Clock::time_point oldest,
                  size_t queued, size_t maxBatch, bool lowPriority,
                  Micros fallbackWindow) const;

private:
  struct Runs {
    int64_t batch = 0;
    std::array<int64_t, kHistory> micros{};
    size_t count = 0, next = 0;
  };
  Micros target;
  std::vector<Runs> models; // ascending batch
  std::array<Clock::time_point, kHistory> arrivals{};
  size_t arrivalCount = 0, nextArrival = 0;

  /// The slowest recent run of model `m`, nullopt when it has none.
  std::optional<int64_t> slowest(size_t m) const;
  /// The estimate for one run of model `m`.
  std::optional<int64_t> runMicros(size_t m) const;
};

} // namespace tessel::runtime::batching

#endif // TESSEL_RUNTIME_CORE_ADAPTIVE_WINDOW_H
