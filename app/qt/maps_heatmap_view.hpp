// One picture of saved attention maps (a layer's heads, every layer, one head, or the heads'
// similarity matrix): the core's heatmap rendered at the widget's device-pixel size and drawn
// 1:1, a title and subtitle, a label per tile in the band the core leaves above it (labelBand;
// never over a cell), optional head labels along the axes (similarity),
// the core's colour bar with the exact ends of what is shown, and the device pixel under the
// mouse for the owner's hover read-out. What to render is the owner's callback.
// Rendering runs off the UI thread (a niced worker, one job at a time): the latest request wins,
// an older result is dropped, and the shown picture stays, dimmed with "updating...", until the
// new one arrives, so reading rows of a large file never freezes the window.
#pragma once

#include <alibi/explore/lesson_state.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/render.hpp>

#include <QFutureWatcher>
#include <QImage>
#include <QWidget>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace alibi::qt {

class StaleOverlay;

// What a render job hands back: the heatmap, the layer it shows (hover read-outs read that
// layer, so they stay exact while a newer picture is pending), and what to set on the UI thread
// once it is shown (labels, headers that describe this picture).
struct RenderedMaps {
    Result<Heatmap> map;
    int layerIndex = -1;
    std::function<void()> shown;
};

class MapsHeatmapView : public QWidget {
    Q_OBJECT
public:
    // Runs on the worker thread: reads only what it captured (the maps are const and memory-mapped).
    using RenderJob = std::function<RenderedMaps()>;
    // Called on the UI thread with the pixel size: captures the current state into a job.
    using Renderer = std::function<RenderJob(QSize devicePixels)>;
    explicit MapsHeatmapView(QWidget* parent = nullptr);
    ~MapsHeatmapView() override;

    // The picture's source; rendered now and again on every resize. Null: `message` only.
    void setRenderer(Renderer renderer);
    // Asks for a new picture; returns at once (pending() until it is shown).
    void refresh();
    // A requested picture has not been shown yet (the shown one, if any, is marked "updating...").
    [[nodiscard]] bool pending() const { return m_shownGeneration != m_generation; }
    // The layer of the shown picture (-1: none, or not a one-layer picture).
    [[nodiscard]] int shownLayer() const { return m_shownLayer; }
    // The subtitle follows the heatmap's own pixel summary ("1 cell = 3 x 3 px · ...").
    void setHeader(const QString& title, const QString& subtitle);
    void setMessage(const QString& message);
    void setColormap(Colormap map) { m_colormap = map; }
    void setColorBarTitle(const QString& title) { m_barTitle = title; }
    void setMaskedSwatch(bool on) { m_maskedSwatch = on; }
    // The colour bar's ends read in this dtype's shortest exact text (the file's dtype).
    void setBarDType(DType dtype) { m_barDType = dtype; }
    // Each tile's label forms, longest first (the core's mapsTileLabelForms).
    void setTileLabels(std::vector<std::vector<std::string>> forms);
    // The bar of one tile of a per-head picture, tile `tile`'s range with `ticks` ticks: the
    // owner's core function (the attention maps: attentionMapsColorBar, the bar the exported
    // figures carry; it may name the tile in ColorBar::head). A shared scale's bar is the
    // picture's range in the bar dtype.
    using ColorBarFn = std::function<alibi::ColorBar(const Heatmap& map, int tile, int ticks)>;
    void setColorBarSource(ColorBarFn source) { m_barSource = std::move(source); }
    // Per-head colour scales (the owner renders each tile on its own range): the bar shows the
    // hovered tile's range (else the highlighted tile's, else the first's) named by its head, and
    // the core's note of what each range leaves out (perHeadScaleNote) stands under the picture.
    void setPerHeadScale(bool on);
    [[nodiscard]] bool perHeadScale() const { return m_perHead; }
    // The bar the last paint drew, the tile whose range it shows (-1: shared), and the note under
    // the picture with where it was drawn (tests).
    [[nodiscard]] const alibi::ColorBar& shownColorBar() const { return m_shownBar; }
    [[nodiscard]] int colorBarTile() const { return m_barTile; }
    [[nodiscard]] QString scaleNote() const { return m_note; }
    [[nodiscard]] QRectF scaleNoteRect() const { return m_noteRect; }
    // The device pixels a renderer leaves above each tile of several (MapsHeatmapParams::labelBand)
    // for its label at this widget's font.
    [[nodiscard]] int labelBand() const;
    // Where tile n's label was written last (widget coordinates; empty: none), its text, and
    // where tile n is drawn (tests).
    [[nodiscard]] QRectF labelRect(std::size_t n) const { return n < m_labelRects.size() ? m_labelRects[n] : QRectF(); }
    [[nodiscard]] QString labelText(std::size_t n) const {
        return n < m_labelTexts.size() ? m_labelTexts[n] : QString();
    }
    [[nodiscard]] QRectF tileRect(std::size_t n) const;
    // Labels of the single tile's rows and columns (the similarity matrix's heads, in order).
    void setAxisLabels(QStringList labels);
    // Which axis labels the last paint wrote: {across the top, down the left} per label.
    [[nodiscard]] const std::vector<std::pair<bool, bool>>& axisLabelsDrawn() const { return m_axisLabelsDrawn; }
    // The tokens of the keys and of the query rows, made visible (one picture of one head): each
    // axis labels every k-th cell with its token, k the smallest step that keeps them a text line
    // apart (the core's rule, indexAxisLabels); the picture then leaves room for them. Empty: none.
    void setCellTokens(std::vector<std::string> keys, std::vector<std::string> queries);
    void setHighlightedTile(int tile);
    // A lesson step's mark on this picture of `queries` x `keys` cells (the core's, for the layer
    // shown): the marked heads' tiles outlined (a grid of several), the marked cell framed.
    void setLessonMark(explore::LessonMark mark, std::int64_t queries, std::int64_t keys);
    [[nodiscard]] const explore::LessonMark& lessonMark() const { return m_lesson; }
    // The widget rectangle of cell (query, key) of tile `tile` as drawn (tests); empty: none.
    [[nodiscard]] QRectF cellRect(int tile, std::int64_t query, std::int64_t key) const;

    [[nodiscard]] const Heatmap& heatmap() const { return m_map; }
    [[nodiscard]] const std::vector<std::string>& keyTokens() const { return m_keyTokens; }
    [[nodiscard]] bool hasPicture() const { return !m_image.isNull(); }
    [[nodiscard]] QRect imageRect() const;
    [[nodiscard]] QSize imagePixels() const;
    // The device pixel of the heatmap under widget position `pos`, if any.
    [[nodiscard]] std::optional<QPoint> devicePixelAt(QPointF pos) const;
    // The widget position of the centre of device pixel `p` (tests, xdotool).
    [[nodiscard]] QPoint widgetPosOf(QPoint devicePixel) const;
    [[nodiscard]] QString lastError() const { return m_error; }
    [[nodiscard]] QSize sizeHint() const override { return {800, 600}; }
    [[nodiscard]] QSize minimumSizeHint() const override { return {240, 180}; }

signals:
    void hovered(QPoint devicePixel);  // (-1, -1): none
    void clicked(QPoint devicePixel);
    void wheelSteps(int steps);
    void renderFailed(const QString& message);
    void pictureShown();  // the latest requested picture (or its error) is now shown

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    [[nodiscard]] int axisMargin() const;
    [[nodiscard]] int noteHeight() const;         // the band under the picture the scale note takes
    [[nodiscard]] int tileAt(QPointF pos) const;  // the tile under `pos` (-1: none)
    void startNext();
    void onRendered();
    void show(RenderedMaps picture, double ratio);

    struct Queued {
        std::uint64_t generation = 0;
        RenderJob job;
        double ratio = 1;
    };
    QFutureWatcher<RenderedMaps>* m_watcher;
    StaleOverlay* m_stale;
    std::optional<Queued> m_queued;  // the newest request not yet started (older ones are dropped)
    std::uint64_t m_generation = 0, m_shownGeneration = 0, m_runningGeneration = 0;
    double m_runningRatio = 1;
    QSize m_requestedPixels;
    int m_shownLayer = -1;

    Renderer m_renderer;
    Heatmap m_map;
    QImage m_image;
    QString m_title, m_subtitle, m_message, m_error, m_barTitle = QStringLiteral("probability");
    Colormap m_colormap = Colormap::Viridis;
    std::vector<std::vector<std::string>> m_tileLabels;
    std::vector<QRectF> m_labelRects;  // where the last paint wrote each label
    std::vector<QString> m_labelTexts;
    QStringList m_axisLabels;
    std::vector<std::pair<bool, bool>> m_axisLabelsDrawn;
    std::vector<std::string> m_keyTokens, m_queryTokens;
    [[nodiscard]] int tokenMargin() const;
    int m_highlight = -1;
    explore::LessonMark m_lesson;
    std::int64_t m_lessonQueries = 0, m_lessonKeys = 0;
    bool m_maskedSwatch = false;
    DType m_barDType = DType::F32;  // the shown values are doubles; f32 text keeps the bar readable
    double m_renderedRatio = 1;
    ColorBarFn m_barSource;
    bool m_perHead = false;
    int m_hoveredTile = -1, m_barTile = -1;
    alibi::ColorBar m_shownBar;
    // The note under a per-head picture, and the longest one seen while per-head is on: its band
    // is kept (a note that came and went with the picture's size would resize it back and forth).
    QString m_note, m_noteRoom;
    QRectF m_noteRect;
};

}  // namespace alibi::qt
