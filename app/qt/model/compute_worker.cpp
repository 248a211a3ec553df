// The compute worker: the core calls behind every view, in the order the user sees them
// (the head grid first, then statistics, curves, stages and the optional views).
#include "compute_worker.hpp"

#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>

#include <QMetaObject>

#include <alibi/base/thread_priority.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi::qt {

namespace compute {

namespace {

// Detail images are rendered with one pixel per cell up to this size; the view scales them
// with nearest-neighbour sampling, so cells stay crisp at any zoom.
constexpr int kDetailMaxPixels = 2048;
// Cell values (for the numbers drawn at small T) are fetched up to this many per side.
constexpr std::int64_t kDetailValuesMax = 32;
// The compare view builds A and B in memory; above this many cells it asks for a smaller T.
constexpr std::uint64_t kCompareMaxCells = std::uint64_t{1} << 24;
// Attention-vs-distance curves hold H * K points; above this they are skipped (about 256 MiB).
constexpr std::uint64_t kCurveCells = std::uint64_t{1} << 24;

QString toQString(const Error& error) { return QString::fromStdString(error.message); }

Result<Tensor> buildTensor(const AttentionParams& params, RenderWhat what, std::uint64_t budget) {
    if (what == RenderWhat::Attention) return computeAttention(params, budget, 2);
    return buildBias(params.bias, budget, 2);
}

// Relative cost of one attention cell: q.k content draws d_k normals per query and key.
double cellCost(const AttentionParams& p) {
    return p.content.kind == ContentKind::Qk ? static_cast<double>(std::max(1, p.content.dk)) : 1.0;
}

// Points per curve when every head is drawn: the UI thread walks all of them on each repaint,
// so many heads get fewer points each (2^18 in all; 1024 per head at H = 256).
std::size_t curvePoints(int heads) {
    return std::clamp<std::size_t>((std::size_t{1} << 18) / static_cast<std::size_t>(std::max(1, heads)), 1024, 4096);
}

// Curves are drawn a few thousand pixels wide at most: keep each bucket's lowest and highest
// point (in x order), so peaks survive and the views never walk millions of points.
void decimate(std::vector<Series>& all, std::size_t maxPoints = 4096) {
    for (Series& s : all) {
        const std::size_t n = std::min(s.x.size(), s.y.size());
        if (n <= maxPoints) continue;
        const std::size_t bucket = (n + maxPoints / 2 - 1) / (maxPoints / 2);
        Series out;
        out.label = s.label;
        for (std::size_t start = 0; start < n; start += bucket) {
            const std::size_t end = std::min(n, start + bucket);
            std::size_t lo = start, hi = start;
            for (std::size_t k = start; k < end; ++k) {
                if (s.y[k] < s.y[lo] || std::isnan(s.y[lo])) lo = k;
                if (s.y[k] > s.y[hi] || std::isnan(s.y[hi])) hi = k;
            }
            const std::size_t first = std::min(lo, hi), second = std::max(lo, hi);
            out.x.push_back(s.x[first]);
            out.y.push_back(s.y[first]);
            if (second != first) {
                out.x.push_back(s.x[second]);
                out.y.push_back(s.y[second]);
            }
        }
        s = std::move(out);
    }
}

}  // namespace

std::int64_t resolvedQueryRow(const Session& session) {
    const std::int64_t q = session.attention.bias.queries;
    if (session.queryRow < 0 || session.queryRow >= q) return q - 1;
    return session.queryRow;
}

Session applyCompare(const Session& a, const CompareSpec& spec) {
    Session b = a;
    auto& bias = b.attention.bias;
    if (spec.scheme) bias.slopes.scheme = *spec.scheme;
    if (spec.maxBias) bias.slopes.maxBias = *spec.maxBias;
    if (spec.dtype) bias.dtype = *spec.dtype;
    if (spec.mode) bias.mode = *spec.mode;
    if (spec.mask) bias.mask = *spec.mask;
    if (bias.slopes.scheme == SlopeScheme::Custom && !spec.custom.empty()) bias.slopes.custom = spec.custom;
    return b;
}

Result<GridSnapshot> grid(const ComputeRequest& request, const std::function<bool()>& cancelled) {
    GridSnapshot out;
    out.generation = request.generation;
    out.session = request.session;
    out.devicePixelRatio = request.devicePixelRatio;
    auto slopes = computeSlopes(request.session.attention.bias.slopes);
    if (!slopes) return std::unexpected(slopes.error());
    out.slopes = std::move(*slopes);

    HeatmapParams& p = out.gridParams;
    p.attention = request.session.attention;
    p.what = request.session.what == RenderWhat::Attention ? RenderWhat::Attention : RenderWhat::Bias;
    p.head = -1;
    p.colormap = request.session.colormap;
    p.scale = request.session.scale;
    p.width = std::max(16, request.gridPixels.width());
    p.height = std::max(16, request.gridPixels.height());
    p.gap = std::max(2, static_cast<int>(std::lround(6 * request.devicePixelRatio)));
    auto map = renderHeatmap(p, 2, [&](std::uint64_t, std::uint64_t) { return !cancelled || !cancelled(); });
    if (!map) return std::unexpected(map.error());
    out.grid = std::move(*map);
    return out;
}

CompareSnapshot compare(const Session& a, const CompareSpec& spec, QSize pixels,
                        const std::function<bool()>& cancelled) {
    CompareSnapshot out;
    out.sessionB = applyCompare(a, spec);
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
        out.error = QString("Compare builds both tensors in memory: H·Q·K = %1 cells exceeds %2. "
                            "Lower T or H to compare.")
                        .arg(cells)
                        .arg(kCompareMaxCells);
        return out;
    }
    auto ta = buildTensor(pa, a.what, a.maxMemory);
    if (!ta) {
        out.error = "A: " + toQString(ta.error());
        return out;
    }
    if (cancelled()) return out;
    auto tb = buildTensor(pb, a.what, a.maxMemory);
    if (!tb) {
        out.error = "B: " + toQString(tb.error());
        return out;
    }
    if (cancelled()) return out;

    // A - B per cell; cells masked in both agree (0); a cell masked in one only is NaN (grey).
    std::vector<float> diff(cells);
    double maxAbs = 0;
    for (std::uint64_t n = 0; n < cells; ++n) {
        const double va = ta->at(n), vb = tb->at(n);
        double d;
        if (!std::isfinite(va) || !std::isfinite(vb)) {
            d = (va == vb) ? 0.0 : std::numeric_limits<double>::quiet_NaN();
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

    // Small multiples in the core's grid layout, on a scale symmetric around 0.
    const double range = maxAbs > 0 ? maxAbs : 1.0;
    const Heatmap map = renderValueGrid(
        {static_cast<int>(heads), q, k, Colormap::Diverging, -range, range, std::max(16, pixels.width()),
         std::max(16, pixels.height()), 4},
        [&](int h, std::int64_t i, std::int64_t j) { return diff[(static_cast<std::uint64_t>(h) * q + i) * k + j]; });
    out.image = map.image;
    out.tiles = map.tiles;
    return out;
}

ExtrapolationSnapshot extrapolation(const Session& session, int head,
                                    const std::function<bool()>& cancelled) {
    ExtrapolationSnapshot out;
    const std::int64_t length =
        session.trainLength > 0 ? session.trainLength : session.attention.bias.queries;
    out.trainLength = length;
    out.head = head;
    const int heads = session.attention.bias.slopes.heads;
    for (std::int64_t t = length; t <= 16 * length && t <= kMaxLength; t *= 2)
        if (static_cast<double>(heads) * static_cast<double>(t) * cellCost(session.attention) <= kCurveCells)
            out.lengths.push_back(t);
    if (out.lengths.empty()) {
        out.error = "H × L is too large for the extrapolation curves; lower H or L";
        return out;
    }
    out.massBeyond.assign(static_cast<std::size_t>(heads), std::vector<double>(out.lengths.size(), 0.0));
    for (std::size_t n = 0; n < out.lengths.size(); ++n) {
        if (cancelled()) return out;
        AttentionParams p = session.attention;
        p.bias.queries = out.lengths[n];
        p.bias.keys = 0;
        auto series = attentionDistanceSeries(p, -1, [&](std::uint64_t, std::uint64_t) { return !cancelled(); });
        if (cancelled()) return out;
        if (!series) {
            out.error = toQString(series.error());
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
            std::vector<Series> one{std::move(curve)};
            decimate(one);
            out.curves.push_back(std::move(one.front()));
        }
    }
    HeatmapParams hp;
    hp.attention = session.attention;
    hp.attention.bias.queries = length;
    hp.attention.bias.keys = 0;
    hp.what = session.what == RenderWhat::Attention ? RenderWhat::Attention : RenderWhat::Bias;
    hp.head = head;
    hp.colormap = session.colormap;
    hp.width = static_cast<int>(std::clamp<std::int64_t>(length, 64, 512));
    hp.height = hp.width;
    hp.gap = 0;
    if (auto map = renderHeatmap(hp, 2, [&](std::uint64_t, std::uint64_t) { return !cancelled(); }))
        out.headAtL = std::move(*map);
    return out;
}

Snapshot details(const ComputeRequest& request, GridPtr gridSnapshot, const std::function<bool()>& cancelled) {
    Snapshot out;
    out.grid = std::move(gridSnapshot);
    const Session& s = request.session;
    const auto& bias = s.attention.bias;
    const int heads = bias.slopes.heads;
    out.head = std::clamp(s.head < 0 ? 0 : s.head, 0, heads - 1);
    out.queryRow = resolvedQueryRow(s);
    const std::int64_t q = bias.queries, k = bias.keyCount();
    auto note = [&out](const QString& what, const Error& e) {
        if (out.error.isEmpty()) out.error = what + ": " + toQString(e);
    };

    // The selected head alone, one pixel per cell when it fits.
    out.detailParams = out.grid->gridParams;
    out.detailParams.head = out.head;
    // Attention rows with content cost O(K * d_k) each: fewer rows keep the detail image cheap.
    const bool costlyRows = out.detailParams.what == RenderWhat::Attention && s.attention.content.kind != ContentKind::Zero;
    const int maxPixels = costlyRows ? kDetailMaxPixels / 8 : kDetailMaxPixels;
    out.detailParams.width = static_cast<int>(std::clamp<std::int64_t>(k, 1, maxPixels));
    out.detailParams.height = static_cast<int>(std::clamp<std::int64_t>(q, 1, maxPixels));
    out.detailParams.gap = 0;
    out.detailParams.scale = ScaleMode::PerHead;
    auto progress = [&](std::uint64_t, std::uint64_t) { return !cancelled(); };
    if (auto map = renderHeatmap(out.detailParams, 2, progress)) out.detail = std::move(*map);
    else if (map.error().code != ErrorCode::Cancelled) note("detail", map.error());
    if (cancelled()) return out;

    if (q <= kDetailValuesMax && k <= kDetailValuesMax) {
        out.detailValues.assign(static_cast<std::size_t>(q * k), std::numeric_limits<double>::quiet_NaN());
        const double slope = out.grid->slopes[static_cast<std::size_t>(out.head)];
        for (std::int64_t i = 0; i < q; ++i) {
            if (out.detailParams.what == RenderWhat::Attention) {
                if (auto row = attentionRow(s.attention, out.head, i))
                    for (std::int64_t j = 0; j < k; ++j) out.detailValues[static_cast<std::size_t>(i * k + j)] = (*row)[static_cast<std::size_t>(j)];
            } else {
                for (std::int64_t j = 0; j < k; ++j) {
                    const bool allowed = biasCell(bias.mode, slope, bias.queryPosition(i), j, k).has_value();
                    if (allowed) out.detailValues[static_cast<std::size_t>(i * k + j)] = biasValue(bias, slope, out.head, i, j);
                }
            }
        }
    }

    // Statistics average over fewer rows when rows are long, so a job stays well under a second.
    StatsParams sp;
    sp.attention = s.attention;
    sp.queryRow = out.queryRow;
    const double rowCost = static_cast<double>(heads) * static_cast<double>(k) * cellCost(s.attention);
    sp.maxRows = static_cast<std::int64_t>(std::clamp(double(1 << 23) / rowCost, 1.0, 256.0));
    auto stats = computeStats(sp, 2, [&](std::uint64_t, std::uint64_t) { return !cancelled(); });
    if (stats) out.stats = std::move(*stats);
    else if (stats.error().code != ErrorCode::Cancelled) note("statistics", stats.error());
    if (cancelled()) return out;

    if (auto c = slopeSeries(bias.slopes)) out.slopeCurves = std::move(*c);
    for (SlopeScheme scheme : {SlopeScheme::Press, SlopeScheme::Geometric, SlopeScheme::Linear, SlopeScheme::Custom}) {
        SlopeParams sp2 = bias.slopes;
        sp2.scheme = scheme;
        if (scheme == SlopeScheme::Custom && static_cast<int>(sp2.custom.size()) != heads) continue;
        auto series = slopeSeries(sp2);
        if (!series) continue;
        // One line per scheme: x = head, y = slope.
        Series line;
        line.label = std::string(schemeName(scheme));
        for (const Series& one : *series) {
            line.x.insert(line.x.end(), one.x.begin(), one.x.end());
            line.y.insert(line.y.end(), one.y.begin(), one.y.end());
        }
        out.schemeCurves.push_back(std::move(line));
    }
    // Bias curves are straight lines: fewer points per head when there are many heads.
    const std::int64_t maxDistance = std::min<std::int64_t>({k - 1, 4096, std::max<std::int64_t>(16, (1 << 20) / heads)});
    if (auto c = biasDistanceSeries(bias, maxDistance)) {
        out.biasCurves = std::move(*c);
        decimate(out.biasCurves, curvePoints(heads));
    } else note("bias curves", c.error());
    if (cancelled()) return out;
    // H x K doubles twice over: above kCurveCells the curves would cost hundreds of MiB.
    if (static_cast<double>(heads) * static_cast<double>(k) * cellCost(s.attention) > kCurveCells) {
        if (out.error.isEmpty()) out.error = "attention curves skipped: H × K is too large (lower H or T)";
    } else if (auto c = attentionDistanceSeries(s.attention, out.queryRow,
                                                [&](std::uint64_t, std::uint64_t) { return !cancelled(); })) {
        out.attentionCurves = std::move(*c);
        decimate(out.attentionCurves, curvePoints(heads));
    } else note("attention curves", c.error());
    if (cancelled()) return out;
    if (auto st = attentionStages(s.attention, out.head, out.queryRow)) out.stages = std::move(*st);
    else note("stages", st.error());
    if (cancelled()) return out;

    if (request.wantCompare) out.compare = compare(s, request.compare, request.gridPixels, cancelled);
    if (cancelled()) return out;
    if (request.wantExtrapolation) out.extrapolation = extrapolation(s, out.head, cancelled);
    return out;
}

}  // namespace compute

// ---------------------------------------------------------------------------
// ComputeWorker

ComputeWorker::ComputeWorker(QObject* parent) : QObject(parent) {
    qRegisterMetaType<GridPtr>();
    qRegisterMetaType<SnapshotPtr>();
    m_thread.setObjectName("alibi-compute");
    m_runner = new QObject;
    m_runner->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_runner, &QObject::deleteLater);
    m_thread.start();
    // On a busy machine the UI thread then wins the CPU and keeps answering.
    QMetaObject::invokeMethod(m_runner, [] { lowerThisThreadPriority(4); }, Qt::QueuedConnection);
}

ComputeWorker::~ComputeWorker() {
    m_stopping = true;
    m_thread.quit();
    m_thread.wait();
}

void ComputeWorker::submit(ComputeRequest request) {
    std::lock_guard lock(m_mutex);
    m_latest = request.generation;
    m_pending = std::move(request);
    if (!m_scheduled) {
        m_scheduled = true;
        QMetaObject::invokeMethod(m_runner, [this] { drain(); }, Qt::QueuedConnection);
    }
}

void ComputeWorker::drain() {
    for (;;) {
        ComputeRequest request;
        {
            std::lock_guard lock(m_mutex);
            if (!m_pending || m_stopping) {
                m_scheduled = false;
                m_busy = false;
                return;
            }
            request = std::move(*m_pending);
            m_pending.reset();
            m_busy = true;
        }
        // The core returns errors as values; anything thrown anyway (bad_alloc at extreme sizes)
        // becomes a message for this request instead of terminating the application.
        try {
            run(request);
        } catch (const std::bad_alloc&) {
            emit failed(request.generation, "out of memory while computing the views; lower H or T");
        } catch (const std::exception& e) {
            emit failed(request.generation, QString("unexpected error: %1").arg(e.what()));
        }
    }
}

void ComputeWorker::run(const ComputeRequest& request) {
    const std::uint64_t generation = request.generation;
    auto cancelled = [this, generation] { return superseded(generation); };
    auto gridResult = compute::grid(request, cancelled);
    if (!gridResult && gridResult.error().code == ErrorCode::Cancelled) return;
    if (!gridResult) {
        emit failed(generation, QString::fromStdString(gridResult.error().message));
        return;
    }
    if (superseded(generation)) return;
    auto grid = std::make_shared<const GridSnapshot>(std::move(*gridResult));
    emit gridReady(grid);
    auto snapshot = std::make_shared<Snapshot>(compute::details(request, grid, cancelled));
    if (superseded(generation)) return;
    emit resultReady(std::move(snapshot));
}

}  // namespace alibi::qt
