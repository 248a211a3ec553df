// Names of every enumerated parameter and the limits of every numeric one, shared by the CLI,
// session files and GUIs.
#include <alibi/model/params.hpp>

#include <fmt/format.h>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

namespace alibi {
namespace {

template <class E, std::size_t N>
std::string_view nameOf(const std::array<std::pair<E, std::string_view>, N>& table, E value) {
    for (const auto& [e, name] : table)
        if (e == value) return name;
    return table[0].second;
}

template <class E, std::size_t N>
std::optional<E> parseOf(const std::array<std::pair<E, std::string_view>, N>& table, std::string_view name) {
    for (const auto& [e, n] : table)
        if (n == name) return e;
    return std::nullopt;
}

constexpr std::array<std::pair<SlopeScheme, std::string_view>, 4> kSchemes{{
    {SlopeScheme::Press, "press"},
    {SlopeScheme::Geometric, "geometric"},
    {SlopeScheme::Linear, "linear"},
    {SlopeScheme::Custom, "custom"},
}};
constexpr std::array<std::pair<BiasMode, std::string_view>, 5> kModes{{
    {BiasMode::Causal, "causal"},
    {BiasMode::Symmetric, "symmetric"},
    {BiasMode::Clamped, "clamped"},
    {BiasMode::Bloom, "bloom"},
    {BiasMode::Mpt, "mpt"},
}};
constexpr std::array<std::pair<Layout, std::string_view>, 4> kLayouts{{
    {Layout::Hqk, "hqk"},
    {Layout::Qkh, "qkh"},
    {Layout::OneHqk, "1hqk"},
    {Layout::Flat, "flat"},
}};
constexpr std::array<std::pair<ContentKind, std::string_view>, 3> kContents{{
    {ContentKind::Zero, "zero"},
    {ContentKind::Gaussian, "gaussian"},
    {ContentKind::Qk, "qk"},
}};
constexpr std::array<std::pair<Arith, std::string_view>, 6> kAriths{{
    {Arith::Exact, "exact"},
    {Arith::HfBloom, "hf-bloom"},
    {Arith::HfFalcon, "hf-falcon"},
    {Arith::LlmFoundry, "llm-foundry"},
    {Arith::Fairseq, "fairseq"},
    {Arith::Ggml, "ggml"},
}};

}  // namespace

std::string_view schemeName(SlopeScheme scheme) {
    return nameOf(kSchemes, scheme);
}
std::optional<SlopeScheme> parseScheme(std::string_view name) {
    return parseOf(kSchemes, name);
}
std::string_view modeName(BiasMode mode) {
    return nameOf(kModes, mode);
}
std::optional<BiasMode> parseMode(std::string_view name) {
    return parseOf(kModes, name);
}
std::string_view layoutName(Layout layout) {
    return nameOf(kLayouts, layout);
}
std::optional<Layout> parseLayout(std::string_view name) {
    return parseOf(kLayouts, name);
}
std::string_view contentName(ContentKind kind) {
    return nameOf(kContents, kind);
}
std::optional<ContentKind> parseContent(std::string_view name) {
    return parseOf(kContents, name);
}
std::string_view arithName(Arith arith) {
    return nameOf(kAriths, arith);
}
std::optional<Arith> parseArith(std::string_view name) {
    return parseOf(kAriths, name);
}

std::string maskName(const MaskValue& mask) {
    switch (mask.kind) {
        case MaskValue::Kind::NegInf:
            return "-inf";
        case MaskValue::Kind::Lowest:
            return "min";
        case MaskValue::Kind::Finite:
            break;
    }
    if (mask.value == -1e9) return "-1e9";
    // Shortest text that reads back to the same double.
    std::array<char, 32> buf{};
    auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), mask.value);
    (void)ec;
    return std::string(buf.data(), end);
}

std::optional<MaskValue> parseMask(std::string_view text) {
    if (text == "-inf" || text == "-infinity" || text == "-Infinity")
        return MaskValue{MaskValue::Kind::NegInf, -std::numeric_limits<double>::infinity()};
    if (text == "min" || text == "lowest") return MaskValue{MaskValue::Kind::Lowest, 0.0};
    double value = 0;
    const char* first = text.data();
    const char* last = first + text.size();
    if (!text.empty() && text.front() == '+') ++first;
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || ptr != last || first == last || !std::isfinite(value)) return std::nullopt;
    return MaskValue{MaskValue::Kind::Finite, value};
}

double maskDouble(const MaskValue& mask, DType dtype) {
    switch (mask.kind) {
        case MaskValue::Kind::NegInf:
            return -std::numeric_limits<double>::infinity();
        case MaskValue::Kind::Lowest:
            return dtypeLowest(dtype);
        case MaskValue::Kind::Finite:
            return mask.value;
    }
    return mask.value;
}

// ---------------------------------------------------------------------------
// Limits

namespace {

// The parameter as a message names it: its CLI flag (wordMessage rewords it for other front ends),
// or `text` for one without a flag.
std::string_view flagOf(std::optional<Field> field, std::string_view text) {
    return field ? fieldName(*field, FrontEnd::Cli) : text;
}

Result<void> checkRange(double x, NumberRange r, std::optional<Field> field, const char* sessionField,
                        std::string_view text = {}) {
    if (inRange(x, r)) return {};
    return std::unexpected(
        Error{ErrorCode::InvalidArgument,
              fmt::format("{} (session field `{}`) must be a number {} {} and at most {}, got {}", flagOf(field, text),
                          sessionField, r.minOpen ? "above" : "from", r.min, r.max, x),
              field});
}

Result<void> checkCount(std::int64_t x, std::int64_t lo, std::int64_t hi, std::optional<Field> field,
                        const char* sessionField, std::string_view text = {}) {
    if (x >= lo && x <= hi) return {};
    return std::unexpected(Error{ErrorCode::InvalidArgument,
                                 fmt::format("{} (session field `{}`) must be between {} and {}, got {}",
                                             flagOf(field, text), sessionField, lo, hi, x),
                                 field});
}

}  // namespace

Result<void> checkBiasLimits(const BiasParams& p) {
    if (auto ok = checkCount(p.slopes.heads, 1, kMaxHeads, Field::Heads, "bias.heads"); !ok) return ok;
    if (auto ok = checkRange(p.slopes.maxBias, kMaxBiasRange, Field::MaxBias, "bias.max_bias"); !ok) return ok;
    if (p.slopes.scheme == SlopeScheme::Custom)
        for (const double m : p.slopes.custom)
            if (auto ok = checkRange(m, kSlopeRange, Field::Slopes, "bias.slopes"); !ok) return ok;
    if (auto ok = checkCount(p.queries, 1, kMaxLength, Field::Seq, "bias.queries"); !ok) return ok;
    if (p.keys != 0)
        if (auto ok = checkCount(p.keys, 1, kMaxLength, Field::Keys, "bias.keys"); !ok) return ok;
    if (p.mask.kind == MaskValue::Kind::Finite && !std::isfinite(p.mask.value))
        return fail(ErrorCode::InvalidArgument, "--mask must be -1e9, -inf, min or a finite number", Field::Mask);
    return {};
}

Result<void> checkContentLimits(const ContentParams& c) {
    if (auto ok = checkRange(c.sigma, kSigmaRange, Field::Sigma, "attention.sigma"); !ok) return ok;
    if (auto ok = checkCount(c.dk, 1, kMaxDk, Field::Dk, "attention.dk"); !ok) return ok;
    if (auto ok = checkCount(c.generator, kGeneratorLibm, kGeneratorLatest, std::nullopt, "attention.generator",
                             "the generator recipe");
        !ok)
        return ok;
    return checkRange(c.temperature, kTemperatureRange, Field::Temperature, "attention.temperature");
}

Result<void> checkParameterLimits(const AttentionParams& params) {
    if (auto ok = checkBiasLimits(params.bias); !ok) return ok;
    return checkContentLimits(params.content);
}

}  // namespace alibi
