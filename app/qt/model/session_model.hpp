// SessionModel: the explorer's state as a Qt-Core object. It holds the current alibi::Session,
// validates every change through the core (an invalid value keeps the previous valid session
// and reports the core's message for that field), asks the ComputeWorker for fresh snapshots,
// and measures the time from a change to the grid that shows it.
#pragma once

#include "compute_worker.hpp"
#include "snapshot.hpp"

#include <alibi/explore/editing.hpp>

#include <QElapsedTimer>
#include <QObject>
#include <QSize>
#include <QString>
#include <QStringList>

#include <deque>
#include <functional>
#include <vector>

namespace alibi::qt {

class SessionModel : public QObject {
    Q_OBJECT
public:
    explicit SessionModel(QObject* parent = nullptr);
    ~SessionModel() override;

    [[nodiscard]] const Session& session() const { return m_session; }
    [[nodiscard]] GridPtr grid() const { return m_grid; }
    [[nodiscard]] SnapshotPtr snapshot() const { return m_snapshot; }
    [[nodiscard]] const CompareOverrides& compareSpec() const { return m_compare; }
    [[nodiscard]] std::uint64_t generation() const { return m_generation; }
    // True while a request has not yet produced its full result.
    [[nodiscard]] bool pending() const { return m_resultGeneration != m_generation; }

    // Replaces the whole session (after validation). Returns false and emits errorOccurred
    // ("session", message) when the core refuses it. An undoable step like any other change.
    bool setSession(const Session& session);
    // Replaces the session and starts a fresh history, with this session as the unmodified
    // state (opening or restoring a session file).
    bool loadSession(const Session& session);

    // Undo and redo of every accepted change. Between beginStep() and endStep() (a slider
    // drag), all changes form one step.
    [[nodiscard]] bool canUndo() const { return m_history.canUndo(); }
    [[nodiscard]] bool canRedo() const { return m_history.canRedo(); }
    bool undo();
    bool redo();
    void beginStep();
    void endStep();
    // Modified: the session differs from the one last opened or saved (markSaved).
    [[nodiscard]] bool modified() const { return m_history.modified(); }
    void markSaved();

    // One setter per parameter; each returns whether the value was accepted.
    bool setHeads(int heads);
    bool setQueries(std::int64_t queries);
    bool setKeys(std::int64_t keys);  // 0: same as queries
    bool setMode(BiasMode mode);
    bool setScheme(SlopeScheme scheme);
    bool setMaxBias(double maxBias);
    bool setArith(Arith arith);
    bool setCustomSlopes(const QString& text);  // "0.5, 0.25, ..."
    bool setMask(const QString& text);          // "-1e9", "-inf", "min" or a number
    bool setDType(DType dtype);
    bool setLayout(Layout layout);
    bool setContentKind(ContentKind kind);
    bool setSigma(double sigma);
    bool setDk(int dk);
    bool setSeed(std::uint64_t seed);
    bool setTemperature(double temperature);
    bool setQueryRow(std::int64_t row);  // -1: last
    bool setColormap(Colormap map);
    bool setScaleMode(ScaleMode scale);
    bool setWhat(RenderWhat what);
    bool setSelectedHead(int head);
    bool setTrainLength(std::int64_t length);
    // The session's `batch` section ("16, 12, 9" lists; an empty list: one sequence / no documents).
    bool setBatchLengths(const QString& text);
    bool setBatchDocuments(const QString& text);
    bool setBatchPadding(Padding padding);
    bool setBatchPositions(PositionRule rule);
    bool setBatchWindow(std::int64_t window);  // 0: none
    bool setBatchPrefix(std::int64_t prefix);  // 0: none
    bool setBatchRow(std::int64_t row);
    // Compare's B, kept in the session (Session::compare): an undoable, saved change.
    void setCompareSpec(const CompareOverrides& spec);
    // The model run on text (Session::live: folder, text, B's slope change, length): an undoable,
    // saved change like any other; the ALiBi views are not recomputed for it.
    bool setLive(const LiveModelParams& live);

    // View state that is not part of the session.
    // `labelBand`: device pixels the grid keeps free above each tile for its label.
    void setGridPixels(QSize devicePixels, double devicePixelRatio, int labelBand = 0);
    void setCompareEnabled(bool on);
    // The compare view's image room (device pixels) and label band: its tiles are laid out for it.
    void setComparePixels(QSize devicePixels, int labelBand);
    void setExtrapolationEnabled(bool on);
    void setLogScale(bool on);  // attention grid: log10 colours
    [[nodiscard]] bool logScale() const { return m_logScale; }

    // Median time from a change to its grid, over the last kLatencySamples changes (ms);
    // negative before the first measurement.
    [[nodiscard]] double latencyMedianMs() const;
    [[nodiscard]] double lastLatencyMs() const { return m_latencies.empty() ? -1 : m_latencies.back(); }
    static constexpr std::size_t kLatencySamples = 31;

    // A core message in the explorers' words (explore::guiMessage: "--heads" -> "Heads H").
    [[nodiscard]] static QString controlMessage(const std::string& coreMessage);

signals:
    void sessionChanged();
    // `field` names the control ("heads", "custom", "mask", ..., or "session").
    void errorOccurred(const QString& field, const QString& message);
    void errorCleared(const QString& field);
    void gridReady(alibi::qt::GridPtr grid);
    void resultReady(alibi::qt::SnapshotPtr snapshot);
    // A first picture of the current request's head image (only its detail fields set).
    void detailPreview(alibi::qt::SnapshotPtr snapshot);
    void computeFailed(const QString& message);
    void latencyMeasured(double lastMs, double medianMs);
    // A dependent choice had to change because it became invalid (query row beyond T, head
    // beyond H, ...): a one-line note for the status bar.
    void adjusted(const QString& note);
    void historyChanged();
    // B changed by undo, redo or a loaded session (the Compare view shows it).
    void compareSpecChanged(const alibi::CompareOverrides& spec);
    // The session's model run parameters changed (an edit, undo, redo, a loaded session).
    void liveChanged();
    // Fraction of the current request's grid computed so far (while it takes longer than 50 ms).
    void computeProgress(double fraction);
    // Fraction of the current request's details (statistics, detail image, stages) done.
    void detailsProgress(double fraction);

private:
    bool apply(const QString& field, const std::function<void(Session&)>& change);
    void replace(Session next);
    void request();
    void onGrid(GridPtr grid);
    void onResult(SnapshotPtr snapshot);
    void onFailed(quint64 generation, const QString& message);

    Session m_session;
    explore::EditHistory m_history;  // the core's: undo, redo and the saved state
    QString m_errorControl;          // the control showing the last refusal, cleared by the next good edit
    CompareOverrides m_compare = explore::geometricCompare();
    QSize m_gridPixels{1024, 768};
    QSize m_comparePixels;  // empty: the grid's
    int m_compareLabelBand = -1;
    int m_labelBand = 0;
    double m_dpr = 1;
    bool m_wantCompare = false;
    bool m_wantExtrapolation = false;
    bool m_logScale = false;
    std::uint64_t m_generation = 0;
    std::uint64_t m_resultGeneration = 0;
    std::uint64_t m_measuredGeneration = 0;
    QElapsedTimer m_sinceRequest;
    std::deque<double> m_latencies;
    GridPtr m_grid;
    SnapshotPtr m_snapshot;
    ComputeWorker* m_worker = nullptr;
};

// Session::compare for a Compare view's B: nullopt for the default B (a fresh session's), and back.
[[nodiscard]] std::optional<CompareOverrides> sessionCompare(const CompareOverrides& b);
[[nodiscard]] CompareOverrides compareSpecOf(const std::optional<CompareOverrides>& b);

}  // namespace alibi::qt
