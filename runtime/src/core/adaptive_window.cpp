//===- adaptive_window.cpp - A batching window set by a latency target ----===//
//
// See adaptive_window.h.
//
//===----------------------------------------------------------------------===//

#include "adaptive_window.h"

#include <algorithm>
#include <cmath>

using namespace tessel::runtime::batching;

AdaptiveWindow::AdaptiveWindow(Micros target, std::vector<int64_t> batchSizes)
    : target(target) {
  for (int64_t batch : batchSizes) {
    Runs runs;
    runs.batch = batch;
    models.push_back(runs);
  }
}

void AdaptiveWindow::recordArrival(Clock::time_point at) {
  arrivals[nextArrival] = at;
  nextArrival = (nextArrival + 1) % kHistory;
  arrivalCount = std::min(arrivalCount + 1, kHistory);
}

void AdaptiveWindow::recordRun(int64_t batchSize, Micros took) {
  for (Runs &runs : models) {
    if (runs.batch != batchSize)
      continue;
    runs.micros[runs.next] = std::max<int64_t>(took.count(), 0);
    runs.next = (runs.next + 1) % kHistory;
    runs.count = std::min(runs.count + 1, kHistory);
  }
}

std::optional<int64_t> AdaptiveWindow::slowest(size_t m) const {
  const Runs &runs = models[m];
  if (runs.count == 0)
    return std::nullopt;
  return *std::max_element(runs.micros.begin(),
                           runs.micros.begin() + runs.count);
}

std::optional<int64_t> AdaptiveWindow::runMicros(size_t m) const {
  if (std::optional<int64_t> own = slowest(m))
    return own;
  // The nearest measured model, scaled by the batch sizes.
  std::optional<size_t> nearest;
  for (size_t other = 0; other < models.size(); ++other) {
    if (!slowest(other))
      continue;
    auto distance = [&](size_t i) {
      return std::abs(models[i].batch - models[m].batch);
    };
    if (!nearest || distance(other) < distance(*nearest))
      nearest = other;
  }
  if (!nearest)
    return std::nullopt;
  return int64_t(std::ceil(double(*slowest(*nearest)) *
                           double(models[m].batch) /
                           double(models[*nearest].batch)));
}

std::optional<AdaptiveWindow::Micros>
AdaptiveWindow::runTime(size_t rows) const {
  if (models.empty())
    return std::nullopt;
  int64_t total = 0;
  while (rows > 0) {
    size_t chosen = 0;
    for (size_t m = 0; m < models.size(); ++m)
      if (size_t(models[m].batch) <= rows)
        chosen = m;
    std::optional<int64_t> run = runMicros(chosen);
    if (!run)
      return std::nullopt;
    total += *run;
    rows -= std::min(rows, size_t(models[chosen].batch));
  }
  return Micros(total);
}

std::optional<AdaptiveWindow::Micros> AdaptiveWindow::arrivalGap() const {
  if (arrivalCount < 2)
    return std::nullopt;
  Clock::time_point first = *std::min_element(
      arrivals.begin(), arrivals.begin() + arrivalCount);
  Clock::time_point last = *std::max_element(
      arrivals.begin(), arrivals.begin() + arrivalCount);
  return std::chrono::duration_cast<Micros>(last - first) /
         int64_t(arrivalCount - 1);
}

std::optional<AdaptiveWindow::Micros> AdaptiveWindow::medianGap() const {
  if (arrivalCount < 2)
    return std::nullopt;
  std::vector<Clock::time_point> times(arrivals.begin(),
                                       arrivals.begin() + arrivalCount);
  std::sort(times.begin(), times.end());
  std::vector<Micros> gaps;
  for (size_t i = 1; i < times.size(); ++i)
    gaps.push_back(std::chrono::duration_cast<Micros>(times[i] - times[i - 1]));
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  return gaps[gaps.size() / 2];
}

std::optional<AdaptiveWindow::Clock::time_point>
AdaptiveWindow::lastArrival() const {
  if (arrivalCount == 0)
    return std::nullopt;
  return *std::max_element(arrivals.begin(), arrivals.begin() + arrivalCount);
}

AdaptiveWindow::Micros AdaptiveWindow::budget(bool lowPriority) const {
  auto share = Micros(int64_t(double(target.count()) * kBudgetShare));
  return lowPriority ? 2 * share : share;
}

AdaptiveWindow::Decision
AdaptiveWindow::decide(Clock::time_point now, Clock::time_point oldest,
                       size_t queued, size_t maxBatch, bool lowPriority,
                       Micros fallbackWindow) const {
  Decision decision;
  if (queued >= maxBatch) {
    decision.now = true;
    return decision;
  }
  std::optional<Micros> full = runTime(maxBatch);
  if (!full) {
    // Nothing measured yet: the fixed window, within the budget.
    decision.wakeAt = oldest + std::min(fallbackWindow, budget(lowPriority));
    decision.now = now >= decision.wakeAt;
    return decision;
  }
  // The latest start of a full batch that still meets the oldest request's
  // budget (at once when even that does not).
  Micros slack = budget(lowPriority) - *full;
  Clock::time_point latest = oldest + std::max(slack, Micros(0));
  std::optional<Micros> gap = arrivalGap();
  // Sparse arrivals: no other request is expected before the batch must
  // start, so waiting only adds latency.
  if (now >= latest || !gap || now + *gap > latest) {
    decision.now = true;
    return decision;
  }
  // Paused arrivals: nothing came for twice the median gap.
  Clock::time_point paused = *lastArrival() + 2 * *medianGap();
  if (now >= paused) {
    decision.now = true;
    return decision;
  }
  decision.wakeAt = std::min(latest, paused);
  return decision;
}
