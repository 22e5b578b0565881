//===- Passes.td - Tessel's conversion passes --------------*- tablegen -*-===//

#ifndef TESSEL_CONVERSION_PASSES_TD
#define TESSEL_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTesselToLinalgPass
    : Pass<"tessel-convert-tessel-to-linalg", "func::FuncOp"> {
  let summary = "Lowers tessel ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites every `tessel` op into structured ops on tensors: contractions,
    convolutions and pooling into `linalg.generic` nests, elementwise ops into
    broadcasting `linalg.generic`s, data movement into `tensor` and
    `linalg.transpose`. A tessel op that cannot be lowered is an error at its
    location (the ONNX node).

    Unsigned integers: the bodies pick unsigned arith ops (`divui`, `cmpi ult`,
    `uitofp`...) from the tessel op's element types, then every `uiN` type in
    the function (its signature included) becomes the signless `iN`, which is
    all arith computes on. Run `--tessel-record-signature` first to keep the
    ONNX types for the artifact's descriptor.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TesselRecordSignaturePass : Pass<"tessel-record-signature", "ModuleOp"> {
  let summary = "Records the model's signature before lowering changes its types";
  let description = [{
    Writes the module attribute `tessel.signature` (model name, and each input
    and output of the function marked `tessel.entry` as `{name, type}`) from
    the tensor types the importer gave the graph. It runs first in the linalg
    phase: `--tessel-convert-tessel-to-linalg` computes on signless integers,
    so after it a `ui8` input would read as `i8`. `--tessel-entry-abi` keeps a
    recorded signature (checking that it still matches the function up to
    signedness) and records one itself when there is none.
  }];
}

def TesselEntryABIPass : Pass<"tessel-entry-abi", "ModuleOp"> {
  let summary = "Gives the model's entry function the artifact's buffer ABI";
  let description = [{
    The importer marks the model function with `tessel.entry`, names its
    arguments and results with `tessel.name`, and names the model with the
    module attribute `tessel.model_name`. This pass rewrites that function,
    `(tensor...) -> (tensor...)`, into `@tessel_model_main(memref...)` taking
    one caller-owned buffer per input and then per output: inputs enter through
    read-only `bufferization.to_tensor`, results leave through
    `bufferization.materialize_in_destination`. It records the signature as
    the module attribute `tessel.signature` (model name, and each input and
    output as `{name, type}`), which the artifact writer turns into the
    descriptor. A tensor without elements has a `memref<0xT>` buffer (the
    bare-pointer convention cannot lower `memref<3x0x5xT>`): the body sees
    `tensor.empty` for such an input and writes nothing for such an output.
    A result that reshapes another tensor (`tensor.expand_shape`,
    `tensor.collapse_shape`, peeled in turn) is materialized un-reshaped into
    its buffer viewed in that tensor's shape (`memref.collapse_shape` /
    `memref.expand_shape` at the start of the body), and reshapes of
    `tensor.empty` fold into empties: empty-tensor elimination follows no
    reshapes, and without both the last kernel computed into a buffer of its
    own that was then copied into the caller's.
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TesselBf16MemoryAsIntegersPass
    : Pass<"tessel-bf16-memory-as-integers", "ModuleOp"> {
  let summary = "Loads and stores bf16 vectors (LLVM dialect) as i16 vectors";
  let description = [{
    LLVM 22's X86 backend stops on some loads and stores of bf16 vectors
    ("Do not know how to soft promote this operator's operand": a vector of
    9 bf16, a 3x3 window's taps, is one). The same bytes as i16 lanes
    legalize at any length: each `llvm.load` and `llvm.store` of a bf16
    vector moves i16 lanes, with an `llvm.bitcast` beside it.

    ```mlir
    %v = llvm.load %p : !llvm.ptr -> vector<9xbf16>
    // becomes
    %i = llvm.load %p : !llvm.ptr -> vector<9xi16>
    %v = llvm.bitcast %i : vector<9xi16> to vector<9xbf16>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TesselConstantGlobalsAsBytesPass
    : Pass<"tessel-constant-globals-as-bytes", "ModuleOp"> {
  let summary = "Gives each constant global of the weights (LLVM dialect) "
                "one flat array of bytes";
  let description = [{
    A weight global lowered from a `memref.global` has the memref's nested
    array type, `!llvm.array<16 x array<784 x array<32 x f32>>>`: translated,
    it becomes one LLVM constant per innermost row (12544 there; millions
    for a ViT-B/32's 352 MB), which LLVM hashes into its constant tables,
    visits in its call graph at -O2, destroys one by one, and which the
    object writer emits element by element. As one `!llvm.array<N x i8>`
    holding the same bytes it is a single constant, written out with one
    copy. The addresses the kernels take (`llvm.mlir.addressof`, opaque
    pointers) and the bytes are the same; the alignment stays at least 16,
    what LLVM gives an array of 16 bytes or more that names none.

    Globals smaller than `min-bytes`, splats, and elements that are not
    whole bytes (i1) keep their types.

    ```mlir
    llvm.mlir.global private constant @w(dense<[[1.0, 2.0]]> :
        tensor<1x2xf32>) {addr_space = 0 : i32, alignment = 64 : i64}
        : !llvm.array<1 x array<2 x f32>>
    // becomes
    llvm.mlir.global private constant @w(dense<[0, 0, -128, 63, 0, 0, 0, 64]>
        : tensor<8xi8>) {addr_space = 0 : i32, alignment = 64 : i64}
        : !llvm.array<8 x i8>
    ```
  }];
  let options = [
    Option<"minBytes", "min-bytes", "uint64_t", /*default=*/"1024",
           "Globals of fewer bytes keep their element types">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TesselLowerStridedCopiesPass
    : Pass<"tessel-lower-strided-copies", "func::FuncOp"> {
  let summary = "Turns memref.copy between strided buffers into linalg.copy";
  let description = [{
    The LLVM lowering of a `memref.copy` whose operands are not contiguous
    calls `memrefCopy` from MLIR's runner utilities, a library an artifact
    must not depend on (it links against libc and libm only). This pass
    rewrites such copies into `linalg.copy`, which becomes loops; contiguous
    copies stay `memref.copy` and become `memcpy`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // TESSEL_CONVERSION_PASSES_TD
