// SessionModel: validation through the core, request bookkeeping and latency measurement.
#include "session_model.hpp"

#include <alibi/render/square_cells.hpp>

#include <QStringList>

#include <algorithm>
#include <cmath>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {

// The parameters panel's control for a core field (its error label's key), "" for one it lacks.
QString controlOf(Field field) {
    switch (field) {
        case Field::Heads:
            return u"heads"_s;
        case Field::Seq:
            return u"queries"_s;
        case Field::Keys:
            return u"keys"_s;
        case Field::Scheme:
            return u"scheme"_s;
        case Field::MaxBias:
            return u"maxBias"_s;
        case Field::Arith:
            return u"arith"_s;
        case Field::Slopes:
            return u"custom"_s;
        case Field::Mode:
            return u"mode"_s;
        case Field::Mask:
            return u"mask"_s;
        case Field::Dtype:
            return u"dtype"_s;
        case Field::Layout:
            return u"layout"_s;
        case Field::Content:
            return u"content"_s;
        case Field::Sigma:
            return u"sigma"_s;
        case Field::Dk:
            return u"dk"_s;
        case Field::Seed:
            return u"seed"_s;
        case Field::Temperature:
            return u"temperature"_s;
        case Field::Query:
            return u"queryRow"_s;
        case Field::Lengths:
            return u"lengths"_s;
        case Field::Padding:
            return u"padding"_s;
        case Field::Documents:
            return u"documents"_s;
        case Field::Window:
            return u"window"_s;
        case Field::Prefix:
            return u"prefix"_s;
        case Field::Positions:
            return u"positions"_s;
        case Field::BatchRow:
            return u"batchRow"_s;
        case Field::What:
            return u"what"_s;
        default:
            return {};
    }
}

}  // namespace

SessionModel::SessionModel(QObject* parent) : QObject(parent), m_session(defaultSession()), m_history(m_session) {
    m_worker = new ComputeWorker(this);
    connect(m_worker, &ComputeWorker::gridReady, this, &SessionModel::onGrid);
    connect(m_worker, &ComputeWorker::resultReady, this, &SessionModel::onResult);
    connect(m_worker, &ComputeWorker::failed, this, &SessionModel::onFailed);
    connect(m_worker, &ComputeWorker::progress, this, [this](quint64 generation, double fraction) {
        if (generation == m_generation) emit computeProgress(fraction);
    });
    connect(m_worker, &ComputeWorker::detailPreview, this, [this](const SnapshotPtr& first) {
        if (first->grid->generation == m_generation) emit detailPreview(first);
    });
    connect(m_worker, &ComputeWorker::detailsProgress, this, [this](quint64 generation, double fraction) {
        if (generation == m_generation) emit detailsProgress(fraction);
    });
    request();
}

SessionModel::~SessionModel() = default;

QString SessionModel::controlMessage(const std::string& coreMessage) {
    return QString::fromStdString(explore::guiMessage(coreMessage));
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
    // The core's editing model: dependents clamped with a note, then the whole session validated.
    auto edit = explore::commitEdit(std::move(next), &m_session);
    if (!edit) {
        // The message goes to the control the core names (an edit of T can make the window
        // invalid), else to the edited one.
        const QString control = edit.error().field ? controlOf(*edit.error().field) : QString();
        m_errorControl = control.isEmpty() ? field : control;
        emit errorOccurred(m_errorControl, controlMessage(edit.error().message));
        return false;
    }
    if (!m_errorControl.isEmpty() && m_errorControl != field) emit errorCleared(m_errorControl);
    m_errorControl.clear();
    emit errorCleared(field);
    if (edit->session == m_session) return true;
    m_history.record(edit->session);
    replace(std::move(edit->session));
    if (!edit->notes.empty()) emit adjusted(u"Adjusted: "_s + QString::fromStdString(explore::joinNotes(edit->notes)));
    return true;
}

void SessionModel::replace(Session next) {
    const bool liveChanged = !(next.live == m_session.live);
    Session withoutLive = next;
    withoutLive.live = m_session.live;
    const bool alibiChanged = !(withoutLive == m_session);
    m_session = std::move(next);
    if (CompareOverrides spec = compareSpecOf(m_session.compare); !(spec == m_compare)) {
        m_compare = std::move(spec);
        emit compareSpecChanged(m_compare);
    }
    if (liveChanged) emit this->liveChanged();
    if (!alibiChanged) {  // only the model run's parameters: nothing of the ALiBi views changes
        emit historyChanged();
        return;
    }
    emit sessionChanged();
    emit historyChanged();
    request();
}

bool SessionModel::setSession(const Session& session) {
    return apply(u"session"_s, [&](Session& s) { s = session; });
}

bool SessionModel::loadSession(const Session& session) {
    if (auto ok = validateSession(session); !ok) {
        emit errorOccurred(u"session"_s, QString::fromStdString(ok.error().message));
        return false;
    }
    emit errorCleared(u"session"_s);
    m_history.reset(session);
    if (session == m_session) {
        emit historyChanged();
        return true;
    }
    replace(session);
    return true;
}

bool SessionModel::undo() {
    auto previous = m_history.undo();
    if (!previous) return false;
    replace(std::move(*previous));
    return true;
}

bool SessionModel::redo() {
    auto next = m_history.redo();
    if (!next) return false;
    replace(std::move(*next));
    return true;
}

void SessionModel::beginStep() {
    m_history.beginGroup();
}

void SessionModel::endStep() {
    m_history.endGroup();
}

void SessionModel::markSaved() {
    m_history.markSaved(m_session);
    emit historyChanged();
}

bool SessionModel::setHeads(int heads) {
    return apply(u"heads"_s, [heads](Session& s) { s.attention.bias.slopes.heads = heads; });
}

bool SessionModel::setQueries(std::int64_t queries) {
    return apply(u"queries"_s, [queries](Session& s) { s.attention.bias.queries = queries; });
}

bool SessionModel::setKeys(std::int64_t keys) {
    return apply(u"keys"_s, [keys](Session& s) { s.attention.bias.keys = keys; });
}
bool SessionModel::setMode(BiasMode mode) {
    return apply(u"mode"_s, [mode](Session& s) { s.attention.bias.mode = mode; });
}
bool SessionModel::setScheme(SlopeScheme scheme) {
    return apply(u"scheme"_s, [scheme](Session& s) { s.attention.bias.slopes.scheme = scheme; });
}
bool SessionModel::setMaxBias(double maxBias) {
    return apply(u"maxBias"_s, [maxBias](Session& s) { s.attention.bias.slopes.maxBias = maxBias; });
}

bool SessionModel::setArith(Arith arith) {
    return apply(u"arith"_s, [arith](Session& s) { s.attention.bias.slopes.arith = arith; });
}

bool SessionModel::setCustomSlopes(const QString& text) {
    // The core's one grammar ("0.5, 1/8, 2^-3"); the list sets H, as `alibi --slopes` does.
    auto values = explore::parseSlopeList(text.toStdString());
    if (!values) {
        emit errorOccurred(u"custom"_s, controlMessage(values.error().message));
        return false;
    }
    return apply(u"custom"_s, [&](Session& s) { s = explore::withCustomSlopes(std::move(s), *values); });
}

bool SessionModel::setMask(const QString& text) {
    auto mask = parseMask(text.trimmed().toStdString());
    if (!mask) {
        emit errorOccurred(u"mask"_s,
                           u"Mask: '%1' is not a number; type a finite number such as -1e9, or choose "
                           "-inf or min (the dtype's lowest finite value)"_s.arg(text));
        return false;
    }
    return apply(u"mask"_s, [&](Session& s) { s.attention.bias.mask = *mask; });
}

bool SessionModel::setDType(DType dtype) {
    return apply(u"dtype"_s, [dtype](Session& s) { s.attention.bias.dtype = dtype; });
}
bool SessionModel::setLayout(Layout layout) {
    return apply(u"layout"_s, [layout](Session& s) { s.attention.bias.layout = layout; });
}
bool SessionModel::setContentKind(ContentKind kind) {
    return apply(u"content"_s, [kind](Session& s) { s.attention.content.kind = kind; });
}
bool SessionModel::setSigma(double sigma) {
    return apply(u"sigma"_s, [sigma](Session& s) { s.attention.content.sigma = sigma; });
}
bool SessionModel::setDk(int dk) {
    return apply(u"dk"_s, [dk](Session& s) { s.attention.content.dk = dk; });
}
bool SessionModel::setSeed(std::uint64_t seed) {
    return apply(u"seed"_s, [seed](Session& s) { s.attention.content.seed = seed; });
}
bool SessionModel::setTemperature(double temperature) {
    return apply(u"temperature"_s, [temperature](Session& s) { s.attention.content.temperature = temperature; });
}
bool SessionModel::setQueryRow(std::int64_t row) {
    return apply(u"queryRow"_s, [row](Session& s) { s.queryRow = row; });
}
bool SessionModel::setColormap(Colormap map) {
    return apply(u"colormap"_s, [map](Session& s) { s.colormap = map; });
}
bool SessionModel::setScaleMode(ScaleMode scale) {
    return apply(u"scale"_s, [scale](Session& s) { s.scale = scale; });
}
bool SessionModel::setWhat(RenderWhat what) {
    return apply(u"what"_s, [what](Session& s) { s.what = what; });
}
bool SessionModel::setSelectedHead(int head) {
    return apply(u"head"_s, [head](Session& s) { s.head = head; });
}
bool SessionModel::setTrainLength(std::int64_t length) {
    return apply(u"trainLength"_s, [length](Session& s) { s.trainLength = length; });
}

bool SessionModel::setBatchLengths(const QString& text) {
    auto values = parseLengthList(text.toStdString(), "Lengths");
    if (!values) {
        emit errorOccurred(u"lengths"_s, QString::fromStdString(values.error().message));
        return false;
    }
    return apply(u"lengths"_s, [&](Session& s) { s.batch.lengths = *values; });
}
bool SessionModel::setBatchDocuments(const QString& text) {
    auto values = parseLengthList(text.toStdString(), "Documents");
    if (!values) {
        emit errorOccurred(u"documents"_s, QString::fromStdString(values.error().message));
        return false;
    }
    return apply(u"documents"_s, [&](Session& s) { s.batch.documents = *values; });
}
bool SessionModel::setBatchPadding(Padding padding) {
    return apply(u"padding"_s, [padding](Session& s) { s.batch.padding = padding; });
}
bool SessionModel::setBatchPositions(PositionRule rule) {
    return apply(u"positions"_s, [rule](Session& s) { s.batch.positions = rule; });
}
bool SessionModel::setBatchWindow(std::int64_t window) {
    return apply(u"window"_s, [window](Session& s) { s.batch.window = window; });
}
bool SessionModel::setBatchPrefix(std::int64_t prefix) {
    return apply(u"prefix"_s, [prefix](Session& s) { s.batch.prefix = prefix; });
}
bool SessionModel::setBatchRow(std::int64_t row) {
    return apply(u"batchRow"_s, [row](Session& s) { s.batchRow = row; });
}

bool SessionModel::setLive(const LiveModelParams& live) {
    return apply(u"model"_s, [&](Session& s) { s.live = live; });
}

void SessionModel::setCompareSpec(const CompareOverrides& spec) {
    // B is saved with the session: a change is an undo step and marks the session modified.
    apply(u"compare"_s, [&](Session& s) { s.compare = sessionCompare(spec); });
}

void SessionModel::setGridPixels(QSize devicePixels, double devicePixelRatio, int labelBand) {
    devicePixels = devicePixels.expandedTo(QSize(16, 16));
    if (devicePixels == m_gridPixels && devicePixelRatio == m_dpr && labelBand == m_labelBand) return;
    m_gridPixels = devicePixels;
    m_dpr = devicePixelRatio;
    m_labelBand = labelBand;
    request();
}

void SessionModel::setComparePixels(QSize devicePixels, int labelBand) {
    devicePixels = devicePixels.expandedTo(QSize(16, 16));
    if (devicePixels == m_comparePixels && labelBand == m_compareLabelBand) return;
    m_comparePixels = devicePixels;
    m_compareLabelBand = labelBand;
    if (m_wantCompare) request();
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
    explore::Request r;
    r.generation = ++m_generation;
    r.session = m_session;
    r.gridWidth = m_gridPixels.width();
    r.gridHeight = m_gridPixels.height();
    r.labelBand = m_labelBand;
    if (!m_gridPixels.isEmpty()) {
        // Tiles of square cells (the grid's tiles stretched to the view's aspect: "1 cell = 10.9 x
        // 7.19 px"): the core fills the size it is given, so the size asked for is the one at which
        // its placement gives square cells, with the core's gap (explore::gridParams). Many heads
        // in a short room (112 at 1280x720) drop the label bands where they would cost half the
        // tiles' width, the core's rule (squareCellGrid, as ImGui's grid); the view then labels
        // the tiles over their masked corner.
        const BiasParams& bias = m_session.attention.bias;
        const SquareCellGrid square =
            squareCellGrid(bias.slopes.heads, bias.queries, bias.keyCount(), m_gridPixels.width(),
                           m_gridPixels.height(), std::max(2, static_cast<int>(std::lround(6 * m_dpr))), m_labelBand);
        r.gridWidth = square.picture.width;
        r.gridHeight = square.picture.height;
        r.labelBand = square.labelBand;
    }
    r.devicePixelRatio = m_dpr;
    r.wantCompare = m_wantCompare;
    if (!m_comparePixels.isEmpty()) {
        r.compareWidth = m_comparePixels.width();
        r.compareHeight = m_comparePixels.height();
        r.compareLabelBand = m_compareLabelBand;
    }
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
