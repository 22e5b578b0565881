//===- PrecompiledHeader.cpp - The target that builds the header ----------===//
//
// TesselPrecompiledHeader compiles lib/PrecompiledHeader.h; this file gives
// it a source to build it with.
//
//===----------------------------------------------------------------------===//
