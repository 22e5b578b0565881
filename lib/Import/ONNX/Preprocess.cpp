//===- Preprocess.cpp - --preprocess: image preprocessing in the graph ----===//
//
// Parses a --preprocess SPEC and prepends the preprocessing it describes to
// an ONNX graph, as the ONNX nodes (Cast, Transpose, Reshape, Resize, Round,
// Slice, Mul, Sub, Div) whose import gives the `tessel` ops. The semantics
// are torchvision 0.14's on uint8 tensors: Resize(S) resizes the shorter
// side to S (the longer to int(S * long / short)), bilinear with half-pixel
// centres and no antialiasing, rounded back to integers; CenterCrop's offset
// is round((size - crop) / 2), ties to even.
//
//===----------------------------------------------------------------------===//

#include "Preprocess.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/Twine.h"

#include <onnx/onnx_pb.h>

#include <cmath>

using namespace mlir::tessel::onnx_import;
using llvm::StringRef;

namespace {

using Extent = std::pair<int64_t, int64_t>;

std::string formatExtent(Extent e) {
  return std::to_string(e.first) + "x" + std::to_string(e.second);
}

bool parsePositive(StringRef text, int64_t &value) {
  unsigned long long v;
  if (text.getAsInteger(10, v) || v == 0 || v > (1ull << 31))
    return false;
  value = static_cast<int64_t>(v);
  return true;
}

/// `S` (square, or the shorter side) or `HxW`.
bool parseExtent(StringRef text, std::optional<int64_t> &single,
                 std::optional<Extent> &both) {
  auto [h, w] = text.split('x');
  int64_t a, b;
  if (w.empty() && !text.contains('x')) {
    if (!parsePositive(h, a))
      return false;
    single = a;
    return true;
  }
  if (!parsePositive(h, a) || !parsePositive(w, b))
    return false;
  both = Extent{a, b};
  return true;
}

bool parseNumber(StringRef text, double &value) {
  // `a/b` as well as a plain number: scale=1/255.
  auto [num, den] = text.split('/');
  double n, d = 1.0;
  if (num.trim().getAsDouble(n) ||
      (text.contains('/') && den.trim().getAsDouble(d)) || d == 0.0 ||
      !std::isfinite(n / d))
    return false;
  value = n / d;
  return true;
}

bool parseList(StringRef text, std::vector<float> &values) {
  llvm::SmallVector<StringRef> parts;
  text.split(parts, ':');
  for (StringRef part : parts) {
    double v;
    if (!parseNumber(part, v))
      return false;
    values.push_back(static_cast<float>(v));
  }
  return !values.empty();
}

constexpr const char *kKeys =
    "input=uint8|float32, name=INPUT, hwc|nhwc|chw|nchw, size=HxW, "
    "resize=S|HxW[:bilinear|nearest], crop=S|HxW[:center], scale=X, "
    "mean=A:B:C, std=A:B:C";

} // namespace

std::optional<PreprocessSpec>
mlir::tessel::onnx_import::parsePreprocessSpec(StringRef text,
                                               std::string &error) {
  PreprocessSpec spec;
  llvm::StringSet<> seen;
  llvm::SmallVector<StringRef> items;
  text.split(items, ',');
  for (StringRef item : items) {
    item = item.trim();
    auto [key, value] = item.split('=');
    key = key.trim();
    value = value.trim();
    auto bad = [&](const llvm::Twine &why) {
      error = ("'" + item + "': " + why).str();
      return std::nullopt;
    };
    if (item.empty())
      return bad("an empty item");
    static const llvm::StringSet<> layouts = {"hwc", "nhwc", "chw", "nchw"};
    bool isLayout = !item.contains('=') && layouts.contains(key);
    if (isLayout) {
      value = key;
      key = "layout";
    }
    if (!seen.insert(key).second)
      return bad("'" + key + "' is given twice");
    if (key == "layout" && !layouts.contains(value))
      return bad("the layout is hwc, nhwc, chw or nchw");
    if (key == "layout") {
      spec.layout = llvm::StringSwitch<PreprocessSpec::Layout>(value)
                        .Case("hwc", PreprocessSpec::Layout::HWC)
                        .Case("nhwc", PreprocessSpec::Layout::NHWC)
                        .Case("chw", PreprocessSpec::Layout::CHW)
                        .Default(PreprocessSpec::Layout::NCHW);
    } else if (key == "input") {
      if (value != "uint8" && value != "float32")
        return bad("the input type is uint8 or float32");
      spec.uint8 = value == "uint8";
    } else if (key == "name") {
      if (value.empty())
        return bad("no input name");
      spec.input = value.str();
    } else if (key == "size") {
      std::optional<int64_t> single;
      if (!parseExtent(value, single, spec.size) || single)
        return bad("the image size is HxW, positive integers");
    } else if (key == "resize") {
      auto [extent, mode] = value.split(':');
      if (!parseExtent(extent, spec.resizeShorter, spec.resizeTo))
        return bad("resize is S (the shorter side) or HxW, positive integers");
      if (mode == "nearest")
        spec.interpolation = PreprocessSpec::Interpolation::Nearest;
      else if (!mode.empty() && mode != "bilinear")
        return bad("the interpolation is bilinear or nearest");
    } else if (key == "crop") {
      auto [extent, where] = value.split(':');
      std::optional<int64_t> single;
      if (!parseExtent(extent, single, spec.crop))
        return bad("crop is S or HxW, positive integers");
      if (single)
        spec.crop = Extent{*single, *single};
      if (!where.empty() && where != "center")
        return bad("only a center crop is supported");
    } else if (key == "scale") {
      double v;
      if (!parseNumber(value, v) || v == 0.0)
        return bad("scale is a non-zero number or a fraction like 1/255");
      spec.scale = v;
    } else if (key == "mean") {
      if (!parseList(value, spec.mean))
        return bad("mean is one number per channel, separated by ':'");
    } else if (key == "std") {
      if (!parseList(value, spec.std) ||
          llvm::any_of(spec.std, [](float v) { return v == 0.0f; }))
        return bad("std is one non-zero number per channel, separated by ':'");
    } else {
      return bad(("unknown item; SPEC items are: " + llvm::Twine(kKeys)));
    }
  }
  return spec;
}

namespace {

/// Replaces the uses of `from` by `to` in `graph`'s nodes and, unless a
/// subgraph defines `from` itself, in their subgraphs.
void renameUses(onnx::GraphProto &graph, const std::string &from,
                const std::string &to) {
  for (onnx::NodeProto &node : *graph.mutable_node()) {
    for (std::string &input : *node.mutable_input())
      if (input == from)
        input = to;
    for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
      auto visit = [&](onnx::GraphProto &sub) {
        auto defines = [&](const auto &values) {
          return llvm::any_of(values,
                              [&](const auto &v) { return v.name() == from; });
        };
        bool shadowed = defines(sub.input()) || defines(sub.initializer());
        for (const onnx::NodeProto &n : sub.node())
          shadowed |= llvm::is_contained(n.output(), from);
        if (!shadowed)
          renameUses(sub, from, to);
      };
      if (attr.has_g())
        visit(*attr.mutable_g());
      for (onnx::GraphProto &sub : *attr.mutable_graphs())
        visit(sub);
    }
  }
}

/// Builds the nodes in front of the graph.
class Prepender {
public:
  Prepender(onnx::GraphProto &graph, std::string input)
      : graph(graph), input(std::move(input)) {
    for (const onnx::ValueInfoProto &v : graph.input())
      names.insert(v.name());
    for (const onnx::TensorProto &t : graph.initializer())
      names.insert(t.name());
    for (const onnx::NodeProto &n : graph.node()) {
      names.insert(n.name());
      for (const std::string &o : n.output())
        names.insert(o);
    }
    current = this->input;
  }

  /// A name no value or node of the graph has.
  std::string fresh(StringRef stem) {
    std::string base = (input + "/preprocess/" + stem).str();
    std::string name = base;
    for (int i = 1; !names.insert(name).second; ++i)
      name = base + "." + std::to_string(i);
    return name;
  }

  std::string int64Constant(StringRef stem, llvm::ArrayRef<int64_t> values,
                            bool asVector = true) {
    onnx::TensorProto *t = added.Add();
    t->set_name(fresh(stem));
    t->set_data_type(onnx::TensorProto::INT64);
    if (asVector)
      t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values)
      t->add_int64_data(v);
    return t->name();
  }

  std::string floatConstant(StringRef stem, llvm::ArrayRef<int64_t> dims,
                            llvm::ArrayRef<float> values) {
    onnx::TensorProto *t = added.Add();
    t->set_name(fresh(stem));
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
      t->add_dims(d);
    for (float v : values)
      t->add_float_data(v);
    return t->name();
  }

  /// Appends `opType(current, operands...)` as the new current value.
  onnx::NodeProto &apply(StringRef stem, StringRef opType,
                         llvm::ArrayRef<std::string> operands = {}) {
    onnx::NodeProto &node = *nodes.Add();
    node.set_name(fresh(stem));
    node.set_op_type(opType.str());
    node.add_input(current);
    for (const std::string &operand : operands)
      node.add_input(operand);
    current = fresh(stem.str() + ".out");
    node.add_output(current);
    return node;
  }

  /// Moves the nodes and constants into the graph, in front of its own,
  /// and points the input's old uses at the preprocessed value.
  void finish() {
    std::string raw = input;
    renameUses(graph, raw, current);
    google::protobuf::RepeatedPtrField<onnx::NodeProto> all;
    for (onnx::NodeProto &n : nodes)
      *all.Add() = std::move(n);
    for (onnx::NodeProto &n : *graph.mutable_node())
      *all.Add() = std::move(n);
    graph.mutable_node()->Swap(&all);
    for (onnx::TensorProto &t : added)
      *graph.add_initializer() = std::move(t);
  }

private:
  onnx::GraphProto &graph;
  std::string input, current;
  llvm::StringSet<> names;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  google::protobuf::RepeatedPtrField<onnx::TensorProto> added;
};

onnx::AttributeProto &addAttribute(onnx::NodeProto &node, StringRef name) {
  onnx::AttributeProto &attr = *node.add_attribute();
  attr.set_name(name.str());
  return attr;
}

void setString(onnx::NodeProto &node, StringRef name, StringRef value) {
  onnx::AttributeProto &attr = addAttribute(node, name);
  attr.set_type(onnx::AttributeProto::STRING);
  attr.set_s(value.str());
}

void setInts(onnx::NodeProto &node, StringRef name,
             llvm::ArrayRef<int64_t> values) {
  onnx::AttributeProto &attr = addAttribute(node, name);
  attr.set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values)
    attr.add_ints(v);
}

void setInt(onnx::NodeProto &node, StringRef name, int64_t value) {
  onnx::AttributeProto &attr = addAttribute(node, name);
  attr.set_type(onnx::AttributeProto::INT);
  attr.set_i(value);
}

} // namespace

bool mlir::tessel::onnx_import::prependPreprocessing(
    onnx::ModelProto &model, const PreprocessSpec &spec,
    llvm::StringMap<llvm::SmallVector<int64_t>> &inputShapes,
    std::string &error) {
  using Layout = PreprocessSpec::Layout;
  onnx::GraphProto &graph = *model.mutable_graph();
  // The graph inputs that are not initializers (defaults) are the model's.
  llvm::StringSet<> initializers;
  for (const onnx::TensorProto &t : graph.initializer())
    initializers.insert(t.name());
  onnx::ValueInfoProto *target = nullptr;
  std::vector<std::string> candidates;
  for (onnx::ValueInfoProto &v : *graph.mutable_input()) {
    if (initializers.contains(v.name()))
      continue;
    candidates.push_back(v.name());
    if (v.name() == spec.input || (spec.input.empty() && !target))
      target = &v;
  }
  if (!spec.input.empty() && (!target || target->name() != spec.input)) {
    error = "the model has no input '" + spec.input + "'";
    return false;
  }
  if (spec.input.empty() && candidates.size() != 1) {
    error = "the model has " + std::to_string(candidates.size()) +
            " inputs; name the image's with name=INPUT";
    return false;
  }
  const std::string name = target->name();
  auto fail = [&](const llvm::Twine &why) {
    error = ("input '" + name + "': " + why).str();
    return false;
  };
  for (const onnx::ValueInfoProto &out : graph.output())
    if (out.name() == name)
      return fail("it is also a graph output");

  // The model's own input: float32 [N, C, H, W], static.
  const onnx::TypeProto::Tensor &tensor = target->type().tensor_type();
  if (!target->type().has_tensor_type() ||
      tensor.elem_type() != onnx::TensorProto::FLOAT)
    return fail("--preprocess feeds a float32 tensor; this input is not one");
  llvm::SmallVector<int64_t> shape;
  auto given = inputShapes.find(name);
  if (given != inputShapes.end()) {
    shape = given->second;
    inputShapes.erase(given);
  } else if (tensor.has_shape()) {
    for (const onnx::TensorShapeProto::Dimension &d : tensor.shape().dim())
      shape.push_back(d.has_dim_value() && d.dim_value() > 0 ? d.dim_value()
                                                             : -1);
  } else {
    return fail("it has no declared shape; give one with --input-shape " +
                name + "=NxCxHxW");
  }
  if (shape.size() != 4)
    return fail("--preprocess feeds an image batch (N, C, H, W); this input "
                "has rank " +
                llvm::Twine(shape.size()));
  if (llvm::is_contained(shape, -1))
    return fail("its shape has dynamic dimensions; fix them with "
                "--input-shape " +
                name + "=NxCxHxW");
  int64_t n = shape[0], c = shape[1];
  Extent modelSize{shape[2], shape[3]};
  bool batched = spec.layout == Layout::NHWC || spec.layout == Layout::NCHW;
  if (!batched && n != 1)
    return fail("a single image (hwc or chw) feeds a batch of 1; the model "
                "takes " +
                llvm::Twine(n) + " (use nhwc or nchw)");
  for (const auto &[what, values] :
       {std::pair<const char *, const std::vector<float> *>{"mean", &spec.mean},
        {"std", &spec.std}})
    if (values->size() > 1 && static_cast<int64_t>(values->size()) != c)
      return fail(llvm::Twine(what) + " has " + llvm::Twine(values->size()) +
                  " values; the model's input has " + llvm::Twine(c) +
                  " channels");

  // The geometry: image -> resized -> cropped == the model's H x W.
  Extent image = spec.size       ? *spec.size
                 : spec.resizeTo ? *spec.resizeTo
                 : spec.resizeShorter
                     ? Extent{*spec.resizeShorter, *spec.resizeShorter}
                 : spec.crop ? *spec.crop
                             : modelSize;
  Extent resized = image;
  if (spec.resizeTo) {
    resized = *spec.resizeTo;
  } else if (spec.resizeShorter) {
    int64_t s = *spec.resizeShorter;
    int64_t shortSide = std::min(image.first, image.second);
    int64_t longSide = std::max(image.first, image.second);
    // torchvision: int(requested * long / short), in floating point.
    auto longer = static_cast<int64_t>(static_cast<double>(s) *
                                       static_cast<double>(longSide) /
                                       static_cast<double>(shortSide));
    resized = image.first <= image.second ? Extent{s, longer}
                                          : Extent{longer, s};
  }
  Extent cropped = spec.crop ? *spec.crop : resized;
  if (cropped.first > resized.first || cropped.second > resized.second)
    return fail("crop=" + formatExtent(cropped) +
                " is larger than the resized image (" + formatExtent(resized) +
                ")");
  if (cropped != modelSize)
    return fail("the preprocessed image is " + formatExtent(cropped) +
                (spec.crop ? " (crop)" : " (no crop)") +
                ", the model takes " + formatExtent(modelSize));
  bool resizes = resized != image, crops = cropped != resized;
  int64_t opset = 0;
  for (const onnx::OperatorSetIdProto &id : model.opset_import())
    if (id.domain().empty() || id.domain() == "ai.onnx")
      opset = id.version();
  if ((resizes || crops) && opset < 11)
    return fail("resize and crop need a model of opset 11 or newer; this one "
                "is opset " +
                llvm::Twine(opset));

  // torchvision's CenterCrop: int(round((size - crop) / 2.0)), ties to even.
  auto offset = [](int64_t size, int64_t crop) {
    return static_cast<int64_t>(
        std::nearbyint(static_cast<double>(size - crop) / 2.0));
  };
  int64_t top = offset(resized.first, cropped.first);
  int64_t left = offset(resized.second, cropped.second);
  Prepender p(graph, name);
  auto crop = [&](int64_t rowAxis) {
    p.apply("crop", "Slice",
            {p.int64Constant("crop_starts", {top, left}),
             p.int64Constant("crop_ends",
                             {top + cropped.first, left + cropped.second}),
             p.int64Constant("crop_axes", {rowAxis, rowAxis + 1})});
  };
  // Without a resize the crop comes first, on the raw pixels: the
  // conversion kernel then reads the cropped window and writes a dense
  // image, which the first convolution reads faster than a window of a
  // larger one.
  if (crops && !resizes)
    crop(spec.layout == Layout::HWC    ? 0
         : spec.layout == Layout::NCHW ? 2
                                       : 1);
  Extent converted = resizes || !crops ? image : cropped;
  // One image becomes a batch of one first (a view), so that the layout
  // change writes the rank-4 tensor the model reads.
  // The cast sits right before the transpose, which it fuses into.
  if (spec.layout == Layout::HWC)
    p.apply("to_batch", "Reshape",
            {p.int64Constant("batch_shape",
                             {1, converted.first, converted.second, c})});
  if (spec.layout == Layout::CHW)
    p.apply("to_batch", "Reshape",
            {p.int64Constant("batch_shape",
                             {1, c, converted.first, converted.second})});
  if (spec.uint8)
    setInt(p.apply("to_float", "Cast"), "to", onnx::TensorProto::FLOAT);
  if (spec.layout == Layout::HWC || spec.layout == Layout::NHWC)
    setInts(p.apply("to_nchw", "Transpose"), "perm", {0, 3, 1, 2});
  if (resizes) {
    bool bilinear =
        spec.interpolation == PreprocessSpec::Interpolation::Bilinear;
    onnx::NodeProto &resize = p.apply(
        "resize", "Resize",
        {p.floatConstant("roi", {0}, {}), p.floatConstant("scales", {0}, {}),
         p.int64Constant("sizes", {n, c, resized.first, resized.second})});
    setString(resize, "mode", bilinear ? "linear" : "nearest");
    setString(resize, "coordinate_transformation_mode",
              bilinear ? "half_pixel" : "asymmetric");
    if (!bilinear)
      setString(resize, "nearest_mode", "floor");
    // torchvision rounds a resized uint8 image back to integers.
    if (spec.uint8 && bilinear)
      p.apply("round", "Round");
  }
  if (crops && resizes)
    crop(2);
  auto perChannel = [&](StringRef stem, const std::vector<float> &values) {
    llvm::SmallVector<int64_t> dims = {1, 1, 1, 1};
    if (values.size() > 1)
      dims[1] = c;
    return p.floatConstant(stem, dims, values);
  };
  if (spec.scale)
    p.apply("scale", "Mul",
            {perChannel("scale_value", {static_cast<float>(*spec.scale)})});
  if (!spec.mean.empty())
    p.apply("mean", "Sub", {perChannel("mean_value", spec.mean)});
  if (!spec.std.empty())
    p.apply("std", "Div", {perChannel("std_value", spec.std)});
  p.finish();

  // The graph input becomes the raw image.
  onnx::TypeProto::Tensor &raw = *target->mutable_type()->mutable_tensor_type();
  raw.set_elem_type(spec.uint8 ? onnx::TensorProto::UINT8
                               : onnx::TensorProto::FLOAT);
  llvm::SmallVector<int64_t> rawShape;
  switch (spec.layout) {
  case Layout::HWC:
    rawShape = {image.first, image.second, c};
    break;
  case Layout::NHWC:
    rawShape = {n, image.first, image.second, c};
    break;
  case Layout::CHW:
    rawShape = {c, image.first, image.second};
    break;
  case Layout::NCHW:
    rawShape = {n, c, image.first, image.second};
    break;
  }
  raw.mutable_shape()->clear_dim();
  for (int64_t d : rawShape)
    raw.mutable_shape()->add_dim()->set_dim_value(d);
  // value_info entries for the old name no longer describe it.
  auto *infos = graph.mutable_value_info();
  for (int i = infos->size() - 1; i >= 0; --i)
    if (infos->Get(i).name() == name)
      infos->DeleteSubrange(i, 1);
  return true;
}
