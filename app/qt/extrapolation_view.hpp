// Extrapolation: why ALiBi "trains short, tests long". For a training length L, the selected
// head's attention vs distance as T grows from L to 16 L, the head at T = L beside it, and for
// every head the attention mass beyond distance L at each length.
#pragma once

#include "lesson_mark.hpp"
#include "model/snapshot.hpp"

#include <QWidget>

class QLabel;
class QSpinBox;
class QTableView;

namespace alibi::qt {

class ImagePanel;
class PlotWidget;

class ExtrapolationView : public QWidget {
    Q_OBJECT
public:
    explicit ExtrapolationView(QWidget* parent = nullptr);
    // Inside its tab's scroll area the view fills the room there is (down to its minimum size):
    // the word-wrapped caption would otherwise make QScrollArea size it by height-for-width, the
    // preferred height, and push the lower half out of sight at 1280x720 with a lesson open.
    [[nodiscard]] int heightForWidth(int) const override { return -1; }
    void setSnapshot(const SnapshotPtr& snapshot);
    void markStale();
    void setTrainLength(std::int64_t length);
    [[nodiscard]] QTableView* table() const { return m_table; }
    [[nodiscard]] PlotWidget* plot() const { return m_plot; }
    // A lesson step's heads: their rows of the mass-beyond table marked, and the curves drawn
    // thick when the shown head is one of them.
    void setLessonMark(LessonMark mark);
    [[nodiscard]] const LessonRowsProxy* lessonRows() const { return m_lessonRows; }

signals:
    void trainLengthChanged(std::int64_t length);
    void headChosen(int head);

private:
    void applyLessonHeads();

    QSpinBox* m_length;
    QSpinBox* m_head;
    QLabel* m_caption;
    ImagePanel* m_headImage;
    PlotWidget* m_plot;
    QTableView* m_table;
    class NumberTable* m_model;
    LessonRowsProxy* m_lessonRows;
    LessonMark m_lesson;
    int m_shownHead = -1;
    std::size_t m_curveCount = 0;
    class StaleOverlay* m_stale;
};

}  // namespace alibi::qt
