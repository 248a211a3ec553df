// Attention stages for the selected head and query row (content -> + bias -> masked -> softmax,
// side by side, from attentionStages) and the per-head statistics (computeStats) as a sortable
// table.
#pragma once

#include "lesson_mark.hpp"
#include "model/snapshot.hpp"
#include "number_table.hpp"
#include "plot_widget.hpp"

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

namespace alibi::qt {

class StagesView : public QWidget {
    Q_OBJECT
public:
    explicit StagesView(QWidget* parent = nullptr);
    // Inside its tab's scroll area the view fills the room there is (down to its minimum size):
    // the word-wrapped caption would otherwise make QScrollArea size it by height-for-width, the
    // preferred height, and push the lower half out of sight at 1280x720 with a lesson open.
    [[nodiscard]] int heightForWidth(int) const override { return -1; }
    void setSnapshot(const SnapshotPtr& snapshot);
    void markStale();
    [[nodiscard]] NumberTable* statsModel() const { return m_model; }
    [[nodiscard]] QTableView* statsTable() const { return m_table; }
    [[nodiscard]] QSpinBox* headBox() const { return m_head; }
    [[nodiscard]] PlotWidget* stagePlot(int n) const { return m_plots[n]; }
    // A lesson step's heads (their statistics rows marked) and cell (its key's bar marked in every
    // stage when the cell is in the shown head and query row).
    void setLessonMark(LessonMark mark);
    [[nodiscard]] const LessonRowsProxy* lessonRows() const { return m_lessonRows; }
    // Column indices of the statistics table.
    enum Column {
        Head,
        Slope,
        HalfLife,
        Entropy,
        MeanDistance,
        Distance50,
        Distance90,
        MeanEntropy,
        MeanMeanDistance,
        ColumnCount
    };

signals:
    void headChosen(int head);

private:
    void applyLessonCell();
    void scrollToLessonRow();  // the first marked head's statistics in sight

    PlotWidget* m_plots[4];
    QSpinBox* m_head;
    QLabel* m_caption;
    NumberTable* m_model;
    LessonRowsProxy* m_lessonRows;
    LessonMark m_lesson;
    SnapshotPtr m_snapshot;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    class StaleOverlay* m_stale;
};

}  // namespace alibi::qt
