// Slopes and distance curves: slope per head on a log2 axis with the scheme comparison overlay,
// bias vs distance for every head, and attention vs distance for the chosen query row. Hovering
// a head's curve highlights it in every plot (and, through headHovered, in the other views).
#pragma once

#include "model/snapshot.hpp"
#include "plot_widget.hpp"

#include <QWidget>

namespace alibi::qt {

class CurvesView : public QWidget {
    Q_OBJECT
public:
    explicit CurvesView(QWidget* parent = nullptr);
    void setSnapshot(const SnapshotPtr& snapshot);
    void setHighlightedHead(int head);
    // The heads a lesson step points at, emphasised in every plot (empty: none).
    void setLessonHeads(const std::vector<int>& heads);
    // Dims the curves with "updating..." until the next snapshot (as every other view).
    void markStale();
    [[nodiscard]] bool stale() const;
    [[nodiscard]] PlotWidget* slopesPlot() const { return m_slopes; }
    [[nodiscard]] PlotWidget* schemesPlot() const { return m_schemes; }
    [[nodiscard]] PlotWidget* biasPlot() const { return m_bias; }
    [[nodiscard]] PlotWidget* attentionPlot() const { return m_attention; }

signals:
    void headHovered(int head);

private:
    PlotWidget* m_slopes;
    PlotWidget* m_schemes;
    PlotWidget* m_bias;
    PlotWidget* m_attention;
    class StaleOverlay* m_stale;
};

}  // namespace alibi::qt
