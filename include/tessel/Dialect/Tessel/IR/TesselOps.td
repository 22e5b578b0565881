//===- TesselOps.td - The tessel dialect's operations ----------*- tablegen -*-===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELOPS_TD
#define TESSEL_DIALECT_TESSEL_IR_TESSELOPS_TD

include "tessel/Dialect/Tessel/IR/TesselBase.td"

// One file per op family.
include "tessel/Dialect/Tessel/IR/TesselDataMovementOps.td"
include "tessel/Dialect/Tessel/IR/TesselElementwiseOps.td"
include "tessel/Dialect/Tessel/IR/TesselFusionOps.td"
include "tessel/Dialect/Tessel/IR/TesselNNOps.td"
include "tessel/Dialect/Tessel/IR/TesselNormalizationOps.td"
include "tessel/Dialect/Tessel/IR/TesselReductionOps.td"

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELOPS_TD
