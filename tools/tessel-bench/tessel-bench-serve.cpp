//===- tessel-bench-serve.cpp - Throughput of streams and the scheduler ---===//
//
//   tessel-bench-serve streams MODEL.so [--streams N] [--threads T]
//                      [--runs R] [--warmup W] [--repeats K] [--json]
//   tessel-bench-serve scheduler MODEL.so... [--clients C] [--requests R]
//                      [--max-batch N] [--window-us W] [--queue-limit Q]
//                      [--concurrent-batches K] [--target-p99-us P]
//                      [--rate Q --burst B] [--threads T] [--json]
//   tessel-bench-serve cache MODEL.so [--requests R] [--repeat-share P]
//                      [--cache-bytes B] [--threads T] [--repeats K] [--json]
//
// `streams` queues R runs of one session round-robin on N streams and
// reports runs per second (the median of K repeats). `scheduler` serves the
// requests of C closed-loop clients (each submits one sample, waits for it,
// submits the next) through a tessel::Scheduler over the given models (one
// network compiled per batch size), and reports requests per second, the
// request latency's p50 and p99, and the mean batch; with --rate, requests
// arrive open loop instead (Q a second on average, in bursts of B), each
// timed from its arrival to its completion. `cache` runs one
// stream of R requests, a share P of which repeat an earlier request's
// inputs, through a session without and one with a result cache, and reports
// both throughputs, the cache's hits, misses and evictions, and whether every
// output of the cached session equals the full run's, byte for byte. Inputs
// are seeded random values. Exit codes: 0 ok, 1 a cached output differs, 2
// bad usage, 3 a load or run failure.
// See docs/runtime.md.
//
//===----------------------------------------------------------------------===//

#include "build_info.h"
#include "tessel/runtime.hpp"
#include "tessel/scheduler.hpp"
#include "tessel/tensor_io.hpp"

#include "BenchStats.h"
#include "CommandLine.h"
#include "MachineInfo.h"
#include "RandomInputs.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace tessel;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char *kToolName = "tessel-bench-serve";
enum ExitCode : int {
  kExitOk = 0,
  kExitMismatch = 1,
  kExitUsage = 2,
  kExitRuntime = 3
};

const char *const kUsage =
    R"(usage: tessel-bench-serve streams MODEL.so [options]
       tessel-bench-serve scheduler MODEL.so [MODEL.so...] [options]
       tessel-bench-serve cache MODEL.so [options]

streams: the throughput of runs of one session queued on several streams.
  --streams N             streams (default 2)
  --runs R                timed runs in all (default 200)
  --warmup W              untimed runs per stream first (default 10)
  --repeats K             timed repeats; the median is reported (default 3)

scheduler: a batching scheduler under closed-loop clients. The models are
one network compiled for several batch sizes (--input-shape), or one
artifact with a dynamic batch (--dim-range), alone.
  --clients C             concurrent clients (default 16)
  --requests R            timed requests in all (default 2000)
  --max-batch N           the scheduler's max batch (default: the largest
                          model's batch, or the dynamic batch's maximum)
  --window-us W           the batching window in microseconds (default
                          2000; -1: none)
  --queue-limit Q         the queue limit (default 1024)
  --concurrent-batches K  batches running at once (default 1)
  --target-p99-us P       the scheduler's latency target (default 0: none;
                          it then sets its own window)
  --rate Q                open loop: Q requests a second arrive whether or
                          not earlier ones have completed (default 0: the
                          closed-loop clients); each request's latency runs
                          from its arrival
  --burst B               open loop: requests arrive in bursts of B at once,
                          the bursts' starts exponentially spaced, B/Q
                          seconds apart on average (default 1)

cache: one stream of requests through a session without and one with a
result cache; every output of the cached session must equal the full run's.
  --requests R            requests in the stream (default 200)
  --warmup W              untimed runs first (default 10)
  --repeat-share P        the share of requests that repeat an earlier
                          request's inputs, in [0, 1] (default 0.5)
  --cache-bytes B         the cache's bound (default 268435456, 256 MiB)
  --repeats K             timed repeats; the median is reported (default 3)

all:
  --threads T             threads of each run's parallel loops (default 1;
                          0 = all cores)
  --seed S                seed of the random inputs (default 0)
  --json                  print one JSON object
  -h, --help              this text
  --version               the release, git revision and runtime
)";

struct Options {
  std::string mode;
  std::vector<std::string> models;
  long streams = 2, runs = 200, warmup = 10, repeats = 3;
  long clients = 16, requests = 0, maxBatch = 0, windowUs = 2000;
  long queueLimit = 0, concurrentBatches = 0, threads = 1, seed = 0;
  long cacheBytes = 256L << 20;
  long targetP99Us = 0, rate = 0, burst = 1;
  double repeatShare = 0.5;
  bool json = false;
};

int usageError(const std::string &message) {
  std::fprintf(stderr, "%s: error: %s\n(see %s --help)\n", kToolName,
               message.c_str(), kToolName);
  return kExitUsage;
}

int runtimeError(const Status &status) {
  std::fprintf(stderr, "%s: %s\n", kToolName, status.message());
  return kExitRuntime;
}

int parseArgs(int argc, char **argv, Options &opts) {
  const std::map<std::string, std::pair<long *, long>> integers = {
      {"--streams", {&opts.streams, 1}},
      {"--runs", {&opts.runs, 1}},
      {"--warmup", {&opts.warmup, 0}},
      {"--repeats", {&opts.repeats, 1}},
      {"--clients", {&opts.clients, 1}},
      {"--requests", {&opts.requests, 1}},
      {"--max-batch", {&opts.maxBatch, 1}},
      {"--window-us", {&opts.windowUs, -1}},
      {"--queue-limit", {&opts.queueLimit, 1}},
      {"--concurrent-batches", {&opts.concurrentBatches, 1}},
      {"--threads", {&opts.threads, 0}},
      {"--seed", {&opts.seed, 0}},
      {"--cache-bytes", {&opts.cacheBytes, 1}},
      {"--target-p99-us", {&opts.targetP99Us, 0}},
      {"--rate", {&opts.rate, 1}},
      {"--burst", {&opts.burst, 1}},
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return kExitOk;
    }
    if (arg == "--version") {
      std::fputs(tessel::build::versionText("tessel-bench-serve", tessel_runtime_version(),
                                            tessel_runtime_revision())
                     .c_str(),
                 stdout);
      return kExitOk;
    }
    if (arg == "--json") {
      opts.json = true;
    } else if (arg == "--repeat-share") {
      if (i + 1 >= argc ||
          !bench::parseDouble(argv[++i], 0.0, 1.0, opts.repeatShare))
        return usageError(arg + " needs a number in [0, 1]");
    } else if (auto it = integers.find(arg); it != integers.end()) {
      long minimum = it->second.second;
      if (i + 1 >= argc ||
          !bench::parseLong(argv[++i], minimum, *it->second.first))
        return usageError(arg +
                          " needs an integer >= " + std::to_string(minimum));
    } else if (arg.rfind("--", 0) == 0) {
      return usageError("unknown option '" + arg + "'");
    } else if (opts.mode.empty()) {
      if (arg != "streams" && arg != "scheduler" && arg != "cache")
        return usageError(
            "the mode is 'streams', 'scheduler' or 'cache', not '" + arg + "'");
      opts.mode = arg;
    } else {
      opts.models.push_back(arg);
    }
  }
  if (opts.mode.empty())
    return usageError("no mode given");
  if (opts.requests == 0)
    opts.requests = opts.mode == "cache" ? 200 : 2000;
  if (opts.models.empty())
    return usageError("no model given");
  if (opts.mode != "scheduler" && opts.models.size() != 1)
    return usageError(opts.mode + " takes one model");
  return -1;
}

/// Random tensors of the given descriptions, with `leading` replacing the
/// leading dimension when >= 0.
std::vector<io::HostTensor> randomTensors(const Model &model, bool outputs,
                                          int64_t leading,
                                          std::mt19937_64 &rng) {
  size_t count = outputs ? model.numOutputs() : model.numInputs();
  std::vector<io::HostTensor> tensors(count);
  for (size_t i = 0; i < count; ++i) {
    const tessel_tensor_desc &desc =
        outputs ? *model.output(i) : *model.input(i);
    io::HostTensor &tensor = tensors[i];
    tensor.dtype = desc.dtype;
    tensor.shape.assign(desc.shape, desc.shape + desc.rank);
    if (leading >= 0 && !tensor.shape.empty())
      tensor.shape[0] = leading;
    tensor.bytes.resize(size_t(tensor.numElements()) *
                        tessel_dtype_size(desc.dtype));
    if (!outputs) {
      const void *fixed = model.inputFixedValue(i);
      if (fixed && leading < 0)
        std::memcpy(tensor.bytes.data(), fixed, tensor.bytes.size());
      else
        bench::fillRandom(tensor, rng);
    }
  }
  return tensors;
}

std::vector<tessel_tensor_view> views(std::vector<io::HostTensor> &tensors) {
  std::vector<tessel_tensor_view> out;
  for (io::HostTensor &tensor : tensors)
    out.push_back(tensor.view());
  return out;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return bench::quantile(values, 0.5);
}

int runStreams(const Options &opts, const bench::MachineInfo &machine) {
  Model model;
  if (Status status = Model::load(opts.models[0], model); !status.ok())
    return runtimeError(status);
  Session session;
  if (Status status = Session::create(model, session, int32_t(opts.threads));
      !status.ok())
    return runtimeError(status);
  std::mt19937_64 rng(uint64_t(opts.seed));
  struct PerStream {
    Stream stream;
    std::vector<io::HostTensor> inputs, outputs;
    std::vector<tessel_tensor_view> inputViews, outputViews;
  };
  std::vector<PerStream> streams(size_t(opts.streams));
  for (PerStream &s : streams) {
    if (Status status = Stream::create(s.stream); !status.ok())
      return runtimeError(status);
    s.inputs = randomTensors(model, false, -1, rng);
    s.outputs = randomTensors(model, true, -1, rng);
    s.inputViews = views(s.inputs);
    s.outputViews = views(s.outputs);
  }
  auto queueRuns = [&](long runs) -> int {
    for (long r = 0; r < runs; ++r) {
      PerStream &s = streams[size_t(r) % streams.size()];
      if (Status status =
              session.runAsync(s.stream, s.inputViews, s.outputViews);
          !status.ok())
        return runtimeError(status);
    }
    for (PerStream &s : streams)
      if (Status status = s.stream.synchronize(); !status.ok())
        return runtimeError(status);
    return kExitOk;
  };
  if (int rc = queueRuns(opts.warmup * opts.streams))
    return rc;
  std::vector<double> throughputs;
  for (long k = 0; k < opts.repeats; ++k) {
    auto start = Clock::now();
    if (int rc = queueRuns(opts.runs))
      return rc;
    double seconds =
        std::chrono::duration<double>(Clock::now() - start).count();
    throughputs.push_back(double(opts.runs) / seconds);
  }
  double result = median(throughputs);
  if (!opts.json) {
    std::printf("%s: %ld stream(s), %d thread(s) per run: %.2f runs/s "
                "(median of %ld repeats of %ld runs; load average %.2f)\n",
                opts.models[0].c_str(), opts.streams, session.numThreads(),
                result, opts.repeats, opts.runs, machine.loadAverage);
    return kExitOk;
  }
  std::printf("{\"mode\": \"streams\", \"streams\": %ld, \"threads\": %d, "
              "\"runs\": %ld, \"repeats\": %ld, \"runs_per_s\": %.4f, "
              "\"pool_threads\": %d, \"load_average\": %.2f, "
              "\"tessel_revision\": \"%s\"}\n",
              opts.streams, session.numThreads(), opts.runs, opts.repeats,
              result, tessel_runtime_num_threads(), machine.loadAverage,
              tessel_runtime_revision());
  return kExitOk;
}

int runScheduler(const Options &opts, const bench::MachineInfo &machine) {
  std::vector<Model> models(opts.models.size());
  std::vector<const Model *> pointers;
  for (size_t m = 0; m < models.size(); ++m) {
    if (Status status = Model::load(opts.models[m], models[m]); !status.ok())
      return runtimeError(status);
    pointers.push_back(&models[m]);
  }
  Scheduler::Options options;
  options.max_batch = int32_t(opts.maxBatch);
  options.window_us = opts.windowUs;
  options.queue_limit = int32_t(opts.queueLimit);
  options.max_concurrent_batches = int32_t(opts.concurrentBatches);
  options.num_threads = int32_t(opts.threads);
  options.target_p99_us = opts.targetP99Us;
  Scheduler scheduler;
  if (Status status = Scheduler::create(pointers, options, scheduler);
      !status.ok())
    return runtimeError(status);

  std::atomic<bool> failed{false};
  std::vector<std::vector<double>> latencies(size_t(opts.clients));
  auto client = [&](size_t index, long requests, bool timed) {
    std::mt19937_64 rng(uint64_t(opts.seed) + index);
    std::vector<io::HostTensor> inputs =
        randomTensors(models[0], false, 1, rng);
    std::vector<io::HostTensor> outputs =
        randomTensors(models[0], true, 1, rng);
    std::vector<tessel_tensor_view> inputViews = views(inputs);
    std::vector<tessel_tensor_view> outputViews = views(outputs);
    for (long r = 0; r < requests && !failed; ++r) {
      auto start = Clock::now();
      Request request;
      Status status = scheduler.submit(inputViews, outputViews, request);
      if (status.ok())
        status = request.wait();
      if (!status.ok()) {
        if (!failed.exchange(true))
          std::fprintf(stderr, "%s: %s\n", kToolName, status.message());
        return;
      }
      if (timed)
        latencies[index].push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - start)
                .count());
    }
  };
  auto runClients = [&](long perClient, bool timed) {
    std::vector<std::thread> threads;
    for (size_t c = 0; c < size_t(opts.clients); ++c)
      threads.emplace_back(client, c, perClient, timed);
    for (std::thread &thread : threads)
      thread.join();
  };
  // Open loop: the requests arrive on a schedule (bursts exponentially
  // spaced) whatever is still running; one thread waits for them in
  // arrival order and times each from its arrival. Returns the requests
  // the full queue refused.
  auto openLoop = [&](long total, bool timed) -> long {
    std::mt19937_64 rng(uint64_t(opts.seed) + 7919);
    std::vector<io::HostTensor> inputs =
        randomTensors(models[0], false, 1, rng);
    std::vector<tessel_tensor_view> inputViews = views(inputs);
    struct Arrival {
      Request request;
      Clock::time_point at;
      std::vector<io::HostTensor> outputs;
    };
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<std::unique_ptr<Arrival>> pending;
    bool done = false;
    std::thread waiter([&] {
      while (true) {
        std::unique_ptr<Arrival> next;
        {
          std::unique_lock<std::mutex> lock(mutex);
          ready.wait(lock, [&] { return done || !pending.empty(); });
          if (pending.empty())
            return;
          next = std::move(pending.front());
          pending.pop_front();
        }
        Status status = next->request.wait();
        if (!status.ok()) {
          if (!failed.exchange(true))
            std::fprintf(stderr, "%s: %s\n", kToolName, status.message());
          continue;
        }
        if (timed)
          latencies[0].push_back(std::chrono::duration<double, std::milli>(
                                     Clock::now() - next->at)
                                     .count());
      }
    });
    std::exponential_distribution<double> gap(double(opts.rate) /
                                              double(opts.burst));
    long refused = 0;
    Clock::time_point at = Clock::now();
    for (long r = 0; r < total && !failed; ++r) {
      if (r > 0 && r % opts.burst == 0)
        at += std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(gap(rng)));
      std::this_thread::sleep_until(at);
      auto arrival = std::make_unique<Arrival>();
      arrival->at = at;
      arrival->outputs = randomTensors(models[0], true, 1, rng);
      std::vector<tessel_tensor_view> outputViews = views(arrival->outputs);
      Status status =
          scheduler.submit(inputViews, outputViews, arrival->request);
      if (status.code() == TESSEL_RESOURCE_EXHAUSTED) {
        ++refused;
        continue;
      }
      if (!status.ok()) {
        if (!failed.exchange(true))
          std::fprintf(stderr, "%s: %s\n", kToolName, status.message());
        break;
      }
      std::lock_guard<std::mutex> lock(mutex);
      pending.push_back(std::move(arrival));
      ready.notify_one();
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
    }
    ready.notify_one();
    waiter.join();
    return refused;
  };
  bool open = opts.rate > 0;
  if (open)
    openLoop(std::min<long>(opts.requests, 64), false);
  else
    runClients(4, false); // warm-up: every model, every workspace
  tessel_scheduler_stats before{};
  scheduler.stats(before);
  long perClient = (opts.requests + opts.clients - 1) / opts.clients;
  auto start = Clock::now();
  long refused = 0;
  if (open)
    refused = openLoop(opts.requests, true);
  else
    runClients(perClient, true);
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (failed)
    return kExitRuntime;
  tessel_scheduler_stats after{};
  scheduler.stats(after);

  std::vector<double> all;
  for (const auto &samples : latencies)
    all.insert(all.end(), samples.begin(), samples.end());
  bench::Summary summary = bench::summarize(all);
  double throughput = double(all.size()) / seconds;
  uint64_t batches = after.batches - before.batches;
  double meanBatch = batches ? double(all.size()) / double(batches) : 0;
  uint64_t padded = after.padded_rows - before.padded_rows;
  uint64_t misses = after.target_misses - before.target_misses;
  std::string load =
      open ? std::to_string(opts.rate) +
                 " requests/s open loop in bursts of " +
                 std::to_string(opts.burst)
           : std::to_string(opts.clients) + " clients";
  std::string sizes;
  for (size_t m = 0; m < scheduler.numModels(); ++m)
    sizes += (m ? "," : "") + std::to_string(scheduler.batchSize(m));
  // One artifact with a dynamic batch runs every size in its range.
  int64_t batchMin = 0, batchMax = 0;
  bool dynamic = models[0].batchRange(batchMin, batchMax);
  std::string range =
      std::to_string(batchMin) + ".." + std::to_string(batchMax);
  std::string over = dynamic
                         ? "a dynamic batch " +
                               std::string(models[0].descriptor()->batch_name) +
                               "=" + range
                         : "batch sizes " + sizes;
  if (!opts.json) {
    std::printf(
        "scheduler over %s, max batch %ld, window %ld "
        "us, target p99 %ld us, %s: %.1f requests/s, latency p50 %.3f ms "
        "p99 %.3f ms, mean batch %.2f, %llu padded rows, %llu past the "
        "target, %ld refused (load average %.2f)\n",
        over.c_str(),
        opts.maxBatch ? opts.maxBatch
                      : long(scheduler.batchSize(scheduler.numModels() - 1)),
        opts.windowUs, opts.targetP99Us, load.c_str(), throughput, summary.p50,
        summary.p99, meanBatch, (unsigned long long)padded,
        (unsigned long long)misses, refused, machine.loadAverage);
    return kExitOk;
  }
  std::printf(
      "{\"mode\": \"scheduler\", \"batch_sizes\": [%s], "
      "\"batch_range\": %s, \"max_batch\": %ld, \"window_us\": %ld, "
      "\"target_p99_us\": %ld, \"clients\": %ld, \"rate\": %ld, \"burst\": "
      "%ld, "
      "\"requests\": %zu, \"refused\": %ld, \"requests_per_s\": "
      "%.4f, \"p50_ms\": %.6f, \"p99_ms\": %.6f, \"mean_batch\": "
      "%.4f, \"padded_rows\": %llu, \"target_misses\": %llu, "
      "\"threads\": %ld, \"load_average\": %.2f, "
      "\"tessel_revision\": \"%s\"}\n",
      sizes.c_str(),
      dynamic ? ("[" + std::to_string(batchMin) + ", " +
                 std::to_string(batchMax) + "]")
                    .c_str()
              : "null",
      opts.maxBatch ? opts.maxBatch
                    : long(scheduler.batchSize(scheduler.numModels() - 1)),
      opts.windowUs, opts.targetP99Us, open ? 0 : opts.clients, opts.rate,
      opts.burst, all.size(), refused, throughput, summary.p50, summary.p99,
      meanBatch, (unsigned long long)padded, (unsigned long long)misses,
      opts.threads, machine.loadAverage, tessel_runtime_revision());
  return kExitOk;
}

/// The bytes of `tensors`, one after another.
std::vector<unsigned char>
concatenated(const std::vector<io::HostTensor> &tensors) {
  std::vector<unsigned char> out;
  for (const io::HostTensor &tensor : tensors)
    out.insert(out.end(), tensor.bytes.begin(), tensor.bytes.end());
  return out;
}

int runCache(const Options &opts, const bench::MachineInfo &machine) {
  Model model;
  if (Status status = Model::load(opts.models[0], model); !status.ok())
    return runtimeError(status);
  // The stream: a request repeats, with probability P, the inputs of an
  // earlier request (uniformly among the distinct ones so far), otherwise
  // it has fresh random inputs.
  std::mt19937_64 rng(uint64_t(opts.seed));
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::vector<std::vector<io::HostTensor>> distinct;
  std::vector<size_t> stream(size_t(opts.requests));
  size_t repeated = 0;
  for (size_t &request : stream) {
    if (!distinct.empty() && coin(rng) < opts.repeatShare) {
      request = size_t(rng() % distinct.size());
      ++repeated;
    } else {
      request = distinct.size();
      distinct.push_back(randomTensors(model, false, -1, rng));
    }
  }
  std::vector<std::vector<tessel_tensor_view>> inputViews;
  for (auto &inputs : distinct)
    inputViews.push_back(views(inputs));
  std::vector<io::HostTensor> outputs = randomTensors(model, true, -1, rng);
  std::vector<tessel_tensor_view> outputViews = views(outputs);
  size_t entryBytes =
      concatenated(distinct[0]).size() + concatenated(outputs).size();

  // Runs the stream on `session`, keeping every request's outputs in
  // `results`; returns the requests per second, or < 0 after a failure.
  auto runStream = [&](Session &session,
                       std::vector<std::vector<unsigned char>> &results) {
    results.assign(stream.size(), {});
    double seconds = 0;
    for (size_t r = 0; r < stream.size(); ++r) {
      auto start = Clock::now();
      Status status = session.run(inputViews[stream[r]], outputViews);
      seconds += std::chrono::duration<double>(Clock::now() - start).count();
      if (!status.ok()) {
        runtimeError(status);
        return -1.0;
      }
      results[r] = concatenated(outputs); // outside the timed run
    }
    return double(stream.size()) / seconds;
  };
  Session plain;
  if (Status status = Session::create(model, plain, int32_t(opts.threads));
      !status.ok())
    return runtimeError(status);
  for (long w = 0; w < opts.warmup; ++w)
    if (Status status = plain.run(inputViews[0], outputViews); !status.ok())
      return runtimeError(status);

  std::vector<double> plainRates, cachedRates;
  std::vector<std::vector<unsigned char>> full, fromCache;
  tessel_cache_stats stats{};
  size_t mismatches = 0;
  for (long k = 0; k < opts.repeats; ++k) {
    double rate = runStream(plain, full);
    if (rate < 0)
      return kExitRuntime;
    plainRates.push_back(rate);
    // A fresh cache per repeat.
    Session cached;
    if (Status status = Session::create(model, cached, int32_t(opts.threads),
                                        uint64_t(opts.cacheBytes));
        !status.ok())
      return runtimeError(status);
    rate = runStream(cached, fromCache);
    if (rate < 0)
      return kExitRuntime;
    cachedRates.push_back(rate);
    if (Status status = cached.cacheStats(stats); !status.ok())
      return runtimeError(status);
    for (size_t r = 0; r < stream.size(); ++r)
      mismatches += fromCache[r] != full[r];
  }
  double plainRate = median(plainRates), cachedRate = median(cachedRates);
  if (mismatches)
    std::fprintf(stderr,
                 "%s: %zu outputs of the cached session differ from the full "
                 "runs' (of %zu)\n",
                 kToolName, mismatches, stream.size() * size_t(opts.repeats));
  if (!opts.json) {
    std::printf(
        "%s: %zu requests, repeat share %.2f (%zu repeat an earlier "
        "request's inputs), %d thread(s): %.2f requests/s without a cache, "
        "%.2f with (%.2fx; median of %ld); %llu hits, %llu misses, %llu "
        "evictions (bound %ld bytes, %zu per entry); %s (load average "
        "%.2f)\n",
        opts.models[0].c_str(), stream.size(), opts.repeatShare, repeated,
        plain.numThreads(), plainRate, cachedRate, cachedRate / plainRate,
        opts.repeats, (unsigned long long)stats.hits,
        (unsigned long long)stats.misses, (unsigned long long)stats.evictions,
        opts.cacheBytes, entryBytes,
        mismatches ? "SOME OUTPUTS DIFFER"
                   : "every output equals the full run's",
        machine.loadAverage);
  } else {
    std::printf(
        "{\"mode\": \"cache\", \"requests\": %zu, \"repeat_share\": %.4f, "
        "\"repeated_requests\": %zu, \"distinct_inputs\": %zu, "
        "\"threads\": %d, \"cache_bytes\": %ld, \"entry_bytes\": %zu, "
        "\"repeats\": %ld, \"plain_requests_per_s\": %.4f, "
        "\"cached_requests_per_s\": %.4f, \"speedup\": %.4f, \"hits\": "
        "%llu, \"misses\": %llu, \"evictions\": %llu, \"mismatches\": %zu, "
        "\"load_average\": %.2f, \"tessel_revision\": \"%s\"}\n",
        stream.size(), opts.repeatShare, repeated, distinct.size(),
        plain.numThreads(), opts.cacheBytes, entryBytes, opts.repeats,
        plainRate, cachedRate, cachedRate / plainRate,
        (unsigned long long)stats.hits, (unsigned long long)stats.misses,
        (unsigned long long)stats.evictions, mismatches, machine.loadAverage,
        tessel_runtime_revision());
  }
  return mismatches ? kExitMismatch : kExitOk;
}

} // namespace

int main(int argc, char **argv) {
  Options opts;
  if (int rc = parseArgs(argc, argv, opts); rc >= 0)
    return rc;
  bench::MachineInfo machine = bench::readMachineInfo();
  if (opts.mode == "cache")
    return runCache(opts, machine);
  return opts.mode == "streams" ? runStreams(opts, machine)
                                : runScheduler(opts, machine);
}
