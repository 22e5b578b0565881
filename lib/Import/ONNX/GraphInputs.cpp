//===- GraphInputs.cpp - Binding an ONNX graph's inputs -------------------===//
//
// The graph inputs: their static types (from the model or --input-shape),
// the constants --input-value fixes them to, and the hint that names the
// graph inputs a non-constant value is computed from.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <climits>

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;
using ::tessel::ErrorCode;

namespace {

/// The dynamic batch's name, for messages.
llvm::StringRef batchNameOr(const ImportOptions &options) {
  return options.batchName.empty() ? llvm::StringRef("N")
                                   : llvm::StringRef(options.batchName);
}

} // namespace

FailureOr<RankedTensorType>
GraphImporter::inputType(const onnx::ValueInfoProto &info) {
  const std::string &name = info.name();
  if (!info.type().has_tensor_type()) {
    issue(name, "input",
          "graph input '" + name + "' is " + describeNonTensor(info.type()) +
              "; Tessel compiles tensor inputs and outputs only",
          ErrorCode::UnsupportedType);
    return failure();
  }
  const onnx::TypeProto::Tensor &tensor = info.type().tensor_type();
  Type element = convertElementType(ctx, tensor.elem_type());
  if (!element) {
    issue(name, "input",
          "input '" + name + "' has unsupported element type " +
              elementTypeName(tensor.elem_type()),
          ErrorCode::UnsupportedType);
    return failure();
  }
  SmallVector<int64_t> shape;
  auto given = options.inputShapes.find(name);
  if (given != options.inputShapes.end()) {
    shape = given->second;
    for (auto [d, extent] : llvm::enumerate(shape)) {
      if (!ShapedType::isDynamic(extent))
        continue;
      if (d != 0) {
        issue(name, "input",
              "--input-shape gives input '" + name + "' a dynamic " +
                  "dimension " + std::to_string(d) +
                  ": only dimension 0, the batch, may be '?'",
              ErrorCode::InputShape);
        return failure();
      }
      if (options.batchSize <= 0) {
        issue(name, "input",
              "--input-shape gives input '" + name + "' a dynamic batch " +
                  "('?'); bound it with --dim-range " +
                  std::string(batchNameOr(options)) + "=1..64",
              ErrorCode::InputShape);
        return failure();
      }
      shape[0] = options.batchSize;
      ++batchInputs;
    }
    if (tensor.has_shape() &&
        tensor.shape().dim_size() != static_cast<int>(shape.size())) {
      issue(name, "input",
            "--input-shape gives " + std::to_string(shape.size()) +
                " dimensions for input '" + name + "', the model declares " +
                std::to_string(tensor.shape().dim_size()),
            ErrorCode::InputShape);
      return failure();
    }
  } else if (!tensor.has_shape()) {
    issue(name, "input",
          "input '" + name +
              "' has no declared shape; give one with "
              "--input-shape " +
              name + "=<d0>x<d1>...",
          ErrorCode::InputShape);
    return failure();
  } else {
    for (int d = 0; d < tensor.shape().dim_size(); ++d) {
      const onnx::TensorShapeProto::Dimension &dim = tensor.shape().dim(d);
      bool dynamic = !dim.has_dim_value() || dim.dim_value() < 0;
      if (dynamic && d == 0 && options.batchSize > 0 && dim.has_dim_param() &&
          dim.dim_param() == options.batchName) {
        shape.push_back(options.batchSize);
        ++batchInputs;
        continue;
      }
      if (dynamic && options.paddedSize > 0 && dim.has_dim_param() &&
          dim.dim_param() == options.paddedName) {
        if (!paddedDims.try_emplace(name, d).second) {
          issue(name, "input",
                "input '" + name + "' holds the padded dimension '" +
                    options.paddedName + "' twice (dimensions " +
                    std::to_string(paddedDims.lookup(name)) + " and " +
                    std::to_string(d) + "); a padded dimension is one " +
                    "dimension of each input that holds it",
                ErrorCode::InputShape);
          return failure();
        }
        shape.push_back(options.paddedSize);
        continue;
      }
      if (dynamic) {
        std::string symbol =
            dim.has_dim_param() ? " ('" + dim.dim_param() + "')" : "";
        if (d == 0 && options.batchSize > 0 && dim.has_dim_param()) {
          issue(name, "input",
                "input '" + name + "' has the dynamic dimension 0 '" +
                    dim.dim_param() + "', not the '" + options.batchName +
                    "' --dim-range names",
                ErrorCode::InputShape);
          return failure();
        }
        std::string batchHint =
            d == 0 && options.batchSize <= 0
                ? "; compile it for every batch in a range with "
                  "--dim-range " +
                      (dim.has_dim_param() ? dim.dim_param()
                                           : std::string("N")) +
                      "=1..64, or"
                : ";";
        issue(name, "input",
              "input '" + name + "' has a dynamic dimension " +
                  std::to_string(d) + symbol + batchHint +
                  " give a static shape with --input-shape " + name +
                  "=<d0>x<d1>...",
              ErrorCode::InputShape);
        return failure();
      }
      shape.push_back(dim.dim_value());
    }
  }
  int64_t count = 1;
  for (int64_t d : shape)
    if (d < 0 || llvm::MulOverflow(count, d, count) ||
        count > (int64_t(1) << 40)) {
      issue(name, "input",
            "input '" + name + "' has an invalid or too large shape",
            ErrorCode::InputShape);
      return failure();
    }
  return RankedTensorType::get(shape, element);
}

FailureOr<DenseElementsAttr>
GraphImporter::readFixedValue(StringRef name, StringRef spec,
                              RankedTensorType type) {
  auto describe = [](Type t) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << t;
    return text;
  };
  auto fail = [&](const Twine &why) -> FailureOr<DenseElementsAttr> {
    issue(name.str(), "input",
          "--input-value for input '" + name.str() + "': " + why.str(),
          ErrorCode::NonConstantInput);
    return failure();
  };
  if (spec.ends_with(".pb")) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(spec, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!buffer)
      return fail("cannot read '" + spec + "': " + buffer.getError().message());
    onnx::TensorProto proto;
    StringRef bytes = (*buffer)->getBuffer();
    if (bytes.size() > static_cast<size_t>(INT_MAX) ||
        !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
      return fail("'" + spec + "' is not a TensorProto file");
    std::string message;
    FailureOr<ElementsAttr> value = convertTensor(ctx, proto, message);
    if (failed(value))
      return fail("'" + spec + "': " + message);
    if (value->getType() != type)
      return fail("'" + spec + "' holds " + describe(value->getType()) +
                  ", the input is " + describe(type));
    auto dense = dyn_cast<DenseElementsAttr>(*value);
    if (!dense)
      return fail("'" + spec + "' cannot be read as dense elements");
    return dense;
  }
  SmallVector<StringRef> parts;
  if (!spec.trim().empty())
    spec.split(parts, ',');
  if (static_cast<int64_t>(parts.size()) != type.getNumElements())
    return fail("'" + spec + "' gives " + Twine(parts.size()) +
                " values, the input is " + describe(type) + " (" +
                Twine(type.getNumElements()) + " values)");
  Type element = type.getElementType();
  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> numbers;
    for (StringRef part : parts) {
      double d;
      if (part.trim().getAsDouble(d))
        return fail("'" + part.trim() + "' is not a number");
      APFloat value(d);
      bool lost;
      value.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                    &lost);
      numbers.push_back(value);
    }
    return DenseElementsAttr::get(type, numbers);
  }
  auto intType = dyn_cast<IntegerType>(element);
  if (!intType)
    return fail("the input's element type " + describe(element) +
                " cannot be given as numbers");
  SmallVector<APInt> numbers;
  unsigned width = intType.getWidth();
  for (StringRef part : parts) {
    StringRef text = part.trim();
    APInt value;
    if (width == 1 && (text == "true" || text == "false")) {
      numbers.push_back(APInt(1, text == "true"));
      continue;
    }
    // Parsed wide (as a magnitude and a sign), then checked to fit.
    bool negative = text.consume_front("-");
    if (text.getAsInteger(10, value) || value.getActiveBits() > 127)
      return fail("'" + part.trim() + "' is not an integer");
    value = value.zextOrTrunc(128);
    if (negative)
      value.negate();
    bool fits = intType.isUnsigned() || width == 1
                    ? !value.isNegative() && value.getActiveBits() <= width
                    : value.getSignificantBits() <= width;
    if (!fits)
      return fail("'" + part.trim() + "' does not fit " + describe(element));
    numbers.push_back(value.sextOrTrunc(width));
  }
  return DenseElementsAttr::get(type, numbers);
}

SmallVector<std::string>
GraphImporter::graphInputsFeeding(ArrayRef<Value> roots) const {
  SmallVector<std::string> names;
  llvm::DenseSet<Value> seen;
  SmallVector<Value> work(roots.begin(), roots.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!v || !seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == entryBlock &&
          arg.getArgNumber() < entryInputNames.size())
        names.push_back(entryInputNames[arg.getArgNumber()]);
      continue;
    }
    if (Operation *op = v.getDefiningOp())
      llvm::append_range(work, op->getOperands());
  }
  llvm::sort(names);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string GraphImporter::inputValueHint(ArrayRef<Value> roots) const {
  SmallVector<std::string> sources = graphInputsFeeding(roots);
  if (sources.empty())
    return "";
  std::string quoted, flags;
  for (const std::string &source : sources) {
    quoted += (quoted.empty() ? "'" : ", '") + source + "'";
    flags += " --input-value " + source + "=<v0,v1,...|file.pb>";
  }
  return "; it is computed from graph input" +
         std::string(sources.size() > 1 ? "s " : " ") + quoted +
         ": to compile for one value, fix it with" + flags +
         " (the artifact then refuses other values)";
}

std::vector<std::vector<std::string>>
mlir::tessel::readInputSymbols(llvm::StringRef path) {
  std::vector<std::vector<std::string>> symbols;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  onnx::ModelProto model;
  if (!buffer || (*buffer)->getBufferSize() > size_t(INT_MAX) ||
      !model.ParseFromArray((*buffer)->getBufferStart(),
                            int((*buffer)->getBufferSize())))
    return symbols;
  llvm::DenseSet<llvm::StringRef> initializers;
  for (const onnx::TensorProto &init : model.graph().initializer())
    initializers.insert(init.name());
  for (const onnx::ValueInfoProto &in : model.graph().input()) {
    if (initializers.contains(in.name()))
      continue;
    std::vector<std::string> &dims = symbols.emplace_back();
    if (!in.type().has_tensor_type() || !in.type().tensor_type().has_shape())
      continue;
    for (const auto &dim : in.type().tensor_type().shape().dim())
      dims.push_back(dim.has_dim_param() ? dim.dim_param() : std::string());
  }
  return symbols;
}
