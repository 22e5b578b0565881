//===- AdaptiveWindowTest.cpp - The window a latency target sets ----------===//
//
// The scheduler's policy under target_p99_us (runtime/src/core/
// adaptive_window.h) on made-up clocks and run times: when a batch forms,
// and what a batch of n rows is expected to take.
//
//===----------------------------------------------------------------------===//

#include "core/adaptive_window.h"

#include <gtest/gtest.h>

using tessel::runtime::batching::AdaptiveWindow;
using Clock = AdaptiveWindow::Clock;
using Micros = AdaptiveWindow::Micros;
using std::chrono::milliseconds;

namespace {

const Clock::time_point kStart = Clock::time_point() + std::chrono::hours(1);

/// Arrivals `gap` apart, the last at `last`.
void arrive(AdaptiveWindow &window, Clock::time_point last, Micros gap,
            int count = AdaptiveWindow::kHistory) {
  for (int i = count - 1; i >= 0; --i)
    window.recordArrival(last - i * gap);
}

TEST(AdaptiveWindow, BeforeAnyRunTheFixedWindowHolds) {
  AdaptiveWindow window(milliseconds(200), {1, 4, 8});
  arrive(window, kStart, milliseconds(1));
  EXPECT_FALSE(window.runTime(8));
  AdaptiveWindow::Decision d =
      window.decide(kStart, kStart, 3, 8, false, Micros(2000));
  EXPECT_FALSE(d.now);
  EXPECT_EQ(d.wakeAt, kStart + Micros(2000));
  EXPECT_TRUE(
      window.decide(kStart + Micros(2000), kStart, 3, 8, false, Micros(2000))
          .now);
  // A window longer than the target's budget waits the budget.
  EXPECT_EQ(window.decide(kStart, kStart, 3, 8, false, std::chrono::seconds(100))
                .wakeAt,
            kStart + milliseconds(180));
}

TEST(AdaptiveWindow, AFullBatchFormsAtOnce) {
  AdaptiveWindow window(milliseconds(200), {1, 4, 8});
  EXPECT_TRUE(window.decide(kStart, kStart, 8, 8, false, Micros(2000)).now);
  EXPECT_TRUE(window.decide(kStart, kStart, 9, 8, false, Micros(2000)).now);
}

// p99 <= 200 ms, 50 ms per batch of 8: with requests 1 ms apart the oldest
// may wait 0.9 x 200 - 50 = 130 ms, while requests keep coming (the window
// looks again 2 ms after the last one: twice the median gap).
TEST(AdaptiveWindow, DenseArrivalsWaitWhatTheTargetLeaves) {
  AdaptiveWindow window(milliseconds(200), {1, 4, 8});
  window.recordRun(8, milliseconds(50));
  arrive(window, kStart, milliseconds(1));
  AdaptiveWindow::Decision d =
      window.decide(kStart, kStart, 3, 8, false, Micros(2000));
  EXPECT_FALSE(d.now);
  EXPECT_EQ(d.wakeAt, kStart + milliseconds(2));
  // Still arriving 1 ms apart at 129 ms: wait; at 130 ms: form it.
  arrive(window, kStart + milliseconds(129), milliseconds(1));
  d = window.decide(kStart + milliseconds(129), kStart, 3, 8, false,
                    Micros(2000));
  EXPECT_FALSE(d.now);
  EXPECT_EQ(d.wakeAt, kStart + milliseconds(130));
  EXPECT_TRUE(window
                  .decide(kStart + milliseconds(130), kStart, 3, 8, false,
                          Micros(2000))
                  .now);
}

// Closed-loop clients: 4 requests microseconds apart, then nothing until
// their answers: once no request came for twice the median gap, the batch
// forms, though the target would let it wait 130 ms.
TEST(AdaptiveWindow, PausedArrivalsFormTheBatch) {
  AdaptiveWindow window(milliseconds(200), {1, 4, 8});
  window.recordRun(8, milliseconds(50));
  for (int round = 0; round < 4; ++round)
    arrive(window, kStart - milliseconds(20) * (3 - round), Micros(5), 4);
  EXPECT_EQ(window.medianGap(), Micros(5));
  AdaptiveWindow::Decision d =
      window.decide(kStart, kStart, 4, 8, false, Micros(2000));
  EXPECT_FALSE(d.now);
  EXPECT_EQ(d.wakeAt, kStart + Micros(10));
  EXPECT_TRUE(
      window.decide(kStart + Micros(10), kStart, 4, 8, false, Micros(2000))
          .now);
}

TEST(AdaptiveWindow, SparseArrivalsFormTheBatchAtOnce) {
  AdaptiveWindow window(milliseconds(200), {1, 4, 8});
  window.recordRun(8, milliseconds(50));
  // One request every 150 ms: none is expected within the 130 ms left.
  arrive(window, kStart, milliseconds(150));
  EXPECT_TRUE(window.decide(kStart, kStart, 1, 8, false, Micros(2000)).now);
  // Fewer than two arrivals: no rate, no reason to wait.
  AdaptiveWindow fresh(milliseconds(200), {1, 4, 8});
  fresh.recordRun(8, milliseconds(50));
  fresh.recordArrival(kStart);
  EXPECT_TRUE(fresh.decide(kStart, kStart, 1, 8, false, Micros(2000)).now);
}

TEST(AdaptiveWindow, LowPriorityRequestsHaveTwiceTheTarget) {
  AdaptiveWindow window(milliseconds(200), {1, 4, 8});
  window.recordRun(8, milliseconds(50));
  arrive(window, kStart, milliseconds(1));
  EXPECT_EQ(window.budget(false), milliseconds(180));
  EXPECT_EQ(window.budget(true), milliseconds(360));
  // While requests keep coming 1 ms apart, it waits until 310 ms.
  arrive(window, kStart + milliseconds(309), milliseconds(1));
  EXPECT_EQ(window
                .decide(kStart + milliseconds(309), kStart, 3, 8, true,
                        Micros(2000))
                .wakeAt,
            kStart + milliseconds(310));
}

TEST(AdaptiveWindow, ABatchSlowerThanTheTargetFormsAtOnce) {
  AdaptiveWindow window(milliseconds(40), {8});
  window.recordRun(8, milliseconds(50));
  arrive(window, kStart, Micros(10));
  EXPECT_TRUE(window.decide(kStart, kStart, 2, 8, false, Micros(2000)).now);
}

// Rows run as the scheduler runs them: 7 on batch sizes 1, 4 and 8 is
// 4 + 1 + 1 + 1; a model not timed yet scales the nearest timed one.
TEST(AdaptiveWindow, RunTimeFollowsTheSchedulersChunks) {
  AdaptiveWindow window(milliseconds(200), {1, 4, 8});
  window.recordRun(8, milliseconds(40));
  EXPECT_EQ(window.runTime(8), milliseconds(40));
  EXPECT_EQ(window.runTime(16), milliseconds(80));
  // 4: 40 x 4 / 8; 1: 40 / 8.
  EXPECT_EQ(window.runTime(7), milliseconds(20 + 3 * 5));
  // Once batch 1 is timed, it is the nearest to 4: 2 x 4.
  window.recordRun(1, milliseconds(2));
  EXPECT_EQ(window.runTime(7), milliseconds(8 + 3 * 2));
  // Below the smallest model: one run of it.
  AdaptiveWindow padded(milliseconds(200), {4});
  padded.recordRun(4, milliseconds(8));
  EXPECT_EQ(padded.runTime(3), milliseconds(8));
}

TEST(AdaptiveWindow, TheSlowestRecentRunCounts) {
  AdaptiveWindow window(milliseconds(200), {8});
  window.recordRun(8, milliseconds(30));
  window.recordRun(8, milliseconds(90));
  window.recordRun(8, milliseconds(40));
  EXPECT_EQ(window.runTime(8), milliseconds(90));
  // Pushed out of the last kHistory runs.
  for (size_t i = 0; i < AdaptiveWindow::kHistory; ++i)
    window.recordRun(8, milliseconds(35));
  EXPECT_EQ(window.runTime(8), milliseconds(35));
}

TEST(AdaptiveWindow, TheArrivalGapIsTheRecentMean) {
  AdaptiveWindow window(milliseconds(200), {8});
  EXPECT_FALSE(window.arrivalGap());
  arrive(window, kStart, milliseconds(3), 5);
  EXPECT_EQ(window.arrivalGap(), milliseconds(3));
  // Older arrivals leave the history.
  arrive(window, kStart + milliseconds(100), Micros(500));
  EXPECT_EQ(window.arrivalGap(), Micros(500));
}

} // namespace
