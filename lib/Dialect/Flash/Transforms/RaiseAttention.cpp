//===- RaiseAttention.cpp - frontend attention -> flash.attention --------===//
//
// Finds softmax(scale·Q·Kᵀ [+ causal mask])·V in the linalg-on-tensors or
// TOSA that a frontend (torch-mlir's FX importer) writes and rewrites it into
// one flash.attention, leaving every other op of the function alone.
//
// The match starts at the P·V batch matmul and walks up, one small matcher
// per step of the math:
//   matchBatchMatmul   O = P·V (linalg.batch_matmul or tosa.matmul, 3-d)
//   matchProbabilities P = [guard](E / rowsum(E)), E = exp(S − rowmax(S))
//   matchScores        S = [mask](scale · Q·Kᵀ) with casts between
//   classifyMask       the mask, evaluated at every (…, i, j), must be
//                      exactly causal (bottom-right) or nothing
//   stripScale         constant factors on Q or K (√scale on both, as
//                      PyTorch's SDPA decomposition writes)
//   recoverOperand     B×H×N×D operands, the K/V broadcast over a group of
//                      query heads traced back to B×Hkv×N×D (GQA)
// Elementwise steps are read through `Expr`, a small expression tree over the
// bodies of elementwise linalg.generic ops and TOSA elementwise ops alike, so
// one matcher serves both dialects and fused bodies (extf + addf) alike.
// Masks are not pattern-matched: they are evaluated (constants, iota,
// compares, selects, reshapes) on the Nq×Nk grid and compared with the causal
// rule; what the op cannot express (a top-left diagonal with Nq ≠ Nk, a
// non-causal additive bias) is not raised.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/Flash.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>
#include <optional>

namespace mlir {
namespace flash {
#define GEN_PASS_DEF_FLASHRAISEATTENTION
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace flash
} // namespace mlir

using namespace mlir;
using namespace mlir::flash;

/// Shapes above this many elements are not evaluated element by element
/// (mask, operand layouts): such attention is left as it is.
static constexpr int64_t kMaxEvaluatedElements = int64_t(1) << 22;

/// A mask value at or below this counts as "masked" (−inf, or the most
/// negative f32 that eager model code adds).
static constexpr double kMaskedBelow = -1e30;

//===----------------------------------------------------------------------===//
// Index helpers
//===----------------------------------------------------------------------===//

static int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

static SmallVector<int64_t> delinearize(int64_t linear,
                                        ArrayRef<int64_t> shape) {
  SmallVector<int64_t> idx(shape.size());
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    idx[d] = shape[d] ? linear % shape[d] : 0;
    linear = shape[d] ? linear / shape[d] : 0;
  }
  return idx;
}

static int64_t linearize(ArrayRef<int64_t> idx, ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (auto [i, d] : llvm::zip(idx, shape))
    linear = linear * d + i;
  return linear;
}

static std::optional<ArrayRef<int64_t>> staticShape(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return type.getShape();
}

static SmallVector<int64_t> applyMap(AffineMap map, ArrayRef<int64_t> idx) {
  return map.compose(idx);
}

//===----------------------------------------------------------------------===//
// Expr: elementwise ops of either dialect as one expression tree
//===----------------------------------------------------------------------===//

namespace {
/// A scalar computed at every index of a "root" tensor. Leaves are tensors
/// read at `map`(root index); ops are elementwise (the bodies of elementwise
/// linalg.generic ops and TOSA elementwise ops, expanded through producers).
struct Expr {
  enum class Kind { Leaf, Const, Index, Op };
  Kind kind = Kind::Leaf;
  /// Op: add sub mul div max min exp recip neg cast select cmpf.<pred>
  /// cmpi.<pred> and or xor not.
  std::string op;
  SmallVector<const Expr *> args;
  Value leaf;          // Leaf: the tensor read
  AffineMap map;       // Leaf: root index -> leaf index; Index: root -> loops
  int64_t dim = 0;     // Index: the loop dimension of `map`
  double value = 0;    // Const
  bool isFloat = true; // the scalar's type class (Const, Op)
};

/// Builds and owns Exprs.
class ExprBuilder {
public:
  /// The expression of tensor `v` at root index space `map` (root -> v's
  /// index), expanding elementwise producers up to `depth` levels.
  const Expr *build(Value v, AffineMap map, int depth);
  /// The expression of `v` in its own index space.
  const Expr *build(Value v, int depth = 16) {
    auto shape = staticShape(v);
    unsigned rank = shape ? shape->size() : 0;
    return build(v, AffineMap::getMultiDimIdentityMap(rank, v.getContext()),
                 depth);
  }

private:
  Expr *make(Expr::Kind kind) {
    storage.push_back(std::make_unique<Expr>());
    storage.back()->kind = kind;
    return storage.back().get();
  }
  const Expr *leaf(Value v, AffineMap map) {
    Expr *e = make(Expr::Kind::Leaf);
    e->leaf = v;
    e->map = map;
    return e;
  }
  const Expr *constant(double value, bool isFloat) {
    Expr *e = make(Expr::Kind::Const);
    e->value = value;
    e->isFloat = isFloat;
    return e;
  }
  const Expr *op(StringRef name, ArrayRef<const Expr *> args, bool isFloat) {
    Expr *e = make(Expr::Kind::Op);
    e->op = name.str();
    e->args.assign(args.begin(), args.end());
    e->isFloat = isFloat;
    return e;
  }
  const Expr *buildGenericBody(linalg::GenericOp generic, unsigned result,
                               AffineMap map, int depth);
  const Expr *buildScalar(Value scalar, linalg::GenericOp generic,
                          AffineMap map, int depth);
  const Expr *buildTosa(Operation *op, AffineMap map, int depth);

  std::vector<std::unique_ptr<Expr>> storage;
};
} // namespace

/// The value of a scalar constant (arith.constant, through float casts).
static std::optional<double> scalarConstant(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    return scalarConstant(ext.getIn());
  if (auto trunc = v.getDefiningOp<arith::TruncFOp>()) {
    auto inner = scalarConstant(trunc.getIn());
    if (!inner)
      return std::nullopt;
    // Round as the op does.
    APFloat f(*inner);
    bool lost;
    f.convert(cast<FloatType>(trunc.getType()).getFloatSemantics(),
              APFloat::rmNearestTiesToEven, &lost);
    return f.convertToDouble();
  }
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return double(i.getType().isInteger(1) ? i.getValue().getZExtValue()
                                           : i.getValue().getSExtValue());
  return std::nullopt;
}

/// The splat value of a constant tensor (arith.constant or tosa.const).
static std::optional<double> splatConstant(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return std::nullopt;
  Type element = dense.getElementType();
  if (isa<FloatType>(element))
    return dense.getSplatValue<APFloat>().convertToDouble();
  if (element.isInteger(1))
    return dense.getSplatValue<bool>() ? 1.0 : 0.0;
  if (isa<IntegerType>(element))
    return double(dense.getSplatValue<APInt>().getSExtValue());
  return std::nullopt;
}

/// The value of every element of a splat constant or a linalg.fill of a
/// constant.
static std::optional<double> uniformValue(Value v) {
  if (auto fill = v.getDefiningOp<linalg::FillOp>())
    return scalarConstant(fill.getInputs()[0]);
  return splatConstant(v);
}

static bool isParallel(utils::IteratorType type) {
  return type == utils::IteratorType::parallel;
}

static bool isElementwiseGeneric(linalg::GenericOp generic) {
  return llvm::all_of(generic.getIteratorTypesArray(), isParallel) &&
         llvm::all_of(generic.getDpsInitsMutable(), [&](OpOperand &init) {
           return generic.getMatchingIndexingMap(&init).isIdentity();
         });
}

const Expr *ExprBuilder::build(Value v, AffineMap map, int depth) {
  if (auto splat = splatConstant(v))
    return constant(*splat,
                    isa<FloatType>(getElementTypeOrSelf(v.getType())));
  if (auto fill = v.getDefiningOp<linalg::FillOp>())
    if (auto c = scalarConstant(fill.getInputs()[0]))
      return constant(*c, isa<FloatType>(fill.getInputs()[0].getType()));
  if (depth <= 0)
    return leaf(v, map);
  if (auto generic = v.getDefiningOp<linalg::GenericOp>()) {
    if (isElementwiseGeneric(generic))
      if (const Expr *e = buildGenericBody(
              generic, cast<OpResult>(v).getResultNumber(), map, depth))
        return e;
    return leaf(v, map);
  }
  if (Operation *op = v.getDefiningOp())
    if (isa_and_nonnull<tosa::TosaDialect>(op->getDialect()))
      if (const Expr *e = buildTosa(op, map, depth))
        return e;
  return leaf(v, map);
}

const Expr *ExprBuilder::buildGenericBody(linalg::GenericOp generic,
                                          unsigned result, AffineMap map,
                                          int depth) {
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  return buildScalar(yield.getOperand(result), generic, map, depth);
}

const Expr *ExprBuilder::buildScalar(Value scalar, linalg::GenericOp generic,
                                     AffineMap map, int depth) {
  if (auto arg = dyn_cast<BlockArgument>(scalar)) {
    if (arg.getOwner() != generic.getBody() ||
        arg.getArgNumber() >= generic.getNumDpsInputs())
      return nullptr; // the init's value: not elementwise
    OpOperand *input = generic.getDpsInputOperand(arg.getArgNumber());
    AffineMap inputMap = generic.getMatchingIndexingMap(input);
    return build(input->get(), inputMap.compose(map), depth - 1);
  }
  if (auto c = scalarConstant(scalar))
    return constant(*c, isa<FloatType>(scalar.getType()));
  Operation *op = scalar.getDefiningOp();
  if (!op || op->getBlock() != generic.getBody())
    return nullptr;
  bool isFloat = isa<FloatType>(scalar.getType());
  if (auto index = dyn_cast<linalg::IndexOp>(op)) {
    Expr *e = make(Expr::Kind::Index);
    e->map = map;
    e->dim = index.getDim();
    e->isFloat = false;
    return e;
  }
  SmallVector<const Expr *> args;
  for (Value operand : op->getOperands()) {
    const Expr *arg = buildScalar(operand, generic, map, depth);
    if (!arg)
      return nullptr;
    args.push_back(arg);
  }
  StringRef name =
      llvm::TypeSwitch<Operation *, StringRef>(op)
          .Case<arith::AddFOp, arith::AddIOp>([](auto) { return "add"; })
          .Case<arith::SubFOp, arith::SubIOp>([](auto) { return "sub"; })
          .Case<arith::MulFOp, arith::MulIOp>([](auto) { return "mul"; })
          .Case<arith::DivFOp>([](auto) { return "div"; })
          .Case<arith::MaximumFOp, arith::MaxNumFOp>(
              [](auto) { return "max"; })
          .Case<arith::MinimumFOp, arith::MinNumFOp>(
              [](auto) { return "min"; })
          .Case<arith::NegFOp>([](auto) { return "neg"; })
          .Case<math::ExpOp>([](auto) { return "exp"; })
          .Case<arith::ExtFOp, arith::TruncFOp, arith::IndexCastOp,
                arith::SIToFPOp, arith::UIToFPOp, arith::ExtSIOp,
                arith::ExtUIOp, arith::TruncIOp>([](auto) { return "cast"; })
          .Case<arith::SelectOp>([](auto) { return "select"; })
          .Case<arith::AndIOp>([](auto) { return "and"; })
          .Case<arith::OrIOp>([](auto) { return "or"; })
          .Case<arith::XOrIOp>([](auto) { return "xor"; })
          .Case<arith::CmpFOp>([](arith::CmpFOp c) {
            switch (c.getPredicate()) {
            case arith::CmpFPredicate::OEQ:
            case arith::CmpFPredicate::UEQ:
              return "eq";
            case arith::CmpFPredicate::OGT:
            case arith::CmpFPredicate::UGT:
              return "gt";
            case arith::CmpFPredicate::OGE:
            case arith::CmpFPredicate::UGE:
              return "ge";
            case arith::CmpFPredicate::OLT:
            case arith::CmpFPredicate::ULT:
              return "lt";
            case arith::CmpFPredicate::OLE:
            case arith::CmpFPredicate::ULE:
              return "le";
            case arith::CmpFPredicate::ONE:
            case arith::CmpFPredicate::UNE:
              return "ne";
            default:
              return "";
            }
          })
          .Case<arith::CmpIOp>([](arith::CmpIOp c) {
            switch (c.getPredicate()) {
            case arith::CmpIPredicate::eq:
              return "eq";
            case arith::CmpIPredicate::ne:
              return "ne";
            case arith::CmpIPredicate::sgt:
            case arith::CmpIPredicate::ugt:
              return "gt";
            case arith::CmpIPredicate::sge:
            case arith::CmpIPredicate::uge:
              return "ge";
            case arith::CmpIPredicate::slt:
            case arith::CmpIPredicate::ult:
              return "lt";
            case arith::CmpIPredicate::sle:
            case arith::CmpIPredicate::ule:
              return "le";
            }
            return "";
          })
          .Default([](Operation *) { return ""; });
  if (name.empty())
    return nullptr;
  return this->op(name, args, isFloat);
}

/// TOSA's implicit broadcast: an operand dimension of size 1 is read at 0.
static AffineMap tosaOperandMap(Value operand, Value result, AffineMap map) {
  auto in = staticShape(operand), out = staticShape(result);
  MLIRContext *ctx = result.getContext();
  if (!in || !out || in->size() != out->size())
    return AffineMap();
  SmallVector<AffineExpr> exprs;
  for (auto [d, sizes] : llvm::enumerate(llvm::zip(*in, *out)))
    exprs.push_back(std::get<0>(sizes) == 1 && std::get<1>(sizes) != 1
                        ? getAffineConstantExpr(0, ctx)
                        : getAffineDimExpr(d, ctx));
  return AffineMap::get(out->size(), 0, exprs, ctx).compose(map);
}

const Expr *ExprBuilder::buildTosa(Operation *op, AffineMap map, int depth) {
  Value result = op->getResult(0);
  bool isFloat = isa<FloatType>(getElementTypeOrSelf(result.getType()));
  auto operand = [&](unsigned i) -> const Expr * {
    AffineMap operandMap = tosaOperandMap(op->getOperand(i), result, map);
    if (!operandMap)
      return nullptr;
    return build(op->getOperand(i), operandMap, depth - 1);
  };
  auto nary = [&](StringRef name, unsigned n) -> const Expr * {
    SmallVector<const Expr *> args;
    for (unsigned i = 0; i < n; ++i) {
      const Expr *arg = operand(i);
      if (!arg)
        return nullptr;
      args.push_back(arg);
    }
    return this->op(name, args, isFloat);
  };
  if (auto mul = dyn_cast<tosa::MulOp>(op)) {
    auto shift = splatConstant(mul->getOperand(2));
    if (!shift || *shift != 0)
      return nullptr;
    return nary("mul", 2);
  }
  StringRef name =
      llvm::TypeSwitch<Operation *, StringRef>(op)
          .Case<tosa::AddOp>([](auto) { return "add"; })
          .Case<tosa::SubOp>([](auto) { return "sub"; })
          .Case<tosa::MaximumOp>([](auto) { return "max"; })
          .Case<tosa::MinimumOp>([](auto) { return "min"; })
          .Case<tosa::ExpOp>([](auto) { return "exp"; })
          .Case<tosa::ReciprocalOp>([](auto) { return "recip"; })
          .Case<tosa::CastOp>([](auto) { return "cast"; })
          .Case<tosa::SelectOp>([](auto) { return "select"; })
          .Case<tosa::EqualOp>([](auto) { return "eq"; })
          .Case<tosa::GreaterOp>([](auto) { return "gt"; })
          .Case<tosa::GreaterEqualOp>([](auto) { return "ge"; })
          .Case<tosa::LogicalAndOp>([](auto) { return "and"; })
          .Case<tosa::LogicalOrOp>([](auto) { return "or"; })
          .Case<tosa::LogicalNotOp>([](auto) { return "not"; })
          .Default([](Operation *) { return ""; });
  if (name.empty())
    return nullptr;
  return nary(name, op->getNumOperands());
}

//===----------------------------------------------------------------------===//
// Evaluation of constant-foldable tensors (masks) at one index
//===----------------------------------------------------------------------===//

namespace {
/// Evaluates masks: constants, iota (linalg.index), compares, selects,
/// reshapes, transposes and broadcasts, at one index at a time. Anything
/// that depends on a function argument or an unknown op fails.
class MaskEvaluator {
public:
  explicit MaskEvaluator(ExprBuilder &exprs) : exprs(exprs) {}
  std::optional<double> eval(const Expr *e, ArrayRef<int64_t> rootIdx);
  std::optional<double> evalTensor(Value v, ArrayRef<int64_t> idx);

private:
  ExprBuilder &exprs;
  DenseMap<Value, const Expr *> ownExprs;
};
} // namespace

static std::optional<double> applyOp(StringRef op, ArrayRef<double> a,
                                     bool isFloat) {
  auto b = [](bool v) { return v ? 1.0 : 0.0; };
  if (op == "add")
    return a[0] + a[1];
  if (op == "sub")
    return a[0] - a[1];
  if (op == "mul")
    return a[0] * a[1];
  if (op == "div")
    return isFloat ? a[0] / a[1]
                   : (a[1] == 0 ? std::optional<double>()
                                : std::trunc(a[0] / a[1]));
  if (op == "max")
    return std::max(a[0], a[1]);
  if (op == "min")
    return std::min(a[0], a[1]);
  if (op == "neg")
    return -a[0];
  if (op == "exp")
    return std::exp(a[0]);
  if (op == "recip")
    return 1.0 / a[0];
  if (op == "cast")
    return a[0];
  if (op == "select")
    return a[0] != 0 ? a[1] : a[2];
  if (op == "eq")
    return b(a[0] == a[1]);
  if (op == "ne")
    return b(a[0] != a[1]);
  if (op == "gt")
    return b(a[0] > a[1]);
  if (op == "ge")
    return b(a[0] >= a[1]);
  if (op == "lt")
    return b(a[0] < a[1]);
  if (op == "le")
    return b(a[0] <= a[1]);
  if (op == "and")
    return b(a[0] != 0 && a[1] != 0);
  if (op == "or")
    return b(a[0] != 0 || a[1] != 0);
  if (op == "xor")
    return b((a[0] != 0) != (a[1] != 0));
  if (op == "not")
    return b(a[0] == 0);
  return std::nullopt;
}

std::optional<double> MaskEvaluator::eval(const Expr *e,
                                          ArrayRef<int64_t> rootIdx) {
  switch (e->kind) {
  case Expr::Kind::Const:
    return e->value;
  case Expr::Kind::Index:
    return double(applyMap(e->map, rootIdx)[e->dim]);
  case Expr::Kind::Leaf:
    return evalTensor(e->leaf, applyMap(e->map, rootIdx));
  case Expr::Kind::Op: {
    SmallVector<double> args;
    for (const Expr *arg : e->args) {
      auto v = eval(arg, rootIdx);
      if (!v)
        return std::nullopt;
      args.push_back(*v);
    }
    return applyOp(e->op, args, e->isFloat);
  }
  }
  return std::nullopt;
}

/// Follows one view op (reshape, transpose, broadcast, tile, copy) from an
/// index of its result to the index of its source; null when `v` is not
/// defined by a view.
static Value viewSource(Value v, SmallVectorImpl<int64_t> &idx) {
  Operation *op = v.getDefiningOp();
  if (!op)
    return Value();
  auto reshape = [&](Value src) -> Value {
    auto from = staticShape(v), to = staticShape(src);
    if (!from || !to)
      return Value();
    SmallVector<int64_t> srcIdx = delinearize(linearize(idx, *from), *to);
    idx.assign(srcIdx.begin(), srcIdx.end());
    return src;
  };
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tosa::ReshapeOp>(
          op))
    return reshape(op->getOperand(0));
  auto permute = [&](Value src, auto perm) -> Value {
    SmallVector<int64_t> srcIdx(idx.size());
    for (auto [k, p] : llvm::enumerate(perm))
      srcIdx[p] = idx[k];
    idx.assign(srcIdx.begin(), srcIdx.end());
    return src;
  };
  if (auto transpose = dyn_cast<linalg::TransposeOp>(op))
    return permute(transpose.getInput(), transpose.getPermutation());
  if (auto transpose = dyn_cast<tosa::TransposeOp>(op))
    return permute(transpose.getInput1(), transpose.getPerms());
  if (auto broadcast = dyn_cast<linalg::BroadcastOp>(op)) {
    SmallVector<int64_t> srcIdx;
    ArrayRef<int64_t> added = broadcast.getDimensions();
    for (auto [d, i] : llvm::enumerate(idx))
      if (!llvm::is_contained(added, int64_t(d)))
        srcIdx.push_back(i);
    idx.assign(srcIdx.begin(), srcIdx.end());
    return broadcast.getInput();
  }
  if (auto tile = dyn_cast<tosa::TileOp>(op)) {
    auto src = staticShape(tile.getInput1());
    if (!src)
      return Value();
    for (auto [i, d] : llvm::zip(idx, *src))
      i = i % d;
    return tile.getInput1();
  }
  // A generic that copies its one input (broadcast / transpose by maps).
  if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
    if (!isElementwiseGeneric(generic) || generic.getNumDpsInputs() != 1 ||
        generic->getNumResults() != 1)
      return Value();
    auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
    if (yield.getOperand(0) != generic.getBody()->getArgument(0))
      return Value();
    SmallVector<int64_t> srcIdx = applyMap(
        generic.getMatchingIndexingMap(generic.getDpsInputOperand(0)), idx);
    idx.assign(srcIdx.begin(), srcIdx.end());
    return generic.getDpsInputOperand(0)->get();
  }
  return Value();
}

std::optional<double> MaskEvaluator::evalTensor(Value v,
                                                ArrayRef<int64_t> idx) {
  Attribute attr;
  if (matchPattern(v, m_Constant(&attr))) {
    auto shape = staticShape(v);
    if (!shape)
      return std::nullopt;
    // torch-mlir writes constant tensors as dense_resource blobs.
    if (auto blob = dyn_cast<DenseF32ResourceElementsAttr>(attr)) {
      auto values = blob.tryGetAsArrayRef();
      int64_t linear = linearize(idx, *shape);
      if (!values || linear >= int64_t(values->size()))
        return std::nullopt;
      return double((*values)[linear]);
    }
    auto dense = dyn_cast<DenseElementsAttr>(attr);
    if (!dense)
      return std::nullopt;
    int64_t linear = dense.isSplat() ? 0 : linearize(idx, *shape);
    Type element = dense.getElementType();
    if (isa<FloatType>(element))
      return (*(dense.value_begin<APFloat>() + linear)).convertToDouble();
    if (element.isInteger(1))
      return *(dense.value_begin<bool>() + linear) ? 1.0 : 0.0;
    if (isa<IntegerType>(element))
      return double((*(dense.value_begin<APInt>() + linear)).getSExtValue());
    return std::nullopt;
  }
  SmallVector<int64_t> srcIdx(idx);
  if (Value src = viewSource(v, srcIdx))
    return evalTensor(src, srcIdx);
  const Expr *&own = ownExprs[v];
  if (!own)
    own = exprs.build(v);
  if (own->kind == Expr::Kind::Leaf && own->leaf == v)
    return std::nullopt; // an op we cannot evaluate, or an argument
  return eval(own, idx);
}

//===----------------------------------------------------------------------===//
// The matchers
//===----------------------------------------------------------------------===//

namespace {
/// What a match found: the three operands as the matmuls read them
/// (Q·√s…, Kᵀ…, V as batch×rows×cols), the scale, causal, and the value the
/// attention's output replaces.
struct AttentionMatch {
  Value queryRows;      // B·Hq × Nq × D, lhs of Q·Kᵀ
  Value keyColumns;     // B·Hq × D × Nk, rhs of Q·Kᵀ
  Value valueRows;      // B·Hq × Nk × Dv, rhs of P·V
  Value output;         // the P·V result (after its cast to the type of V)
  double scale = 1.0;   // product of the constant factors found
  bool causal = false;
  Operation *scoresMatmul = nullptr;
};

/// Operands (lhs, rhs) of a 3-d batch matmul: linalg.batch_matmul or
/// tosa.matmul with zero zero-points.
static std::optional<std::pair<Value, Value>> matchBatchMatmul(Value v) {
  Operation *op = v.getDefiningOp();
  if (auto matmul = dyn_cast_or_null<linalg::BatchMatmulOp>(op)) {
    if (!matmul.hasPureTensorSemantics())
      return std::nullopt;
    // Default indexing maps only (no transposed or broadcast variants).
    if (matmul.getIndexingMapsArray() !=
        linalg::BatchMatmulOp::getDefaultIndexingMaps(op->getContext()))
      return std::nullopt;
    auto init = uniformValue(matmul.getDpsInits()[0]);
    if (!init || *init != 0)
      return std::nullopt;
    return std::make_pair(matmul.getInputs()[0], matmul.getInputs()[1]);
  }
  if (auto matmul = dyn_cast_or_null<tosa::MatMulOp>(op)) {
    auto aZp = splatConstant(matmul->getOperand(2));
    auto bZp = splatConstant(matmul->getOperand(3));
    if (!aZp || !bZp || *aZp != 0 || *bZp != 0)
      return std::nullopt;
    return std::make_pair(matmul->getOperand(0), matmul->getOperand(1));
  }
  return std::nullopt;
}

/// Looks through reshapes that only add or drop unit dimensions.
static Value throughUnitReshapes(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tosa::ReshapeOp>(
            op))
      break;
    auto from = staticShape(op->getOperand(0)), to = staticShape(v);
    if (!from || !to)
      break;
    auto nonUnit = [](ArrayRef<int64_t> s) {
      SmallVector<int64_t> r;
      for (int64_t d : s)
        if (d != 1)
          r.push_back(d);
      return r;
    };
    if (nonUnit(*from) != nonUnit(*to))
      break;
    v = op->getOperand(0);
  }
  return v;
}

/// Looks through any reshape (collapse/expand/tosa.reshape).
static Value throughReshapes(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tosa::ReshapeOp>(
            op))
      break;
    v = op->getOperand(0);
  }
  return v;
}

/// The input of a reduction over the last dimension with combiner `kind`
/// ("max", "add" or "and"), read through unit reshapes: a linalg.generic
/// (reduction iterator on the last loop only, identity input map) or
/// tosa.reduce_{max,sum,all} on the last axis.
static Value matchRowReduction(Value v, StringRef kind) {
  v = throughUnitReshapes(v);
  Operation *op = v.getDefiningOp();
  if (!op)
    return Value();
  if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
    auto iterators = generic.getIteratorTypesArray();
    unsigned loops = iterators.size();
    if (generic.getNumDpsInputs() != 1 || loops == 0 ||
        iterators.back() != utils::IteratorType::reduction)
      return Value();
    for (unsigned d = 0; d + 1 < loops; ++d)
      if (!isParallel(iterators[d]))
        return Value();
    if (!generic.getMatchingIndexingMap(generic.getDpsInputOperand(0))
             .isIdentity())
      return Value();
    unsigned result = cast<OpResult>(v).getResultNumber();
    // The result is indexed by the parallel loops in order (the reduced
    // dimension dropped or kept as a unit dimension).
    AffineMap resultMap =
        generic.getMatchingIndexingMap(generic.getDpsInitOperand(result));
    for (auto [d, expr] : llvm::enumerate(resultMap.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      bool inOrder = dim && dim.getPosition() == d && d + 1 < loops;
      bool keptUnit = d + 1 == loops && isa<AffineConstantExpr>(expr);
      if (!inOrder && !keptUnit)
        return Value();
    }
    if (resultMap.getNumResults() + 1 < loops)
      return Value();
    auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
    Operation *combiner = yield.getOperand(result).getDefiningOp();
    Block *body = generic.getBody();
    if (!combiner || combiner->getNumOperands() != 2 ||
        combiner->getOperand(0) != body->getArgument(0) ||
        combiner->getOperand(1) !=
            body->getArgument(generic.getNumDpsInputs() + result))
      return Value();
    bool kindMatches =
        (kind == "max" && isa<arith::MaximumFOp, arith::MaxNumFOp>(combiner)) ||
        (kind == "add" && isa<arith::AddFOp>(combiner)) ||
        (kind == "and" && isa<arith::AndIOp>(combiner));
    if (!kindMatches)
      return Value();
    // The init: the combiner's identity (−inf / 0 / true).
    auto init = uniformValue(generic.getDpsInits()[result]);
    double identity = kind == "max"   ? -std::numeric_limits<double>::infinity()
                      : kind == "add" ? 0.0
                                      : 1.0;
    if (!init || *init != identity)
      return Value();
    return generic.getDpsInputOperand(0)->get();
  }
  auto lastAxis = [&](auto reduce) {
    auto shape = staticShape(reduce.getInput());
    return shape && reduce.getAxis() + 1 == shape->size();
  };
  if (auto reduce = dyn_cast<tosa::ReduceMaxOp>(op))
    return kind == "max" && lastAxis(reduce) ? reduce.getInput() : Value();
  if (auto reduce = dyn_cast<tosa::ReduceSumOp>(op))
    return kind == "add" && lastAxis(reduce) ? reduce.getInput() : Value();
  if (auto reduce = dyn_cast<tosa::ReduceAllOp>(op))
    return kind == "and" && lastAxis(reduce) ? reduce.getInput() : Value();
  return Value();
}

/// A leaf that reads a per-row value: constant on the last root dimension and
/// the identity on the others.
static bool isRowBroadcast(const Expr *e, unsigned rootRank) {
  if (e->kind != Expr::Kind::Leaf || !e->map ||
      e->map.getNumDims() != rootRank)
    return false;
  ArrayRef<AffineExpr> results = e->map.getResults();
  unsigned d = 0;
  for (AffineExpr r : results) {
    if (auto dim = dyn_cast<AffineDimExpr>(r)) {
      if (dim.getPosition() != d++)
        return false;
    } else if (!isa<AffineConstantExpr>(r)) {
      return false;
    }
  }
  // Every dimension but the last is read, the last is not.
  return d == rootRank - 1;
}

static bool isOp(const Expr *e, StringRef name) {
  return e->kind == Expr::Kind::Op && e->op == name;
}

static bool isConst(const Expr *e, double value) {
  return e->kind == Expr::Kind::Const && e->value == value;
}

/// Structural equality of two expressions (same ops, constants, leaves).
static bool sameExpr(const Expr *a, const Expr *b) {
  if (a->kind != b->kind)
    return false;
  switch (a->kind) {
  case Expr::Kind::Const:
    return a->value == b->value;
  case Expr::Kind::Leaf:
    return a->leaf == b->leaf && a->map == b->map;
  case Expr::Kind::Index:
    return a->map == b->map && a->dim == b->dim;
  case Expr::Kind::Op:
    if (a->op != b->op || a->args.size() != b->args.size())
      return false;
    for (auto [x, y] : llvm::zip(a->args, b->args))
      if (!sameExpr(x, y))
        return false;
    return true;
  }
  return false;
}

static const Expr *stripCasts(const Expr *e) {
  while (isOp(e, "cast") && e->args[0]->isFloat)
    e = e->args[0];
  return e;
}

/// True when the row reduction `reductionLeaf` (a leaf of the root) reduces
/// a tensor whose own expression is `rowExpr`, read in the root's space.
static bool reducesExpr(ExprBuilder &exprs, const Expr *reductionLeaf,
                        StringRef kind, const Expr *rowExpr,
                        unsigned rootRank) {
  if (!isRowBroadcast(reductionLeaf, rootRank))
    return false;
  Value input = matchRowReduction(reductionLeaf->leaf, kind);
  if (!input)
    return false;
  return sameExpr(stripCasts(exprs.build(input)), stripCasts(rowExpr));
}

/// P = [guard](E / rowsum(E)) with E = exp(S − rowmax(S)), read through
/// casts; returns S. `guarded` is set when rows whose scores are all −inf
/// are zeroed (SDPA's decomposition), `guardScores` to the scores tested.
static const Expr *matchProbabilities(ExprBuilder &exprs, const Expr *probs,
                                      unsigned rank, bool &guarded,
                                      const Expr *&guardScores,
                                      std::string &why) {
  probs = stripCasts(probs);
  guarded = false;
  // select(rowAll(S == −inf), 0, P)
  if (isOp(probs, "select") && isConst(probs->args[1], 0.0) &&
      isRowBroadcast(probs->args[0], rank)) {
    Value tested = matchRowReduction(probs->args[0]->leaf, "and");
    if (!tested)
      return nullptr;
    const Expr *cond = exprs.build(tested);
    if (!isOp(cond, "eq") ||
        !isConst(cond->args[1], -std::numeric_limits<double>::infinity()))
      return nullptr;
    guarded = true;
    guardScores = stripCasts(cond->args[0]);
    probs = stripCasts(probs->args[2]);
  }
  const Expr *numerator = nullptr, *rowSum = nullptr;
  if (isOp(probs, "div")) {
    numerator = probs->args[0];
    rowSum = probs->args[1];
  } else if (isOp(probs, "mul") && isOp(probs->args[1], "recip")) {
    numerator = probs->args[0];
    rowSum = probs->args[1]->args[0];
  } else {
    why = "P·V reads no softmax E / rowsum(E) directly (an op after the "
          "softmax, e.g. dropout)";
    return nullptr;
  }
  const Expr *e = stripCasts(numerator);
  if (!isOp(e, "exp")) {
    why = "the softmax's numerator is not exp(S - rowmax(S)) (an op after "
          "the softmax, e.g. dropout, or inside it)";
    return nullptr;
  }
  if (!reducesExpr(exprs, rowSum, "add", e, rank)) {
    why = "the softmax's sum is not over the last (key) dimension of its "
          "own exp";
    return nullptr;
  }
  const Expr *shifted = stripCasts(e->args[0]);
  if (!isOp(shifted, "sub")) {
    why = "the softmax's exp is not of S - rowmax(S)";
    return nullptr;
  }
  const Expr *scores = shifted->args[0];
  if (!reducesExpr(exprs, shifted->args[1], "max", scores, rank)) {
    why = "the softmax's max is not over the last (key) dimension of S";
    return nullptr;
  }
  return scores;
}

/// True when some leaf of `e` is `target` (read through reshapes).
static bool readsValue(const Expr *e, Value target) {
  if (e->kind == Expr::Kind::Leaf)
    return throughReshapes(e->leaf) == target;
  for (const Expr *arg : e->args)
    if (readsValue(arg, target))
      return true;
  return false;
}

namespace {
/// A mask step on the scores: keep(…) ? s : fill, or s + bias(…).
struct MaskTerm {
  const Expr *keep = nullptr; // select form: the condition (score kept if != 0)
  bool keepIsTrue = true;     // score in the select's true branch
  double fill = 0;            // select form: the value of a masked score
  const Expr *bias = nullptr; // additive form
};
} // namespace

/// Names what computes `v` for a remark: the ops of an elementwise
/// linalg.generic's body (math.tanh), else the op's name.
static std::string describeProducer(Value v) {
  Operation *op = v.getDefiningOp();
  if (!op)
    return "a block argument";
  if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
    std::string names;
    for (Operation &inner : generic.getBody()->without_terminator()) {
      if (!names.empty())
        names += ", ";
      names += inner.getName().getStringRef().str();
    }
    return "linalg.generic {" + names + "}";
  }
  return op->getName().getStringRef().str();
}

/// S = mask(scale · Q·Kᵀ) in any order, through casts: returns the Q·Kᵀ
/// matmul's result, the product of constant factors and the mask terms.
static Value matchScores(ExprBuilder &exprs, const Expr *scores, double &scale,
                         SmallVectorImpl<MaskTerm> &masks, std::string &why) {
  while (true) {
    scores = stripCasts(scores);
    if (scores->kind == Expr::Kind::Leaf) {
      // Reshapes and float casts (a wider accumulator rounded to the
      // element type) between the matmul and the elementwise ops.
      Value matmul = throughReshapes(scores->leaf);
      while (!matchBatchMatmul(matmul)) {
        const Expr *cast = exprs.build(matmul, /*depth=*/1);
        if (!isOp(cast, "cast") || cast->args[0]->kind != Expr::Kind::Leaf ||
            !cast->args[0]->map.isIdentity() ||
            !isa<FloatType>(getElementTypeOrSelf(cast->args[0]->leaf.getType()))) {
          why = "an op between Q·Kᵀ and the softmax that changes values: " +
                describeProducer(matmul);
          return Value();
        }
        matmul = throughReshapes(cast->args[0]->leaf);
      }
      if (!matchBatchMatmul(matmul))
        return Value();
      // The reshapes between may only split or merge leading dimensions:
      // the last two (rows, keys) are the matmul's.
      auto rootShape = staticShape(scores->leaf);
      auto mmShape = staticShape(matmul);
      if (!rootShape || !mmShape || rootShape->size() < 2 ||
          rootShape->take_back(2) != mmShape->take_back(2) ||
          !scores->map.isIdentity()) {
        why = "the scores are not Q·Kᵀ's rows and keys (a reshape or "
              "broadcast that moves the last two dimensions)";
        return Value();
      }
      return matmul;
    }
    if (isOp(scores, "mul") || isOp(scores, "div")) {
      const Expr *lhs = scores->args[0], *rhs = scores->args[1];
      bool isMul = isOp(scores, "mul");
      if (rhs->kind == Expr::Kind::Const && rhs->value != 0) {
        scale *= isMul ? rhs->value : 1.0 / rhs->value;
        scores = lhs;
        continue;
      }
      if (isMul && lhs->kind == Expr::Kind::Const) {
        scale *= lhs->value;
        scores = rhs;
        continue;
      }
      why = "the scores are multiplied by a non-constant";
      return Value();
    }
    if (isOp(scores, "add")) {
      // The operand that does not lead to a matmul is the bias; which one
      // leads there is decided by the rest of the walk, so try both.
      for (unsigned s = 0; s < 2; ++s) {
        double trialScale = scale;
        SmallVector<MaskTerm> trialMasks(masks.begin(), masks.end());
        MaskTerm term;
        term.bias = scores->args[1 - s];
        trialMasks.push_back(term);
        if (Value mm = matchScores(exprs, scores->args[s], trialScale,
                                   trialMasks, why)) {
          if (readsValue(term.bias, mm))
            continue;
          scale = trialScale;
          masks.assign(trialMasks.begin(), trialMasks.end());
          return mm;
        }
      }
      return Value();
    }
    if (isOp(scores, "select")) {
      const Expr *onTrue = scores->args[1], *onFalse = scores->args[2];
      MaskTerm term;
      term.keep = scores->args[0];
      if (onFalse->kind == Expr::Kind::Const) {
        term.fill = onFalse->value;
        term.keepIsTrue = true;
        scores = onTrue;
      } else if (onTrue->kind == Expr::Kind::Const) {
        term.fill = onTrue->value;
        term.keepIsTrue = false;
        scores = onFalse;
      } else {
        why = "a select between the scores and a non-constant";
        return Value();
      }
      if (term.fill > kMaskedBelow) {
        why = "a select fills masked scores with " +
              std::to_string(term.fill) + ", not -inf or the most negative "
              "float";
        return Value();
      }
      masks.push_back(term);
      continue;
    }
    why = "an op between Q·Kᵀ and the softmax that changes values: " +
          (scores->kind == Expr::Kind::Op ? scores->op
                                          : std::string("a non-elementwise op"));
    return Value();
  }
}

/// True when `e` reads its leaves and loop indices only through the last two
/// root dimensions (rows, keys): its value is then the same for every batch
/// and head.
static bool dependsOnRowsAndKeysOnly(const Expr *e, unsigned rootRank) {
  if (e->kind == Expr::Kind::Leaf || e->kind == Expr::Kind::Index) {
    if (!e->map)
      return false;
    for (unsigned d = 0; d + 2 < rootRank; ++d)
      if (e->map.isFunctionOfDim(d))
        return false;
    return true;
  }
  for (const Expr *arg : e->args)
    if (!dependsOnRowsAndKeysOnly(arg, rootRank))
      return false;
  return true;
}

/// Evaluates the mask terms on every index of the scores (rank ≥ 2, last two
/// dimensions Nq, Nk) and decides: no mask (false), causal bottom-right
/// (true), or not expressible (failure). A mask that depends on the scores
/// or on an argument, an additive bias that is neither 0 nor "masked", or
/// any masked set other than j > i + Nk − Nq fails.
static FailureOr<bool> classifyMask(ExprBuilder &exprs, Value scoresRoot,
                                    ArrayRef<MaskTerm> masks, Value matmul,
                                    bool &hasFullyMaskedRows,
                                    std::string &why) {
  hasFullyMaskedRows = false;
  if (masks.empty())
    return false;
  auto shape = staticShape(scoresRoot);
  if (!shape || shape->size() < 2) {
    why = "the masked scores have no static shape";
    return failure();
  }
  // A mask that reads only (i, j) is checked on one batch and head.
  bool rowsAndKeysOnly = true;
  for (const MaskTerm &term : masks) {
    const Expr *e = term.keep ? term.keep : term.bias;
    if (readsValue(e, matmul)) {
      why = "the mask depends on the scores";
      return failure();
    }
    rowsAndKeysOnly &= dependsOnRowsAndKeysOnly(e, shape->size());
  }
  int64_t evaluated = rowsAndKeysOnly
                          ? numElements(shape->take_back(2))
                          : numElements(*shape);
  if (evaluated > kMaxEvaluatedElements) {
    why = "the mask would be evaluated on " + std::to_string(evaluated) +
          " elements (" +
          (rowsAndKeysOnly ? std::string("Nq*Nk") : std::string("every score")) +
          "), more than 2^22: not supported yet";
    return failure();
  }
  MaskEvaluator evaluator(exprs);
  int64_t nq = (*shape)[shape->size() - 2], nk = shape->back();
  bool anyMasked = false;
  for (int64_t linear = 0; linear < evaluated; ++linear) {
    // Leading indices 0 when only (i, j) matter.
    SmallVector<int64_t> idx = delinearize(linear, *shape);
    bool masked = false;
    for (const MaskTerm &term : masks) {
      auto v = evaluator.eval(term.keep ? term.keep : term.bias, idx);
      if (!v) {
        why = "the mask depends on a value known only at run time (a "
              "function argument or an op the evaluator does not know)";
        return failure();
      }
      if (term.keep) {
        masked |= ((*v != 0) != term.keepIsTrue);
      } else if (*v <= kMaskedBelow) {
        masked = true;
      } else if (*v != 0) {
        // A bias flash.attention cannot express.
        why = "an additive bias that is neither 0 nor masked (" +
              std::to_string(*v) + ")";
        return failure();
      }
    }
    int64_t i = idx[idx.size() - 2], j = idx.back();
    if (masked != (j > i + nk - nq)) {
      why = nq != nk && masked == (j > i)
                ? "a top-left causal mask (j > i) with Nq != Nk; "
                  "flash.attention's causal is bottom-right (j > i + Nk - Nq)"
                : "a mask that is not causal (j > i + Nk - Nq): it " +
                      std::string(masked ? "masks" : "keeps") + " (i, j) = (" +
                      std::to_string(i) + ", " + std::to_string(j) + ")";
      return failure();
    }
    anyMasked |= masked;
  }
  hasFullyMaskedRows = anyMasked && nq > nk;
  return anyMasked;
}

/// Removes constant factors from `v` (Q or Kᵀ as the matmul reads it): walks
/// down through views and multiplications by a constant, multiplies the
/// factors into `scale`, and rebuilds the views on the unscaled tensor.
static Value stripScale(OpBuilder &builder, ExprBuilder &exprs, Value v,
                        double &scale) {
  Operation *op = v.getDefiningOp();
  if (!op)
    return v;
  SmallVector<int64_t> probe(staticShape(v) ? staticShape(v)->size() : 0, 0);
  if (viewSource(v, probe)) {
    Value source = op->getOperand(0);
    double inner = 1.0;
    Value stripped = stripScale(builder, exprs, source, inner);
    if (stripped == source)
      return v;
    scale *= inner;
    IRMapping mapping;
    mapping.map(source, stripped);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(op);
    Operation *clone = builder.clone(*op, mapping);
    return clone->getResult(cast<OpResult>(v).getResultNumber());
  }
  // One elementwise multiplication by a constant, nothing else.
  const Expr *e = exprs.build(v, /*depth=*/1);
  auto sameShapeLeaf = [&](const Expr *x) {
    return x->kind == Expr::Kind::Leaf && x->map.isIdentity() &&
           x->leaf.getType() == v.getType();
  };
  if (isOp(e, "mul")) {
    for (unsigned s = 0; s < 2; ++s)
      if (sameShapeLeaf(e->args[s]) &&
          e->args[1 - s]->kind == Expr::Kind::Const) {
        scale *= e->args[1 - s]->value;
        return stripScale(builder, exprs, e->args[s]->leaf, scale);
      }
  }
  if (isOp(e, "div") && sameShapeLeaf(e->args[0]) &&
      e->args[1]->kind == Expr::Kind::Const && e->args[1]->value != 0) {
    scale /= e->args[1]->value;
    return stripScale(builder, exprs, e->args[0]->leaf, scale);
  }
  return v;
}

/// Checks that every element [bh, a, b] of `rows` (batch × a × b, the batch
/// being B·H with H = `heads`) is, through views, element
/// [bh / heads, (bh % heads) / group, x, y] of the 4-d `source`, with
/// (x, y) = (a, b), or (b, a) when `swapped`.
static bool readsAsHeads(Value rows, Value source, int64_t heads,
                         int64_t group, bool swapped) {
  auto shape = staticShape(rows);
  if (heads <= 0 || group <= 0 || !shape || shape->size() != 3 ||
      numElements(*shape) > kMaxEvaluatedElements || (*shape)[0] % heads)
    return false;
  for (int64_t linear = 0, e = numElements(*shape); linear < e; ++linear) {
    SmallVector<int64_t> idx = delinearize(linear, *shape);
    SmallVector<int64_t> expected = {idx[0] / heads,
                                     (idx[0] % heads) / group,
                                     swapped ? idx[2] : idx[1],
                                     swapped ? idx[1] : idx[2]};
    Value v = rows;
    SmallVector<int64_t> at(idx);
    while (v != source)
      if (!(v = viewSource(v, at)))
        return false;
    if (at != expected)
      return false;
  }
  return true;
}

/// The 4-d tensors of static shape that element 0 of `rows` is read from
/// through views, deepest first: the candidates for a B×H×N×D operand.
static SmallVector<Value> viewChain4d(Value rows) {
  SmallVector<Value> chain;
  auto shape = staticShape(rows);
  if (!shape)
    return chain;
  SmallVector<int64_t> at(shape->size(), 0);
  for (Value v = viewSource(rows, at); v; v = viewSource(v, at)) {
    auto s = staticShape(v);
    if (s && s->size() == 4)
      chain.push_back(v);
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

/// The deepest B×Hkv×N×W tensor that `rows` (B·Hq × ...) reads as K or V of
/// query head h = kvHead·G + g, G = Hq / Hkv; null if none. For Kᵀ
/// (`swapped`), a B×Hkv×D×N tensor is taken too and `transposed` set: the
/// caller transposes it back (eager GPT-2 writes K only as Kᵀ).
static Value kvSource(Value rows, int64_t batch, int64_t heads, bool swapped,
                      bool &transposed) {
  transposed = false;
  for (Value candidate : viewChain4d(rows)) {
    auto s = *staticShape(candidate);
    if (s[0] != batch || s[1] == 0 || heads % s[1])
      continue;
    int64_t group = heads / s[1];
    if (readsAsHeads(rows, candidate, heads, group, swapped))
      return candidate;
    if (swapped && readsAsHeads(rows, candidate, heads, group, false)) {
      transposed = true;
      return candidate;
    }
  }
  return Value();
}

/// B·H × a × b -> B × H × a × b.
static Value splitHeads(OpBuilder &builder, Location loc, Value rows,
                        int64_t batch, int64_t heads) {
  auto type = cast<RankedTensorType>(rows.getType());
  ArrayRef<int64_t> s = type.getShape();
  return tensor::ExpandShapeOp::create(
      builder, loc,
      RankedTensorType::get({batch, heads, s[1], s[2]}, type.getElementType()),
      rows, ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});
}

/// Matches the attention whose P·V matmul produces `pv`.
/// True when some op of `e` is `name`.
static bool containsOp(const Expr *e, StringRef name) {
  if (isOp(e, name))
    return true;
  for (const Expr *arg : e->args)
    if (containsOp(arg, name))
      return true;
  return false;
}

/// `why` is set when the P·V matmul reads an exp (a softmax-like candidate)
/// and the match fails: the near miss's reason, for the pass's remarks.
static std::optional<AttentionMatch> matchAttention(ExprBuilder &exprs,
                                                    Value pv,
                                                    std::string &why) {
  auto pvOperands = matchBatchMatmul(pv);
  if (!pvOperands)
    return std::nullopt;
  auto isStatic3d = [](Value v) {
    auto shape = staticShape(v);
    return shape && shape->size() == 3;
  };
  if (!isStatic3d(pv) || !isStatic3d(pvOperands->first) ||
      !isStatic3d(pvOperands->second))
    return std::nullopt;
  AttentionMatch match;
  match.valueRows = pvOperands->second;
  Type elementType = getElementTypeOrSelf(match.valueRows.getType());
  match.output = pv;
  // A wider accumulator is cast back to V's type by the one user.
  if (getElementTypeOrSelf(pv.getType()) != elementType) {
    if (!pv.hasOneUse())
      return std::nullopt;
    Operation *user = *pv.getUsers().begin();
    if (user->getNumResults() != 1 ||
        getElementTypeOrSelf(user->getResult(0).getType()) != elementType)
      return std::nullopt;
    const Expr *castExpr = exprs.build(user->getResult(0), /*depth=*/1);
    if (!isOp(castExpr, "cast") ||
        castExpr->args[0]->kind != Expr::Kind::Leaf ||
        castExpr->args[0]->leaf != pv || !castExpr->args[0]->map.isIdentity())
      return std::nullopt;
    match.output = user->getResult(0);
  }

  // P, at the rank where the softmax is written.
  Value probsRoot = throughReshapes(pvOperands->first);
  auto probsShape = staticShape(probsRoot);
  auto pShape = staticShape(pvOperands->first);
  if (!probsShape || !pShape || probsShape->size() < 2 ||
      probsShape->take_back(2) != pShape->take_back(2))
    return std::nullopt;
  unsigned rank = probsShape->size();
  bool guarded = false;
  const Expr *guardScores = nullptr;
  const Expr *probs = exprs.build(probsRoot);
  // Reasons only for candidates: P computed through an exp.
  std::string reason;
  auto refuse = [&]() -> std::optional<AttentionMatch> {
    if (containsOp(probs, "exp"))
      why = reason.empty() ? "not recognised" : reason;
    return std::nullopt;
  };
  const Expr *scores =
      matchProbabilities(exprs, probs, rank, guarded, guardScores, reason);
  if (!scores)
    return refuse();
  if (guarded && !sameExpr(guardScores, stripCasts(scores))) {
    reason = "the guard for rows without keys tests other scores than the "
             "softmax's";
    return refuse();
  }

  SmallVector<MaskTerm> masks;
  Value qk = matchScores(exprs, scores, match.scale, masks, reason);
  if (!qk)
    return refuse();
  match.scoresMatmul = qk.getDefiningOp();
  bool fullyMaskedRows = false;
  FailureOr<bool> causal =
      classifyMask(exprs, probsRoot, masks, qk, fullyMaskedRows, reason);
  if (failed(causal))
    return refuse();
  // A row that sees no key: flash.attention gives 0, the frontend gives 0
  // only behind SDPA's guard.
  if (fullyMaskedRows && !guarded) {
    reason = "rows that see no key (Nq > Nk, causal) without SDPA's guard "
             "that zeroes them";
    return refuse();
  }
  match.causal = *causal;
  auto qkOperands = matchBatchMatmul(qk);
  if (!isStatic3d(qk) || !isStatic3d(qkOperands->first) ||
      !isStatic3d(qkOperands->second)) {
    reason = "Q·Kᵀ's operands have no static 3-d shape";
    return refuse();
  }
  match.queryRows = qkOperands->first;
  match.keyColumns = qkOperands->second;
  // One batch of rows (B·H) and one element type for Q, K, V and O.
  int64_t rows = (*staticShape(match.queryRows))[0];
  if ((*staticShape(match.keyColumns))[0] != rows ||
      (*staticShape(match.valueRows))[0] != rows ||
      getElementTypeOrSelf(match.queryRows.getType()) != elementType ||
      getElementTypeOrSelf(match.keyColumns.getType()) != elementType) {
    reason = "Q, K and V differ in batch rows or element type";
    return refuse();
  }
  return match;
}
} // namespace

/// Rewrites one match into flash.attention; the replaced ops stay until they
/// are dead.
static void rewriteAttention(OpBuilder &builder, ExprBuilder &exprs,
                                      AttentionMatch &match,
                                      SmallVectorImpl<Operation *> &maybeDead) {
  Location loc = match.output.getLoc();
  builder.setInsertionPointAfterValue(match.output);
  double scale = match.scale;
  Value query = stripScale(builder, exprs, match.queryRows, scale);
  Value keyT = stripScale(builder, exprs, match.keyColumns, scale);
  Value value = match.valueRows;
  builder.setInsertionPointAfterValue(match.output);
  // The views rebuilt on the unscaled Q and Kᵀ are dead when the operands
  // are traced past them.
  for (Value rebuilt : {query, keyT})
    if (Operation *def = rebuilt.getDefiningOp())
      maybeDead.push_back(def);

  auto qShape = *staticShape(query);
  auto kShape = *staticShape(keyT);
  auto vShape = *staticShape(value);
  int64_t bh = qShape[0];

  // B and Hq from where Q comes from, when it is a B×Hq×Nq×D tensor;
  // K and V traced to B×Hkv×N×D through the broadcast over a group (GQA).
  Value q4, k4, v4;
  int64_t batch = 1, heads = bh;
  for (Value candidate : viewChain4d(query)) {
    auto s = *staticShape(candidate);
    if (s[0] * s[1] == bh && readsAsHeads(query, candidate, s[1], 1, false)) {
      q4 = candidate;
      batch = s[0];
      heads = s[1];
      break;
    }
  }
  if (q4) {
    bool keyTransposed = false, unused = false;
    k4 = kvSource(keyT, batch, heads, /*swapped=*/true, keyTransposed);
    v4 = kvSource(value, batch, heads, /*swapped=*/false, unused);
    if (!k4 || !v4 ||
        staticShape(k4)->drop_back(2) != staticShape(v4)->drop_back(2)) {
      k4 = Value();
      v4 = Value();
    }
    if (k4 && keyTransposed) {
      auto s = *staticShape(k4);
      Value init = tensor::EmptyOp::create(
          builder, loc, ArrayRef<int64_t>{s[0], s[1], s[3], s[2]},
          getElementTypeOrSelf(k4.getType()));
      k4 = linalg::TransposeOp::create(builder, loc, k4, init,
                                       ArrayRef<int64_t>{0, 1, 3, 2})
               ->getResult(0);
    }
  }
  if (!k4) {
    // No layout to recover: one head per batch row, K transposed back.
    batch = 1;
    heads = bh;
    q4 = splitHeads(builder, loc, query, batch, heads);
    Value keyInit = tensor::EmptyOp::create(
        builder, loc, ArrayRef<int64_t>{bh, kShape[2], kShape[1]},
        getElementTypeOrSelf(keyT.getType()));
    Value key = linalg::TransposeOp::create(builder, loc, keyT, keyInit,
                                            ArrayRef<int64_t>{0, 2, 1})
                    ->getResult(0);
    k4 = splitHeads(builder, loc, key, batch, heads);
    v4 = splitHeads(builder, loc, value, batch, heads);
  }
  Type elementType = getElementTypeOrSelf(v4.getType());
  auto outputType = RankedTensorType::get(
      {batch, heads, qShape[1], vShape[2]}, elementType);
  auto attention = AttentionOp::create(
      builder, loc, TypeRange{outputType}, q4, k4, v4,
      match.causal ? builder.getUnitAttr() : UnitAttr(),
      builder.getF32FloatAttr(float(scale)), /*schedule=*/nullptr);
  Value rows = tensor::CollapseShapeOp::create(
      builder, loc, match.output.getType(), attention.getOutput(),
      ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});
  match.output.replaceAllUsesWith(rows);
}

/// Erases the ops of `candidates` once dead, and then what only they used.
static void eraseDead(ArrayRef<Operation *> candidates) {
  SmallVector<Operation *> worklist(candidates);
  llvm::SmallPtrSet<Operation *, 32> erased;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (erased.contains(op) || !isOpTriviallyDead(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
    erased.insert(op);
    op->erase();
  }
}

namespace {
struct FlashRaiseAttentionPass
    : public mlir::flash::impl::FlashRaiseAttentionBase<
          FlashRaiseAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Value> pvCandidates;
    getOperation()->walk([&](Operation *op) {
      if (isa<linalg::BatchMatmulOp, tosa::MatMulOp>(op))
        pvCandidates.push_back(op->getResult(0));
    });
    OpBuilder builder(&getContext());
    SmallVector<Operation *> replaced;
    for (Value pv : pvCandidates) {
      if (!pv.getDefiningOp())
        continue;
      ExprBuilder exprs;
      std::string why;
      std::optional<AttentionMatch> match = matchAttention(exprs, pv, why);
      if (!match) {
        if (remarks && !why.empty())
          pv.getDefiningOp()->emitRemark()
              << "flash-raise-attention: not raised: " << why;
        continue;
      }
      Operation *old = match->output.getDefiningOp();
      rewriteAttention(builder, exprs, *match, replaced);
      replaced.push_back(old);
    }
    eraseDead(replaced);
  }
};
} // namespace
