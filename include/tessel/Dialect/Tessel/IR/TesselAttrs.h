//===- TesselAttrs.h - The tessel dialect's attributes ----------*- C++ -*-===//
//
// The enums of TesselEnums.td (Layout, PadMode, InterpolationMode,
// CoordinateTransformationMode, NearestMode, GridPaddingMode,
// ScatterReduction) with their symbolize/stringify functions, and the
// attributes that hold them (LayoutAttr...).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELATTRS_H
#define TESSEL_DIALECT_TESSEL_IR_TESSELATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"

#include "tessel/Dialect/Tessel/IR/TesselEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tessel/Dialect/Tessel/IR/TesselAttrs.h.inc"

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELATTRS_H
