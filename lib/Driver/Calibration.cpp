//===- Calibration.cpp - Post-training quantization's calibration ---------===//

#include "Calibration.h"

#include "tessel/runtime.hpp"
#include "tessel/tensor_io.hpp"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include <zlib.h>

using namespace mlir::tessel;
using ::tessel::ErrorCode;
using ::tessel::io::HostTensor;

bool mlir::tessel::parseCalibrationMethod(const std::string &text,
                                          CalibrationMethod &out,
                                          std::string &error) {
  llvm::StringRef spec(text);
  if (spec == "minmax") {
    out.kind = CalibrationMethod::MinMax;
    return true;
  }
  if (spec == "percentile" || spec.starts_with("percentile:")) {
    out.kind = CalibrationMethod::Percentile;
    if (spec.consume_front("percentile:")) {
      double p;
      if (spec.getAsDouble(p) || !(p > 50.0 && p <= 100.0)) {
        error = "--calibration=percentile:P needs 50 < P <= 100, got '" +
                spec.str() + "'";
        return false;
      }
      out.percentile = p;
    }
    return true;
  }
  if (spec == "entropy") {
    out.kind = CalibrationMethod::Entropy;
    return true;
  }
  error = "unknown --calibration '" + text + "' (minmax, percentile[:P], entropy)";
  return false;
}

namespace {

CalibrationError dataError(const std::string &message) {
  return {ErrorCode::CalibrationData, message};
}

uint32_t read32(const uint8_t *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}
uint16_t read16(const uint8_t *p) { return uint16_t(p[0] | p[1] << 8); }
uint64_t read64(const uint8_t *p) {
  return uint64_t(read32(p)) | uint64_t(read32(p + 4)) << 32;
}

/// The members of a zip archive (NumPy's .npz), by name: stored
/// (numpy.savez) or deflated (numpy.savez_compressed).
bool readZipMembers(const std::vector<uint8_t> &zip,
                    std::map<std::string, std::vector<uint8_t>> &members,
                    std::string &error) {
  // The end of central directory record: at least 22 bytes from the end.
  size_t size = zip.size();
  if (size < 22) {
    error = "not a zip archive (too short)";
    return false;
  }
  size_t eocd = std::string::npos;
  for (size_t i = size - 22 + 1; i-- > 0 && size - i <= 22 + 65535;)
    if (read32(&zip[i]) == 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd == std::string::npos) {
    error = "not a zip archive (no end of central directory)";
    return false;
  }
  uint64_t entries = read16(&zip[eocd + 10]);
  uint64_t offset = read32(&zip[eocd + 16]);
  // ZIP64: the locator just before points at the ZIP64 record.
  if ((entries == 0xFFFF || offset == 0xFFFFFFFF) && eocd >= 20 &&
      read32(&zip[eocd - 20]) == 0x07064b50) {
    uint64_t record = read64(&zip[eocd - 20 + 8]);
    if (record + 56 > size || read32(&zip[record]) != 0x06064b50) {
      error = "malformed ZIP64 end of central directory";
      return false;
    }
    entries = read64(&zip[record + 32]);
    offset = read64(&zip[record + 48]);
  }
  for (uint64_t e = 0; e < entries; ++e) {
    if (offset + 46 > size || read32(&zip[offset]) != 0x02014b50) {
      error = "malformed central directory";
      return false;
    }
    const uint8_t *h = &zip[offset];
    uint16_t method = read16(h + 10);
    uint64_t compressed = read32(h + 20), uncompressed = read32(h + 24);
    uint16_t nameLength = read16(h + 28), extraLength = read16(h + 30),
             commentLength = read16(h + 32);
    uint64_t local = read32(h + 42);
    if (offset + 46 + nameLength + extraLength > size) {
      error = "malformed central directory";
      return false;
    }
    std::string name(reinterpret_cast<const char *>(h + 46), nameLength);
    // ZIP64 extra field: the 64-bit values of the fields that are all ones.
    const uint8_t *extra = h + 46 + nameLength;
    for (size_t x = 0; x + 4 <= extraLength;) {
      uint16_t id = read16(extra + x), length = read16(extra + x + 2);
      if (x + 4 + length > extraLength)
        break;
      size_t needed = 8 * ((uncompressed == 0xFFFFFFFF) +
                           (compressed == 0xFFFFFFFF) + (local == 0xFFFFFFFF));
      if (id == 0x0001 && needed <= length) {
        const uint8_t *v = extra + x + 4;
        if (uncompressed == 0xFFFFFFFF) {
          uncompressed = read64(v);
          v += 8;
        }
        if (compressed == 0xFFFFFFFF) {
          compressed = read64(v);
          v += 8;
        }
        if (local == 0xFFFFFFFF)
          local = read64(v);
      }
      x += 4 + length;
    }
    offset += 46 + nameLength + extraLength + commentLength;
    // Stored (numpy.savez) or deflated (numpy.savez_compressed).
    if (method != 0 && method != 8) {
      error = "member '" + name + "' uses zip compression method " +
              std::to_string(method) + " (stored and deflate are read)";
      return false;
    }
    if (local + 30 > size || read32(&zip[local]) != 0x04034b50) {
      error = "malformed local header of '" + name + "'";
      return false;
    }
    uint64_t data = local + 30 + read16(&zip[local + 26]) +
                    read16(&zip[local + 28]);
    if (data + compressed > size ||
        (method == 0 && compressed != uncompressed)) {
      error = "member '" + name + "' runs past the archive";
      return false;
    }
    std::vector<uint8_t> &content = members[name];
    if (method == 0) {
      content.assign(zip.begin() + data, zip.begin() + data + uncompressed);
      continue;
    }
    if (compressed > UINT32_MAX || uncompressed > UINT32_MAX) {
      error = "member '" + name + "' is too large to inflate";
      return false;
    }
    // Raw deflate (no zlib header): negative window bits.
    content.resize(uncompressed);
    z_stream stream{};
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) {
      error = "cannot start inflating '" + name + "'";
      return false;
    }
    stream.next_in = const_cast<Bytef *>(&zip[data]);
    stream.avail_in = static_cast<uInt>(compressed);
    stream.next_out = content.data();
    stream.avail_out = static_cast<uInt>(uncompressed);
    int status = inflate(&stream, Z_FINISH);
    uint64_t produced = stream.total_out;
    inflateEnd(&stream);
    if (status != Z_STREAM_END || produced != uncompressed) {
      error = "member '" + name + "' does not inflate to its recorded size";
      return false;
    }
  }
  return true;
}

std::string typeOf(int32_t dtype, const std::vector<int64_t> &shape) {
  return ::tessel::io::formatTensorType(dtype, shape);
}

/// Checks a sample's tensor against the model's input.
bool checkTensor(const ModelInput &input, const HostTensor &tensor,
                 const std::string &where, CalibrationError &error) {
  if (tensor.dtype != input.dtype || tensor.shape != input.shape) {
    error = dataError(where + ": input '" + input.name + "' is " +
                      typeOf(tensor.dtype, tensor.shape) +
                      ", the model takes " +
                      typeOf(input.dtype, input.shape));
    return false;
  }
  if (tensor.dtype == TESSEL_DTYPE_F32) {
    const float *v = reinterpret_cast<const float *>(tensor.bytes.data());
    for (int64_t i = 0, e = tensor.numElements(); i < e; ++i)
      if (!std::isfinite(v[i])) {
        error = dataError(where + ": input '" + input.name +
                          "' holds a non-finite value (element " +
                          std::to_string(i) + ")");
        return false;
      }
  }
  return true;
}

/// The samples of a directory: one subdirectory each, with <input>.npy.
bool readDirectory(const std::string &path,
                   const std::vector<ModelInput> &inputs,
                   std::vector<Sample> &samples, CalibrationError &error) {
  std::vector<std::string> dirs;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(path, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::fs::is_directory(it->path()))
      dirs.push_back(it->path());
  if (ec) {
    error = dataError("cannot read the directory '" + path +
                      "': " + ec.message());
    return false;
  }
  std::sort(dirs.begin(), dirs.end());
  for (const std::string &dir : dirs) {
    // Every file a model input, no other.
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec)) {
      llvm::StringRef file = llvm::sys::path::filename(it->path());
      if (!file.consume_back(".npy"))
        continue;
      if (!llvm::any_of(inputs,
                        [&](const ModelInput &i) { return i.name == file; })) {
        error = dataError(it->path() + ": the model has no input '" +
                          file.str() + "'");
        return false;
      }
    }
    Sample sample;
    for (const ModelInput &input : inputs) {
      llvm::SmallString<256> file(dir);
      llvm::sys::path::append(file, input.name + ".npy");
      HostTensor tensor;
      std::string message;
      if (!llvm::sys::fs::exists(file)) {
        error = dataError(dir + ": no '" + input.name +
                          ".npy' for the model's input '" + input.name + "'");
        return false;
      }
      if (!::tessel::io::readNpy(file.str().str(), tensor, message)) {
        error = dataError(file.str().str() + ": " + message);
        return false;
      }
      if (!checkTensor(input, tensor, dir, error))
        return false;
      sample.push_back(std::move(tensor));
    }
    samples.push_back(std::move(sample));
  }
  return true;
}

/// The samples of an .npz: one array per input, a leading sample axis.
bool readNpz(const std::string &path, const std::vector<ModelInput> &inputs,
             std::vector<Sample> &samples, CalibrationError &error) {
  std::vector<uint8_t> bytes;
  std::string message;
  if (!::tessel::io::readFileBytes(path, bytes, message)) {
    error = dataError(path + ": " + message);
    return false;
  }
  std::map<std::string, std::vector<uint8_t>> members;
  if (!readZipMembers(bytes, members, message)) {
    error = dataError(path + ": " + message);
    return false;
  }
  std::map<std::string, HostTensor> arrays;
  for (auto &[member, content] : members) {
    llvm::StringRef name(member);
    if (!name.consume_back(".npy"))
      continue;
    if (!llvm::any_of(inputs,
                      [&](const ModelInput &i) { return i.name == name; })) {
      error = dataError(path + ": the model has no input '" + name.str() +
                        "'");
      return false;
    }
    HostTensor tensor;
    if (!::tessel::io::parseNpy(content.data(), content.size(), tensor,
                            message)) {
      error = dataError(path + ": '" + member + "': " + message);
      return false;
    }
    arrays[name.str()] = std::move(tensor);
  }
  int64_t count = -1;
  for (const ModelInput &input : inputs) {
    auto it = arrays.find(input.name);
    if (it == arrays.end()) {
      error = dataError(path + ": no array for the model's input '" +
                        input.name + "'");
      return false;
    }
    const HostTensor &all = it->second;
    std::vector<int64_t> expected = {-1};
    expected.insert(expected.end(), input.shape.begin(), input.shape.end());
    if (all.shape.size() != input.shape.size() + 1 ||
        !std::equal(input.shape.begin(), input.shape.end(),
                    all.shape.begin() + 1) ||
        all.dtype != input.dtype) {
      error = dataError(path + ": '" + input.name + "' is " +
                        typeOf(all.dtype, all.shape) +
                        ", expected the samples of " +
                        typeOf(input.dtype, input.shape) +
                        " along a leading axis");
      return false;
    }
    if (count >= 0 && all.shape[0] != count) {
      error = dataError(path + ": '" + input.name + "' holds " +
                        std::to_string(all.shape[0]) + " samples, another " +
                        "input " + std::to_string(count));
      return false;
    }
    count = all.shape[0];
  }
  for (int64_t s = 0; s < count; ++s) {
    Sample sample;
    for (const ModelInput &input : inputs) {
      const HostTensor &all = arrays[input.name];
      HostTensor one;
      one.dtype = all.dtype;
      one.shape = input.shape;
      size_t each = all.bytes.size() / size_t(count);
      one.bytes.assign(all.bytes.begin() + s * each,
                       all.bytes.begin() + (s + 1) * each);
      if (!checkTensor(input, one, path + " sample " + std::to_string(s),
                       error))
        return false;
      sample.push_back(std::move(one));
    }
    samples.push_back(std::move(sample));
  }
  return true;
}

/// uint8 parameters covering [low, high] (widened to hold 0).
ActivationRange parametersFor(double low, double high) {
  ActivationRange r;
  r.low = std::min(low, 0.0);
  r.high = std::max(high, 0.0);
  r.scale = (r.high - r.low) / 255.0;
  if (!(r.scale > 0)) {
    r.scale = 1.0;
    r.zeroPoint = 0;
    return r;
  }
  r.zeroPoint = static_cast<int64_t>(
      std::clamp(std::nearbyint(-r.low / r.scale), 0.0, 255.0));
  return r;
}

/// The threshold (a bin count of `histogram`, whose bins cover [0, max)
/// evenly) that minimises the KL divergence between the distribution
/// clipped there and its quantization to `levels` levels: TensorRT's
/// entropy calibration.
size_t entropyThreshold(const std::vector<uint64_t> &histogram,
                        size_t levels) {
  size_t bins = histogram.size();
  size_t best = bins;
  double bestDivergence = INFINITY;
  std::vector<double> p, q;
  for (size_t i = levels; i <= bins; ++i) {
    // The reference: the first i bins, the outliers added to the last.
    p.assign(histogram.begin(), histogram.begin() + i);
    for (size_t k = i; k < bins; ++k)
      p[i - 1] += histogram[k];
    // The candidate: the first i bins merged into `levels` levels, each
    // level's count spread evenly over its nonzero bins.
    q.assign(i, 0.0);
    for (size_t level = 0; level < levels; ++level) {
      size_t begin = level * i / levels, end = (level + 1) * i / levels;
      double sum = 0;
      size_t nonzero = 0;
      for (size_t k = begin; k < end; ++k) {
        sum += histogram[k];
        nonzero += histogram[k] != 0;
      }
      for (size_t k = begin; k < end; ++k)
        if (histogram[k] != 0)
          q[k] = sum / nonzero;
    }
    double pTotal = 0, qTotal = 0;
    for (size_t k = 0; k < i; ++k) {
      pTotal += p[k];
      qTotal += q[k];
    }
    if (pTotal == 0 || qTotal == 0)
      continue;
    double divergence = 0;
    for (size_t k = 0; k < i; ++k) {
      if (p[k] == 0)
        continue;
      double pk = p[k] / pTotal, qk = q[k] / qTotal;
      // A bin the candidate lost entirely: a large, finite penalty.
      divergence += pk * std::log(pk / (qk > 0 ? qk : 1e-12));
    }
    if (divergence < bestDivergence) {
      bestDivergence = divergence;
      best = i;
    }
  }
  return best;
}

} // namespace

bool mlir::tessel::readSamples(const std::string &path, llvm::StringRef flag,
                               const std::vector<ModelInput> &inputs,
                               std::vector<Sample> &samples,
                               CalibrationError &error) {
  if (!llvm::sys::fs::exists(path)) {
    error = dataError(flag.str() + " '" + path + "' does not exist");
    return false;
  }
  if (llvm::sys::fs::is_directory(path)
          ? !readDirectory(path, inputs, samples, error)
          : !readNpz(path, inputs, samples, error))
    return false;
  if (samples.empty()) {
    error = dataError(flag.str() + " '" + path + "' holds no samples");
    return false;
  }
  return true;
}

bool mlir::tessel::calibrate(const std::string &artifactPath, size_t count,
                             const std::string &dataPath,
                             const CalibrationMethod &method,
                             std::vector<ActivationRange> &ranges,
                             size_t &numSamples, CalibrationError &error) {
  ::tessel::Model model;
  if (::tessel::Status status = ::tessel::Model::load(artifactPath, model);
      !status.ok()) {
    error = {ErrorCode::Internal,
             std::string("cannot load the calibration build: ") +
                 status.message()};
    return false;
  }
  std::vector<ModelInput> inputs;
  for (size_t i = 0; i < model.numInputs(); ++i) {
    const tessel_tensor_desc *d = model.input(i);
    inputs.push_back(
        {d->name, d->dtype, std::vector<int64_t>(d->shape, d->shape + d->rank)});
  }
  std::vector<Sample> samples;
  if (!readSamples(dataPath, "--calibration-data", inputs, samples, error))
    return false;
  numSamples = samples.size();

  // The outputs: the model's, then calibration_<i>.
  std::vector<::tessel::Tensor> outputs(model.numOutputs());
  std::vector<tessel_tensor_view> outputViews;
  std::vector<int64_t> slot(count, -1);
  for (size_t o = 0; o < model.numOutputs(); ++o) {
    const tessel_tensor_desc *d = model.output(o);
    if (::tessel::Status status = ::tessel::Tensor::alloc(*d, outputs[o]);
        !status.ok()) {
      error = {ErrorCode::Internal, status.message()};
      return false;
    }
    outputViews.push_back(outputs[o].view());
    llvm::StringRef name(d->name);
    size_t index;
    if (name.consume_front("calibration_") && !name.getAsInteger(10, index) &&
        index < count)
      slot[index] = o;
  }
  for (size_t i = 0; i < count; ++i)
    if (slot[i] < 0 || model.output(slot[i])->dtype != TESSEL_DTYPE_F32) {
      error = {ErrorCode::Internal, "the calibration build has no f32 output "
                                    "calibration_" + std::to_string(i)};
      return false;
    }
  ::tessel::Session session;
  if (::tessel::Status status = ::tessel::Session::create(model, session);
      !status.ok()) {
    error = {ErrorCode::Internal, status.message()};
    return false;
  }
  // Runs every sample, calling `visit(activation, values, n)`.
  auto runAll = [&](auto visit) {
    for (size_t s = 0; s < samples.size(); ++s) {
      std::vector<tessel_tensor_view> inputViews;
      for (HostTensor &t : samples[s])
        inputViews.push_back(t.view());
      if (::tessel::Status status = session.run(inputViews, outputViews);
          !status.ok()) {
        error = {ErrorCode::RunFailed, "calibration sample " +
                                           std::to_string(s) + ": " +
                                           status.message()};
        return false;
      }
      for (size_t i = 0; i < count; ++i) {
        const ::tessel::Tensor &t = outputs[slot[i]];
        if (!visit(i, static_cast<const float *>(t.data()),
                   t.sizeBytes() / sizeof(float), s))
          return false;
      }
    }
    return true;
  };
  std::vector<double> low(count, INFINITY), high(count, -INFINITY);
  bool ok = runAll([&](size_t i, const float *v, size_t n, size_t s) {
    for (size_t k = 0; k < n; ++k) {
      if (!std::isfinite(v[k])) {
        error = dataError("calibration sample " + std::to_string(s) +
                          " makes a non-finite activation (calibration_" +
                          std::to_string(i) + ")");
        return false;
      }
      low[i] = std::min(low[i], double(v[k]));
      high[i] = std::max(high[i], double(v[k]));
    }
    return true;
  });
  if (!ok)
    return false;
  ranges.assign(count, ActivationRange());
  if (method.kind == CalibrationMethod::MinMax) {
    for (size_t i = 0; i < count; ++i)
      ranges[i] = parametersFor(low[i], high[i]);
    return true;
  }
  // A histogram per activation: over [low, high] (percentile), or of |x|
  // over [0, max |x|] (entropy; x itself when it is never negative).
  constexpr size_t kBins = 2048;
  bool entropy = method.kind == CalibrationMethod::Entropy;
  std::vector<std::vector<uint64_t>> histograms(
      count, std::vector<uint64_t>(kBins, 0));
  auto origin = [&](size_t i) { return entropy ? 0.0 : low[i]; };
  auto extent = [&](size_t i) {
    return entropy ? std::max(std::fabs(low[i]), std::fabs(high[i]))
                   : high[i];
  };
  ok = runAll([&](size_t i, const float *v, size_t n, size_t) {
    double width = (extent(i) - origin(i)) / kBins;
    for (size_t k = 0; k < n; ++k) {
      double x = entropy ? std::fabs(double(v[k])) : double(v[k]);
      size_t bin =
          width > 0 ? std::min(kBins - 1, size_t((x - origin(i)) / width))
                    : 0;
      ++histograms[i][bin];
    }
    return true;
  });
  if (!ok)
    return false;
  if (entropy) {
    // Never negative: 255 levels over [0, T]; else 127 on each side of 0,
    // [-T, T].
    for (size_t i = 0; i < count; ++i) {
      bool signedRange = low[i] < 0;
      size_t bins = entropyThreshold(histograms[i], signedRange ? 128 : 255);
      double threshold = extent(i) * double(bins) / kBins;
      ranges[i] = parametersFor(signedRange ? std::max(low[i], -threshold) : 0,
                                std::min(high[i], threshold));
    }
    return true;
  }
  for (size_t i = 0; i < count; ++i) {
    uint64_t total = 0;
    for (uint64_t c : histograms[i])
      total += c;
    double width = (high[i] - low[i]) / kBins;
    double keep = method.percentile / 100.0;
    auto valueAt = [&](double share, bool upper) {
      uint64_t target = static_cast<uint64_t>(std::ceil(share * total));
      uint64_t seen = 0;
      for (size_t b = 0; b < kBins; ++b) {
        seen += histograms[i][b];
        if (seen >= target)
          return low[i] + width * (upper ? b + 1 : b);
      }
      return high[i];
    };
    double lo = keep >= 1.0 ? low[i] : valueAt(1.0 - keep, false);
    double hi = keep >= 1.0 ? high[i] : valueAt(keep, true);
    ranges[i] = parametersFor(lo, hi);
  }
  return true;
}
