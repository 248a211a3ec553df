// The explorer's computations, in the order the user sees them: the head grid first, then the
// detail image, statistics, curves and stages, then the optional compare and extrapolation.
#include <alibi/explore/batch_view.hpp>
#include <alibi/explore/compute.hpp>
#include <alibi/explore/decimate.hpp>
#include <alibi/explore/readout.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/format.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <optional>

namespace alibi::explore {

namespace {

// Detail images are rendered with one pixel per cell up to this size; views scale them with
// nearest-neighbour sampling, so cells stay crisp at any zoom.
constexpr int kDetailMaxPixels = 2048;
// Cell values (for the numbers drawn at small T) are fetched up to this many per side.
constexpr std::int64_t kDetailValuesMax = 32;
// The compare view builds A and B in memory; above this many cells it asks for a smaller T.
constexpr std::uint64_t kCompareMaxCells = std::uint64_t{1} << 24;
// Attention-vs-distance curves hold H * K points; above this they are skipped (about 256 MiB).
constexpr std::uint64_t kCurveCells = std::uint64_t{1} << 24;

bool stopped(const CancelledFn& cancelled) {
    return cancelled && cancelled();
}

ProgressFn progressOf(const CancelledFn& cancelled) {
    return [&cancelled](std::uint64_t, std::uint64_t) { return !stopped(cancelled); };
}

Result<Tensor> buildTensor(const AttentionParams& params, RenderWhat what, std::uint64_t budget) {
    if (what == RenderWhat::Attention) return computeAttention(params, budget, 2);
    return buildBias(params.bias, budget, 2);
}

// Relative cost of one attention cell: q.k content draws d_k normals per query and key.
double cellCost(const AttentionParams& p) {
    return p.content.kind == ContentKind::Qk ? static_cast<double>(std::max(1, p.content.dk)) : 1.0;
}

RenderWhat heatmapWhat(const Session& s) {
    return s.what == RenderWhat::Attention ? RenderWhat::Attention : RenderWhat::Bias;
}

}  // namespace

std::int64_t resolvedQueryRow(const Session& session) {
    const std::int64_t q = session.attention.bias.queries;
    if (session.queryRow < 0 || session.queryRow >= q) return q - 1;
    return session.queryRow;
}

Session applyCompare(const Session& a, const CompareOverrides& b) {
    Session out = a;
    out.attention.bias = applyOverrides(a.attention.bias, b);
    return out;
}

std::string previewText(const HeatmapParams& p) {
    if (p.keyStep > 1)
        return fmt::format("preview from 1 row in {} and q.k of 1 key in {} (approximate)", std::max(1, p.rowStep),
                           p.keyStep);
    if (p.rowStep > 1) return fmt::format("preview from 1 exact row in {}", p.rowStep);
    return {};
}

namespace {

// The mask joins the title where it changes what masked cells hold: a value other than the default
// -1e9, or a dtype that rounds it (-1e9 is -inf in f16). Without it lesson 4's steps 6 (-1e9 in
// f16) and 7 (mask min) read the same.
std::string maskTitle(const HeatmapParams& p) {
    const BiasParams& b = p.attention.bias;
    if (!modeMasks(b.mode) && !p.batch.active()) return {};
    if (b.mask == MaskValue{} && b.dtype == DType::F32) return {};
    return "mask " + maskValueText(b);
}

}  // namespace

std::string heatmapTitle(const HeatmapParams& p) {
    const BiasParams& b = p.attention.bias;
    std::string title = fmt::format(
        "{} · {} · {} queries x {} keys · {} · {} slopes (max_bias {}) · {}",
        p.what == RenderWhat::Attention ? "Attention probabilities" : "ALiBi bias",
        p.head >= 0 ? fmt::format("head {} of {}", p.head, b.slopes.heads) : fmt::format("{} heads", b.slopes.heads),
        b.queries, b.keyCount(), modeName(b.mode), schemeName(b.slopes.scheme), formatValue(b.slopes.maxBias),
        dtypeName(b.dtype));
    if (const std::string mask = maskTitle(p); !mask.empty()) title += " · " + mask;
    if (p.what == RenderWhat::Attention) {
        const ContentParams& c = p.attention.content;
        title += fmt::format(" · {} content", contentName(c.kind));
        if (c.kind == ContentKind::Qk) title += fmt::format(" (d_k = {})", c.dk);
        if (c.temperature != 1) title += fmt::format(" · T = {}", formatValue(c.temperature));
    }
    if (p.scale == ScaleMode::PerHead && p.head < 0) title += " · per-head scale";
    if (const std::string preview = previewText(p); !preview.empty()) title += " · " + preview + ", refining";
    if (p.batch.active()) title += " · " + batchRowTitle(p.batch, p.batchRow, b.queries);
    return title;
}

std::string heatmapSubtitle(const HeatmapParams& p, const Heatmap& map) {
    std::string formula;
    switch (p.attention.bias.mode) {
        case BiasMode::Causal:
            formula = "bias(i, j) = -m·(i - j) for keys j <= i, future keys masked";
            break;
        case BiasMode::Symmetric:
            formula = "bias(i, j) = -m·|i - j| in both directions";
            break;
        case BiasMode::Clamped:
            formula = "bias(i, j) = -m·max(i - j, 0): future keys get 0, not a mask";
            break;
        case BiasMode::Bloom:
            formula = "bias(i, j) = +m·j for j <= i (same softmax as causal)";
            break;
        case BiasMode::Mpt:
            formula = "bias(i, j) = -m·(K - 1 - j) for j <= i (same softmax as causal)";
            break;
    }
    if (p.what == RenderWhat::Attention) formula = "p(i, j) = softmax_j((content + bias) / τ), " + formula;
    if (p.batch.active())
        formula += fmt::format(
            " on the tokens' positions ({} rule); padding, other documents, the window and future keys "
            "are masked",
            positionRuleName(p.batch.positions));
    if (const std::string note = perHeadScaleNote(map, p.head < 0 ? p.scale : ScaleMode::Shared); !note.empty())
        formula += " · " + note + " (in its label)";
    return formula + " · rows: query i, columns: key j · " + map.summary;
}

std::string headTitle(int head, double slope) {
    return fmt::format("Head {} · slope m = {} · half-life {} keys", head, formatSlope(slope),
                       fmt::format("{:.4g}", std::log(2.0) / slope));
}

namespace {

// The cost model of the progressive schedule (measured on the 2-core machines of issue 26): q.k
// rows run at about this many multiply-adds a second on two threads, key vectors are drawn at
// about this many normals a second, and a first picture should take about this long by the
// model (which is optimistic: the first picture of the heavy view takes about twice as long on
// two idle cores; see docs/BENCHMARKS.md).
constexpr double kMultiplyAddsPerSecond = 6e10;
constexpr double kNormalsPerSecond = 6e8;
// Each row's softmax and pixel summaries: about this many of its K cells a second.
constexpr double kRowCellsPerSecond = 1e9;
constexpr double kFirstPictureSeconds = 0.4;

// Bytes of key vectors PictureRows keeps per head (above them it draws keys per call), and the
// rows of one call: its scratch is rows x K floats (see render/src/attention_rows.cpp).
constexpr double kCachedKeyBytes = 24.0 * (1 << 20);
double rowsPerCall(double K, bool cached) {
    return cached ? std::clamp(std::floor(512.0 * 1024 / (4 * K)), 1.0, 64.0)
                  : std::clamp(std::floor(160.0 * (1 << 20) / (4 * K)), 1.0, 640.0);
}

}  // namespace

double gridPassSeconds(const HeatmapParams& p, GridPass pass) {
    const ContentParams& c = p.attention.content;
    const BiasParams& b = p.attention.bias;
    const double heads = p.head >= 0 ? 1.0 : static_cast<double>(b.slopes.heads);
    // Pixel rows per tile: at most the image's height split over the grid's rows, and never
    // more than the queries.
    const double gridRows = gridLayout(static_cast<int>(heads), p.width, p.height).rows;
    const double tileRows =
        std::ceil(std::min<double>(static_cast<double>(b.queries), p.height / gridRows) / std::max(1, pass.rowStep));
    const double rows = heads * tileRows;
    const double K = static_cast<double>(b.keyCount());
    if (c.kind == ContentKind::Zero) return 0;
    if (c.kind == ContentKind::Gaussian) return rows * K / kNormalsPerSecond + rows * K / kRowCellsPerSecond;
    const double dk = std::max(1, c.dk);
    const bool cached = K * dk * 4 <= kCachedKeyBytes;
    if (pass.keyStep > 1) {
        // Sampled keys are drawn for every call (never cached).
        const double keys = std::ceil(K / pass.keyStep);
        const double calls = std::ceil(tileRows / rowsPerCall(K, cached));
        return rows * keys * dk / kMultiplyAddsPerSecond + heads * calls * keys * dk / kNormalsPerSecond +
               rows * K / kRowCellsPerSecond;
    }
    // Keys: drawn once per head while they fit the key cache, else once per call.
    const double draws = cached ? 1.0 : std::ceil(tileRows / rowsPerCall(K, false));
    return rows * K * dk / kMultiplyAddsPerSecond + heads * draws * K * dk / kNormalsPerSecond +
           rows * K / kRowCellsPerSecond;
}

std::vector<GridPass> gridPasses(const HeatmapParams& p) {
    if (p.what != RenderWhat::Attention || p.attention.content.kind == ContentKind::Zero || p.batch.active())
        return {{1, 1}};
    const double exact = gridPassSeconds(p, {1, 1});
    if (exact <= kFirstPictureSeconds) return {{1, 1}};
    const bool qk = p.attention.content.kind == ContentKind::Qk;
    // The first picture: exact rows, one in up to 16 pixel rows; else (q.k) the fewest rows left
    // out with the content of 1 key in up to one pixel column's keys; else the cheapest.
    const GridLayout layout = gridLayout(p.head >= 0 ? 1 : p.attention.bias.slopes.heads, p.width, p.height);
    const double keysPerPixel =
        static_cast<double>(p.attention.bias.keyCount()) / std::max(1.0, static_cast<double>(p.width) / layout.columns);
    int maxKeyStep = 2;
    while (maxKeyStep * 2 <= keysPerPixel && maxKeyStep < 256) maxKeyStep *= 2;
    std::optional<GridPass> first;
    for (int r = 2; r <= 16 && !first; r *= 2)
        if (gridPassSeconds(p, {r, 1}) <= kFirstPictureSeconds) first = GridPass{r, 1};
    for (int r = 2; qk && r <= 16 && !first; r *= 2)
        for (int k = 2; k <= maxKeyStep && !first; k *= 2)
            if (gridPassSeconds(p, {r, k}) <= kFirstPictureSeconds) first = GridPass{r, k};
    if (!first) first = GridPass{64, qk ? maxKeyStep : 1};
    std::vector<GridPass> passes{*first};
    // While the exact grid is far off, exact rows from fewer pixel rows next, at up to a fifth
    // of the exact grid's cost (a q.k pass over uncached keys costs at least one draw of every
    // head's keys), and only when they are finer than the first picture's: coarser exact rows
    // (a staircase of few rows) look worse than an approximate picture from many rows.
    const double budget = std::min(exact / 4, std::max(exact / 5, 4 * kFirstPictureSeconds));
    const int finest = first->keyStep > 1 ? first->rowStep / 2 : first->rowStep / 4;
    for (int r = 2; r <= finest; r *= 2)
        if (gridPassSeconds(p, {r, 1}) <= budget) {
            passes.push_back({r, 1});
            break;
        }
    passes.push_back({1, 1});
    return passes;
}

std::vector<double> gridPassShares(const HeatmapParams& p, const std::vector<GridPass>& passes) {
    std::vector<double> share;
    double total = 0;
    for (GridPass pass : passes) total += share.emplace_back(std::max(gridPassSeconds(p, pass), 1e-9));
    for (double& s : share) s /= total;
    return share;
}

std::vector<GridPass> detailPasses(const HeatmapParams& p) {
    if (p.what != RenderWhat::Attention || p.attention.content.kind == ContentKind::Zero || p.batch.active())
        return {{1, 1}};
    if (gridPassSeconds(p, {1, 1}) <= kFirstPictureSeconds) return {{1, 1}};
    // The fewest rows left out that keep the first picture due in about a second; at most 1 row
    // in 16 (a coarser picture says too little to be worth its cost).
    int first = 16;
    for (int r = 2; r < 16; r *= 2)
        if (gridPassSeconds(p, {r, 1}) <= kFirstPictureSeconds) {
            first = r;
            break;
        }
    return {{first, 1}, {1, 1}};
}

Result<Heatmap> renderPasses(const HeatmapParams& params, const std::vector<GridPass>& passes, unsigned threads,
                             const ProgressFn& progress, const HeatmapPreviewFn& preview) {
    if (passes.empty()) return fail(ErrorCode::InvalidArgument, "renderPasses needs at least one pass");
    const std::vector<double> weight = gridPassShares(params, passes);
    constexpr double kUnits = 1e6;
    double before = 0;
    // Workers report out of order: the figure passed on never goes backwards.
    std::atomic<std::uint64_t> high{0};
    HeatmapParams p = params;
    for (std::size_t pass = 0; pass < passes.size(); ++pass) {
        p.rowStep = passes[pass].rowStep;
        p.keyStep = passes[pass].keyStep;
        auto map = renderHeatmap(p, threads, [&](std::uint64_t done, std::uint64_t all) {
            if (!progress) return true;
            const double fraction = all > 0 ? std::min(1.0, static_cast<double>(done) / static_cast<double>(all)) : 0.0;
            auto units = static_cast<std::uint64_t>(kUnits * (before + fraction * weight[pass]));
            std::uint64_t seen = high.load(std::memory_order_relaxed);
            while (seen < units && !high.compare_exchange_weak(seen, units, std::memory_order_relaxed)) {
            }
            return progress(std::max(units, seen), static_cast<std::uint64_t>(kUnits));
        });
        if (!map) return std::unexpected(map.error());
        before += weight[pass];
        if (pass + 1 == passes.size()) return map;
        if (preview) preview(p, std::move(*map));
    }
    return fail(ErrorCode::InvalidArgument, "renderPasses needs at least one pass");  // not reached
}

HeatmapParams gridParams(const Request& request) {
    HeatmapParams p;
    p.attention = request.session.attention;
    p.what = heatmapWhat(request.session);
    p.head = -1;
    p.colormap = request.session.colormap;
    p.scale = request.session.scale;
    p.width = std::max(16, request.gridWidth);
    p.height = std::max(16, request.gridHeight);
    p.gap = std::max(2, static_cast<int>(std::lround(6 * request.devicePixelRatio)));
    p.labelBand = request.labelBand;
    p.reduce = request.reduce;
    p.logScale = request.logScale;
    p.batch = request.session.batch;
    p.batchRow = request.session.batchRow;
    return p;
}

Result<GridSnapshot> computeGrid(const Request& request, const CancelledFn& cancelled, const ProgressFn& progress,
                                 const GridPreviewFn& preview) {
    GridSnapshot out;
    out.generation = request.generation;
    out.session = request.session;
    out.devicePixelRatio = request.devicePixelRatio;
    auto slopes = computeSlopes(request.session.attention.bias.slopes);
    if (!slopes) return std::unexpected(slopes.error());
    out.slopes = std::move(*slopes);
    out.gridParams = gridParams(request);
    // Passes from coarse to exact; progress runs once over all of them.
    const std::vector<GridPass> passes = preview ? gridPasses(out.gridParams) : std::vector<GridPass>{{1, 1}};
    auto map = renderPasses(
        out.gridParams, passes, 2,
        [&](std::uint64_t done, std::uint64_t all) {
            return !stopped(cancelled) && (!progress || progress(done, all));
        },
        [&](const HeatmapParams& pass, Heatmap coarse) {
            GridSnapshot first = out;
            first.gridParams = pass;
            first.title = heatmapTitle(pass);
            first.subtitle = heatmapSubtitle(pass, coarse);
            first.grid = std::move(coarse);
            preview(std::move(first));
        });
    if (!map) return std::unexpected(map.error());
    out.grid = std::move(*map);
    out.title = heatmapTitle(out.gridParams);
    out.subtitle = heatmapSubtitle(out.gridParams, out.grid);
    return out;
}

CompareSnapshot computeCompare(const Session& a, const CompareOverrides& b, int width, int height,
                               const CancelledFn& cancelled, int gap, int labelBand) {
    CompareSnapshot out;
    out.sessionB = applyCompare(a, b);
    const BiasParams& biasB = out.sessionB.attention.bias;
    out.settingsB = fmt::format("B: {} slopes · max_bias {} · {} · {} mode · mask {}", schemeName(biasB.slopes.scheme),
                                formatValue(biasB.slopes.maxBias), dtypeName(biasB.dtype), modeName(biasB.mode),
                                maskName(biasB.mask));
    auto pa = a.attention;
    auto pb = out.sessionB.attention;
    pa.bias.layout = Layout::Hqk;
    pb.bias.layout = Layout::Hqk;
    const std::int64_t heads = pa.bias.slopes.heads;
    const std::int64_t q = pa.bias.queries;
    const std::int64_t k = pa.bias.keyCount();
    if (pb.bias.slopes.heads != heads || pb.bias.queries != q || pb.bias.keyCount() != k) {
        out.error = "A and B must have the same shape.";
        return out;
    }
    const auto cells = static_cast<std::uint64_t>(heads) * q * k;
    if (cells > kCompareMaxCells) {
        out.error = fmt::format(
            "Compare builds both tensors in memory: H·Q·K = {} cells exceeds {}. "
            "Lower T or H to compare.",
            cells, kCompareMaxCells);
        return out;
    }
    auto ta = buildTensor(pa, a.what, a.maxMemory);
    if (!ta) {
        out.error = "A: " + ta.error().message;
        return out;
    }
    if (stopped(cancelled)) return out;
    auto tb = buildTensor(pb, a.what, a.maxMemory);
    if (!tb) {
        out.error = "B: " + tb.error().message;
        return out;
    }
    if (stopped(cancelled)) return out;

    // A - B per cell; a cell masked in A or in B (its key in the query's future under that
    // side's mode) is NaN, drawn in the masked grey the legend names, never as a difference of
    // mask values (0, the colour of "no difference").
    const auto maskedIn = [k](const BiasParams& bias, std::int64_t i, std::int64_t j) {
        return !biasCell(bias.mode, 1.0, bias.queryPosition(i), j, k).has_value();
    };
    std::vector<char> masked(static_cast<std::size_t>(q * k));
    for (std::int64_t i = 0; i < q; ++i)
        for (std::int64_t j = 0; j < k; ++j)
            masked[static_cast<std::size_t>(i * k + j)] = maskedIn(pa.bias, i, j) || maskedIn(pb.bias, i, j);
    std::vector<float> diff(cells);
    double maxAbs = 0;
    for (std::uint64_t n = 0; n < cells; ++n) {
        const double va = ta->at(n), vb = tb->at(n);
        double d;
        if (masked[n % static_cast<std::uint64_t>(q * k)] || !std::isfinite(va) || !std::isfinite(vb)) {
            d = std::numeric_limits<double>::quiet_NaN();
        } else {
            d = va - vb;
        }
        diff[n] = static_cast<float>(d);
        if (std::isfinite(d) && std::abs(d) > maxAbs) {
            maxAbs = std::abs(d);
            out.maxHead = static_cast<std::int64_t>(n / (q * k));
            out.maxQuery = static_cast<std::int64_t>((n / k) % q);
            out.maxKey = static_cast<std::int64_t>(n % k);
            out.maxA = va;
            out.maxB = vb;
        }
    }
    out.maxAbsDifference = maxAbs;
    out.summary =
        maxAbs == 0 ? "max |A - B| = 0: A and B are identical for these parameters."
                    : fmt::format("max |A - B| = {} at head {}, query {}, key {}: A = {}, B = {}", formatValue(maxAbs),
                                  out.maxHead, out.maxQuery, out.maxKey, formatValue(out.maxA), formatValue(out.maxB));

    // Small multiples in the core's grid layout, on a scale symmetric around 0.
    const double range = maxAbs > 0 ? maxAbs : 1.0;
    const Heatmap map = renderValueGrid(
        {static_cast<int>(heads), q, k, Colormap::Diverging, -range, range, std::max(16, width), std::max(16, height),
         gap, labelBand, /*squareCells=*/true},
        [&](int h, std::int64_t i, std::int64_t j) { return diff[(static_cast<std::uint64_t>(h) * q + i) * k + j]; });
    out.image = map.image;
    out.tiles = map.tiles;
    auto cellsOut = std::make_shared<CompareCells>();
    cellsOut->biasA = pa.bias;
    cellsOut->biasB = pb.bias;
    cellsOut->a = std::make_shared<const Tensor>(std::move(*ta));
    cellsOut->b = std::make_shared<const Tensor>(std::move(*tb));
    out.cells = std::move(cellsOut);
    return out;
}

ColorBar compareColorBar(const CompareSnapshot& compare, bool masks, int targetTicks) {
    const double range = compare.maxAbsDifference;
    ColorBar bar = makeColorBar(-range, range, false, exactTextType(range), targetTicks);
    bar.title = "A − B";
    bar.maskedSwatch = masks;
    return bar;
}

std::string compareReadout(const CompareCells& cells, int head, std::int64_t query, std::int64_t key) {
    const CompareCells* c = &cells;
    if (!c->a || !c->b) return {};
    const std::int64_t heads = c->biasA.slopes.heads, queries = c->biasA.queries, keys = c->biasA.keyCount();
    if (head < 0 || head >= heads || query < 0 || query >= queries || key < 0 || key >= keys) return {};
    const auto n = static_cast<std::uint64_t>((head * queries + query) * keys + key);
    const auto maskedIn = [&](const BiasParams& bias) {
        return !biasCell(bias.mode, 1.0, bias.queryPosition(query), key, keys).has_value();
    };
    const bool inA = maskedIn(c->biasA), inB = maskedIn(c->biasB);
    const double va = c->a->at(n), vb = c->b->at(n);
    const auto side = [](bool masked, double v) { return masked ? std::string("masked") : formatValue(v); };
    std::string text = fmt::format("head {} · query i = {} · key j = {}\nA = {} · B = {}", head, query, key,
                                   side(inA, va), side(inB, vb));
    if (inA && inB) return text + " · masked in both (grey)";
    if (inA || inB) return text + fmt::format(" · masked in {} only (grey)", inA ? "A" : "B");
    return text + " · A - B = " + formatValue(va - vb);
}

ExtrapolationSnapshot computeExtrapolation(const Session& session, int head, const CancelledFn& cancelled) {
    ExtrapolationSnapshot out;
    const std::int64_t length = session.trainLength > 0 ? session.trainLength : session.attention.bias.queries;
    out.trainLength = length;
    out.head = head;
    const int heads = session.attention.bias.slopes.heads;
    for (std::int64_t t = length; t <= 16 * length && t <= kMaxLength; t *= 2)
        if (static_cast<double>(heads) * static_cast<double>(t) * cellCost(session.attention) <= kCurveCells)
            out.lengths.push_back(t);
    if (out.lengths.empty()) {
        out.error = "H x L is too large for the extrapolation curves; lower H or L";
        return out;
    }
    out.massBeyond.assign(static_cast<std::size_t>(heads), std::vector<double>(out.lengths.size(), 0.0));
    for (std::size_t n = 0; n < out.lengths.size(); ++n) {
        if (stopped(cancelled)) return out;
        AttentionParams p = session.attention;
        p.bias.queries = out.lengths[n];
        p.bias.keys = 0;
        auto series = attentionDistanceSeries(p, -1, progressOf(cancelled));
        if (stopped(cancelled)) return out;
        if (!series) {
            out.error = series.error().message;
            return out;
        }
        for (int h = 0; h < heads && h < static_cast<int>(series->size()); ++h) {
            const Series& s = (*series)[static_cast<std::size_t>(h)];
            double mass = 0;
            for (std::size_t m = 0; m < s.x.size(); ++m)
                if (s.x[m] > static_cast<double>(length)) mass += s.y[m];
            out.massBeyond[static_cast<std::size_t>(h)][n] = mass;
        }
        if (head < static_cast<int>(series->size())) {
            Series curve = (*series)[static_cast<std::size_t>(head)];
            curve.label = "T = " + std::to_string(out.lengths[n]) + (n == 0 ? " (= L)" : "");
            decimateSeries(curve, 4096);
            out.curves.push_back(std::move(curve));
        }
    }
    HeatmapParams& hp = out.headAtLParams;
    hp.attention = session.attention;
    hp.attention.bias.queries = length;
    hp.attention.bias.keys = 0;
    hp.what = heatmapWhat(session);
    hp.head = head;
    hp.colormap = session.colormap;
    hp.width = static_cast<int>(std::clamp<std::int64_t>(length, 64, 512));
    hp.height = hp.width;
    hp.gap = 0;
    if (auto map = renderHeatmap(hp, 2, progressOf(cancelled))) out.headAtL = std::move(*map);
    return out;
}

Result<std::vector<double>> headCellValues(const HeatmapParams& params, const std::vector<double>& slopes,
                                           const CancelledFn& cancelled) {
    const int head = params.head;
    if (head < 0 || head >= static_cast<int>(slopes.size()))
        return fail(ErrorCode::InvalidArgument, fmt::format("head {} is not one of the {} heads", head, slopes.size()));
    if (params.batch.active()) return batchCellValues(params, slopes, head);
    const BiasParams& bias = params.attention.bias;
    const std::int64_t q = bias.queries, k = bias.keyCount();
    std::vector<double> values(static_cast<std::size_t>(q * k), std::numeric_limits<double>::quiet_NaN());
    const double slope = slopes[static_cast<std::size_t>(head)];
    for (std::int64_t i = 0; i < q; ++i) {
        if (stopped(cancelled)) return fail(ErrorCode::Cancelled, "cancelled");
        double* row = values.data() + i * k;
        if (params.what == RenderWhat::Attention) {
            auto probabilities = attentionRow(params.attention, head, i);
            if (!probabilities) return std::unexpected(probabilities.error());
            for (std::int64_t j = 0; j < k; ++j)
                if (biasCell(bias.mode, slope, bias.queryPosition(i), j, k))
                    row[j] = (*probabilities)[static_cast<std::size_t>(j)];
        } else {
            for (std::int64_t j = 0; j < k; ++j)
                if (biasCell(bias.mode, slope, bias.queryPosition(i), j, k))
                    row[j] = biasValue(bias, slope, head, i, j);
        }
    }
    return values;
}

CurveSet computeCurves(const AttentionParams& attention, std::int64_t queryRow, const CancelledFn& cancelled,
                       std::size_t pointsPerCurve) {
    CurveSet out;
    const BiasParams& bias = attention.bias;
    const int heads = std::max(1, bias.slopes.heads);
    const std::int64_t k = bias.keyCount();
    const std::size_t points = pointsPerCurve > 0 ? pointsPerCurve : curvePointBudget(heads);
    auto note = [&out](const std::string& what, const Error& e) {
        if (out.error.empty()) out.error = what + ": " + e.message;
    };
    if (auto c = slopeSeries(bias.slopes))
        out.slopes = std::move(*c);
    else
        note("slopes", c.error());
    // Bias curves are straight lines: fewer points per head when there are many heads.
    out.maxDistance =
        std::max<std::int64_t>(1, std::min<std::int64_t>({k - 1, 4096, std::max<std::int64_t>(16, (1 << 20) / heads)}));
    if (auto c = biasDistanceSeries(bias, out.maxDistance)) {
        out.bias = std::move(*c);
        decimateSeries(out.bias, points);
    } else {
        note("bias curves", c.error());
    }
    if (stopped(cancelled)) return out;
    // H x K doubles twice over: above kCurveCells the curves would cost hundreds of MiB.
    const std::int64_t row = queryRow < 0 || queryRow >= bias.queries ? bias.queries - 1 : queryRow;
    if (static_cast<double>(heads) * static_cast<double>(k) * cellCost(attention) > kCurveCells) {
        if (out.error.empty()) out.error = "attention curves skipped: H x K is too large (lower H or T)";
    } else if (auto c = attentionDistanceSeries(attention, row, progressOf(cancelled))) {
        out.attention = std::move(*c);
        decimateSeries(out.attention, points);
    } else if (c.error().code != ErrorCode::Cancelled) {
        note("attention curves", c.error());
    }
    return out;
}

namespace {

// Reference rows (double, statistics and stages) per second on one thread: K x d_k normals and
// multiply-adds per q.k row.
constexpr double kReferenceCellsPerSecond = 1.5e8;

// One progress over computeDetails' steps, each weighted by its modelled seconds.
class StepProgress {
public:
    StepProgress(const CancelledFn& cancelled, const ProgressFn& outer, std::vector<double> seconds)
        : m_cancelled(cancelled), m_outer(outer), m_share(std::move(seconds)) {
        double total = 0;
        for (double& s : m_share) total += (s = std::max(s, 1e-6));
        for (double& s : m_share) s /= total;
    }
    // The callback of step `step`; the steps before it count as done.
    [[nodiscard]] ProgressFn step(std::size_t step) const {
        double before = 0;
        for (std::size_t n = 0; n < step && n < m_share.size(); ++n) before += m_share[n];
        const double share = step < m_share.size() ? m_share[step] : 0.0;
        return [this, before, share](std::uint64_t done, std::uint64_t all) {
            const double fraction = all > 0 ? std::min(1.0, static_cast<double>(done) / static_cast<double>(all)) : 0.0;
            // Never backwards (workers report out of order): the largest figure so far.
            auto units = static_cast<std::uint64_t>(kUnits * (before + share * fraction));
            std::uint64_t high = m_high.load(std::memory_order_relaxed);
            while (high < units && !m_high.compare_exchange_weak(high, units, std::memory_order_relaxed)) {
            }
            units = std::max(units, high);
            if (m_stop.load(std::memory_order_relaxed)) return false;
            if (alibi::explore::stopped(m_cancelled) ||
                (m_outer && !m_outer(units, static_cast<std::uint64_t>(kUnits)))) {
                m_stop = true;
                return false;
            }
            return true;
        };
    }
    // Step n is done: false when cancelled.
    [[nodiscard]] bool done(std::size_t n) const { return step(n)(1, 1); }
    // Cancelled, or a progress answer was false.
    [[nodiscard]] bool stopped() const {
        return m_stop.load(std::memory_order_relaxed) || alibi::explore::stopped(m_cancelled);
    }

private:
    static constexpr double kUnits = 1e6;
    const CancelledFn& m_cancelled;
    const ProgressFn& m_outer;
    std::vector<double> m_share;
    mutable std::atomic<bool> m_stop{false};
    mutable std::atomic<std::uint64_t> m_high{0};
};

}  // namespace

Snapshot computeDetails(const Request& request, GridPtr gridSnapshot, const CancelledFn& cancelled,
                        const ProgressFn& outerProgress, const DetailPreviewFn& preview) {
    Snapshot out;
    if (!gridSnapshot) {
        // Only the grid's parameters and slopes are needed: as computeGrid derives them.
        auto grid = std::make_shared<GridSnapshot>();
        grid->generation = request.generation;
        grid->session = request.session;
        grid->devicePixelRatio = request.devicePixelRatio;
        grid->gridParams = gridParams(request);
        auto slopes = computeSlopes(request.session.attention.bias.slopes);
        if (!slopes) {
            out.grid = std::move(grid);
            out.error = "slopes: " + slopes.error().message;
            return out;
        }
        grid->slopes = std::move(*slopes);
        gridSnapshot = std::move(grid);
    }
    out.grid = std::move(gridSnapshot);
    const Session& s = request.session;
    const auto& bias = s.attention.bias;
    const int heads = bias.slopes.heads;
    out.head = std::clamp(s.head < 0 ? 0 : s.head, 0, heads - 1);
    out.queryRow = resolvedQueryRow(s);
    const std::int64_t q = bias.queries, k = bias.keyCount();
    auto note = [&out](const std::string& what, const Error& e) {
        if (out.error.empty()) out.error = what + ": " + e.message;
    };
    // The selected head alone, one pixel per cell when it fits.
    out.detailParams = out.grid->gridParams;
    out.detailParams.head = out.head;
    // Attention rows with content cost O(K * d_k) each: fewer rows keep the detail image cheap.
    const bool costlyRows =
        out.detailParams.what == RenderWhat::Attention && s.attention.content.kind != ContentKind::Zero;
    const int maxPixels = costlyRows ? kDetailMaxPixels / 4 : kDetailMaxPixels;
    out.detailParams.width = static_cast<int>(std::clamp<std::int64_t>(k, 1, maxPixels));
    out.detailParams.height = static_cast<int>(std::clamp<std::int64_t>(q, 1, maxPixels));
    out.detailParams.gap = 0;
    out.detailParams.scale = ScaleMode::PerHead;

    // Statistics average over fewer rows when rows are long (the core's one rule, as the CLI's),
    // unless the request names the rows.
    StatsParams sp;
    sp.attention = s.attention;
    sp.queryRow = out.queryRow;
    sp.maxRows = request.statsMaxRows;
    sp.maxRows = statsRowsToAverage(sp);
    // The steps' modelled seconds: the detail image (as a grid pass), the statistics (maxRows
    // reference rows per head, and the query row when it is not one of them, on two threads),
    // the attention curves (one reference row per head) and the stages (one reference row).
    const bool withContent = s.attention.content.kind != ContentKind::Zero;
    const double referenceRow =
        withContent ? static_cast<double>(k) * cellCost(s.attention) / kReferenceCellsPerSecond : 1e-4;
    const bool curvesAffordable =
        request.wantCurves &&
        static_cast<double>(heads) * static_cast<double>(k) * cellCost(s.attention) <= kCurveCells;
    // The head image: a first picture from fewer exact rows when it is costly (and a preview is
    // wanted), then the exact one.
    const std::vector<GridPass> passes = preview ? detailPasses(out.detailParams) : std::vector<GridPass>{{1, 1}};
    double detailSeconds = 0;
    for (GridPass pass : passes) detailSeconds += gridPassSeconds(out.detailParams, pass);
    const StepProgress steps(
        cancelled, outerProgress,
        {detailSeconds, heads * static_cast<double>(std::min(sp.maxRows, q) + 1) * referenceRow / 2,
         curvesAffordable ? heads * referenceRow / 2 : 0.0, referenceRow,
         request.wantCompare || request.wantExtrapolation ? 0.1 : 0.0});
    const std::string title = headTitle(out.head, out.grid->slopes[static_cast<std::size_t>(out.head)]);
    auto map = renderPasses(out.detailParams, passes, 2, steps.step(0), [&](const HeatmapParams& pass, Heatmap first) {
        if (steps.stopped()) return;
        Snapshot shown;
        shown.grid = out.grid;
        shown.head = out.head;
        shown.queryRow = out.queryRow;
        shown.detailParams = pass;
        shown.detail = std::move(first);
        shown.detailTitle = title + " · " + previewText(pass) + ", refining";
        preview(shown);
    });
    if (map)
        out.detail = std::move(*map);
    else if (map.error().code != ErrorCode::Cancelled)
        note("detail", map.error());
    if (steps.stopped()) return out;
    out.detailTitle = title;

    if (q <= kDetailValuesMax && k <= kDetailValuesMax)
        if (auto values = headCellValues(out.detailParams, out.grid->slopes, cancelled))
            out.detailValues = std::move(*values);

    auto stats = computeStats(sp, 2, steps.step(1));
    if (stats)
        out.stats = std::move(*stats);
    else if (stats.error().code != ErrorCode::Cancelled)
        note("statistics", stats.error());
    if (steps.stopped()) return out;

    if (request.wantCurves) {
        CurveSet curves = computeCurves(s.attention, out.queryRow, cancelled);
        out.slopeCurves = std::move(curves.slopes);
        out.biasCurves = std::move(curves.bias);
        out.attentionCurves = std::move(curves.attention);
        if (out.error.empty()) out.error = std::move(curves.error);
        if (stopped(cancelled)) return out;
        for (SlopeScheme scheme :
             {SlopeScheme::Press, SlopeScheme::Geometric, SlopeScheme::Linear, SlopeScheme::Custom}) {
            SlopeParams sp2 = bias.slopes;
            sp2.scheme = scheme;
            if (scheme == SlopeScheme::Custom && static_cast<int>(sp2.custom.size()) != heads) continue;
            auto series = slopeSeries(sp2);
            if (!series) continue;
            Series line;  // one line per scheme: x = head, y = slope
            line.label = std::string(schemeName(scheme));
            for (const Series& one : *series) {
                line.x.insert(line.x.end(), one.x.begin(), one.x.end());
                line.y.insert(line.y.end(), one.y.begin(), one.y.end());
            }
            out.schemeCurves.push_back(std::move(line));
        }
    }
    if (!steps.done(2)) return out;
    if (auto st = attentionStages(s.attention, out.head, out.queryRow))
        out.stages = std::move(*st);
    else
        note("stages", st.error());
    if (!steps.done(3)) return out;

    const CancelledFn stop = [&steps] { return steps.stopped(); };
    if (request.wantCompare)
        // The compare view's size and label band when it gave them, else the grid's.
        out.compare =
            computeCompare(s, request.compare, request.compareWidth > 0 ? request.compareWidth : request.gridWidth,
                           request.compareHeight > 0 ? request.compareHeight : request.gridHeight, stop, 4,
                           request.compareLabelBand >= 0 ? request.compareLabelBand : request.labelBand);
    if (steps.stopped()) return out;
    if (request.wantExtrapolation) out.extrapolation = computeExtrapolation(s, out.head, stop);
    (void)steps.done(4);
    // Statistics, curves and stages describe one sequence; with a batch, the status line says so
    // (unless a real error needs it).
    if (out.error.empty()) out.error = batchScopeNote(s.batch, s.batchRow);
    return out;
}

}  // namespace alibi::explore
