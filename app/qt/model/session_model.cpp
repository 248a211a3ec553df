// SessionModel: validation through the core, request bookkeeping and latency measurement.
#include "session_model.hpp"

#include <QRegularExpression>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace alibi::qt {

SessionModel::SessionModel(QObject* parent) : QObject(parent), m_session(defaultSession()), m_clean(m_session) {
    m_worker = new ComputeWorker(this);
    connect(m_worker, &ComputeWorker::gridReady, this, &SessionModel::onGrid);
    connect(m_worker, &ComputeWorker::resultReady, this, &SessionModel::onResult);
    connect(m_worker, &ComputeWorker::failed, this, &SessionModel::onFailed);
    connect(m_worker, &ComputeWorker::progress, this, [this](quint64 generation, double fraction) {
        if (generation == m_generation) emit computeProgress(fraction);
    });
    connect(m_worker, &ComputeWorker::detailsProgress, this, [this](quint64 generation, double fraction) {
        if (generation == m_generation) emit detailsProgress(fraction);
    });
    request();
}

SessionModel::~SessionModel() = default;

QString SessionModel::controlMessage(const QString& field, const std::string& coreMessage) {
    QString m = QString::fromStdString(coreMessage);
    if (m.startsWith("session: ")) m = m.mid(9);
    // "--heads (session field `bias.heads`) must be ...": the control has one name, not two.
    static const QRegularExpression kFieldAside(" \\(session field `[^`]*`\\)");
    m.remove(kFieldAside);
    // The core speaks in flags and file fields; the panel has labels.
    static const std::pair<const char*, const char*> kNames[] = {
        {"session field `bias.slopes`", "Custom slopes"},
        {"session field `view.head`", "Selected head"},
        {"session field `attention.query`", "Query row"},
        {"`bias.heads`", "Heads H"},
        {"--max-bias", "max_bias B"},
        {"--heads", "Heads H"},
        {"--seq", "Length T"},
        {"--keys", "Keys K"},
        {"--slopes", "Custom slopes"},
        {"--mask", "Mask"},
        {"--sigma", "σ"},
        {"--dk", "d_k"},
        {"--temperature", "Temperature"},
        {"--query", "Query row"},
        {"--head", "Selected head"},
        {"--arith", "Arithmetic"},
        {"session section `batch`: ", ""},
        {"session field `batch.row`", "Batch row"},
        {"--lengths", "Lengths"},
        {"--documents", "Documents"},
        {"--window", "Window"},
        {"--prefix", "Prefix"},
        {"--positions", "Positions"},
        {"--padding", "Padding"},
    };
    for (const auto& [from, to] : kNames) m.replace(QString::fromUtf8(from), QString::fromUtf8(to));
    m.replace("(or drop Heads H; it defaults to the number of slopes)", "");
    m.replace("(or drop Heads H: it defaults to the number of slopes)", "");
    m.replace("(or omitted to equal Length T)", "(0: same as T)");
    (void)field;
    return m.trimmed();
}

QStringList SessionModel::clampDependents(const Session& before, Session& next) {
    QStringList notes;
    const int heads = next.attention.bias.slopes.heads;
    if (next.head >= heads) {
        notes << QString("selected head %1 → %2 (H = %3 has heads 0–%2)").arg(next.head).arg(heads - 1).arg(heads);
        next.head = heads - 1;
    }
    const std::int64_t queries = next.attention.bias.queries;
    if (next.queryRow >= queries) {
        notes << QString("query row %1 → %2 (T = %3 has rows 0–%2)").arg(next.queryRow).arg(queries - 1).arg(queries);
        next.queryRow = queries - 1;
    }
    // A batch follows T: lengths, documents, window and prefix stay within it (core fitBatch).
    if (next.batch.active() && before.attention.bias.queries != queries)
        for (const std::string& note : fitBatch(next.batch, next.batchRow, queries))
            notes << QString::fromStdString(note);
    if (next.batchRow >= next.batch.batchSize()) {
        notes << QString("batch row %1 → %2 (B = %3)")
                     .arg(next.batchRow)
                     .arg(next.batch.batchSize() - 1)
                     .arg(next.batch.batchSize());
        next.batchRow = next.batch.batchSize() - 1;
    }
    // A custom list follows H: cut to H, or continued with the ratio of its last two slopes.
    auto& slopes = next.attention.bias.slopes;
    if (slopes.scheme == SlopeScheme::Custom && !slopes.custom.empty() &&
        slopes.custom.size() != static_cast<std::size_t>(heads) && before.attention.bias.slopes.heads != heads) {
        const std::size_t had = slopes.custom.size();
        const double ratio = had >= 2 ? slopes.custom[had - 1] / slopes.custom[had - 2] : 0.5;
        while (slopes.custom.size() < static_cast<std::size_t>(heads))
            slopes.custom.push_back(slopes.custom.back() * (std::isfinite(ratio) && ratio > 0 ? ratio : 0.5));
        slopes.custom.resize(static_cast<std::size_t>(heads));
        notes << (had > slopes.custom.size() ? QString("custom slopes cut to the first %1").arg(heads)
                                             : QString("custom slopes continued to %1 heads").arg(heads));
    }
    return notes;
}

std::optional<CompareOverrides> sessionCompare(const CompareOverrides& b) {
    if (b == explore::geometricCompare()) return std::nullopt;
    return b;
}

CompareOverrides compareSpecOf(const std::optional<CompareOverrides>& b) {
    return b.value_or(explore::geometricCompare());
}

bool SessionModel::apply(const QString& field, const std::function<void(Session&)>& change) {
    Session next = m_session;
    change(next);
    const QStringList notes = clampDependents(m_session, next);
    if (auto ok = validateSession(next); !ok) {
        emit errorOccurred(field, controlMessage(field, ok.error().message));
        return false;
    }
    emit errorCleared(field);
    if (next == m_session) return true;
    if (m_stepDepth == 0 || !m_stepPushed) {
        m_undo.push_back(m_session);
        if (m_undo.size() > kMaxUndo) m_undo.erase(m_undo.begin());
        m_stepPushed = m_stepDepth > 0;
    }
    m_redo.clear();
    replace(std::move(next));
    if (!notes.isEmpty()) emit adjusted("Adjusted: " + notes.join("; "));
    return true;
}

void SessionModel::replace(Session next) {
    m_session = std::move(next);
    if (CompareOverrides spec = compareSpecOf(m_session.compare); !(spec == m_compare)) {
        m_compare = std::move(spec);
        emit compareSpecChanged(m_compare);
    }
    emit sessionChanged();
    emit historyChanged();
    request();
}

bool SessionModel::setSession(const Session& session) {
    return apply("session", [&](Session& s) { s = session; });
}

bool SessionModel::loadSession(const Session& session) {
    if (auto ok = validateSession(session); !ok) {
        emit errorOccurred("session", QString::fromStdString(ok.error().message));
        return false;
    }
    emit errorCleared("session");
    m_undo.clear();
    m_redo.clear();
    m_clean = session;
    if (session == m_session) {
        emit historyChanged();
        return true;
    }
    replace(session);
    return true;
}

bool SessionModel::undo() {
    if (m_undo.empty()) return false;
    m_redo.push_back(m_session);
    Session previous = std::move(m_undo.back());
    m_undo.pop_back();
    replace(std::move(previous));
    return true;
}

bool SessionModel::redo() {
    if (m_redo.empty()) return false;
    m_undo.push_back(m_session);
    Session next = std::move(m_redo.back());
    m_redo.pop_back();
    replace(std::move(next));
    return true;
}

void SessionModel::beginStep() {
    if (m_stepDepth++ == 0) m_stepPushed = false;
}

void SessionModel::endStep() {
    if (m_stepDepth > 0) --m_stepDepth;
}

void SessionModel::markSaved() {
    m_clean = m_session;
    emit historyChanged();
}

bool SessionModel::setHeads(int heads) {
    return apply("heads", [heads](Session& s) { s.attention.bias.slopes.heads = heads; });
}

bool SessionModel::setQueries(std::int64_t queries) {
    return apply("queries", [queries](Session& s) { s.attention.bias.queries = queries; });
}

bool SessionModel::setKeys(std::int64_t keys) {
    return apply("keys", [keys](Session& s) { s.attention.bias.keys = keys; });
}
bool SessionModel::setMode(BiasMode mode) {
    return apply("mode", [mode](Session& s) { s.attention.bias.mode = mode; });
}
bool SessionModel::setScheme(SlopeScheme scheme) {
    return apply("scheme", [scheme](Session& s) { s.attention.bias.slopes.scheme = scheme; });
}
bool SessionModel::setMaxBias(double maxBias) {
    return apply("maxBias", [maxBias](Session& s) { s.attention.bias.slopes.maxBias = maxBias; });
}

bool SessionModel::setArith(Arith arith) {
    return apply("arith", [arith](Session& s) { s.attention.bias.slopes.arith = arith; });
}

Result<std::vector<double>> SessionModel::parseSlopeList(const QString& text) {
    std::vector<double> values;
    const QStringList tokens = text.split(QRegularExpression("[,;\\s]+"), Qt::SkipEmptyParts);
    for (const QString& token : tokens) {
        bool ok = false;
        double v = token.toDouble(&ok);
        // Accept "1/8" and "2^-3" too: people write slopes that way.
        if (!ok && token.contains('/')) {
            const auto parts = token.split('/');
            bool a = false, b = false;
            if (parts.size() == 2) v = parts[0].toDouble(&a) / parts[1].toDouble(&b);
            ok = a && b;
        } else if (!ok && token.startsWith("2^")) {
            v = std::exp2(token.mid(2).toDouble(&ok));
        }
        if (!ok)
            return fail(ErrorCode::InvalidArgument,
                        "Custom slopes: '" + token.toStdString() + "' is not a number (write e.g. 0.5, 1/4 or 2^-3)");
        if (!(v > 0) || !std::isfinite(v))
            return fail(ErrorCode::InvalidArgument, "Custom slopes: '" + token.toStdString() +
                                                        "' is not a positive number; every slope must be > 0");
        values.push_back(v);
    }
    if (values.empty())
        return fail(ErrorCode::InvalidArgument,
                    "Custom slopes: the list is empty; give one slope per head, e.g. 0.5, 0.25");
    return values;
}

bool SessionModel::setCustomSlopes(const QString& text) {
    auto values = parseSlopeList(text);
    if (!values) {
        emit errorOccurred("custom", QString::fromStdString(values.error().message));
        return false;
    }
    // The list sets H, as `alibi --slopes` does.
    if (values->size() > static_cast<std::size_t>(kMaxHeads)) {
        emit errorOccurred("custom", QString("Custom slopes: %1 slopes given; at most %2 heads are supported")
                                         .arg(values->size())
                                         .arg(kMaxHeads));
        return false;
    }
    return apply("custom", [&](Session& s) {
        s.attention.bias.slopes.custom = *values;
        s.attention.bias.slopes.scheme = SlopeScheme::Custom;
        s.attention.bias.slopes.heads = static_cast<int>(values->size());
    });
}

bool SessionModel::setMask(const QString& text) {
    auto mask = parseMask(text.trimmed().toStdString());
    if (!mask) {
        emit errorOccurred("mask", QString("Mask: '%1' is not a number; type a finite number such as -1e9, or choose "
                                           "-inf or min (the dtype's lowest finite value)")
                                       .arg(text));
        return false;
    }
    return apply("mask", [&](Session& s) { s.attention.bias.mask = *mask; });
}

bool SessionModel::setDType(DType dtype) {
    return apply("dtype", [dtype](Session& s) { s.attention.bias.dtype = dtype; });
}
bool SessionModel::setLayout(Layout layout) {
    return apply("layout", [layout](Session& s) { s.attention.bias.layout = layout; });
}
bool SessionModel::setContentKind(ContentKind kind) {
    return apply("content", [kind](Session& s) { s.attention.content.kind = kind; });
}
bool SessionModel::setSigma(double sigma) {
    return apply("sigma", [sigma](Session& s) { s.attention.content.sigma = sigma; });
}
bool SessionModel::setDk(int dk) {
    return apply("dk", [dk](Session& s) { s.attention.content.dk = dk; });
}
bool SessionModel::setSeed(std::uint64_t seed) {
    return apply("seed", [seed](Session& s) { s.attention.content.seed = seed; });
}
bool SessionModel::setTemperature(double temperature) {
    return apply("temperature", [temperature](Session& s) { s.attention.content.temperature = temperature; });
}
bool SessionModel::setQueryRow(std::int64_t row) {
    return apply("queryRow", [row](Session& s) { s.queryRow = row; });
}
bool SessionModel::setColormap(Colormap map) {
    return apply("colormap", [map](Session& s) { s.colormap = map; });
}
bool SessionModel::setScaleMode(ScaleMode scale) {
    return apply("scale", [scale](Session& s) { s.scale = scale; });
}
bool SessionModel::setWhat(RenderWhat what) {
    return apply("what", [what](Session& s) { s.what = what; });
}
bool SessionModel::setSelectedHead(int head) {
    return apply("head", [head](Session& s) { s.head = head; });
}
bool SessionModel::setTrainLength(std::int64_t length) {
    return apply("trainLength", [length](Session& s) { s.trainLength = length; });
}

bool SessionModel::setBatchLengths(const QString& text) {
    auto values = parseLengthList(text.toStdString(), "Lengths");
    if (!values) {
        emit errorOccurred("lengths", QString::fromStdString(values.error().message));
        return false;
    }
    return apply("lengths", [&](Session& s) { s.batch.lengths = *values; });
}
bool SessionModel::setBatchDocuments(const QString& text) {
    auto values = parseLengthList(text.toStdString(), "Documents");
    if (!values) {
        emit errorOccurred("documents", QString::fromStdString(values.error().message));
        return false;
    }
    return apply("documents", [&](Session& s) { s.batch.documents = *values; });
}
bool SessionModel::setBatchPadding(Padding padding) {
    return apply("padding", [padding](Session& s) { s.batch.padding = padding; });
}
bool SessionModel::setBatchPositions(PositionRule rule) {
    return apply("positions", [rule](Session& s) { s.batch.positions = rule; });
}
bool SessionModel::setBatchWindow(std::int64_t window) {
    return apply("window", [window](Session& s) { s.batch.window = window; });
}
bool SessionModel::setBatchPrefix(std::int64_t prefix) {
    return apply("prefix", [prefix](Session& s) { s.batch.prefix = prefix; });
}
bool SessionModel::setBatchRow(std::int64_t row) {
    return apply("batchRow", [row](Session& s) { s.batchRow = row; });
}

void SessionModel::setCompareSpec(const CompareOverrides& spec) {
    // B is saved with the session: a change is an undo step and marks the session modified.
    apply("compare", [&](Session& s) { s.compare = sessionCompare(spec); });
}

void SessionModel::setGridPixels(QSize devicePixels, double devicePixelRatio) {
    devicePixels = devicePixels.expandedTo(QSize(16, 16));
    if (devicePixels == m_gridPixels && devicePixelRatio == m_dpr) return;
    m_gridPixels = devicePixels;
    m_dpr = devicePixelRatio;
    request();
}

void SessionModel::setCompareEnabled(bool on) {
    if (on == m_wantCompare) return;
    m_wantCompare = on;
    if (on) request();
}

void SessionModel::setExtrapolationEnabled(bool on) {
    if (on == m_wantExtrapolation) return;
    m_wantExtrapolation = on;
    if (on) request();
}

void SessionModel::setLogScale(bool on) {
    if (on == m_logScale) return;
    m_logScale = on;
    request();
}

double SessionModel::latencyMedianMs() const {
    if (m_latencies.empty()) return -1;
    std::vector<double> sorted(m_latencies.begin(), m_latencies.end());
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

void SessionModel::request() {
    ComputeRequest r;
    r.generation = ++m_generation;
    r.session = m_session;
    r.gridPixels = m_gridPixels;
    r.devicePixelRatio = m_dpr;
    r.wantCompare = m_wantCompare;
    r.compare = m_compare;
    r.wantExtrapolation = m_wantExtrapolation;
    r.logScale = m_logScale;
    m_sinceRequest.start();
    m_worker->submit(std::move(r));
}

void SessionModel::onGrid(GridPtr grid) {
    if (grid->generation != m_generation) return;  // superseded while in flight
    m_grid = grid;
    if (m_measuredGeneration != m_generation) {
        m_measuredGeneration = m_generation;
        m_latencies.push_back(static_cast<double>(m_sinceRequest.nsecsElapsed()) / 1e6);
        while (m_latencies.size() > kLatencySamples) m_latencies.pop_front();
        emit latencyMeasured(m_latencies.back(), latencyMedianMs());
    }
    emit gridReady(std::move(grid));
}

void SessionModel::onResult(SnapshotPtr snapshot) {
    if (snapshot->grid->generation != m_generation) return;
    m_resultGeneration = m_generation;
    m_snapshot = snapshot;
    emit resultReady(std::move(snapshot));
}

void SessionModel::onFailed(quint64 generation, const QString& message) {
    if (generation != m_generation) return;
    m_resultGeneration = m_generation;
    emit computeFailed(message);
}

}  // namespace alibi::qt
