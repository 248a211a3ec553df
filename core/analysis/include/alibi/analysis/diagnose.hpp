// Diagnosis of a user's bias tensor: which parameters reproduce it, and which known bug it shows.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/params.hpp>
#include <alibi/base/tensor.hpp>

#include <cstdint>
#include <optional>
#include <string>
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
};

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
    bool identical = false;      // every compared cell has the same bits
    std::uint64_t maxUlp = 0;    // largest distance in units in the last place of the dtype
    std::uint64_t cellsDiffering = 0;
    std::uint64_t cellsCompared = 0;  // every cell, or a strided sample of a huge tensor
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

    [[nodiscard]] const std::string& explorerSummaryText() const {
        return explorerSummary.empty() ? summary : explorerSummary;
    }
};

// Tolerance: entries agree when equal, or within 1e-6 relative (f32/f64), or within a
// half-ulp of the dtype (f16/bf16).
[[nodiscard]] Result<Diagnosis> diagnose(const Tensor& tensor);

// |tensor - expected| per (h, i, j) of the best match, as an (H, Q, K) f32 tensor: where the
// tensor departs from its closest reproduction (all zero when a known bug matches exactly).
[[nodiscard]] Result<Tensor> diagnosisError(const Tensor& tensor, const Diagnosis& diagnosis,
                                            std::uint64_t budget = kDefaultMemoryBudget);

// |tensor - correct ALiBi| per cell, as an f32 tensor: (H, Q, K) with the tensor read in the
// layout its shape declares, or (B*H, T, T) for a batch (row b's heads first). Correct ALiBi is
// diagnosis.correctParams (and correctBatch) by the exact formula, rounded once to the tensor's
// dtype. The same infinity is no error; a finite value against an infinite one (or NaN) is +inf.
// This is the explorers' Diagnose error map.
[[nodiscard]] Result<Tensor> correctAlibiError(const Tensor& tensor, const Diagnosis& diagnosis,
                                               std::uint64_t budget = kDefaultMemoryBudget);

}  // namespace alibi
