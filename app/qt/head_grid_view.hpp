// The head grid: the core's heatmap of every head at the widget's device-pixel size, with the
// core's title and subtitle, head labels (index, slope, and each tile's range on a per-head
// scale), the core's colour bar with exact ends, hover read-out, click-to-open, and a stale mark
// ("updating..." with progress) while the picture is older than the parameters.
#pragma once

#include "model/snapshot.hpp"

#include <alibi/explore/lesson_state.hpp>

#include <QElapsedTimer>
#include <QImage>
#include <QWidget>

#include <vector>

class QCheckBox;
class QTimer;

namespace alibi::qt {

class HeadGridView : public QWidget {
    Q_OBJECT
public:
    // The cell read-out as a tooltip too (off in presentation mode: the window's read-out band
    // says it, and the tooltip covered the neighbouring tiles and their labels: s40 review F2).
    void setHoverTips(bool on) { m_hoverTips = on; }
    explicit HeadGridView(QWidget* parent = nullptr);

    void setGrid(GridPtr grid);
    // Exports at another pixel ratio: paints `grid` (rendered for that ratio) in place of the
    // shown one until called with the shown one again; the stale mark and log box stay as they are.
    void swapGridForExport(GridPtr grid);
    void setHighlightedHead(int head);  // linked hover from other views; -1: none
    void setSelectedHead(int head);
    // What a lesson step points at: heads outlined, and one cell (head, query, key) marked.
    using LessonMark = explore::LessonMark;
    void setLessonMark(LessonMark mark);
    // The parameters changed: unless a new grid arrives within 60 ms, dim the picture and say
    // "updating..." (the mark shows within 100 ms of the change).
    void markStale();
    void setProgress(double fraction);
    [[nodiscard]] bool stale() const { return m_stale; }
    [[nodiscard]] GridPtr grid() const { return m_grid; }
    // The rectangle the heatmap image fills, in widget coordinates.
    [[nodiscard]] QRect imageRect() const;
    // Device pixels of imageRect(), the size the model should render at.
    [[nodiscard]] QSize imagePixels() const;
    // The font of the tiles' labels and the band (device pixels) above each tile that holds one.
    [[nodiscard]] QFont labelFont() const;
    [[nodiscard]] int labelBand() const;
    // Each tile's label as the last paint wrote it (empty: none), one form for the whole grid.
    [[nodiscard]] const std::vector<QString>& tileLabels() const { return m_tileLabels; }
    [[nodiscard]] QSize sizeHint() const override { return {900, 700}; }

signals:
    // `labelBand`: device pixels above each tile where the view writes the tile's label.
    void pixelSizeChanged(QSize devicePixels, double devicePixelRatio, int labelBand);
    void cellHovered(const QString& description);  // empty when leaving
    void headHovered(int head);
    void headClicked(int head);
    void logScaleToggled(bool on);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    [[nodiscard]] std::optional<CellHit> hitAt(QPointF pos) const;
    void paintColorBar(class QPainter& painter, const QRect& bar);
    void paintLessonMark(class QPainter& painter, const HeatmapTile& tile, const QRectF& tileRect) const;

    std::vector<QString> m_tileLabels;
    GridPtr m_grid;
    QImage m_image;
    int m_highlight = -1;
    int m_selected = -1;
    LessonMark m_lesson;
    bool m_staleAsked = false;  // a change is pending (the mark shows once m_staleTimer fires)
    bool m_stale = false;
    double m_progress = -1;
    bool m_refining = false;      // the grid shown is a preview from fewer exact rows, being refined
    QElapsedTimer m_sinceChange;  // since the change being computed (the progress's estimate)
    QTimer* m_staleTimer = nullptr;
    QCheckBox* m_log = nullptr;
    bool m_hoverTips = true;
};

}  // namespace alibi::qt
