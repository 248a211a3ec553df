// Every parameter of an ALiBi tensor, as plain structs with the defaults of REFERENCES.md.
// Data flows one way: these structs -> pure core functions -> result structs -> views.
#pragma once

#include <alibi/base/dtype.hpp>

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
    double maxBias = 8.0;         // B: applies to press and geometric
    std::vector<double> custom;   // scheme Custom: exactly `heads` positive finite numbers
    Arith arith = Arith::Exact;   // slope computation and bias product (model/arith.hpp)
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

struct ContentParams {
    ContentKind kind = ContentKind::Zero;
    std::uint64_t seed = 0;
    double sigma = 1.0;        // gaussian: logits ~ N(0, sigma^2)
    int dk = 64;               // qk: head dimension; logits q.k / sqrt(dk)
    double temperature = 1.0;  // divides the whole logit (content + bias)
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

// True when the mode masks future keys (causal, bloom, mpt).
[[nodiscard]] constexpr bool modeMasks(BiasMode mode) {
    return mode == BiasMode::Causal || mode == BiasMode::Bloom || mode == BiasMode::Mpt;
}

}  // namespace alibi
