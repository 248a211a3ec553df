// The attention simulation's entry points that belong to no single path: validation, metadata,
// fully masked rows and the kernel description. The work lives in files with one job each:
// attention_generator.cpp (the Gaussian generator), attention_reference.cpp (the double
// reference rows), attention_closed_form.cpp (zero content), attention_blocked.cpp
// (computeAttention), attention_source.cpp (streaming exports), attention_kernel.cpp (the
// vectorised softmax passes), attention_product.cpp (the packed AVX-512 product) and
// attention_blas.cpp (the BLAS product).
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>

#include <alibi/model/detail/attention_blas.hpp>
#include <alibi/model/detail/attention_detail.hpp>
#include <alibi/model/detail/attention_kernel.hpp>
#include "attention_product.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi {

Result<std::vector<double>> validateAttention(const AttentionParams& params) {
    auto slopes = validateBias(params.bias);
    if (!slopes) return slopes;
    if (auto ok = checkContentLimits(params.content); !ok) return std::unexpected(ok.error());
    return slopes;
}

std::string attentionKernelDescription() {
    const std::string product = detail::packedProductRuns()
                                    ? fmt::format("f32 packed AVX-512 kernel, f64 {}", detail::blasDescription())
                                    : detail::blasDescription();
    return fmt::format("matrix product: {}; softmax: {}; Gaussian generator: {} (recipe {})", product,
                       detail::softmaxKernelName(), detail::generatorKernelName(detail::generatorKernel()),
                       kGeneratorLatest);
}

FullyMaskedRows fullyMaskedRows(const AttentionParams& params) {
    const BiasParams& b = params.bias;
    FullyMaskedRows r;
    if (modeMasks(b.mode)) r.count = std::max<std::int64_t>(0, b.queries - b.keyCount());
    r.nan = r.count > 0 && detail::maskLogit(b) == -std::numeric_limits<double>::infinity();
    return r;
}

std::map<std::string, std::string> attentionMetadata(const AttentionParams& params) {
    auto m = biasMetadata(params.bias);
    m["kind"] = "attention";
    m["content"] = std::string(contentName(params.content.kind));
    m["seed"] = std::to_string(params.content.seed);
    m["sigma"] = fmt::format("{}", params.content.sigma);
    m["dk"] = std::to_string(params.content.dk);
    m["temperature"] = fmt::format("{}", params.content.temperature);
    m["generator"] = std::to_string(params.content.generator);
    return m;
}

}  // namespace alibi
