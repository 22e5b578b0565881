//===- AccuracyBudget.cpp - Mixed precision chosen by a budget ------------===//

#include "AccuracyBudget.h"

#include "tessel/runtime.hpp"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

using namespace mlir::tessel;
using ::tessel::ErrorCode;

bool mlir::tessel::parseAccuracyBudget(const std::string &text,
                                       AccuracyBudget &out,
                                       std::string &error) {
  llvm::StringRef spec(text);
  auto [kind, value] = spec.split(':');
  double number;
  if (value.empty() || value.getAsDouble(number) || !std::isfinite(number)) {
    error = "--accuracy-budget '" + text +
            "': expected cosine:C, max-abs:X or top1:P";
    return false;
  }
  out.text = text;
  out.value = number;
  if (kind == "cosine") {
    out.kind = AccuracyBudget::Cosine;
    if (number > 1.0) {
      error = "--accuracy-budget '" + text +
              "' cannot be met even in full precision: a cosine similarity "
              "is at most 1";
      return false;
    }
    if (number <= 0.0) {
      error = "--accuracy-budget '" + text + "': C must be above 0";
      return false;
    }
    return true;
  }
  if (kind == "max-abs") {
    out.kind = AccuracyBudget::MaxAbs;
    if (number < 0.0) {
      error = "--accuracy-budget '" + text +
              "' cannot be met even in full precision: an absolute error is "
              "at least 0";
      return false;
    }
    return true;
  }
  if (kind == "top1") {
    out.kind = AccuracyBudget::Top1;
    if (number < 0.0 || number > 100.0) {
      error = "--accuracy-budget '" + text +
              "': P is a percentage of the samples, 0..100";
      return false;
    }
    return true;
  }
  error = "--accuracy-budget '" + text +
          "': unknown kind '" + kind.str() + "' (cosine, max-abs, top1)";
  return false;
}

bool mlir::tessel::readEvaluationSets(const std::string &path,
                                      const std::vector<ModelInput> &inputs,
                                      std::vector<EvaluationSet> &sets,
                                      CalibrationError &error) {
  const char *flag = "--accuracy-data";
  auto isSampleDirectory = [](const std::string &dir) {
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec))
      if (llvm::StringRef(it->path()).ends_with(".npy"))
        return true;
    return false;
  };
  if (!llvm::sys::fs::is_directory(path)) {
    sets.push_back({"all", {}});
    return readSamples(path, flag, inputs, sets.back().samples, error);
  }
  // Subsets: the .npz files and the directories of sample directories.
  std::vector<std::string> entries;
  std::error_code ec;
  bool samplesHere = false;
  for (llvm::sys::fs::directory_iterator it(path, ec), end; it != end && !ec;
       it.increment(ec)) {
    if (llvm::StringRef(it->path()).ends_with(".npz"))
      entries.push_back(it->path());
    else if (llvm::sys::fs::is_directory(it->path())) {
      if (isSampleDirectory(it->path()))
        samplesHere = true;
      else
        entries.push_back(it->path());
    }
  }
  if (samplesHere || entries.empty()) {
    sets.push_back({"all", {}});
    return readSamples(path, flag, inputs, sets.back().samples, error);
  }
  std::sort(entries.begin(), entries.end());
  for (const std::string &entry : entries) {
    EvaluationSet set;
    set.name = llvm::sys::path::stem(entry).str();
    if (!readSamples(entry, flag, inputs, set.samples, error))
      return false;
    sets.push_back(std::move(set));
  }
  return true;
}

size_t BudgetEvaluator::numSamples() const {
  size_t n = 0;
  for (const EvaluationSet &set : sets)
    n += set.samples.size();
  return n;
}

bool BudgetEvaluator::runAll(const std::string &path,
                             const std::vector<float> *masks,
                             std::vector<Outputs> &outputs, double *medianMs,
                             CalibrationError &error) {
  ::tessel::Model model;
  if (::tessel::Status status = ::tessel::Model::load(path, model);
      !status.ok()) {
    error = {ErrorCode::Internal,
             std::string("cannot load a build of the accuracy budget: ") +
                 status.message()};
    return false;
  }
  // The inputs: the samples' in order, then the masks (precision_mask_<k>).
  std::vector<int64_t> maskOf(model.numInputs(), -1);
  size_t dataInputs = 0;
  for (size_t i = 0; i < model.numInputs(); ++i) {
    llvm::StringRef name(model.input(i)->name);
    size_t k;
    if (name.consume_front("precision_mask_") && !name.getAsInteger(10, k))
      maskOf[i] = static_cast<int64_t>(k);
    else
      ++dataInputs;
  }
  std::vector<::tessel::Tensor> results(model.numOutputs());
  std::vector<tessel_tensor_view> resultViews;
  for (size_t o = 0; o < model.numOutputs(); ++o) {
    if (::tessel::Status status =
            ::tessel::Tensor::alloc(*model.output(o), results[o]);
        !status.ok()) {
      error = {ErrorCode::Internal, status.message()};
      return false;
    }
    resultViews.push_back(results[o].view());
  }
  ::tessel::Session session;
  if (::tessel::Status status =
          ::tessel::Session::create(model, session, /*numThreads=*/1);
      !status.ok()) {
    error = {ErrorCode::Internal, status.message()};
    return false;
  }
  std::vector<::tessel::Tensor> maskTensors(model.numInputs());
  for (size_t i = 0; i < model.numInputs(); ++i)
    if (maskOf[i] >= 0) {
      if (::tessel::Status status =
              ::tessel::Tensor::alloc(*model.input(i), maskTensors[i]);
          !status.ok()) {
        error = {ErrorCode::Internal, status.message()};
        return false;
      }
    }
  std::vector<double> times;
  outputs.clear();
  for (const EvaluationSet &set : sets)
    for (const Sample &sample : set.samples) {
      if (sample.size() != dataInputs) {
        error = {ErrorCode::Internal, "a build of the accuracy budget has " +
                                          std::to_string(dataInputs) +
                                          " data inputs, the samples " +
                                          std::to_string(sample.size())};
        return false;
      }
      std::vector<tessel_tensor_view> inputs;
      size_t next = 0;
      for (size_t i = 0; i < model.numInputs(); ++i) {
        if (maskOf[i] < 0) {
          inputs.push_back(sample[next++].view());
          continue;
        }
        *static_cast<float *>(maskTensors[i].data()) =
            masks ? (*masks)[maskOf[i]] : 0.0f;
        inputs.push_back(maskTensors[i].view());
      }
      // One untimed run first (when timing), then the timed one.
      for (int attempt = 0; attempt < (medianMs ? 2 : 1); ++attempt) {
        auto start = std::chrono::steady_clock::now();
        if (::tessel::Status status = session.run(inputs, resultViews);
            !status.ok()) {
          error = {ErrorCode::RunFailed,
                   std::string("evaluation sample: ") + status.message()};
          return false;
        }
        times.push_back(std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count());
      }
      Outputs out;
      for (size_t o = 0; o < results.size(); ++o) {
        const tessel_tensor_desc *d = model.output(o);
        if (d->dtype != TESSEL_DTYPE_F32)
          continue;
        const float *v = static_cast<const float *>(results[o].data());
        size_t n = results[o].sizeBytes() / sizeof(float);
        out.values.insert(out.values.end(), v, v + n);
        if (o == 0 && d->rank > 0 && d->shape[d->rank - 1] > 0) {
          int64_t last = d->shape[d->rank - 1];
          for (size_t row = 0; row + last <= n; row += last)
            out.top1.push_back(std::max_element(v + row, v + row + last) -
                               (v + row));
        }
      }
      outputs.push_back(std::move(out));
    }
  if (medianMs) {
    std::vector<double> timed;
    for (size_t i = 1; i < times.size(); i += 2)
      timed.push_back(times[i]);
    std::sort(timed.begin(), timed.end());
    *medianMs = timed.empty() ? 0.0 : timed[timed.size() / 2];
  }
  return true;
}

std::vector<SubsetFigures>
BudgetEvaluator::compare(const std::vector<Outputs> &outputs) const {
  std::vector<SubsetFigures> figures;
  size_t s = 0;
  for (const EvaluationSet &set : sets) {
    SubsetFigures f;
    f.name = set.name;
    f.samples = set.samples.size();
    double cosineSum = 0;
    size_t rows = 0, changed = 0;
    for (size_t i = 0; i < set.samples.size(); ++i, ++s) {
      const Outputs &a = outputs[s], &r = reference[s];
      double dot = 0, na = 0, nr = 0;
      bool identical = true;
      for (size_t e = 0; e < a.values.size() && e < r.values.size(); ++e) {
        double x = a.values[e], y = r.values[e];
        identical &= x == y;
        dot += x * y;
        na += x * x;
        nr += y * y;
        f.maxAbs = std::max(f.maxAbs, std::fabs(x - y));
        if (std::isnan(x) != std::isnan(y))
          f.maxAbs = INFINITY;
      }
      double cosine = identical            ? 1.0
                      : na == 0 && nr == 0 ? 1.0
                      : na == 0 || nr == 0 ? 0.0
                                           : dot / std::sqrt(na * nr);
      if (std::isnan(cosine))
        cosine = -1.0;
      f.minCosine = std::min(f.minCosine, cosine);
      cosineSum += cosine;
      for (size_t row = 0; row < a.top1.size() && row < r.top1.size(); ++row) {
        ++rows;
        changed += a.top1[row] != r.top1[row];
      }
    }
    f.meanCosine = f.samples ? cosineSum / double(f.samples) : 1.0;
    f.top1Changed = rows ? 100.0 * double(changed) / double(rows) : 0.0;
    figures.push_back(f);
  }
  return figures;
}

bool BudgetEvaluator::holds(const std::vector<SubsetFigures> &figures) const {
  for (const SubsetFigures &f : figures) {
    switch (budget.kind) {
    case AccuracyBudget::Cosine:
      if (!(f.minCosine >= budget.value))
        return false;
      break;
    case AccuracyBudget::MaxAbs:
      if (!(f.maxAbs <= budget.value))
        return false;
      break;
    case AccuracyBudget::Top1:
      if (!(f.top1Changed <= budget.value))
        return false;
      break;
    }
  }
  return true;
}

double
BudgetEvaluator::errorOf(const std::vector<SubsetFigures> &figures) const {
  double worst = 0, cosineLoss = 0;
  for (const SubsetFigures &f : figures) {
    cosineLoss = std::max(cosineLoss, 1.0 - f.meanCosine);
    switch (budget.kind) {
    case AccuracyBudget::Cosine:
      worst = std::max(worst, 1.0 - f.minCosine);
      break;
    case AccuracyBudget::MaxAbs:
      worst = std::max(worst, f.maxAbs);
      break;
    case AccuracyBudget::Top1:
      worst = std::max(worst, f.top1Changed);
      break;
    }
  }
  // Ties (no top-1 changed) are broken by the mean cosine.
  return budget.kind == AccuracyBudget::Top1 ? worst + 1e-3 * cosineLoss
                                             : worst;
}

void BudgetEvaluator::loadSimulation(const std::string &path,
                                     size_t numProducts) {
  simulationPath = path;
  numMasks = numProducts;
}

bool BudgetEvaluator::loadReference(const std::string &path,
                                    CalibrationError &error) {
  return runAll(path, nullptr, reference, nullptr, error);
}

bool BudgetEvaluator::simulate(const std::vector<bool> &low,
                               std::vector<SubsetFigures> &figures,
                               CalibrationError &error) {
  std::vector<float> masks(numMasks, 0.0f);
  for (size_t k = 0; k < numMasks && k < low.size(); ++k)
    masks[k] = low[k] ? 1.0f : 0.0f;
  std::vector<Outputs> outputs;
  if (!runAll(simulationPath, &masks, outputs, nullptr, error))
    return false;
  figures = compare(outputs);
  return true;
}

bool BudgetEvaluator::measure(const std::string &path,
                              std::vector<SubsetFigures> &figures,
                              double &medianMs, CalibrationError &error) {
  std::vector<Outputs> outputs;
  if (!runAll(path, nullptr, outputs, &medianMs, error))
    return false;
  figures = compare(outputs);
  return true;
}

bool mlir::tessel::searchAccuracyBudget(BudgetEvaluator &evaluator,
                                        std::vector<BudgetProduct> &products,
                                        std::vector<size_t> &order,
                                        std::vector<size_t> &kept,
                                        std::vector<SubsetFigures> &allLow,
                                        std::vector<SubsetFigures> &chosen,
                                        CalibrationError &error) {
  size_t n = products.size();
  kept.clear();
  if (!evaluator.simulate(std::vector<bool>(n, true), allLow, error))
    return false;
  // Sensitivity: each product alone in low precision.
  for (size_t k = 0; k < n; ++k) {
    std::vector<bool> low(n, false);
    low[k] = true;
    std::vector<SubsetFigures> figures;
    if (!evaluator.simulate(low, figures, error))
      return false;
    products[k].sensitivity = evaluator.errorOf(figures);
  }
  order.resize(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return products[a].sensitivity > products[b].sensitivity;
  });
  if (evaluator.holds(allLow)) {
    chosen = allLow;
    return true;
  }
  auto keepFirst = [&](size_t count, std::vector<SubsetFigures> &figures) {
    std::vector<bool> low(n, true);
    for (size_t i = 0; i < count; ++i)
      low[order[i]] = false;
    return evaluator.simulate(low, figures, error);
  };
  // The fewest most-sensitive products kept: all kept is FP32, which meets
  // any budget parseAccuracyBudget accepts.
  size_t lo = 1, hi = n;
  std::vector<SubsetFigures> figures;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (!keepFirst(mid, figures))
      return false;
    if (evaluator.holds(figures))
      hi = mid;
    else
      lo = mid + 1;
  }
  if (!keepFirst(lo, chosen))
    return false;
  kept.assign(order.begin(), order.begin() + lo);
  return true;
}
