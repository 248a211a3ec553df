// The head grid: the core's heatmap of every head at the widget's device-pixel size, with head
// labels (index and slope), a colour bar, hover read-out and click-to-open.
#pragma once

#include "model/snapshot.hpp"

#include <QImage>
#include <QWidget>

namespace alibi::qt {

class HeadGridView : public QWidget {
    Q_OBJECT
public:
    explicit HeadGridView(QWidget* parent = nullptr);

    void setGrid(GridPtr grid);
    void setHighlightedHead(int head);  // linked hover from other views; -1: none
    void setSelectedHead(int head);
    [[nodiscard]] GridPtr grid() const { return m_grid; }
    // The rectangle the heatmap image fills, in widget coordinates.
    [[nodiscard]] QRect imageRect() const;
    // Device pixels of imageRect(), the size the model should render at.
    [[nodiscard]] QSize imagePixels() const;
    [[nodiscard]] QSize sizeHint() const override { return {900, 700}; }

signals:
    void pixelSizeChanged(QSize devicePixels, double devicePixelRatio);
    void cellHovered(const QString& description);  // empty when leaving
    void headHovered(int head);
    void headClicked(int head);

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

    GridPtr m_grid;
    QImage m_image;
    QImage m_colorBar;
    int m_highlight = -1;
    int m_selected = -1;
};

}  // namespace alibi::qt
