//===- FormFusedRegions.cpp - Group ops into tessel.fused regions ---------===//
//
// Decides fusion on the graph: which ops run as one kernel. Each group of
// two or more ops moves into a `tessel.fused` region; lowering to linalg
// marks what the region's ops became with its group, and the code
// generators fuse within a group only. See the pass description in
// Passes.td for the rules.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELFORMFUSEDREGIONSPASS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

using Group = llvm::SetVector<Operation *>;

/// An elementwise op, or an inference batch norm (elementwise along the
/// channels) that no convolution absorbed.
bool isElementwise(Operation *op) {
  return op->hasTrait<ElementwiseTrait>() || isa<BatchNormOp>(op);
}

/// A convolution or a product: a kernel that runs its consumer's
/// elementwise ops on each register tile.
bool isAnchor(Operation *op) { return isa<ConvOp, MatMulOp, GemmOp>(op); }

RankedTensorType resultType(Operation *op) {
  return cast<RankedTensorType>(op->getResult(0).getType());
}

/// An op computing per row of its innermost dimension (a reduction over it
/// that keeps it as extent 1, a softmax or layer norm over it): what a row
/// of an elementwise consumer can compute in the consumer's loop.
bool isRowOp(Operation *op) {
  if (op->getNumOperands() == 0)
    return false;
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!input || input.getRank() == 0)
    return false;
  int64_t last = input.getRank() - 1;
  if (auto softmax = dyn_cast<SoftmaxOp>(op))
    return static_cast<int64_t>(softmax.getAxis()) == last;
  if (auto norm = dyn_cast<LayerNormOp>(op))
    return static_cast<int64_t>(norm.getAxis()) == last;
  if (!isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp,
           ReduceSumSquareOp, ReduceL1Op, ReduceL2Op>(op))
    return false;
  auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes");
  auto keepdims = op->getAttrOfType<BoolAttr>("keepdims");
  return axes && keepdims && keepdims.getValue() &&
         llvm::is_contained(axes.asArrayRef(), last);
}

/// Whether every user of every result of `op` is in `group`.
bool usedOnlyBy(Operation *op, const Group &group) {
  return llvm::all_of(op->getUsers(),
                      [&](Operation *user) { return group.contains(user); });
}

/// Whether `op` widens 8-bit integers for a product or convolution to read
/// (directly, or minus a zero point): the 8-bit value is what such a kernel
/// reads (tessel-narrow-integer-products), so the widening stays beside it
/// and does not join the chain that computes the 8-bit value.
bool widensForProduct(Operation *op) {
  auto cast = dyn_cast<CastOp>(op);
  if (!cast)
    return false;
  auto from = dyn_cast<IntegerType>(cast.getInput().getType().getElementType());
  auto to = dyn_cast<IntegerType>(resultType(op).getElementType());
  if (!from || !to || from.getWidth() != 8 || to.getWidth() <= 8)
    return false;
  return llvm::all_of(op->getUsers(), [](Operation *user) {
    if (isa<SubOp>(user) && user->hasOneUse())
      user = *user->getUsers().begin();
    return isa<MatMulOp, ConvOp>(user);
  });
}

/// A user of `value` with the same shape reads it element for element (a
/// binary op reading a smaller operand broadcasts it instead, and fusing it
/// would compute it again for every broadcast element).
bool readsWhole(Operation *user, Value value) {
  return user->getNumResults() > 0 &&
         cast<RankedTensorType>(value.getType()).getShape() ==
             resultType(user).getShape();
}

/// A user of `value` that reads one element of it per row of its own
/// result: `value` has the user's shape with an innermost extent of 1 (a
/// row's mean or norm, read by the row).
bool readsPerRow(Operation *user, Value value) {
  if (user->getNumResults() == 0)
    return false;
  ArrayRef<int64_t> read = cast<RankedTensorType>(value.getType()).getShape();
  ArrayRef<int64_t> shape = resultType(user).getShape();
  return !shape.empty() && read.size() == shape.size() && read.back() == 1 &&
         read.drop_back() == shape.drop_back();
}

/// Grows `group` to a fixed point: every producer of a member's operand
/// whose users are all in the group and that `accept(member, operand,
/// producer)` admits is handed to `join` (which adds it, and maybe more).
/// Repeated until nothing joins, since a producer read by two members
/// qualifies only once both are in.
void grow(Group &group,
          llvm::function_ref<bool(Operation *, Value, Operation *)> accept,
          llvm::function_ref<void(Operation *)> join) {
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < group.size(); ++i) {
      Operation *member = group[i];
      for (Value operand : member->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (!producer || group.contains(producer) ||
            !usedOnlyBy(producer, group) || !accept(member, operand, producer))
          continue;
        join(producer);
        grew = true;
      }
    }
  }
}

class RegionFormer {
public:
  explicit RegionFormer(func::FuncOp func) : func(func) {}

  void run() {
    formAttention();
    formChains();
    attachAnchors();
    attachShifts();
    // After the anchors: a convolution's epilogue stays its own, even when
    // a layout conversion reads it.
    formLayoutChanges();
    formRows();
    for (auto &[group, kind] : groups)
      if (group.size() > 1)
        wrap(group, kind);
  }

private:
  func::FuncOp func;
  SmallVector<std::pair<Group, StringRef>> groups;
  llvm::DenseMap<Operation *, size_t> groupOf;

  bool grouped(Operation *op) const { return groupOf.contains(op); }

  void add(Group group, StringRef kind) {
    for (Operation *op : group)
      groupOf[op] = groups.size();
    groups.emplace_back(std::move(group), kind);
  }

  /// The ops of the function's body, in order.
  SmallVector<Operation *> topLevelOps() {
    SmallVector<Operation *> ops;
    for (Operation &op : func.getBody().front())
      ops.push_back(&op);
    return ops;
  }

  /// MatMul -> scale -> (mask add) -> Softmax -> MatMul over >= 2 heads,
  /// with the transposes that bring the heads to the front and back: from
  /// the value product (or the one transpose reading it), every producer
  /// among transposes, elementwise ops, softmaxes and products whose users
  /// are all in the block. Reshapes and slices end it.
  void formAttention() {
    SmallVector<Operation *> ops = topLevelOps();
    for (Operation *op : llvm::reverse(ops)) {
      auto product = dyn_cast<MatMulOp>(op);
      if (!product || grouped(product))
        continue;
      ArrayRef<int64_t> shape = resultType(product).getShape();
      if (shape.size() < 3)
        continue;
      int64_t heads = 1;
      for (int64_t extent : shape.drop_back(2))
        heads *= extent;
      if (heads < 2)
        continue;
      Group block;
      Operation *root = product;
      if (product->hasOneUse() &&
          isa<TransposeOp>(*product->getUsers().begin()))
        root = *product->getUsers().begin();
      block.insert(root);
      block.insert(product);
      grow(
          block,
          [&](Operation *, Value, Operation *producer) {
            return !grouped(producer) &&
                   (isa<TransposeOp, SoftmaxOp, MatMulOp>(producer) ||
                    isElementwise(producer));
          },
          [&](Operation *producer) { block.insert(producer); });
      bool scores = llvm::any_of(block, [&](Operation *member) {
        return member != product && isa<MatMulOp>(member);
      });
      bool softmax = llvm::any_of(block, llvm::IsaPred<SoftmaxOp>);
      if (scores && softmax)
        add(std::move(block), "attention");
    }
  }

  /// A transpose and the elementwise ops it reads (a cast of an image's
  /// pixels, --preprocess's u8 -> f32 before HWC -> CHW): every producer of
  /// that kind whose users are all in the group, read whole. One loop nest
  /// reads the source and writes the permuted result.
  void formLayoutChanges() {
    for (Operation *op : topLevelOps()) {
      if (!isa<TransposeOp>(op) || grouped(op))
        continue;
      Group group;
      group.insert(op);
      // An elementwise chain no anchor took joins whole (the cast and the
      // shift a folded input normaliser leaves in front of the transpose).
      SmallVector<size_t> merged;
      grow(
          group,
          [&](Operation *member, Value operand, Operation *producer) {
            // A transpose reads each element once, permuted.
            if (!isa<TransposeOp>(member) && !readsWhole(member, operand))
              return false;
            if (!grouped(producer))
              return isElementwise(producer);
            size_t index = groupOf.lookup(producer);
            return groups[index].second == "elementwise";
          },
          [&](Operation *producer) {
            if (!grouped(producer)) {
              group.insert(producer);
              return;
            }
            size_t index = groupOf.lookup(producer);
            for (Operation *member : groups[index].first)
              group.insert(member);
            merged.push_back(index);
          });
      if (group.size() > 1) {
        // The merged chains' groups are left empty (never wrapped).
        for (size_t index : merged)
          groups[index].first.clear();
        add(std::move(group), "layout");
      }
    }
  }

  /// Chains of elementwise ops (and gathers): from a consumer, every
  /// producer of that kind whose users are all in the group and which its
  /// reader reads whole. The group's first op is its root, the one whose
  /// result leaves it.
  void formChains() {
    SmallVector<Operation *> ops = topLevelOps();
    for (Operation *root : llvm::reverse(ops)) {
      if (grouped(root) || !isElementwise(root))
        continue;
      Group group;
      group.insert(root);
      grow(
          group,
          [&](Operation *member, Value operand, Operation *producer) {
            return !grouped(producer) && !widensForProduct(member) &&
                   (isElementwise(producer) || isa<GatherOp>(producer)) &&
                   readsWhole(member, operand);
          },
          [&](Operation *producer) { group.insert(producer); });
      if (group.size() > 1)
        add(std::move(group), "elementwise");
    }
  }

  /// Rows: from a row op, an elementwise op, or the root of a chain no
  /// product took, every producer whose users are all in the group and
  /// that a row's loop can compute: a row op, elementwise op or gather (or
  /// a whole untaken chain, through its root) that its reader reads whole,
  /// one element per row, or as a row op's input. A layer norm written as
  /// reductions and elementwise ops (opset < 17 exporters) becomes one
  /// group, as do two layer norms in a row. Kept only if it holds a row op.
  void formRows() {
    SmallVector<Operation *> ops = topLevelOps();
    for (Operation *root : llvm::reverse(ops)) {
      if (grouped(root) ? !isChainRoot(root)
                        : !(isRowOp(root) || isElementwise(root)))
        continue;
      Group group;
      SmallVector<size_t> merged;
      auto join = [&](Operation *op) {
        if (!grouped(op)) {
          group.insert(op);
          return;
        }
        size_t index = groupOf.lookup(op);
        merged.push_back(index);
        group.insert(groups[index].first.begin(), groups[index].first.end());
      };
      join(root);
      grow(
          group,
          [&](Operation *member, Value operand, Operation *producer) {
            if (grouped(producer) && !isChainRoot(producer))
              return false;
            if (widensForProduct(member))
              return false;
            bool rowInput = isRowOp(member) && operand == member->getOperand(0);
            return (isRowOp(producer) || isElementwise(producer) ||
                    isa<GatherOp>(producer)) &&
                   (rowInput || readsWhole(member, operand) ||
                    readsPerRow(member, operand));
          },
          join);
      if (!llvm::any_of(group, isRowOp) || group.size() < 2)
        continue;
      for (size_t index : merged) {
        groups[index].first.clear();
        groups[index].second = "";
      }
      add(std::move(group), "rows");
    }
  }

  /// Whether `op` is the root of a chain that no product took.
  bool isChainRoot(Operation *op) const {
    auto it = groupOf.find(op);
    if (it == groupOf.end())
      return false;
    const auto &[group, kind] = groups[it->second];
    return kind == "elementwise" && group.front() == op;
  }

  /// The one elementwise group, not yet joined by an anchor, that all of
  /// `producer`'s users belong to, each reading its result whole and once
  /// (x * sigmoid(x): SiLU reads a convolution's result in its Sigmoid and
  /// its Mul), if there is one.
  std::optional<size_t> groupOfAllUsers(Operation *producer) {
    Value read = producer->getResult(0);
    std::optional<size_t> index;
    for (Operation *user : producer->getUsers()) {
      if (!grouped(user) || !isElementwise(user) || !readsWhole(user, read) ||
          llvm::count(user->getOperands(), read) != 1)
        return std::nullopt;
      size_t group = groupOf.lookup(user);
      if (index && *index != group)
        return std::nullopt;
      index = group;
    }
    if (!index || groups[*index].second != "elementwise")
      return std::nullopt;
    return index;
  }

  /// A convolution or product joins the elementwise chain of its one user
  /// (its epilogue), directly or through a reshape that only adds or drops
  /// unit dimensions, when the user reads it whole; or the one elementwise
  /// chain all of its users are in (SiLU's Sigmoid and Mul). One per chain,
  /// the first in program order.
  void attachAnchors() {
    for (Operation *anchor : topLevelOps()) {
      if (!isAnchor(anchor) || grouped(anchor) || anchor->use_empty())
        continue;
      Operation *reshape = nullptr;
      if (anchor->hasOneUse()) {
        Operation *user = *anchor->getUsers().begin();
        if (isa<ReshapeOp>(user) && dropsOrAddsUnitsOnly(user) &&
            user->hasOneUse())
          reshape = user;
        Value read = (reshape ? reshape : anchor)->getResult(0);
        user = *read.getUsers().begin();
        // A lone elementwise user that reads it whole becomes a chain.
        if (!grouped(user) && isElementwise(user) && readsWhole(user, read) &&
            llvm::count(user->getOperands(), read) == 1)
          add(Group(&user, &user + 1), "elementwise");
      }
      std::optional<size_t> index =
          groupOfAllUsers(reshape ? reshape : anchor);
      if (!index)
        continue;
      auto &[group, kind] = groups[*index];
      kind = isa<ConvOp>(anchor) ? "conv" : "product";
      for (Operation *op : {anchor, reshape}) {
        if (!op)
          continue;
        group.insert(op);
        groupOf[op] = *index;
      }
    }
  }

  /// A convolution adds a constant shift to its input as it reads it (the
  /// add a folded input normaliser leaves before a padded convolution): an
  /// add of a constant that only the convolution reads joins its group.
  void attachShifts() {
    for (Operation *op : topLevelOps()) {
      auto conv = dyn_cast<ConvOp>(op);
      if (!conv)
        continue;
      Operation *shift = conv->getOperand(0).getDefiningOp();
      if (!isa_and_nonnull<AddOp>(shift) || grouped(shift) ||
          !shift->hasOneUse() ||
          !llvm::any_of(shift->getOperands(), [](Value operand) {
            return operand.getDefiningOp<ConstantOp>();
          }))
        continue;
      if (!grouped(conv))
        add(Group(&op, &op + 1), "conv");
      size_t index = groupOf.lookup(conv);
      groups[index].first.insert(shift);
      groupOf[shift] = index;
    }
  }

  static bool dropsOrAddsUnitsOnly(Operation *reshape) {
    auto nonUnit = [](RankedTensorType type) {
      SmallVector<int64_t> extents;
      for (int64_t extent : type.getShape())
        if (extent != 1)
          extents.push_back(extent);
      return extents;
    };
    return nonUnit(cast<RankedTensorType>(reshape->getOperand(0).getType())) ==
           nonUnit(resultType(reshape));
  }

  /// Moves `group` into a `tessel.fused` region at its last op, which
  /// yields the results used outside it. Every member but the last has all
  /// its users in the group, so that the region dominates every outside
  /// user (checked: a group that would not is left as it is).
  void wrap(const Group &group, StringRef kind) {
    SmallVector<Operation *> members(group.begin(), group.end());
    llvm::sort(members, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    Operation *last = members.back();
    SmallVector<Value> escaping;
    for (Operation *member : members)
      for (Value result : member->getResults())
        for (Operation *user : result.getUsers())
          if (!group.contains(user)) {
            // A user may be in a region formed already.
            Operation *at = last->getBlock()->findAncestorOpInBlock(*user);
            if (!at || !last->isBeforeInBlock(at))
              return;
            if (!llvm::is_contained(escaping, result))
              escaping.push_back(result);
          }
    SmallVector<Location> locs;
    for (Operation *member : members)
      locs.push_back(member->getLoc());
    OpBuilder builder(last);
    Location loc = builder.getFusedLoc(locs);
    auto fused = FusedOp::create(builder, loc, ValueRange(escaping).getTypes(),
                                 builder.getStringAttr(kind));
    Block *body = builder.createBlock(&fused.getBody());
    for (Operation *member : members)
      member->moveBefore(body, body->end());
    builder.setInsertionPointToEnd(body);
    YieldOp::create(builder, loc, escaping);
    for (auto [value, result] : llvm::zip(escaping, fused.getResults()))
      value.replaceUsesWithIf(result, [&](OpOperand &use) {
        return !fused->isAncestor(use.getOwner());
      });
  }
};

struct FormFusedRegionsPass
    : tessel::impl::TesselFormFusedRegionsPassBase<FormFusedRegionsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.getBody().empty() || !func.getBody().hasOneBlock())
      return;
    RegionFormer(func).run();
  }
};

} // namespace
