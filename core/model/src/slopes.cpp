// Slope schemes. Every slope is 2 raised to its exact exponent (never repeated powers of m0,
// which accumulate rounding: REFERENCES.md, "ggml form of press").
#include <alibi/model/arith.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>
#include <bit>
#include <cmath>
#include <numbers>

namespace alibi {

std::vector<double> geometricSlopes(int n, double maxBias) {
    std::vector<double> slopes(static_cast<std::size_t>(std::max(n, 0)));
    for (int h = 0; h < n; ++h) slopes[h] = std::exp2(-maxBias * (h + 1) / n);
    return slopes;
}

std::vector<double> pressSlopes(int heads, double maxBias) {
    if (heads <= 0) return {};
    const int c = static_cast<int>(std::bit_floor(static_cast<unsigned>(heads)));
    std::vector<double> slopes = geometricSlopes(c, maxBias);
    // The remaining H - c are the even-indexed entries of press(2c): 2^(-B(2k+1)/(2c)).
    for (int k = 0; k < heads - c; ++k) slopes.push_back(std::exp2(-maxBias * (2 * k + 1) / (2.0 * c)));
    return slopes;
}

std::vector<double> linearSlopes(int heads) {
    if (heads <= 0) return {};
    if (heads == 1) return {0.05};
    // numpy.linspace: start + k * step, with the last point exactly `stop`.
    std::vector<double> slopes(static_cast<std::size_t>(heads));
    const double step = (0.5 - 0.05) / (heads - 1);
    for (int k = 0; k < heads; ++k) slopes[k] = 0.05 + k * step;
    slopes.back() = 0.5;
    return slopes;
}

double halfLife(double slope) {
    return std::numbers::ln2 / slope;
}

Result<std::vector<double>> computeSlopes(const SlopeParams& params) {
    if (params.heads < 1 || params.heads > kMaxHeads)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--heads must be between 1 and {}, got {}", kMaxHeads, params.heads), Field::Heads);
    if (!std::isfinite(params.maxBias) || params.maxBias < 0 || params.maxBias > 1000)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--max-bias must be a finite number between 0 and 1000, got {}", params.maxBias),
                    Field::MaxBias);
    if (params.arith != Arith::Exact) {
        if (params.scheme != SlopeScheme::Press)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--arith {} computes the framework's own press slopes; --scheme {} has no {} "
                                    "equivalent (drop --scheme, or use --arith exact)",
                                    arithName(params.arith), schemeName(params.scheme), arithName(params.arith)),
                        Field::Arith);
        return frameworkSlopes(params.arith, params.heads, params.maxBias);
    }
    switch (params.scheme) {
        case SlopeScheme::Press:
            return pressSlopes(params.heads, params.maxBias);
        case SlopeScheme::Geometric:
            return geometricSlopes(params.heads, params.maxBias);
        case SlopeScheme::Linear:
            return linearSlopes(params.heads);
        case SlopeScheme::Custom:
            break;
    }
    if (params.custom.size() != static_cast<std::size_t>(params.heads))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--slopes gives {} slope(s) but --heads is {}: give exactly one slope per head "
                                "(or drop --heads; it defaults to the number of slopes)",
                                params.custom.size(), params.heads),
                    Field::Slopes);
    if (auto ok = checkCustomSlopes(params.custom); !ok) return std::unexpected(ok.error());
    return params.custom;
}

Result<void> checkCustomSlopes(const std::vector<double>& custom) {
    for (std::size_t h = 0; h < custom.size(); ++h) {
        const double m = custom[h];
        if (!std::isfinite(m) || m <= 0)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--slopes: slope {} (head {}) is {}; every slope must be a positive finite number",
                                    h + 1, h, m),
                        Field::Slopes);
    }
    return {};
}

}  // namespace alibi
