//===- TesselEnums.td - The tessel dialect's enum attributes --*- tablegen -*-===//
//
// The closed sets of modes the ops take (layouts, padding and interpolation
// modes, scatter reductions), each a C++ enum and an attribute printed as
// `#tessel.<mnemonic><case>`, e.g. `layout = #tessel.layout<nhwc>`. The
// parser accepts only the listed cases; the importer maps ONNX's strings to
// them and refuses the others.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELENUMS_TD
#define TESSEL_DIALECT_TESSEL_IR_TESSELENUMS_TD

include "mlir/IR/EnumAttr.td"
include "tessel/Dialect/Tessel/IR/TesselBase.td"

// An enum in ::mlir::tessel whose attribute is a Tessel_EnumAttr.
class Tessel_I32Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::mlir::tessel";
  let genSpecializedAttr = 0;
}

// The attribute holding a Tessel_I32Enum: `#tessel.<mnemonic><case>`.
class Tessel_EnumAttr<Tessel_I32Enum enumInfo, string mnemonic>
    : EnumAttr<Tessel_Dialect, enumInfo, mnemonic> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

def Tessel_Layout : Tessel_I32Enum<"Layout",
    "activation layout: nchw or nhwc", [
  I32EnumAttrCase<"NCHW", 0, "nchw">,
  I32EnumAttrCase<"NHWC", 1, "nhwc">
]>;
def Tessel_LayoutAttr : Tessel_EnumAttr<Tessel_Layout, "layout">;

//===----------------------------------------------------------------------===//
// Padding and interpolation
//===----------------------------------------------------------------------===//

def Tessel_PadMode : Tessel_I32Enum<"PadMode",
    "pad mode: constant, reflect or edge", [
  I32EnumAttrCase<"Constant", 0, "constant">,
  I32EnumAttrCase<"Reflect", 1, "reflect">,
  I32EnumAttrCase<"Edge", 2, "edge">
]>;
def Tessel_PadModeAttr : Tessel_EnumAttr<Tessel_PadMode, "pad_mode">;

def Tessel_InterpolationMode : Tessel_I32Enum<"InterpolationMode",
    "interpolation mode: nearest, linear or cubic", [
  I32EnumAttrCase<"Nearest", 0, "nearest">,
  I32EnumAttrCase<"Linear", 1, "linear">,
  I32EnumAttrCase<"Cubic", 2, "cubic">
]>;
def Tessel_InterpolationModeAttr
    : Tessel_EnumAttr<Tessel_InterpolationMode, "interpolation">;

def Tessel_CoordinateTransformationMode : Tessel_I32Enum<
    "CoordinateTransformationMode",
    "coordinate transformation mode: half_pixel, pytorch_half_pixel, "
    "align_corners, asymmetric, tf_crop_and_resize or tf_half_pixel_for_nn", [
  I32EnumAttrCase<"HalfPixel", 0, "half_pixel">,
  I32EnumAttrCase<"PytorchHalfPixel", 1, "pytorch_half_pixel">,
  I32EnumAttrCase<"AlignCorners", 2, "align_corners">,
  I32EnumAttrCase<"Asymmetric", 3, "asymmetric">,
  I32EnumAttrCase<"TfCropAndResize", 4, "tf_crop_and_resize">,
  I32EnumAttrCase<"TfHalfPixelForNN", 5, "tf_half_pixel_for_nn">
]>;
def Tessel_CoordinateTransformationModeAttr
    : Tessel_EnumAttr<Tessel_CoordinateTransformationMode, "coordinate_mode">;

def Tessel_NearestMode : Tessel_I32Enum<"NearestMode",
    "nearest mode: round_prefer_floor, round_prefer_ceil, floor or ceil", [
  I32EnumAttrCase<"RoundPreferFloor", 0, "round_prefer_floor">,
  I32EnumAttrCase<"RoundPreferCeil", 1, "round_prefer_ceil">,
  I32EnumAttrCase<"Floor", 2, "floor">,
  I32EnumAttrCase<"Ceil", 3, "ceil">
]>;
def Tessel_NearestModeAttr
    : Tessel_EnumAttr<Tessel_NearestMode, "nearest_mode">;

def Tessel_GridPaddingMode : Tessel_I32Enum<"GridPaddingMode",
    "grid padding mode: zeros, border or reflection", [
  I32EnumAttrCase<"Zeros", 0, "zeros">,
  I32EnumAttrCase<"Border", 1, "border">,
  I32EnumAttrCase<"Reflection", 2, "reflection">
]>;
def Tessel_GridPaddingModeAttr
    : Tessel_EnumAttr<Tessel_GridPaddingMode, "grid_padding">;

//===----------------------------------------------------------------------===//
// Scatter
//===----------------------------------------------------------------------===//

def Tessel_ScatterReduction : Tessel_I32Enum<"ScatterReduction",
    "scatter reduction: none, add, mul, max or min", [
  I32EnumAttrCase<"None", 0, "none">,
  I32EnumAttrCase<"Add", 1, "add">,
  I32EnumAttrCase<"Mul", 2, "mul">,
  I32EnumAttrCase<"Max", 3, "max">,
  I32EnumAttrCase<"Min", 4, "min">
]>;
def Tessel_ScatterReductionAttr
    : Tessel_EnumAttr<Tessel_ScatterReduction, "scatter_reduction">;

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELENUMS_TD
