// One head up close: the core's single-head heatmap with zoom (wheel) and pan (drag), axis
// ticks, and at small T every cell's number, so the matrix reads like the paper's Figure 3.
#pragma once

#include "model/snapshot.hpp"

#include <alibi/render/cell_numbers.hpp>

#include <QImage>
#include <QWidget>

namespace alibi::qt {

struct TopBands;

class HeadDetailView : public QWidget {
    Q_OBJECT
public:
    explicit HeadDetailView(QWidget* parent = nullptr);
    void setSnapshot(SnapshotPtr snapshot);
    // A first picture of the head image (explore::DetailPreviewFn: only its detail fields are
    // set), shown with "preview, refining..." until setSnapshot brings the exact one.
    void setPreview(SnapshotPtr preview);
    void markStale();
    void resetView();
    // A cell a lesson step points at, marked when the detail shows `head` (head -1: none).
    void setLessonCell(int head, std::int64_t query, std::int64_t key);
    [[nodiscard]] double cellSize() const { return m_cell; }
    // A widget shown at the view's top right, on the title's line (presentation mode puts the
    // Head and Fit controls there, so the cells get the height of their row); nullptr: none. The
    // view takes the widget as its child; the caller takes it back (setParent) after clearing it.
    void setCornerWidget(QWidget* corner);
    // The cell read-out as the tooltip too (off in presentation mode: the window's read-out band
    // says it, and the tooltip covered the cited cell: s40 review F2).
    void setHoverTips(bool on);
    // The point size of the numbers printed in the cells by the last paint (0: none printed).
    [[nodiscard]] double cellNumberPointSize() const { return m_numberPt; }
    // The smallest size of the numbers around a lesson's marked cell: the interface's normal size.
    static constexpr double kLessonNumberPt = 9.0;
    // Where the last paint put the colour bar (empty: none) and the lesson's marked cell (empty:
    // none marked or not shown), in widget coordinates (tests).
    [[nodiscard]] QRectF colorBarRect() const { return m_colorBarRect; }
    // The rectangles the title and the subtitle were drawn in at the last paint (QPainter clips
    // a text to its rectangle, so a line shorter than the font loses its descent: s39 F6).
    [[nodiscard]] QRectF titleBox() const { return m_titleBox; }
    [[nodiscard]] QRectF subtitleBox() const { return m_subtitleBox; }
    [[nodiscard]] QRectF lessonCellRect() const { return m_lessonCellRect; }
    // What the marked cell's frame covers, its dark edge included (tests: never a neighbour's number).
    [[nodiscard]] QRectF lessonFrameRect() const { return m_lessonFrameRect; }
    // Where the marked cell's number is printed: inside the frame's clear inside.
    [[nodiscard]] QRectF lessonNumberRect() const { return m_lessonNumberRect; }
    // The point size of that number (0: none printed); the other cells' is cellNumberPointSize.
    [[nodiscard]] double lessonNumberPointSize() const { return m_lessonNumberPt; }
    // The width of the marked cell's frame line with its dark edge, inward from lessonFrameRect.
    [[nodiscard]] double lessonFrameLineWidth() const { return m_lessonFrameLine; }
    // The title and subtitle as drawn (the subtitle wraps only at its " · " separators).
    [[nodiscard]] QString titleText() const;
    // The whole cells the last paint showed: keys [first, last) and queries [first, last). A
    // panned or zoomed picture shows only whole cells (a column cut at the area's edge had no
    // header and no numbers: issue 27 L1), and the rest lies beyond the scroll bars.
    struct Span {
        std::int64_t first = 0, last = 0;
    };
    [[nodiscard]] Span shownKeys() const { return m_shownKeys; }
    [[nodiscard]] Span shownQueries() const { return m_shownQueries; }
    // The scroll indicators the last paint drew below (keys) and right of (queries) the shown
    // cells when part of the picture lies beyond them: the track and, in it, the thumb standing
    // for the shown part (empty: the whole picture is shown that way).
    [[nodiscard]] QRectF keyScrollTrack() const { return m_keyTrack; }
    [[nodiscard]] QRectF keyScrollThumb() const { return m_keyThumb; }
    [[nodiscard]] QRectF queryScrollTrack() const { return m_queryTrack; }
    [[nodiscard]] QRectF queryScrollThumb() const { return m_queryThumb; }
    [[nodiscard]] QString subtitleText() const;
    [[nodiscard]] QSize sizeHint() const override { return {800, 700}; }

signals:
    void cellHovered(const QString& description);

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // The core's "1 cell = 38.2 x 38.2 px" for the image as drawn now (zoomed), not as rendered.
    [[nodiscard]] std::string shownSummary() const;
    [[nodiscard]] QRectF area() const;
    [[nodiscard]] QFont textFont() const;
    // The bands above the picture the title and subtitle need (wrapped).
    [[nodiscard]] TopBands bands() const;
    void fit();
    // The view's font for the core's rule of numbers in square cells (render/cell_numbers.hpp).
    [[nodiscard]] NumberFont numberFont() const;
    // The head's numbers are probabilities (the attention), not biases.
    [[nodiscard]] bool probabilities() const;
    void placeCorner();
    // The rectangle of the whole cells inside `a` at the current zoom and pan, with their index
    // spans (a dimension where no whole cell fits keeps the area's extent).
    [[nodiscard]] QRectF wholeCells(const QRectF& a, Span& keys, Span& queries) const;
    void paintScrollBars(class QPainter& p, const QRectF& cells, Span keys, Span queries);
    [[nodiscard]] int cornerRoom() const;  // the title line's width the corner widget takes

    SnapshotPtr m_snapshot;
    QImage m_image;
    std::int64_t m_queries = 0, m_keys = 0;
    double m_cell = 1;  // logical pixels per cell
    QPointF m_origin;   // logical position of cell (0, 0)
    bool m_fitted = false;
    int m_lessonHead = -1;
    std::int64_t m_lessonQuery = 0, m_lessonKey = 0;
    bool m_dragging = false;
    QPointF m_dragStart;
    QRectF m_colorBarRect, m_lessonCellRect, m_lessonFrameRect, m_lessonNumberRect;
    QRectF m_titleBox, m_subtitleBox;
    class StaleOverlay* m_stale;
    QWidget* m_corner = nullptr;
    double m_numberPt = 0;
    bool m_hoverTips = true;
    double m_lessonNumberPt = 0;
    Span m_shownKeys, m_shownQueries;
    QRectF m_cellsRect;  // the whole cells shown by the last paint
    QRectF m_keyTrack, m_keyThumb, m_queryTrack, m_queryThumb;
    double m_lessonFrameLine = 0;
};

}  // namespace alibi::qt
