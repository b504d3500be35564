//===- IOReport.cpp - the IO model of each scheduled attention ------------===//
//
// Prints, per scheduled flash.attention, what the FlashAttention paper's
// Theorem 2 is about with this implementation's real constants: the HBM
// bytes the tiled schedule moves (Q and O once, K/V once per Q tile that
// sees them) against standard attention (three kernels writing S and P),
// the FLOPs, the arithmetic intensity, and the shared memory per block.
// A scheduled flash.attention_backward gets the same lines for the three
// stages of the tiled backward against standard attention's backward.
// docs/io-model.md explains each line.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/Flash.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"
#include "flash/Dialect/Flash/Transforms/Schedule.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/ToolOutputFile.h"

#include <limits>

namespace mlir {
namespace flash {
#define GEN_PASS_DEF_FLASHIOREPORT
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace flash
} // namespace mlir

using namespace mlir;
using namespace mlir::flash;

/// "1.07 GB": decimal units, as bandwidths are quoted.
static std::string human(double value, StringRef unit) {
  const char *prefixes[] = {"", "K", "M", "G", "T", "P"};
  int i = 0;
  while (value >= 1000.0 && i < 5) {
    value /= 1000.0;
    ++i;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%.3g ", value) << prefixes[i] << unit;
  return text;
}

/// The lines every report ends with: intensity and the time floors.
static void printRates(raw_ostream &os, const TargetModel *target,
                       int64_t usefulFlops, int64_t tiledBytes,
                       int64_t standardBytes) {
  if (tiledBytes && standardBytes)
    os << llvm::format("  intensity      tiled %.1f FLOP/B, standard %.1f FLOP/B",
                       double(usefulFlops) / tiledBytes,
                       double(usefulFlops) / standardBytes);
  if (target)
    os << llvm::format("; %s balance %.0f FLOP/B (%.0f TFLOP/s / %.2f TB/s)",
                       target->exampleChip.str().c_str(),
                       target->bf16FlopsPerSecond / target->hbmBytesPerSecond,
                       target->bf16FlopsPerSecond / 1e12,
                       target->hbmBytesPerSecond / 1e12);
  os << "\n";
  if (target) {
    double computeTime = usefulFlops / target->bf16FlopsPerSecond;
    double tiledTime = tiledBytes / target->hbmBytesPerSecond;
    double standardTime = standardBytes / target->hbmBytesPerSecond;
    os << llvm::format("  time floors    compute %.3f ms, tiled HBM %.3f ms, "
                       "standard HBM %.3f ms (peak rates of %s)\n",
                       computeTime * 1e3, tiledTime * 1e3, standardTime * 1e3,
                       target->exampleChip.str().c_str());
  }
}

static void printReport(raw_ostream &os, AttentionOp op,
                        const AttentionShape &s, ScheduleAttr schedule) {
  const TargetModel *target = lookupTargetModel(schedule.getArch());
  ScheduleChoice choice{schedule.getBlockQ(), schedule.getBlockKv(),
                        schedule.getStages(), schedule.getWarps()};
  if (target)
    choice.tileRows = qTileRows(*target, choice.blockQ);
  IOModel m = computeIOModel(s, choice);
  Type elementType = op.getQuery().getType().getElementType();

  os << "flash-io-report: " << op.getLoc() << "\n";
  os << "  problem        B=" << s.batch << " Hq=" << s.queryHeads
     << " Hkv=" << s.kvHeads << " Nq=" << s.seqQ << " Nk=" << s.seqKV
     << " D=" << s.headDim << " Dv=" << s.valueDim << " " << elementType
     << " causal=" << (s.causal ? "yes" : "no")
     << " lse=" << (s.hasLse ? "yes" : "no") << "\n";
  os << "  schedule       " << schedule.getArch() << " Br=" << choice.blockQ
     << " Bc=" << choice.blockKV << " stages=" << choice.stages
     << " warps=" << choice.warps << "\n";
  int64_t qTileBytes = choice.blockQ * s.headDim * s.elementBytes;
  int64_t kvTileBytes =
      choice.blockKV * (s.headDim + s.valueDim) * s.elementBytes;
  os << "  SRAM/block     Q tile " << qTileBytes << " B + " << choice.stages
     << " x K/V tile " << kvTileBytes << " B = " << m.sharedBytes << " B";
  if (target)
    os << llvm::format(" (%.1f%% of %lld B per block)",
                       100.0 * m.sharedBytes / target->sharedMemPerBlock,
                       (long long)target->sharedMemPerBlock);
  os << "\n";
  if (target)
    os << "  registers      ~" << estimateRegistersPerThread(*target, s, choice)
       << " per accumulator thread (budget "
       << registerBudgetPerThread(*target, choice) << ")\n";
  if (target && target->tensorMemoryColumns)
    os << "  TMEM/block     " << choice.blockQ / choice.tileRows << " x "
       << choice.tileRows << "-row Q tile, "
       << tensorMemoryColumnsForBlock(choice.blockQ, choice.blockKV,
                                      s.valueDim)
       << " of " << target->tensorMemoryColumns << " columns\n";
  double kvReads = s.seqKV ? double(m.tiledBytesKV) /
                                 double(s.batch * s.queryHeads * s.seqKV *
                                        (s.headDim + s.valueDim) *
                                        s.elementBytes)
                           : 0.0;
  os << "  HBM tiled      Q " << m.tiledBytesQ << " + K/V " << m.tiledBytesKV
     << " + O " << m.tiledBytesO << " + LSE " << m.tiledBytesLse << " = "
     << m.tiledBytes << " B (" << human(m.tiledBytes, "B")
     << llvm::format("; K/V read %.2fx per q-head)", kvReads) << "\n";
  os << "  HBM standard   " << m.standardBytes << " B ("
     << human(m.standardBytes, "B") << "; S and P written and read once each)\n";
  if (m.tiledBytes)
    os << llvm::format("  HBM saving     %.2fx less traffic than standard\n",
                       double(m.standardBytes) / double(m.tiledBytes));
  os << "  FLOPs          useful " << m.usefulFlops << " ("
     << human(m.usefulFlops, "FLOP") << "), executed " << m.executedFlops
     << " (" << human(m.executedFlops, "FLOP") << ", whole tiles)\n";
  printRates(os, target, m.usefulFlops, m.tiledBytes, m.standardBytes);
}

static void printBackwardReport(raw_ostream &os, AttentionBackwardOp op,
                                const AttentionShape &s,
                                ScheduleAttr schedule) {
  const TargetModel *target = lookupTargetModel(schedule.getArch());
  ScheduleChoice choice{schedule.getBlockQ(), schedule.getBlockKv(),
                        schedule.getStages(), schedule.getWarps()};
  BackwardIOModel m = computeBackwardIOModel(s, choice);
  Type elementType = op.getQuery().getType().getElementType();

  os << "flash-io-report: " << op.getLoc() << "\n";
  os << "  problem        backward B=" << s.batch << " Hq=" << s.queryHeads
     << " Hkv=" << s.kvHeads << " Nq=" << s.seqQ << " Nk=" << s.seqKV
     << " D=" << s.headDim << " Dv=" << s.valueDim << " " << elementType
     << " causal=" << (s.causal ? "yes" : "no") << "\n";
  os << "  schedule       " << schedule.getArch() << " Br=" << choice.blockQ
     << " Bc=" << choice.blockKV << " stages=" << choice.stages
     << " warps=" << choice.warps << "\n";
  int64_t kvTileBytes =
      choice.blockKV * (s.headDim + s.valueDim) * s.elementBytes;
  int64_t qTileBytes =
      choice.blockQ * (s.headDim + s.valueDim) * s.elementBytes +
      2 * choice.blockQ * 4;
  int64_t probsBytes = 2 * choice.blockQ * choice.blockKV * s.elementBytes;
  os << "  SRAM/block     K/V tile " << kvTileBytes << " B + " << choice.stages
     << " x Q/dO/LSE/D tile " << qTileBytes << " B + P/dS " << probsBytes
     << " B = " << m.sharedBytes << " B";
  if (target)
    os << llvm::format(" (%.1f%% of %lld B per block)",
                       100.0 * m.sharedBytes / target->sharedMemPerBlock,
                       (long long)target->sharedMemPerBlock);
  os << "\n";
  if (target)
    os << "  registers      ~"
       << estimateBackwardRegistersPerThread(*target, s, choice)
       << " per accumulator thread (budget "
       << registerBudgetPerThread(*target, choice) << ")\n";
  double qReads =
      s.seqQ ? double(m.visitedQRows) / double(s.batch * s.queryHeads * s.seqQ)
             : 0.0;
  os << "  HBM tiled      preprocess " << m.preprocessBytes << " + K/V "
     << m.mainBytesKV << " + dK/dV " << m.mainBytesGrads << " + Q/dO/LSE/D "
     << m.mainBytesQ << " + dQ f32 " << m.mainBytesDQ << " + convert "
     << m.convertBytes << " = " << m.tiledBytes << " B ("
     << human(m.tiledBytes, "B")
     << llvm::format("; Q rows read %.2fx per q-head)", qReads) << "\n";
  os << "  HBM standard   " << m.standardBytes << " B ("
     << human(m.standardBytes, "B")
     << "; P read, dP and dS written and read)\n";
  if (m.tiledBytes)
    os << llvm::format("  HBM saving     %.2fx less traffic than standard\n",
                       double(m.standardBytes) / double(m.tiledBytes));
  os << "  FLOPs          useful " << m.usefulFlops << " ("
     << human(m.usefulFlops, "FLOP") << "), executed " << m.executedFlops
     << " (" << human(m.executedFlops, "FLOP") << ", whole tiles)\n";
  printRates(os, target, m.usefulFlops, m.tiledBytes, m.standardBytes);
}

/// The split-KV model (docs/io-model.md, "Split-KV and paged K/V"): every
/// sequence at the op's K/V length (Nk, or M·S for a paged op).
static void printSplitKVReport(raw_ostream &os, Operation *op,
                               const AttentionShape &s, ScheduleAttr schedule,
                               const PagedAttentionShape *paged) {
  const TargetModel *target = lookupTargetModel(schedule.getArch());
  ScheduleChoice choice{schedule.getBlockQ(), schedule.getBlockKv(),
                        schedule.getStages(), schedule.getWarps()};
  int64_t numSMs = target ? target->numSMs : 1;
  int64_t sharedMemPerSM =
      target ? target->sharedMemPerSM : std::numeric_limits<int64_t>::max();
  int64_t pageSize = paged ? paged->pageSize : 0;
  SplitKVIOModel m = computeSplitKVIOModel(s, choice, schedule.getMaxSplits(),
                                           numSMs, sharedMemPerSM, pageSize);
  Type elementType =
      cast<RankedTensorType>(op->getOperand(0).getType()).getElementType();
  int64_t rows = packedQueryRows(s);

  os << "flash-io-report: " << op->getLoc() << "\n";
  os << "  problem        " << (paged ? "paged" : "split-KV") << " B="
     << s.batch << " Hq=" << s.queryHeads << " Hkv=" << s.kvHeads
     << " Nq=" << s.seqQ << " Nk=" << s.seqKV << " D=" << s.headDim
     << " Dv=" << s.valueDim << " " << elementType
     << " causal=" << (s.causal ? "yes" : "no")
     << " lse=" << (s.hasLse ? "yes" : "no") << "\n";
  if (paged)
    os << "  pages          P=" << paged->numPages << " S=" << paged->pageSize
       << " M=" << paged->pagesPerSequence << " (Nk = M·S: every sequence "
       << "full; lengths are run-time values)\n";
  os << "  schedule       " << schedule.getArch() << " Br=" << choice.blockQ
     << " Bc=" << choice.blockKV << " stages=" << choice.stages
     << " warps=" << choice.warps
     << " max_splits=" << schedule.getMaxSplits() << "\n";
  os << "  packing        " << s.queryHeads / s.kvHeads << " q-heads x Nq="
     << s.seqQ << " = " << rows << " rows per kv-head, " << m.qTiles
     << " Q tile(s) of " << choice.blockQ << "\n";
  os << "  splits         " << m.splits << " of " << m.tilesPerSplit
     << " K/V tile(s) per (b, kv-head) at Nk=" << s.seqKV << "; split stage "
     << m.splitBlocks << " blocks, merge " << s.batch * s.kvHeads
     << " blocks";
  if (target)
    os << " (" << target->numSMs << " SMs)";
  os << "\n";
  os << "  SRAM/block     " << m.sharedBytes << " B\n";
  os << "  HBM split-KV   Q " << m.bytesQ << " + K/V " << m.bytesKV
     << " + table " << m.bytesTable << " + O " << m.bytesO << " + LSE "
     << m.bytesLse << " + partials " << m.bytesPartials << " = " << m.bytes
     << " B (" << human(m.bytes, "B") << ")\n";
  os << "  K/V            read once per kv-head: " << m.bytesKV
     << " B; one block per q-head would read " << m.forwardBytesKV << " B";
  if (m.bytesKV)
    os << llvm::format(" (%.2fx)", double(m.forwardBytesKV) / m.bytesKV);
  os << "\n";
  if (m.bytes)
    os << "  partials       f32 O and LSE of " << m.splits
       << " split(s), written once and read once by the merge: "
       << m.bytesPartials
       << llvm::format(" B (%.1f%% of the traffic)",
                       100.0 * m.bytesPartials / m.bytes)
       << "\n";
  os << "  FLOPs          useful " << m.usefulFlops << " ("
     << human(m.usefulFlops, "FLOP") << ")\n";
  if (target)
    os << llvm::format("  time floors    compute %.4f ms, HBM %.4f ms (peak "
                       "rates of %s)\n",
                       m.usefulFlops / target->bf16FlopsPerSecond * 1e3,
                       m.bytes / target->hbmBytesPerSecond * 1e3,
                       target->exampleChip.str().c_str());
}

namespace {
struct FlashIOReportPass : flash::impl::FlashIOReportBase<FlashIOReportPass> {
  using Base::Base;

  void runOnOperation() override {
    std::string errorMessage;
    auto file = openOutputFile(output, &errorMessage);
    if (!file) {
      getOperation()->emitError() << "flash-io-report: " << errorMessage;
      return signalPassFailure();
    }
    auto noSchedule = [](Operation *op) {
      op->emitOpError() << "has no #flash.schedule; run "
                           "flash-select-schedule before flash-io-report";
      return WalkResult::interrupt();
    };
    WalkResult result = getOperation()->walk([&](Operation *op) {
      if (auto paged = dyn_cast<PagedAttentionOp>(op)) {
        ScheduleAttr schedule = paged.getScheduleAttr();
        if (!schedule)
          return noSchedule(op);
        FailureOr<PagedAttentionShape> shape = getPagedAttentionShape(paged);
        if (failed(shape))
          return WalkResult::interrupt();
        printSplitKVReport(file->os(), op, *shape, schedule, &*shape);
      } else if (auto forward = dyn_cast<AttentionOp>(op)) {
        ScheduleAttr schedule = forward.getScheduleAttr();
        if (!schedule)
          return noSchedule(op);
        FailureOr<AttentionShape> shape = getAttentionShape(forward);
        if (failed(shape))
          return WalkResult::interrupt();
        if (schedule.isSplitKV())
          printSplitKVReport(file->os(), op, *shape, schedule, nullptr);
        else
          printReport(file->os(), forward, *shape, schedule);
      } else if (auto backward = dyn_cast<AttentionBackwardOp>(op)) {
        ScheduleAttr schedule = backward.getScheduleAttr();
        if (!schedule)
          return noSchedule(op);
        FailureOr<AttentionShape> shape = getAttentionShape(backward);
        if (failed(shape))
          return WalkResult::interrupt();
        printBackwardReport(file->os(), backward, *shape, schedule);
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    file->keep();
  }
};
} // namespace
