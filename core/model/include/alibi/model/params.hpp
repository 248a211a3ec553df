// Every parameter of an ALiBi tensor, as plain structs with the defaults of REFERENCES.md.
// Data flows one way: these structs -> pure core functions -> result structs -> views.
#pragma once

#include <alibi/base/dtype.hpp>
#include <alibi/base/error.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace alibi {

enum class SlopeScheme { Press, Geometric, Linear, Custom };
enum class BiasMode { Causal, Symmetric, Clamped, Bloom, Mpt };
enum class Layout { Hqk, Qkh, OneHqk, Flat };
enum class ContentKind { Zero, Gaussian, Qk };
// Whose float arithmetic produces the numbers (docs/ARITHMETIC.md): the exact formula rounded
// once (default), or one framework's float32 operations in that framework's order.
enum class Arith { Exact, HfBloom, HfFalcon, LlmFoundry, Fairseq, Ggml };

// Hard limits that keep every size computation far from integer overflow.
inline constexpr int kMaxHeads = 4096;
inline constexpr std::int64_t kMaxLength = 1 << 20;  // queries or keys

struct SlopeParams {
    int heads = 8;
    SlopeScheme scheme = SlopeScheme::Press;
    double maxBias = 8.0;        // B: applies to press and geometric
    std::vector<double> custom;  // scheme Custom: exactly `heads` positive finite numbers
    Arith arith = Arith::Exact;  // slope computation and bias product (model/arith.hpp)
    friend bool operator==(const SlopeParams&, const SlopeParams&) = default;
};

struct MaskValue {
    enum class Kind { Finite, NegInf, Lowest };
    Kind kind = Kind::Finite;
    double value = -1e9;  // used when kind == Finite
    friend bool operator==(const MaskValue&, const MaskValue&) = default;
};

struct BiasParams {
    SlopeParams slopes;
    std::int64_t queries = 16;
    std::int64_t keys = 0;  // 0 means "same as queries"
    BiasMode mode = BiasMode::Causal;
    MaskValue mask;
    Layout layout = Layout::Hqk;
    DType dtype = DType::F32;
    friend bool operator==(const BiasParams&, const BiasParams&) = default;

    [[nodiscard]] std::int64_t keyCount() const { return keys > 0 ? keys : queries; }
    // Absolute position of query row i: bottom-right alignment, p_i = i + K - Q.
    [[nodiscard]] std::int64_t queryPosition(std::int64_t i) const { return i + keyCount() - queries; }
};

// Recipes of the Gaussian generator (see attention.hpp). 2 evaluates log, sin and cos with the
// generator's own polynomials, so every x86-64 gives the same bits; 1 used the C library's,
// whose last bit may differ between libraries and CPUs. Sessions written before recipe 2 keep 1.
inline constexpr int kGeneratorLibm = 1;
inline constexpr int kGeneratorPolynomial = 2;
inline constexpr int kGeneratorLatest = kGeneratorPolynomial;

struct ContentParams {
    ContentKind kind = ContentKind::Zero;
    std::uint64_t seed = 0;
    double sigma = 1.0;                // gaussian: logits ~ N(0, sigma^2)
    int dk = 64;                       // qk: head dimension; logits q.k / sqrt(dk)
    double temperature = 1.0;          // divides the whole logit (content + bias)
    int generator = kGeneratorLatest;  // recipe of the normal draws (gaussian and qk content)
    friend bool operator==(const ContentParams&, const ContentParams&) = default;
};

// Every parameter struct compares member by member (doubles by value: -0 == 0, NaN never
// equal), so the front ends ask "did anything change?" with one operator.
struct AttentionParams {
    BiasParams bias;
    ContentParams content;
    friend bool operator==(const AttentionParams&, const AttentionParams&) = default;
};

// ---------------------------------------------------------------------------
// Names used by the CLI, session files and GUIs. parse* returns nullopt for unknown names.

[[nodiscard]] std::string_view schemeName(SlopeScheme scheme);
[[nodiscard]] std::optional<SlopeScheme> parseScheme(std::string_view name);
[[nodiscard]] std::string_view modeName(BiasMode mode);
[[nodiscard]] std::optional<BiasMode> parseMode(std::string_view name);
[[nodiscard]] std::string_view layoutName(Layout layout);
[[nodiscard]] std::optional<Layout> parseLayout(std::string_view name);
[[nodiscard]] std::string_view contentName(ContentKind kind);
[[nodiscard]] std::optional<ContentKind> parseContent(std::string_view name);
[[nodiscard]] std::string_view arithName(Arith arith);
[[nodiscard]] std::optional<Arith> parseArith(std::string_view name);

// Mask spelling: "-1e9" (or any finite number), "-inf", "min".
[[nodiscard]] std::string maskName(const MaskValue& mask);
[[nodiscard]] std::optional<MaskValue> parseMask(std::string_view text);
// The double the mask stands for once the dtype is known (-1e9, -inf, or dtypeLowest).
[[nodiscard]] double maskDouble(const MaskValue& mask, DType dtype);

// ---------------------------------------------------------------------------
// Limits: the one range of every numeric parameter, checked by checkParameterLimits for the
// core validators and so for the CLI, session files and both GUIs alike. Chosen so every logit
// stays finite in float whatever the combination: |bias| <= kSlopeRange.max * kMaxLength ~ 1e11,
// |q.k / sqrt(dk)| ~ kSigmaRange.max^2 * 100, divided by at least kTemperatureRange.min, stays far below
// float's 3.4e38, so every unmasked row has a finite maximum and its probabilities sum to 1
// (a row whose keys are all masked is all zeros: see attention.hpp).

struct NumberRange {
    double min;
    double max;
    bool minOpen = false;  // min itself excluded
};
inline constexpr NumberRange kMaxBiasRange{0, 1000};
inline constexpr NumberRange kSlopeRange{0, 1e5, true};  // custom slopes
inline constexpr NumberRange kSigmaRange{0, 1e6};
inline constexpr NumberRange kTemperatureRange{1e-6, 1e6};
inline constexpr int kMaxDk = 4096;

[[nodiscard]] constexpr bool inRange(double x, NumberRange r) {
    return x >= r.min && x <= r.max && !(r.minOpen && x == r.min);  // false for NaN
}

// Every numeric parameter against its limit; the message names the flag and the session field.
[[nodiscard]] Result<void> checkBiasLimits(const BiasParams& params);
[[nodiscard]] Result<void> checkContentLimits(const ContentParams& params);
[[nodiscard]] Result<void> checkParameterLimits(const AttentionParams& params);

// True when the mode masks future keys (causal, bloom, mpt).
[[nodiscard]] constexpr bool modeMasks(BiasMode mode) {
    return mode == BiasMode::Causal || mode == BiasMode::Bloom || mode == BiasMode::Mpt;
}

}  // namespace alibi
