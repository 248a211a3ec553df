// Small helpers shared by the views: wrapping core images as QImages, and the number formats
// every label uses (slopes as 1/2^k when exact, values with six significant digits), and the
// layout the views with a table share.
#pragma once

#include "model/snapshot.hpp"

#include <QColor>
#include <QImage>
#include <QLayout>
#include <QString>
#include <QWidget>

namespace alibi::qt {

// A deep copy of a core RGBA image, tagged with the device pixel ratio it was rendered for.
[[nodiscard]] QImage toQImage(const Image& image, double devicePixelRatio = 1.0);
// "1/2", "1/256", "2^-1.5", or "0.0731" for slopes that are no power of two.
[[nodiscard]] QString slopeText(double slope);
// A value as a person reads it: "-1.5", "-1e+09", "−∞", "0.0123".
[[nodiscard]] QString valueText(double value);
[[nodiscard]] QColor toQColor(const Rgba& rgba);
// Black or white, whichever reads better on `background`.
[[nodiscard]] QColor contrastingText(const QColor& background);
// The description of one cell (head, query, key, distance, slope, value and the formula with
// numbers filled in), as the status bar and the tooltip show it. `html` adds line breaks.
[[nodiscard]] QString cellDescription(const Session& session, const std::vector<double>& slopes, int head,
                                      std::int64_t query, std::int64_t key, bool html);
// The layout of a view with a table: a row of controls on top, then `upper` over `table` in a
// vertical splitter sharing the height 3:2.
void layoutControlsPlotsTable(QWidget* view, QLayout* controls, QWidget* upper, QWidget* table);
// A distinct colour for series n of count (head colours follow viridis, ordered like the heads).
[[nodiscard]] QColor seriesColor(int n, int count, bool categorical);

}  // namespace alibi::qt
