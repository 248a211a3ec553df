// The "Two heads" tab of the attention-maps page: head A (layer, head) against head B (any
// layer and head of the same file) or against A's ALiBi prior at its configured slope or at its
// fitted m*. The picture is the core's figure itself (figure/head_compare_figure.hpp: A | B on
// one probability scale, B - A on a diverging scale, token axes, each side's fit), rendered at
// the widget's size off the UI thread; the mouse maps back to a cell with the core's hit test and
// the read-out (query and key tokens, A, B and B - A) is the core's. Export draws the same
// figure through the figure job (figureRequest).
#pragma once

#include "model/attention_maps_model.hpp"

#include <alibi/explore/head_compare.hpp>
#include <alibi/explore/job_runner.hpp>
#include <alibi/figure/figure_job.hpp>
#include <alibi/figure/head_compare_figure.hpp>

#include <QImage>
#include <QWidget>

#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QSpinBox;

namespace alibi::qt {

// The figure shown 1:1 at the widget's device pixels, and the cell under the mouse.
class HeadCompareCanvas : public QWidget {
    Q_OBJECT
public:
    explicit HeadCompareCanvas(QWidget* parent = nullptr);
    void setPicture(QImage image, double ratio);
    void setMessage(const QString& message);
    [[nodiscard]] bool hasPicture() const { return !m_image.isNull(); }
    // The device pixel under widget position `pos`, and back (tests, xdotool).
    [[nodiscard]] std::optional<QPoint> devicePixelAt(QPointF pos) const;
    [[nodiscard]] QPoint widgetPosOf(QPoint devicePixel) const;
    [[nodiscard]] QSize sizeHint() const override { return {900, 560}; }
    [[nodiscard]] QSize minimumSizeHint() const override { return {320, 200}; }

signals:
    void hovered(QPoint devicePixel);  // (-1, -1): none
    void resized();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    QImage m_image;
    double m_ratio = 1;
    QString m_message;
};

class TwoHeadsView : public QWidget {
    Q_OBJECT
public:
    explicit TwoHeadsView(AttentionMapsModel* model, QWidget* parent = nullptr);
    ~TwoHeadsView() override;

    // Side A and side B (a head, or A's prior); refreshes the picture.
    void setA(int layerIndex, int head);
    void setB(explore::CompareSource source, int layerIndex = 0, int head = 0);
    // After a new file, fit or pairing: pickers' ranges and the picture.
    void refresh();

    [[nodiscard]] HeadCompareCanvas* canvas() const { return m_canvas; }
    [[nodiscard]] bool pending() const { return m_pending; }
    [[nodiscard]] const std::shared_ptr<const explore::HeadCompareResult>& result() const { return m_result; }
    [[nodiscard]] const HeadCompareFigure& figure() const { return m_figure; }
    [[nodiscard]] QString hoverText() const { return m_hoverText; }
    // The read-out of the cell under device pixel `p`, as hovering shows it ("" off the panels).
    [[nodiscard]] QString hoverAt(QPoint devicePixel) const;
    // The same figure for the figure job, `width` x `height` at 1x; nullopt when no maps are open.
    [[nodiscard]] std::optional<FigureJobRequest> figureRequest(int width, int height, int scale) const;
    // "layer3-head5-vs-layer7-head2", for file names.
    [[nodiscard]] QString figureName() const;

signals:
    void cellHovered(const QString& text);  // one line for the status bar; empty: none
    void pictureShown();

protected:
    void showEvent(QShowEvent* event) override;

private:
    [[nodiscard]] std::optional<explore::HeadCompareRequest> request() const;
    void updatePickers();
    void onHovered(QPoint devicePixel);

    AttentionMapsModel* m_model;
    QSpinBox* m_aLayer;
    QSpinBox* m_aHead;
    QComboBox* m_bKind;
    QSpinBox* m_bLayer;
    QSpinBox* m_bHead;
    QLabel* m_bLayerLabel;
    QLabel* m_bHeadLabel;
    QLabel* m_readout;
    HeadCompareCanvas* m_canvas;
    std::shared_ptr<const explore::HeadCompareResult> m_result;
    MapsPtr m_resultMaps;  // the maps m_result was computed on
    HeadCompareFigure m_figure;
    QString m_hoverText;
    bool m_pending = false;
    bool m_dirty = false;       // a refresh asked for while hidden, done when shown
    std::uint64_t m_shown = 0;  // the runner's generation last shown
    explore::JobRunner m_runner{{.niceness = 2}};
};

}  // namespace alibi::qt
