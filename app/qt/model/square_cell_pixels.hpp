// The picture size at which the core's tile placement gives square cells, for the Qt views
// whose pictures the core draws filling the size they ask for (the head grid, a layer of
// attention maps, Diagnose's error map). Qt-Core only: the session model asks with it too.
#pragma once

#include <alibi/render/render.hpp>

#include <QSize>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace alibi::qt {

// The picture size within `room` (pixels) for `tiles` tiles of queries x keys cells, `gap`
// pixels apart with a label band of `band` pixels above each, at which the core's tile placement
// (gridLayout, tiles filling the picture) gives the largest tiles of square cells: the columns
// are those gridLayout picks for that size. `room` itself when none fits.
inline QSize squareCellPixels(QSize room, int tiles, std::int64_t queries, std::int64_t keys, int gap, int band) {
    const int n = std::max(tiles, 1);
    const double Q = static_cast<double>(std::max<std::int64_t>(queries, 1));
    const double K = static_cast<double>(std::max<std::int64_t>(keys, 1));
    QSize best = room;
    double bestCell = 0;
    for (int c = 1; c <= n; ++c) {
        const int r = (n + c - 1) / c;
        const double cell = std::min(static_cast<double>(room.width() - gap * (c - 1)) / (c * K),
                                     static_cast<double>(room.height() - (gap + band) * r + gap) / (r * Q));
        const int w = static_cast<int>(std::floor(cell * K)), h = static_cast<int>(std::floor(cell * Q));
        if (w < 1 || h < 1 || cell <= bestCell) continue;
        // The core keeps every row's band within a quarter of the height per row: the band it
        // will leave, so the tiles come out h high.
        int b = band;
        for (int k = 0; k < 3; ++k) b = std::clamp(band, 0, (r * (h + b) + gap * (r - 1)) / (4 * r));
        const QSize size(c * w + gap * (c - 1), r * (h + b) + gap * (r - 1));
        // The core places the tiles by its own rule: keep a size only where that rule agrees.
        if (alibi::gridLayout(n, size.width(), size.height()).columns != c) continue;
        bestCell = cell;
        best = size;
    }
    return best;
}

}  // namespace alibi::qt
