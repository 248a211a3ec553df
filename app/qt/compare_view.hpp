// Compare: parameter set B (the current set A with some parameters replaced) against A, the
// difference A − B per head with the diverging colour map, and the largest absolute difference.
#pragma once

#include "lesson_mark.hpp"
#include "model/snapshot.hpp"

#include <alibi/render/color_scale.hpp>

#include <QWidget>

#include <functional>
#include <string>
#include <vector>

#include <vector>

class QBoxLayout;
class QComboBox;
class QDoubleSpinBox;
class QLabel;

namespace alibi::qt {

class ImagePanel;

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(QWidget* parent = nullptr);
    // Inside its tab's scroll area the view fills the room there is (down to its minimum size):
    // the word-wrapped caption would otherwise make QScrollArea size it by height-for-width, the
    // preferred height, and push the lower half out of sight at 1280x720 with a lesson open.
    [[nodiscard]] int heightForWidth(int) const override { return -1; }
    void setSnapshot(const SnapshotPtr& snapshot);
    void markStale();
    void setSpec(const CompareOverrides& spec);
    [[nodiscard]] CompareOverrides spec() const;
    [[nodiscard]] QString summary() const;
    [[nodiscard]] const QLabel* summaryLabel() const { return m_summary; }  // the read-out as shown (tests)
    // A lesson step's heads (their tiles outlined) and cell (framed in its head's tile).
    void setLessonMark(LessonMark mark);
    [[nodiscard]] ImagePanel* image() const { return m_image; }
    // The "Try: ..." hint under the read-out (hidden in presentation mode: a lecture does not
    // need it, and the tiles get its lines).
    void setHintShown(bool shown);

signals:
    void specChanged(const alibi::CompareOverrides& spec);
    // The picture's room in device pixels and the label band it needs there, whenever either
    // changes: the model asks the core for tiles laid out for this shape (issue 27).
    void pictureSizeChanged(QSize devicePixels, int labelBand);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void arrange();

    QComboBox* m_scheme;
    QComboBox* m_dtype;
    QComboBox* m_mode;
    QComboBox* m_mask;
    QDoubleSpinBox* m_maxBias;
    // B's custom slopes when a session or lesson gave some (the combo then offers "custom").
    std::vector<double> m_customB;
    QLabel* m_summary;
    QWidget* m_box;                // B's settings
    class QBoxLayout* m_top;       // B's settings and the read-out: side by side, or the read-out below
    QString m_clauses, m_phrases;  // the read-out's two parts, with the core's no-break spaces
    QLabel* m_hint;
    ImagePanel* m_image;
    LessonMark m_lesson;
    std::int64_t m_queries = 0, m_keys = 0;  // the tensor of the image shown
    class StaleOverlay* m_stale;
};

// A core image drawn to fit, with head labels and a colour bar for [lo, hi].
class ImagePanel : public QWidget {
    Q_OBJECT
public:
    explicit ImagePanel(QWidget* parent = nullptr);
    void setImage(const Image& image, const std::vector<HeatmapTile>& tiles, Colormap map, double lo, double hi,
                  const QString& barLabel);
    // The image with the core's colour bar (exact ends, round ticks, masked swatch).
    void setImage(const Image& image, const std::vector<HeatmapTile>& tiles, Colormap map, const alibi::ColorBar& bar);
    void setMessage(const QString& message);
    // The tiles' labels, in tile order (empty: "h3" from each tile's head), e.g. the core's
    // "b1 h3" of a batch's error map.
    void setTileLabels(std::vector<std::string> labels);
    // The hover read-out of cell (query, key) of tile `tile` (the core's words), shown as a
    // tooltip; empty function: none.
    void setReadout(std::function<QString(int tile, std::int64_t query, std::int64_t key)> readout);
    // What a lesson points at, drawn in orange over the tiles: `queries` x `keys` is each tile's
    // tensor, for finding the cell.
    void setLessonMark(LessonMark mark, std::int64_t queries, std::int64_t keys);
    [[nodiscard]] const LessonMark& lessonMark() const { return m_lesson; }
    // Where the image is drawn (widget coordinates) and its scale, for finding a tile on screen.
    [[nodiscard]] QRectF imageRect() const;
    // The room the image is fitted into (the panel less its margins and the colour bar's room).
    [[nodiscard]] QRectF pictureArea() const;
    // The image pixels to leave above each tile (the core's label band) so that, drawn at this
    // panel's size, a label line of this font fits there.
    [[nodiscard]] int labelBandFor(QSize imagePixels) const;
    // Where tile n's label was written last (widget coordinates; empty: none), and its text (tests).
    [[nodiscard]] QRectF labelRect(std::size_t n) const { return n < m_labelRects.size() ? m_labelRects[n] : QRectF(); }
    [[nodiscard]] QString labelText(std::size_t n) const {
        return n < m_labelTexts.size() ? m_labelTexts[n] : QString();
    }
    // Where tile n is drawn (widget coordinates; empty: no such tile).
    [[nodiscard]] QRectF tileRect(std::size_t n) const;
    [[nodiscard]] std::size_t tileCount() const { return m_tiles.size(); }
    [[nodiscard]] QSize sizeHint() const override { return {700, 500}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    std::vector<std::string> m_tileLabels;
    std::function<QString(int, std::int64_t, std::int64_t)> m_readout;
    QImage m_image;
    Colormap m_map = Colormap::Viridis;
    alibi::ColorBar m_bar;
    std::vector<HeatmapTile> m_tiles;
    std::vector<QRectF> m_labelRects;  // where the last paint wrote each label
    std::vector<QString> m_labelTexts;
    QString m_message;
    LessonMark m_lesson;
    std::int64_t m_queries = 0, m_keys = 0;
};

}  // namespace alibi::qt
