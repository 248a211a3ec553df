// Heatmaps of saved attention maps and of head similarity (see the header).
#include <alibi/base/image_size.hpp>
#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/figure/attention_maps_render.hpp>

#include <alibi/figure/figure.hpp>
#include <alibi/render/color_scale.hpp>

#include <alibi/base/parallel.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

namespace alibi {

namespace {

// Values, exact ranges and colours of every tile of `map` (already placed), tile t showing the
// head tile.head of layer tileLayers[t]: one exact query row per pixel row, keys under a pixel
// reduced (max, mass or mean), keys after a causal query masked.
Result<void> fillMapsTiles(const AttentionMaps& maps, const std::vector<int>& tileLayers,
                           const MapsHeatmapParams& params, unsigned threads, Heatmap& map) {
    map.image.width = params.width;
    map.image.height = params.height;
    map.reduce = params.reduce == Reduce::Auto ? Reduce::Max : params.reduce;
    map.log = params.logScale;
    map.image.pixels.assign(static_cast<std::size_t>(params.width) * static_cast<std::size_t>(params.height),
                            Rgba{0, 0, 0, 0});
    const std::int64_t Q = maps.queries(), K = maps.keys();
    const HeatmapTile& first = map.tiles.front();
    map.cellsPerPixelX = static_cast<double>(K) / std::max(first.width, 1);
    map.cellsPerPixelY = static_cast<double>(Q) / std::max(first.height, 1);
    map.rowsSampled = Q > first.height;

    // Values first (NaN: every key under the pixel is after a causal query), colours once the
    // ranges are known. The ranges are those of every cell the tile covers, not only of the rows
    // drawn: when rows outnumber pixel rows, each pixel row shows one exact row, but the rows
    // between are read for the range too, so the colour bar's ends are the true minimum and
    // maximum whatever the picture's size (issue 25: a uniform causal map showed 0.33 or 0.25
    // as its maximum, its first rows' 1.0 and 0.5 falling between drawn rows).
    std::vector<std::vector<double>> values(map.tiles.size());
    // Rows of one key (a causal map's row 0, p = 1) apart: a per-head scale of several tiles
    // leaves them out of each tile's range (TileValueRange, the explorers' grids' rule).
    std::vector<TileValueRange> ranges(map.tiles.size());
    const bool leaveOutOneKeyRows = params.scale == ScaleMode::PerHead && map.tiles.size() > 1;
    // The keys row q may attend to: 0 .. lastKey(q).
    const auto lastKey = [&](std::int64_t q) { return maps.causal() ? std::min(K - 1, q + K - Q) : K - 1; };
    std::mutex lock;
    std::optional<Error> error;
    std::uint64_t rowsTotal = 0, rowsDone = 0;
    for (const HeatmapTile& tile : map.tiles) rowsTotal += static_cast<std::uint64_t>(std::max(tile.height, 0));
    // Reports `rows` more pixel rows drawn; false once the caller cancelled (or another tile failed).
    const auto advance = [&](std::uint64_t rows) {
        std::lock_guard guard(lock);
        rowsDone += rows;
        if (error) return false;
        if (params.progress && !params.progress(rowsDone, rowsTotal)) {
            error = Error{ErrorCode::Cancelled, "drawing the attention maps was cancelled"};
            return false;
        }
        return true;
    };
    detail::parallelFor(map.tiles.size(), threads, 1, [&](std::uint64_t begin, std::uint64_t end) {
        std::vector<double> row(static_cast<std::size_t>(K));
        for (std::uint64_t t = begin; t < end; ++t) {
            HeatmapTile& tile = map.tiles[t];
            auto& v = values[t];
            TileValueRange& range = ranges[t];
            v.assign(static_cast<std::size_t>(tile.width) * static_cast<std::size_t>(std::max(tile.height, 0)),
                     std::numeric_limits<double>::quiet_NaN());
            std::int64_t lastRow = -1;     // the row now in `row`
            std::int64_t rangedUpTo = -1;  // rows [0, rangedUpTo] are in the range
            constexpr int kRowsPerReport = 32;
            const auto read = [&](std::int64_t q) {
                if (q == lastRow) return true;
                if (auto ok = maps.probabilities(tileLayers[t], tile.head, q, row); !ok) {
                    std::lock_guard guard(lock);
                    if (!error) error = ok.error();
                    return false;
                }
                lastRow = q;
                return true;
            };
            // Every unmasked cell of row q (already in `row`) into the range.
            const auto includeRow = [&](std::int64_t q) {
                const std::int64_t last = lastKey(q);
                for (std::int64_t j = 0; j <= last; ++j) range.add(row[static_cast<std::size_t>(j)], last == 0);
            };
            for (int y = 0; y < tile.height; ++y) {
                if (y % kRowsPerReport == kRowsPerReport - 1 && !advance(kRowsPerReport)) return;
                const CellSpan rows = pixelCells(y, tile.height, Q);
                const std::int64_t q = (rows.first + rows.last) / 2;  // one exact row per pixel row
                // The rows between drawn rows count for the range only.
                for (std::int64_t r = std::max(rows.first, rangedUpTo + 1); r <= rows.last; ++r) {
                    if (r == q) continue;
                    if (!read(r)) return;
                    includeRow(r);
                }
                if (!read(q)) return;
                if (q > rangedUpTo || rows.first > rangedUpTo) includeRow(q);
                rangedUpTo = std::max(rangedUpTo, rows.last);
                const std::int64_t position = q + K - Q;
                for (int x = 0; x < tile.width; ++x) {
                    const CellSpan keys = pixelCells(x, tile.width, K);
                    const std::int64_t lastKey = maps.causal() ? std::min(keys.last, position) : keys.last;
                    if (lastKey < keys.first) continue;  // after the query: masked
                    double out = map.reduce == Reduce::Max ? -std::numeric_limits<double>::infinity() : 0.0;
                    for (std::int64_t j = keys.first; j <= lastKey; ++j) {
                        const double p = row[static_cast<std::size_t>(j)];
                        out = map.reduce == Reduce::Max ? std::max(out, p) : out + p;
                    }
                    if (map.reduce == Reduce::Mean) out /= static_cast<double>(lastKey - keys.first + 1);
                    v[static_cast<std::size_t>(y) * static_cast<std::size_t>(tile.width) +
                      static_cast<std::size_t>(x)] = out;
                }
            }
            maps.release(tileLayers[t], tile.head);  // bounded memory: the page cache keeps it warm
            if (!advance(static_cast<std::uint64_t>(tile.height % kRowsPerReport))) return;
        }
    });
    if (error) return std::unexpected(*error);

    // Exact ranges of what is shown, per tile and shared.
    map.lo = std::numeric_limits<double>::infinity();
    map.hi = -std::numeric_limits<double>::infinity();
    double smallestPositive = std::numeric_limits<double>::infinity();
    for (std::size_t t = 0; t < map.tiles.size(); ++t) {
        HeatmapTile& tile = map.tiles[t];
        // The cells' range; a reduced pixel (the mass or mean of its keys) may lie outside it.
        TileValueRange range = ranges[t];
        for (int y = 0; y < tile.height; ++y) {
            const CellSpan rows = pixelCells(y, tile.height, Q);
            const bool oneKey = lastKey((rows.first + rows.last) / 2) == 0;  // the row pixel row y shows
            for (int x = 0; x < tile.width; ++x) {
                const double v = values[t][static_cast<std::size_t>(y) * static_cast<std::size_t>(tile.width) +
                                           static_cast<std::size_t>(x)];
                if (!std::isnan(v)) range.add(v, oneKey);
            }
        }
        const TileValueRange::Span all = range.span(false), own = range.span(leaveOutOneKeyRows);
        const double lo = own.valid ? own.lo : 0, hi = own.valid ? own.hi : 0;
        tile.lo = lo;
        tile.hi = hi;
        tile.logLo = std::isfinite(own.positive) ? std::max(own.positive, hi * std::pow(10.0, -kLogScaleDecades)) : hi;
        tile.belowLogLo = lo < tile.logLo;
        tile.aboveHi = own.leftOut;
        map.lo = std::min(map.lo, all.valid ? all.lo : 0);
        map.hi = std::max(map.hi, all.valid ? all.hi : 0);
        smallestPositive = std::min(smallestPositive, all.positive);
    }
    map.logLo = std::isfinite(smallestPositive) ? std::max(smallestPositive, map.hi * std::pow(10.0, -kLogScaleDecades))
                                                : map.hi;
    map.belowLogLo = map.lo < map.logLo;
    for (std::size_t t = 0; t < map.tiles.size(); ++t) {
        const HeatmapTile& tile = map.tiles[t];
        const bool shared = params.scale == ScaleMode::Shared;
        const double lo = shared ? map.lo : tile.lo, hi = shared ? map.hi : tile.hi;
        const double logLo = shared ? map.logLo : tile.logLo;
        for (int y = 0; y < tile.height; ++y)
            for (int x = 0; x < tile.width; ++x) {
                const double v = values[t][static_cast<std::size_t>(y) * static_cast<std::size_t>(tile.width) +
                                           static_cast<std::size_t>(x)];
                Rgba colour = kMaskedColor;
                if (!std::isnan(v))
                    colour = params.logScale ? valueColor(params.colormap, std::log10(std::max(v, logLo)),
                                                          std::log10(logLo), std::log10(std::max(hi, logLo)))
                                             : valueColor(params.colormap, v, lo, hi);
                map.image.at(tile.x + x, tile.y + y) = colour;
            }
    }
    map.summary = heatmapSummary(map, /*attention=*/true);
    return {};
}

}  // namespace

Result<Heatmap> renderAttentionMaps(const AttentionMaps& maps, const MapsHeatmapParams& params, unsigned threads) {
    if (params.layerIndex < 0 || params.layerIndex >= maps.layers())
        return fail(ErrorCode::InvalidArgument, fmt::format("layer index {} does not exist: the maps hold {} layers",
                                                            params.layerIndex, maps.layers()));
    if (params.head < -1 || params.head >= maps.heads())
        return fail(ErrorCode::InvalidArgument, fmt::format("head {} does not exist: the maps hold {} heads (0 to {})",
                                                            params.head, maps.heads(), maps.heads() - 1));
    if (auto fits = checkImageSize(params.width, params.height, 1, "picture"); !fits)
        return std::unexpected(fits.error());
    std::vector<int> heads;
    if (params.head >= 0)
        heads.push_back(params.head);
    else
        for (int h = 0; h < maps.heads(); ++h) heads.push_back(h);

    Heatmap map;
    map.tiles = placeHeatmapTiles(heads, params.width, params.height, params.gap, map, params.labelBand);
    if (auto ok = fillMapsTiles(maps, std::vector<int>(map.tiles.size(), params.layerIndex), params, threads, map); !ok)
        return std::unexpected(ok.error());
    return map;
}

Result<MapsOverview> renderAttentionOverview(const AttentionMaps& maps, const MapsHeatmapParams& params,
                                             unsigned threads) {
    if (maps.layers() < 1 || maps.heads() < 1)
        return fail(ErrorCode::InvalidArgument, "the maps hold no layer or head");
    if (auto fits = checkImageSize(params.width, params.height, 1, "picture"); !fits)
        return std::unexpected(fits.error());
    const int L = maps.layers(), H = maps.heads();
    const int gap = std::max(params.gap, 0);
    // Square tiles (square cells), as large as the picture allows: each layer's heads in rows of
    // `perRow`, the layers one under the other. One row of heads per layer leaves most of a
    // tall picture empty when there are few layers, so every row length is tried.
    const auto largestTiles = [&](int band) {
        std::pair<int, int> best{H, 0};  // perRow, side
        for (int k = 1; k <= H; ++k) {
            const int rows = L * ((H + k - 1) / k);
            const int s =
                std::min((params.width - (k - 1) * gap) / k, (params.height - (rows - 1) * gap - rows * band) / rows);
            if (s >= best.second) best = {k, s};
        }
        return best;
    };
    // A label band over every row of tiles, unless it would cost half the tiles' side or more (a
    // deep model in a short room: 24 layers of 16 heads at 720p kept 14 layers as 1 px tiles);
    // then no band, and the tiles' labels go over their masked corners (as squareCellGrid).
    int band = std::max(params.labelBand, 0);
    auto [perRow, side] = largestTiles(band);
    if (band > 0) {
        const auto [bareRow, bareSide] = largestTiles(0);
        if (bareSide >= 2 * std::max(side, 0)) band = 0, perRow = bareRow, side = bareSide;
    }
    side = std::max(side, 1);
    const int rowsPerLayer = (H + perRow - 1) / perRow;
    MapsOverview out;
    out.labelBand = band;
    Heatmap& map = out.map;
    map.columns = perRow;
    map.rows = L * rowsPerLayer;
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h) {
            HeatmapTile t;
            t.head = h;
            const int row = l * rowsPerLayer + h / perRow;
            t.x = (h % perRow) * (side + gap);
            t.y = row * (side + gap + band) + band;
            t.width = t.height = side;
            if (t.x + side > params.width || t.y + side > params.height) continue;  // a tiny picture: what fits
            map.tiles.push_back(t);
            out.tileLayer.push_back(l);
        }
    if (map.tiles.empty())
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("picture size {} x {} is too small for {} layers x {} heads", params.width,
                                params.height, L, H));
    if (auto ok = fillMapsTiles(maps, out.tileLayer, params, threads, map); !ok) return std::unexpected(ok.error());
    return out;
}

std::optional<MapsCellHit> mapsPictureHit(const MapsPicture& picture, const AttentionMaps& maps, int x, int y) {
    for (std::size_t n = 0; n < picture.map.tiles.size(); ++n) {
        const HeatmapTile& t = picture.map.tiles[n];
        if (x >= t.x && y >= t.y && x < t.x + t.width && y < t.y + t.height) {
            const CellSpan rows = pixelCells(y - t.y, t.height, maps.queries());
            const CellSpan keys = pixelCells(x - t.x, t.width, maps.keys());
            return MapsCellHit{picture.tileLayer[n], CellHit{t.head, (rows.first + rows.last) / 2, keys.first}};
        }
    }
    return std::nullopt;
}

std::optional<CellHit> mapsHitTest(const Heatmap& map, const AttentionMaps& maps, int x, int y) {
    for (const auto& t : map.tiles)
        if (x >= t.x && y >= t.y && x < t.x + t.width && y < t.y + t.height) {
            const CellSpan rows = pixelCells(y - t.y, t.height, maps.queries());
            const CellSpan keys = pixelCells(x - t.x, t.width, maps.keys());
            return CellHit{t.head, (rows.first + rows.last) / 2, keys.first};
        }
    return std::nullopt;
}

Heatmap renderSimilarity(const DistanceMatrix& distances, const std::vector<int>& order, Colormap colormap, int width,
                         int height) {
    std::vector<int> index = order;
    if (index.size() != static_cast<std::size_t>(distances.n)) {
        index.clear();
        for (int h = 0; h < distances.n; ++h) index.push_back(h);
    }
    double top = 0;
    for (const double v : distances.values) top = std::max(top, v);
    ValueGridParams grid;
    grid.heads = 1;
    grid.queries = grid.keys = std::max(distances.n, 1);
    grid.colormap = colormap;
    grid.lo = 0;
    grid.hi = top > 0 ? top : 1;
    grid.width = width;
    grid.height = height;
    // renderValueGrid keeps the cell farthest from zero when a pixel covers several: the most
    // dissimilar pair under it stays visible.
    return renderValueGrid(grid, [&](int, std::int64_t a, std::int64_t b) {
        if (distances.n == 0) return std::numeric_limits<double>::quiet_NaN();
        return distances.at(index[static_cast<std::size_t>(a)], index[static_cast<std::size_t>(b)]);
    });
}

alibi::ColorBar attentionMapsColorBar(const AttentionMaps& maps, const Heatmap& map, int tile, int ticks) {
    const HeatmapTile* t =
        tile >= 0 && tile < static_cast<int>(map.tiles.size()) ? &map.tiles[static_cast<std::size_t>(tile)] : nullptr;
    const double hi = t ? t->hi : map.hi;
    const double lo = map.log ? (t ? t->logLo : map.logLo) : (t ? t->lo : map.lo);
    alibi::ColorBar bar = alibi::makeColorBar(lo, std::max(hi, lo), map.log, DType::F32, ticks);
    // Values below a log bar's floor (down to exact zeros) take its lowest colour: say so.
    bar.belowFloor = bar.log && (t ? t->belowLogLo : map.belowLogLo);
    bar.aboveTop = t && t->aboveHi;
    alibi::markColorBarEnds(bar);
    bar.title = map.log ? "probability (log)" : "probability";
    bar.maskedSwatch = maps.causal();
    return bar;
}

Result<Image> renderAttentionMapsFigure(const AttentionMaps& maps, const MapsHeatmapParams& params, unsigned threads,
                                        int scale) {
    scale = std::max(scale, 1);
    if (params.layerIndex < 0 || params.layerIndex >= maps.layers())
        return fail(ErrorCode::InvalidArgument, fmt::format("layer index {} does not exist: the maps hold {} layers",
                                                            params.layerIndex, maps.layers()));
    FigureFrame frame;
    frame.colormap = params.colormap;
    frame.title = attentionMapsTitle(maps, params);
    frame.queries = maps.queries();
    frame.keys = maps.keys();
    frame.keyTokens = explore::mapsKeyTokenLabels(maps);
    frame.queryTokens = explore::mapsQueryTokenLabels(maps);
    frame.tileRanges = params.scale == ScaleMode::PerHead;
    frame.captionLines = frame.tileRanges ? 3 : 2;  // the per-head note is a line of its own
    frame.colorBar = [&](const Heatmap& map, int tile, int ticks) {
        return attentionMapsColorBar(maps, map, tile, ticks);
    };
    frame.caption = [&](const Heatmap& map) { return attentionMapsCaption(maps, map, params.scale); };
    frame.scale = scale;
    return heatmapFigure(params.width * scale, params.height * scale, frame, [&](int width, int height, int band) {
        MapsHeatmapParams p = params;
        p.width = width;
        p.height = height;
        p.labelBand = band;
        p.gap = params.gap * scale;  // the 1x layout's gap, scaled like the rest
        return renderAttentionMaps(maps, p, threads);
    });
}

Result<Image> renderAttentionOverviewFigure(const AttentionMaps& maps, const MapsHeatmapParams& params,
                                            unsigned threads, int scale) {
    scale = std::max(scale, 1);
    // The layer of each tile is known once the overview is placed inside the frame.
    std::vector<int> tileLayer, tileHead;
    FigureFrame frame;
    frame.colormap = params.colormap;
    frame.title = attentionOverviewTitle(maps);
    frame.queries = maps.queries();
    frame.keys = maps.keys();
    frame.tileRanges = params.scale == ScaleMode::PerHead;
    frame.captionLines = frame.tileRanges ? 3 : 2;  // the per-head note is a line of its own
    frame.colorBar = [&](const Heatmap& map, int tile, int ticks) {
        return attentionMapsColorBar(maps, map, tile, ticks);
    };
    frame.tileLabel = [&](int tile) {
        const auto n = static_cast<std::size_t>(tile);
        return explore::mapsHeadLabel(maps, tileLayer[n], tileHead[n]);
    };
    frame.caption = [&](const Heatmap& map) {
        const std::string order =
            map.columns >= maps.heads()
                ? fmt::format("rows: layers {} to {} top to bottom; columns: heads 0 to {}",
                              maps.layerInfo().front().number, maps.layerInfo().back().number, maps.heads() - 1)
                : fmt::format("layers {} to {} top to bottom, each layer's heads 0 to {} in rows of {}",
                              maps.layerInfo().front().number, maps.layerInfo().back().number, maps.heads() - 1,
                              map.columns);
        return order + " · " + attentionMapsCaption(maps, map, params.scale);
    };
    frame.scale = scale;
    return heatmapFigure(params.width * scale, params.height * scale, frame,
                         [&](int width, int height, int band) -> Result<Heatmap> {
                             MapsHeatmapParams p = params;
                             p.width = width;
                             p.height = height;
                             p.labelBand = band;
                             p.gap = params.gap * scale;
                             auto overview = renderAttentionOverview(maps, p, threads);
                             if (!overview) return std::unexpected(overview.error());
                             tileLayer = std::move(overview->tileLayer);
                             tileHead.clear();
                             for (const HeatmapTile& t : overview->map.tiles) tileHead.push_back(t.head);
                             return std::move(overview->map);
                         });
}

std::string attentionOverviewTitle(const AttentionMaps& maps) {
    return fmt::format("Saved attention · all {} layers x {} heads · {} queries x {} keys", maps.layers(), maps.heads(),
                       maps.queries(), maps.keys());
}

std::string attentionMapsTitle(const AttentionMaps& maps, const MapsHeatmapParams& params) {
    const int layer = maps.layerInfo()[static_cast<std::size_t>(params.layerIndex)].number;
    const std::string heads =
        params.head < 0 ? fmt::format("{} heads", maps.heads()) : fmt::format("head {}", params.head);
    return fmt::format("Saved attention · layer {} of {} · {} · {} queries x {} keys", layer, maps.layers(), heads,
                       maps.queries(), maps.keys());
}

std::string attentionMapsCaption(const AttentionMaps& maps, const Heatmap& map, ScaleMode scale) {
    const char* reduce = map.reduce == Reduce::Mean ? "mean" : map.reduce == Reduce::Sum ? "mass" : "maximum";
    std::string caption =
        fmt::format("{} ({}); {}", maps.layoutText(), attentionValuesName(maps.values()), maps.valuesReason());
    if (map.cellsPerPixelX > 1) caption += fmt::format(" · a pixel shows the {} of its keys", reduce);
    if (map.rowsSampled) caption += " · one exact query row per pixel row";
    if (maps.causal()) caption += " · causal: keys after the query in the mask colour";
    if (const std::string note = perHeadScaleNote(map, scale); !note.empty()) caption += " · " + note;
    return caption;
}

Result<Image> renderSimilarityFigure(const DistanceMatrix& distances, const std::vector<int>& order,
                                     const std::string& title, Colormap colormap, int width, int height, int scale) {
    scale = std::max(scale, 1);
    FigureFrame frame;
    frame.colormap = colormap;
    frame.title = title;
    frame.headLabels = false;
    frame.colorBar = [](const Heatmap& map, int, int ticks) {
        alibi::ColorBar bar = alibi::makeColorBar(map.lo, map.hi, false, DType::F32, ticks);
        bar.title = "JS distance";
        return bar;
    };
    // Rows and columns are heads in `order`: each labelled with its head.
    const auto n = static_cast<std::int64_t>(distances.n);
    frame.queries = frame.keys = n;
    frame.keyAxis = "head →";
    frame.queryAxis = "head →";
    frame.axisLabel = [&order](std::int64_t k) {
        return fmt::format("h{}", k < static_cast<std::int64_t>(order.size()) ? order[static_cast<std::size_t>(k)]
                                                                              : static_cast<int>(k));
    };
    std::string rows;
    for (std::size_t k = 0; k < order.size() && k < 64; ++k) rows += fmt::format("{}h{}", k ? " " : "", order[k]);
    if (order.size() > 64) rows += " ...";
    frame.caption = [rows](const Heatmap&) {
        return fmt::format(
            "Jensen-Shannon distance (base 2, 0 to 1) between heads · rows and columns, top/left first: {}",
            rows.empty() ? "by index" : rows);
    };
    frame.scale = scale;
    return heatmapFigure(width * scale, height * scale, frame, [&](int w, int h, int) -> Result<Heatmap> {
        return renderSimilarity(distances, order, colormap, w, h);
    });
}

}  // namespace alibi
