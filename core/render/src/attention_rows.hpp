// Float attention rows for pictures: only the query rows a heatmap shows, computed with the same
// kernels as computeAttention's float path (BLAS q.k products, the vectorised softmax passes),
// with each head's key vectors kept in a small process-wide cache, so a change that leaves the
// seed, d_k and K alone (a slope, the mode, the temperature) redraws no key vectors.
#pragma once

#include <alibi/model/params.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace alibi::detail {

class PictureRows {
public:
    // `params` must have passed validateAttention, which returned `slopes`. keyStep > 1 (q.k
    // content): a preview's rows, the content of keys 0, keyStep, 2 keyStep, ... shared by the
    // keys up to the next (see HeatmapParams::keyStep); the bias and softmax stay exact.
    PictureRows(const AttentionParams& params, std::vector<double> slopes, int keyStep = 1);
    ~PictureRows();
    PictureRows(const PictureRows&) = delete;
    PictureRows& operator=(const PictureRows&) = delete;

    // Rows of probabilities for `queries` (ascending) of head h, into out (queries.size() x K,
    // row-major). Masked keys hold 0. `panel` (optional), where keys are drawn a panel at a
    // time (uncached or sampled keys), hears after each panel how many of the keys are done;
    // returning false stops the call early, leaving `out` unfinished.
    using PanelFn = std::function<bool(std::int64_t keysDone, std::int64_t keysAll)>;
    void compute(int head, std::span<const std::int64_t> queries, std::span<float> out, const PanelFn& panel = {});

    // Rows per call that keep one call's scratch within a few hundred KiB.
    [[nodiscard]] std::int64_t chunkRows() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Drops the cached key vectors (tests and benchmarks that want cold timings).
void clearPictureKeyCache();

}  // namespace alibi::detail
