//===- AccuracyBudget.h - Mixed precision chosen by a budget ----*- C++ -*-===//
//
// Internal to lib/Driver: `tessel-compile --accuracy-budget=KIND:VALUE`. The
// driver compiles a simulation build (tessel-quantize-products
// mode=simulate: one run-time mask per product), and this file runs it on
// the evaluation samples to measure each product's sensitivity and to find
// the fewest products to keep in FP32 that meet the budget on every subset;
// the driver then checks that choice on the real (integer) build.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DRIVER_ACCURACYBUDGET_H
#define TESSEL_LIB_DRIVER_ACCURACYBUDGET_H

#include "Calibration.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tessel {

/// What the model's outputs may lose against FP32, on every sample.
struct AccuracyBudget {
  enum Kind {
    /// Every sample's cosine similarity (all float outputs as one vector)
    /// is at least `value`.
    Cosine,
    /// No output element differs by more than `value`.
    MaxAbs,
    /// At most `value` percent of the rows of the first output change their
    /// top-1 class (argmax over the last axis).
    Top1
  } kind = Cosine;
  double value = 0.999;
  std::string text;
};

/// Parses `cosine:C` (0 < C <= 1), `max-abs:X` (X >= 0) or `top1:P`
/// (0 <= P <= 100).
bool parseAccuracyBudget(const std::string &text, AccuracyBudget &out,
                         std::string &error);

/// A named subset of the evaluation samples: `all` for a plain sample
/// directory or .npz, else a subdirectory or `.npz` of the evaluation
/// directory.
struct EvaluationSet {
  std::string name;
  std::vector<Sample> samples;
};

/// Reads `--accuracy-data` for `inputs`: an .npz or a sample directory (one
/// set, `all`), or a directory of subsets (each an .npz, or a subdirectory
/// of samples).
bool readEvaluationSets(const std::string &path,
                        const std::vector<ModelInput> &inputs,
                        std::vector<EvaluationSet> &sets,
                        CalibrationError &error);

/// One product the search may keep in FP32 (a mask of the simulation
/// build, in order).
struct BudgetProduct {
  std::vector<std::string> nodes;
  int64_t multiplyAdds = 0;
  /// The budget's error measure with only this product in low precision.
  double sensitivity = 0;
};

/// One subset's figures against FP32.
struct SubsetFigures {
  std::string name;
  size_t samples = 0;
  double minCosine = 1, meanCosine = 1, maxAbs = 0;
  /// Percent of the rows whose top-1 class changed.
  double top1Changed = 0;
};

/// Runs artifacts on the evaluation samples against FP32 outputs.
class BudgetEvaluator {
public:
  BudgetEvaluator(AccuracyBudget budget, std::vector<EvaluationSet> sets)
      : budget(std::move(budget)), sets(std::move(sets)) {}

  /// Takes the simulation build, whose inputs `precision_mask_<k>` choose
  /// each of `numProducts` products' precision.
  void loadSimulation(const std::string &path, size_t numProducts);
  /// Records the FP32 outputs the figures compare with, from `path`: the
  /// real build with every product kept in FP32 (the FP32 model as these
  /// flags compile it; the simulation's every-mask-0 outputs may differ in
  /// the last bits: another layout, other fusions).
  bool loadReference(const std::string &path, CalibrationError &error);
  /// The figures of the simulation with the products in `low` in low
  /// precision (mask 1), the others FP32.
  bool simulate(const std::vector<bool> &low,
                std::vector<SubsetFigures> &figures, CalibrationError &error);
  /// The figures of a real build, and its median run time in ms (1 thread).
  bool measure(const std::string &path, std::vector<SubsetFigures> &figures,
               double &medianMs, CalibrationError &error);

  bool holds(const std::vector<SubsetFigures> &figures) const;
  /// The budget's error measure over all subsets: larger is worse.
  double errorOf(const std::vector<SubsetFigures> &figures) const;
  size_t numSamples() const;
  const AccuracyBudget &getBudget() const { return budget; }

private:
  struct Outputs {
    std::vector<float> values;
    /// The first output's rows (argmax along its last axis).
    std::vector<int64_t> top1;
  };
  bool runAll(const std::string &path, const std::vector<float> *masks,
              std::vector<Outputs> &outputs, double *medianMs,
              CalibrationError &error);
  std::vector<SubsetFigures> compare(const std::vector<Outputs> &outputs) const;

  AccuracyBudget budget;
  std::vector<EvaluationSet> sets;
  std::string simulationPath;
  size_t numMasks = 0;
  std::vector<Outputs> reference;
};

/// The search: each product's sensitivity (only it in low precision), then
/// the fewest most-sensitive products kept in FP32 that meet the budget on
/// every subset (none when all low precision meets it). Fills `order` (the
/// product indices, most sensitive first), `kept` (its first products) and
/// the simulation's figures of all-low and of the choice.
bool searchAccuracyBudget(BudgetEvaluator &evaluator,
                          std::vector<BudgetProduct> &products,
                          std::vector<size_t> &order,
                          std::vector<size_t> &kept,
                          std::vector<SubsetFigures> &allLow,
                          std::vector<SubsetFigures> &chosen,
                          CalibrationError &error);

} // namespace mlir::tessel

#endif // TESSEL_LIB_DRIVER_ACCURACYBUDGET_H
