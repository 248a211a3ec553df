// Diagnosis of a user's bias tensor: which parameters reproduce it, and which known bug it shows.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/io/preset.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/params.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace alibi {

// Codes for the known bugs of REFERENCES.md.
inline constexpr const char* kSlopeOffByOne = "slope-off-by-one";
inline constexpr const char* kNaiveSlopesNonPow2 = "naive-slopes-non-pow2";
inline constexpr const char* kSignFlipped = "sign-flipped";
inline constexpr const char* kLayoutQkhAsHqk = "layout-qkh-as-hqk";
inline constexpr const char* kSingleSlopeAllHeads = "single-slope-all-heads";
inline constexpr const char* kScaledBySqrtDk = "scaled-by-sqrt-dk";
inline constexpr const char* kFp16MaskOverflow = "fp16-mask-overflow";
inline constexpr const char* kTopLeftAligned = "top-left-aligned";
inline constexpr const char* kLeftPaddingPositions = "left-padding-positions";
inline constexpr const char* kWindowMask = "sliding-window";
inline constexpr const char* kDocumentMask = "packed-documents";
inline constexpr const char* kPrefixLm = "prefix-lm";
// The bugs real ports shipped (issue 24); docs/DIAGNOSE.md describes each.
inline constexpr const char* kNoAlibi = "no-alibi";
inline constexpr const char* kRowOffset = "row-offset";
inline constexpr const char* kScaledBias = "scaled-bias";
inline constexpr const char* kSlopeRatio = "slope-ratio";
inline constexpr const char* kTensorParallelSlopes = "tensor-parallel-slopes";
inline constexpr const char* kPositionsRounded = "positions-rounded";
inline constexpr const char* kLowPrecisionBias = "low-precision-bias";
inline constexpr const char* kStaticKvCache = "static-kv-cache";
inline constexpr const char* kNotThisModel = "not-this-model";
inline constexpr const char* kReversedHeads = "reversed-head-order";
inline constexpr const char* kPermutedHeads = "permuted-head-order";

struct Finding {
    Finding() = default;
    Finding(std::string code_, std::string message_, std::string explorer_ = {})
        : code(std::move(code_)), message(std::move(message_)), explorer(std::move(explorer_)) {}

    std::string code;     // one of the codes above
    std::string message;  // what it means and how to fix it, with the CLI's flags
    // The same worded for the explorers (their controls instead of flags); empty when the
    // message names no flag.
    std::string explorer;

    [[nodiscard]] const std::string& explorerMessage() const { return explorer.empty() ? message : explorer; }

    // Filled in by diagnose for every finding (see findingInfo and attention effect below):
    std::string explanation;  // one line: what the code means
    std::string fix;          // the line of code that usually causes it, and what to change
    // Informational: a framework's own path or layout, not a bug (low-precision-bias of a
    // framework's f16 path, static-kv-cache).
    bool informational = false;
    // Softmax of the tensor alone (zero content) against softmax of correct ALiBi, row by row:
    // the largest change of one probability. Below the change that storing correct ALiBi in the
    // tensor's dtype makes anyway, the finding is harmless.
    bool changesAttention = true;
    double maxProbabilityChange = 0;
};

// The fixed words of a finding code: its one-line explanation, its fix, and whether it is
// informational. Unknown codes get empty words.
struct FindingInfo {
    const char* code;
    const char* explanation;
    const char* fix;
    bool informational;
};
[[nodiscard]] const FindingInfo* findingInfo(std::string_view code);
[[nodiscard]] std::span<const FindingInfo> allFindingInfo();

struct DiagnosisMatch {
    SlopeScheme scheme = SlopeScheme::Press;
    // B of press/geometric, and of the scheme behind slope-off-by-one and scaled-by-sqrt-dk
    // (reported as custom); left at 8 for linear and plain custom slopes, where it means nothing.
    double maxBias = 8.0;
    BiasMode mode = BiasMode::Causal;
    MaskValue mask;
    bool masked = true;          // false: no entry is masked, so `mask` was not seen (JSON null)
    std::vector<double> slopes;  // the slopes of the match (custom when no scheme fits)
};

// How far a tensor is from what one arithmetic profile builds with the matched parameters.
struct ArithDistance {
    Arith arith = Arith::Exact;
    bool identical = false;            // every compared cell has the same bits
    std::uint64_t maxUlp = 0;          // largest distance in units in the last place of the dtype
    std::uint64_t cellsDiffering = 0;  // cells whose values differ
    std::uint64_t cellsCompared = 0;   // every cell, or a strided sample of a huge tensor
    // Cells of equal value whose bits differ only in the sign of zero (-0.0 against +0.0, as
    // NumPy's -m * (i - j) stores the diagonal): not counted in cellsDiffering.
    std::uint64_t zeroSignCells = 0;
};

// One batch row of a batch of decode rows (B, H, Q, K) with Q != K, (B, 1, 1, K) or HF BLOOM's
// (batch * heads, 1, K), diagnosed on its own with its left padding cropped.
struct DiagnosisRow {
    std::int64_t row = 0;
    std::int64_t keys = 0;  // its real keys: K minus its left padding
    bool matched = false;   // something reproduces the row
    // The row shows the batch's common match: the parameters and findings most rows share
    // (Diagnosis::match and findings). A row that is not common is named in the summary.
    bool common = false;
    std::vector<std::string> findings;  // its finding codes
    std::string summary;                // its own diagnosis in words
};

struct Diagnosis {
    Layout layout = Layout::Hqk;
    std::int64_t heads = 0, queries = 0, keys = 0;
    DType dtype = DType::F32;
    std::optional<DiagnosisMatch> match;  // nullopt: nothing reproduces the tensor
    double maxAbsError = 0;               // against the best candidate (match or not); +inf when
                                          // a finite entry faces an infinite one (or NaN)
    std::vector<Finding> findings;
    std::vector<double> inferredSlopes;  // per head, read off the tensor
    // When nothing matches: the first differing entry against the best candidate.
    std::optional<std::vector<std::int64_t>> firstMismatchIndex;
    double firstMismatchActual = 0, firstMismatchExpected = 0;
    std::string summary;  // a paragraph in words
    // The same worded for the explorers (no CLI flags); empty when it would be the same.
    std::string explorerSummary;
    // The best candidate's parameters (for rendering an error heatmap). bestParams.layout is
    // the order the data is really in (qkh for a layout-qkh-as-hqk tensor).
    std::optional<BiasParams> bestParams;
    // Forms of the best candidate that BiasParams cannot express (the sign-flipped and
    // top-left-aligned bugs); diagnosisError applies them.
    bool bestSignFlipped = false;
    bool bestTopLeft = false;
    // The profiles of --arith compared bit for bit with the match (empty without a plain match),
    // and the first one whose bits the tensor carries.
    std::vector<ArithDistance> arithDistances;
    std::optional<Arith> arith;
    // A 1-D tensor of positive numbers read as a slope vector (H,), not as a flat bias:
    // heads is its length, queries and keys are 0.
    bool slopeVector = false;
    // A (B, H, T, T) batch (layout bhqk): the padding, documents, window, prefix and position rule
    // that reproduce it; nullopt for a single sequence without them.
    std::optional<BatchParams> batch;
    // Correct ALiBi for what was read off the tensor: its heads, lengths, mode, dtype and layout
    // (the one its shape declares), with the matched scheme's max_bias, press slopes (linear when
    // the slopes are linear), the right sign, bottom-right alignment and a mask the dtype holds
    // (min instead of an overflowed -inf in f16). For a batch, its padding, documents, window and
    // prefix with positions from the mask. nullopt for a slope vector. The explorers' "Open the
    // corrected parameters" opens it and their error map compares with it.
    std::optional<BiasParams> correctParams;
    std::optional<BatchParams> correctBatch;
    // A static KV cache: only the first usedKeys key slots hold the bias; the rest are masked as
    // unused (0: every key is used). correctParams then describes the used keys.
    std::int64_t usedKeys = 0;
    // A batch of decode rows (see DiagnosisRow): every row's own diagnosis, in batch order. Empty
    // for other tensors. correctParams is then the square (K, K) batch whose last Q query rows
    // are the tensor's rows (the explorers open it at the last query row), and correctBatch its
    // left padding with positions from the mask.
    std::vector<DiagnosisRow> rows;
    // The padding keys hold 0 (HF BLOOM's build_alibi_tensor: slope * (cumsum(mask) - 1) * mask,
    // the mask applied apart), not the mask value; correct ALiBi then holds 0 there too.
    bool paddingZeros = false;
    // The tensor alone against correct ALiBi after a softmax over each row (zero content): the
    // largest probability change, and the change that storing correct ALiBi in this dtype makes.
    double maxProbabilityChange = 0;
    double dtypeProbabilityChange = 0;

    [[nodiscard]] const std::string& explorerSummaryText() const {
        return explorerSummary.empty() ? summary : explorerSummary;
    }
};

// Tolerance: entries agree when equal, or within 1e-6 relative (f32/f64), or within a
// half-ulp of the dtype (f16/bf16).
[[nodiscard]] Result<Diagnosis> diagnose(const Tensor& tensor);

// The lines both explorers show under the summary, worded once: the shape as read ("Read as
// layout bhqk: 2 batch rows x 8 heads x 8 queries x 8 keys.", "Read as a slope vector of 8
// heads.") and what reproduces it ("Reproduced by: press slopes, max_bias 8, causal mode, mask
// -1e9." or "No standard parameter set reproduces this tensor.").
[[nodiscard]] std::string readAsText(const Diagnosis& d);
[[nodiscard]] std::string matchText(const Diagnosis& d);

// A named model's published computation (a preset or a config.json): what `diagnose` checks the
// tensor against besides textbook ALiBi.
struct ModelConvention {
    std::string name;    // "Falcon-RW-1B"
    std::string source;  // the config and modeling code it comes from
    int heads = 8;
    SlopeScheme scheme = SlopeScheme::Press;
    double maxBias = 8.0;
    BiasMode mode = BiasMode::Causal;
    Arith arith = Arith::Exact;
    double biasScale = 1.0;  // Falcon: 1/sqrt(head_dim), applied to scores and bias together
    int headDim = 0;
    std::vector<std::string> conventions;  // "file, function: what it does"
};
// The preset as `diagnose --preset` checks a tensor against it.
[[nodiscard]] ModelConvention modelConvention(const Preset& preset);

// What diagnose is told besides the tensor (the CLI's --heads, --preset, --from-config).
struct DiagnoseOptions {
    // Heads of a (batch * heads, 1, K) tensor (HF BLOOM's build_alibi_tensor), 1 to kMaxHeads;
    // nullopt: the model's head count, or detected when the rows' slopes repeat with a known one.
    std::optional<int> heads;
    // Check against this model's own computation: a tensor it computes gets no finding, any other
    // gets not-this-model with what differs.
    std::optional<ModelConvention> model;
};
[[nodiscard]] Result<Diagnosis> diagnose(const Tensor& tensor, const DiagnoseOptions& options);

// The largest change of one attention probability between softmax(tensor row) and
// softmax(correct ALiBi row), zero content, over every row diagnosis.correctParams covers; and
// the same for correct ALiBi stored in the tensor's dtype (the change rounding alone makes).
struct AttentionEffect {
    double maxProbabilityChange = 0;
    double dtypeProbabilityChange = 0;
};
[[nodiscard]] Result<AttentionEffect> attentionEffect(const Tensor& tensor, const Diagnosis& diagnosis,
                                                      std::uint64_t budget = kDefaultMemoryBudget);

// How correctAlibiError and probabilityChangeMap write a cell correct ALiBi masks (a causal or
// padding mask, an unused cache slot) that the tensor masks alike: 0, no error, or NaN, which
// the Diagnose map paints masked grey, so a masked cell is not read as a checked one.
enum class MaskedCells { Zero, NaN };

// |softmax(tensor) - softmax(correct ALiBi)| per cell, zero content, in the shape of
// correctAlibiError: the explorers paint it instead of the bias error when every finding is
// harmless (a per-row constant changes the logits but no probability).
[[nodiscard]] Result<Tensor> probabilityChangeMap(const Tensor& tensor, const Diagnosis& diagnosis,
                                                  MaskedCells masked = MaskedCells::Zero,
                                                  std::uint64_t budget = kDefaultMemoryBudget);

// Whether the Diagnose map should show the probability change rather than the bias error: a
// match whose findings are all harmless (or informational) while the bias differs.
[[nodiscard]] bool paintProbabilityChange(const Diagnosis& diagnosis);

// |tensor - expected| per (h, i, j) of the best match, as an (H, Q, K) f32 tensor: where the
// tensor departs from its closest reproduction (all zero when a known bug matches exactly).
[[nodiscard]] Result<Tensor> diagnosisError(const Tensor& tensor, const Diagnosis& diagnosis,
                                            std::uint64_t budget = kDefaultMemoryBudget);

// |tensor - correct ALiBi| per cell, as an f32 tensor: (H, Q, K) with the tensor read in the
// layout its shape declares, or (B*H, Q, K) for a batch (row b's heads first; Q = K = T for a
// square batch, Q the decode rows of (B, H, Q, K) and (batch * heads, 1, K)). Correct ALiBi is
// diagnosis.correctParams (and correctBatch) by the exact formula, rounded once to the tensor's
// dtype. The same infinity is no error; a finite value against an infinite one (or NaN) is +inf.
// This is the explorers' Diagnose error map.
[[nodiscard]] Result<Tensor> correctAlibiError(const Tensor& tensor, const Diagnosis& diagnosis,
                                               MaskedCells masked = MaskedCells::Zero,
                                               std::uint64_t budget = kDefaultMemoryBudget);

}  // namespace alibi
