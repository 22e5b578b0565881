//===- stream.h - Streams and the markers events stand for ------*- C++ -*-===//
//
// Internal to the runtime library.
//
// A Stream is an in-order queue of items (runs, event records, event waits)
// served by the thread pool. At most one pool task serves a stream at a time
// (`scheduled`); it runs one item and, when more are queued, posts itself
// again behind the other streams' tasks, so streams share the workers fairly.
// A wait on a marker that has not completed parks the stream without holding
// a thread: the marker's completion posts the stream's next step.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_STREAM_H
#define TESSEL_RUNTIME_CORE_STREAM_H

#include "tessel/runtime.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace tessel::runtime {

/// A point in one stream's queue: completes once every item queued on the
/// stream before it has run. Each record of an event makes a new Marker.
class Marker {
public:
  bool done() const;
  /// Blocks until done.
  void wait() const;
  /// Marks it done, wakes waiters and runs the callbacks (on this thread).
  void complete();
  /// Stores `callback` to run when the marker completes and returns true;
  /// returns false, storing nothing, when it is done already. May throw
  /// std::bad_alloc.
  bool callWhenDone(std::function<void()> callback);

private:

  mutable std::mutex mutex;
  mutable std::condition_variable completed;
  bool isDone = false;
  std::vector<std::function<void()>> callbacks;
};

class Stream : public std::enable_shared_from_this<Stream> {
public:
  ~Stream();

  /// Queues a run of `session` (retained until the run is over) with the
  /// input data pointers followed by the output data pointers, of `batch`
  /// samples (1 for a static model) and `length` (0 without a padded
  /// dimension; see runEntry).
  tessel_status enqueueRun(tessel_session *session,
                           std::vector<void *> pointers, int64_t batch,
                           int64_t length);
  /// Queues the completion of `marker`, or completes it at once when the
  /// stream has nothing queued or running.
  tessel_status enqueueRecord(std::shared_ptr<Marker> marker);
  /// Makes later items wait for `marker` (which is not done).
  tessel_status enqueueWait(std::shared_ptr<Marker> marker);

  /// Waits for every item queued before the call; returns and clears the
  /// first error since the last call.
  tessel_status synchronize();

private:
  /// Names this stream's track in a trace ("stream N").
  const uint64_t traceNumber = nextTraceNumber();
  static uint64_t nextTraceNumber();
  struct Item {
    enum class Kind { Run, Record, Wait } kind = Kind::Run;
    tessel_session *session = nullptr; // Run: one reference
    std::vector<void *> pointers;      // Run
    int64_t batch = 1;                 // Run
    int64_t length = 0;                // Run
    std::shared_ptr<Marker> marker;    // Record, Wait
    uint64_t traceId = 0;              // Run, when traced from its enqueue

    Item() = default;
    Item(Item &&other) noexcept;
    Item &operator=(Item &&other) noexcept;
    ~Item();
  };

  tessel_status enqueue(Item item);
  /// Runs from a pool task: executes the next item.
  void step();
  /// Counts one item done, keeps `error`, and posts the next step or goes
  /// idle. Returns true when the next step could not be posted and must run
  /// on the calling thread. Called with `mutex` unlocked.
  bool finishItem(tessel_status error);
  /// Posts step() to the pool; with `mutex` held.
  bool post();

  std::mutex mutex;
  std::condition_variable progress;
  std::deque<Item> queue;
  bool scheduled = false; // a step is posted, running, or parked on a wait
  uint64_t submitted = 0; // items ever queued
  uint64_t finished = 0;  // items ever done; runs in order, so a prefix
  tessel_status firstError = nullptr;
  uint64_t laterErrors = 0;
};

} // namespace tessel::runtime

/// The C handle: the caller's reference to the stream. Pool tasks and
/// marker callbacks hold their own, so the stream outlives the handle until
/// they are done.
struct tessel_stream {
  std::shared_ptr<tessel::runtime::Stream> stream;
};

/// The C handle of an event: the marker of its latest record (none yet:
/// complete).
struct tessel_event {
  std::mutex mutex;
  std::shared_ptr<tessel::runtime::Marker> latest;

  std::shared_ptr<tessel::runtime::Marker> current() {
    std::lock_guard<std::mutex> lock(mutex);
    return latest;
  }
};

#endif // TESSEL_RUNTIME_CORE_STREAM_H
