// Small helpers shared by the views: wrapping core images as QImages, the core's number formats
// and hover read-out as QStrings, painting a core ColorBar and the stale mark, and the layout the
// views with a table share. No ALiBi logic: every number and text comes from the core.
#pragma once

#include "model/snapshot.hpp"

#include <alibi/render/color_scale.hpp>

#include <QColor>
#include <QElapsedTimer>
#include <QImage>
#include <QLayout>
#include <QRectF>
#include <QString>
#include <QWidget>

#include <string>
#include <vector>

class QTabWidget;

class QTableView;

class QTimer;

class QFontMetrics;

namespace alibi::qt {

// A core string (UTF-8) as a QString.
inline QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

// The core's keepPhrasesWhole / keepClausesWhole / keepFormulasWhole text as Qt should lay it out:
// Qt's line breaker (UAX 14) also breaks after '/', '|' and '-' even before a no-break space
// ("2^(-8(h+1)/" | "H)", "max |" | "A - B|"), so a U+2060 WORD JOINER follows each of them that
// is not followed by an ordinary space; a '/' only inside a formula, not a path's '/' between
// letters ("scripts/make_example_attention.py" may break there rather than before its ",").
// The core's wrapLines (ImGui) breaks at spaces only.
[[nodiscard]] QString keepBreaksAtSpaces(const QString& text);
[[nodiscard]] QString keepBreaksAtSpaces(const std::string& text);
// A hover read-out as the band and the tooltips lay it out, one rule for both (the s40 re-check:
// the tooltip wrapped "key" | "j = 6" and "-0.5 × 5" | "= -2.5" where the band did not): each
// " · " phrase whole (the core's keepPhrasesWhole), a short parenthesised group on one line
// (keepShortGroupsWhole), an operator on the line of its value (keepOperatorsWithTheirValues:
// "configured m = 1/2 ->" | "1.65013e-13", "attention p =" | "softmax(...)"), Qt's breaker kept
// to the spaces left (keepBreaksAtSpaces). Line by line.
[[nodiscard]] QString readoutBreaks(const QString& text);
// The same as a tooltip's rich text: its lines joined by <br>.
[[nodiscard]] QString readoutTooltip(const QString& text);
// A view's header ("layer 0, head 3 · fitted m* = 0.03 · configured m = 1/32"): its " · " phrases
// whole and every operator on the line of its value (the core's keepOperatorsWithTheirValues:
// the Head title broke "configured m =" | "1/32").
[[nodiscard]] QString headerBreaks(const std::string& text);
// A title of long clauses ("layer 3: head x head Jensen-Shannon distance between ..."), which
// keepPhrasesWhole would keep whole past the view's width: only its operators kept with their
// values (the Head tab's "layer 0, head 3 · configured m = 1/32").
[[nodiscard]] QString titleBreaks(const std::string& text);

// A core error shown in a view (a snapshot's `error`, a failed computation) in the explorers'
// words (explore::guiMessage): "Scheme", never a CLI flag such as "--scheme" (issue 27).
[[nodiscard]] QString shownError(const std::string& coreMessage);

// A deep copy of a core RGBA image, tagged with the device pixel ratio it was rendered for.
[[nodiscard]] QImage toQImage(const Image& image, double devicePixelRatio = 1.0);
// alibi::formatSlope: "1/2", "1/256", "2^-1.5", or "0.0731" for slopes that are no power of two.
[[nodiscard]] QString slopeText(double slope);
// alibi::formatValue: "-1.5", "-1e+09", "-inf", "0.0123".
[[nodiscard]] QString valueText(double value);
[[nodiscard]] QColor toQColor(const Rgba& rgba);
// Black or white, whichever reads better on `background`.
[[nodiscard]] QColor contrastingText(const QColor& background);
// The core's hover read-out (explore::cellReadoutComputed) of one cell, as the status bar (one
// line, parts separated by wide gaps) or the tooltip (`html`: line breaks) shows it.
[[nodiscard]] QString cellDescription(const Session& session, const std::vector<double>& slopes, int head,
                                      std::int64_t query, std::int64_t key, bool html);

// Paints a core colour bar: the gradient in `bar` (vertical, high end on top), a tick mark and
// label at each of its ticks (the ends exact), its title above and the masked swatch below.
// Labels go right of the bar, within `labelWidth` pixels.
void paintColorBar(class QPainter& painter, const QRect& bar, const alibi::ColorBar& colorBar, Colormap map,
                   const QPalette& palette, int labelWidth);
// Where paintColorBar last painted a bar on `widget` (widget coordinates; empty: none).
[[nodiscard]] QRect paintedColorBarRect(const QWidget* widget);
// The room paintColorBar needs at the font `fm` measures (a zoomed or presentation font): above
// the bar for its title, below it for the masked swatches (and the last tick label's lower half),
// and right of it for labels as wide as `widestLabel`.
[[nodiscard]] int colorBarTitleRoom(const QFontMetrics& fm);
[[nodiscard]] int colorBarKeyRoom(const QFontMetrics& fm, bool fullyMaskedRows);
[[nodiscard]] int colorBarLabelRoom(const QFontMetrics& fm, const QString& widestLabel = QStringLiteral("-10.606602"));
// The stale mark over a view whose picture is older than the parameters: the area dimmed and
// the core's "updating..." (explore::progressText: the percentage when `progress` >= 0, "about
// N s left" when `secondsLeft` >= 0) in its centre. `refining`: the picture is a preview being
// refined, shown undimmed, "preview, refining..." at its bottom edge (staleMarkRect), where no
// tile label sits (labels are above their tiles).
void paintStale(class QPainter& painter, const QRect& area, double progress, const QPalette& palette,
                double secondsLeft = -1, bool refining = false);
// Where paintStale draws its box for `text` in the bold font `fm` measures.
[[nodiscard]] QRect staleMarkRect(const QRect& area, const QFontMetrics& fm, const QString& text, bool refining);
// A see-through child that covers its parent and, once marked stale for 60 ms without being
// cleared, dims it with "updating..." (so the mark shows within 100 ms of a change, and a fast
// answer never flickers). Views call markStale() on a change and clear() with the new snapshot.
class StaleOverlay : public QWidget {
public:
    explicit StaleOverlay(QWidget* parent);
    void markStale();
    void clear();
    void setProgress(double fraction);
    // A preview is shown while the exact picture is computed: the mark says "preview, refining..."
    // at the bottom edge, over an undimmed view, until clear() (markStale() ends it too).
    void showRefining();
    [[nodiscard]] bool stale() const { return isVisible(); }

protected:
    void paintEvent(QPaintEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QTimer* m_timer;
    bool m_asked = false;
    double m_progress = -1;
    bool m_refining = false;
    QElapsedTimer m_since;  // since the first progress report, for the estimate of the time left
};

// Each tile's label (labels[n], or "h3" from its head) in the band the core left free above it
// (HeatmapParams::labelBand, alibi::tileLabelRoom), as the head grid and the figures write them:
// never over a cell. The tiles are drawn at `target`'s top-left, `sx` x `sy` widget pixels per
// image pixel; the label font (`font` at 0.9) shrinks to the band as drawn. Every tile of the
// grid takes one form: the given labels when each fits its tile, else "h3" on every tile (a tile
// too small even for that gets none). Where each label went (empty: none) and its text, in tile
// order.
struct PaintedTileLabels {
    std::vector<QRectF> rects;
    std::vector<QString> texts;
};
PaintedTileLabels paintTileLabels(class QPainter& painter, const QFont& font, QPointF target, double sx, double sy,
                                  const std::vector<HeatmapTile>& tiles, const std::vector<QString>& labels);
// The same with each tile's forms given, longest first (alibi::mapsTileLabelForms, tileLabelForms):
// the first level whose form fits every tile (alibi::chooseTileLabels).
PaintedTileLabels paintTileLabelForms(class QPainter& painter, const QFont& font, QPointF target, double sx, double sy,
                                      const std::vector<HeatmapTile>& tiles,
                                      std::vector<std::vector<std::string>> forms);
// The image pixels to leave above each tile for such a label drawn at `scale` widget pixels per
// image pixel in `font` (what the views ask the core for).
[[nodiscard]] int tileLabelBandFor(const QFont& font, double scale);
// Keeps every tab of `tabs` whole in its bar, never behind scroll arrows ("Co", "Extr" at
// 1280x720 presentation), whenever the widget is resized or its font changes: the tabs' own
// names when they fit, else `shortNames` (the full name then in the tab's tooltip), else the
// short names in a smaller font (down to half the font: a presentation font of 175 % stays at
// least the normal size). Nothing is elided.
void fitTabs(QTabWidget* tabs, const QStringList& shortNames);
// Fits the tabs again (after tabs were shown or hidden).
void refitTabs(QTabWidget* tabs);

// The texts a self-painting view drew in its last paint, for the layout test (issue 27): each
// with the rectangle it took in the widget's coordinates, whether it was shortened ("…") and
// whether part of it fell outside the widget or the painter's clip. beginPaintedTexts() at the
// start of a paint event forgets the previous ones; drawRecordedText() draws and records.
struct PaintedText {
    QString text;
    QRectF rect;
    bool elided = false, cut = false;
};
void beginPaintedTexts(const QWidget* widget);
[[nodiscard]] std::vector<PaintedText> paintedTexts(const QWidget* widget);
// Draws `shown` (or `full` when `shown` is empty) in `rect` with `flags` as QPainter::drawText
// does, and records it; `full` is the whole text, so a shortened `shown` counts as elided. The
// rectangle the text took (QPainter::boundingRect) is returned, in the painter's coordinates.
QRectF drawRecordedText(class QPainter& painter, const QWidget* widget, const QRectF& rect, int flags,
                        const QString& full, const QString& shown = QString());

// The layout of a view with a table: a row of controls on top, then `upper` over `table` in a
// vertical splitter sharing the height 3:2.
void layoutControlsPlotsTable(QWidget* view, QLayout* controls, QWidget* upper, QWidget* table);
// A table that fills its own tab and scrolls sideways (the Attention maps' fit table): its text
// kept at the plots' scale of `view`'s font (presentation mode scales plot text less than the
// lesson text), smaller still, down to three quarters of that, until its first `firstColumns`
// columns (in the header's order) fit the width; its height is left to its layout. It scrolls a
// column at a time and shows whole columns only: those in view share the room a cut one would take.
void keepTableTextAtPlotScale(QWidget* view, QTableView* table, int firstColumns);
// A distinct colour for series n of count: the core's head ramp on a light background
// (alibi::seriesColor), or the categorical palette.
[[nodiscard]] QColor seriesColor(int n, int count, bool categorical);

}  // namespace alibi::qt
