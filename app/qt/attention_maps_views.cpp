// The Attention maps tab's views refreshed from the model: the pictures' renderers and headers,
// the distance and row plots, the similarity matrix, the fit table and the hover read-outs.
#include "attention_maps_page.hpp"

#include "lesson_mark.hpp"
#include "maps_heatmap_view.hpp"
#include "number_table.hpp"
#include "plot_widget.hpp"
#include "two_heads_view.hpp"
#include "view_util.hpp"

#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/figure/attention_maps_plots.hpp>
#include <alibi/figure/maps_picture.hpp>
#include <alibi/render/format.hpp>
#include <alibi/render/square_cells.hpp>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QPointer>
#include <QSpinBox>

#include <algorithm>
#include <cstdio>
#include <optional>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

MapsHeatmapView::Renderer AttentionMapsPage::mapsRenderer(MapsShows shows) {
    // Captures the current state on the UI thread; its job renders on the view's worker the core's
    // picture for the view's room (renderMapsPicture: square cells, cut to its tiles), and hands
    // the UI thread its tiles' labels (mapsTileLabelForms) with it.
    return [this, shows](QSize px) -> MapsHeatmapView::RenderJob {
        MapsPictureRequest ask;
        ask.shows = shows;
        ask.layerIndex = m_layer->value();
        ask.head = m_head->value();
        ask.logScale = m_log->isChecked();
        // One head keeps the shared scale, as ImGui's and the figures' one-head pictures.
        ask.scale = shows != MapsShows::Head && m_perHead->isChecked() ? ScaleMode::PerHead : ScaleMode::Shared;
        ask.width = std::max(px.width(), 16);
        ask.height = std::max(px.height(), 16);
        MapsHeatmapView* view = shows == MapsShows::Overview ? m_overview : m_grid;
        ask.labelBand = shows == MapsShows::Head ? 0 : view->labelBand();  // the tiles' labels sit above them
        // A layer's labels name the heads' slopes; read here, on the UI thread.
        std::vector<explore::HeadSlopes> slopes;
        if (shows == MapsShows::Layer && m_model->maps())
            for (int h = 0; h < m_model->maps()->heads(); ++h) slopes.push_back(slopesOf(ask.layerIndex, h));
        return [this, maps = m_model->maps(), ask, slopes = std::move(slopes)]() -> RenderedMaps {
            if (!maps) return {fail(ErrorCode::InvalidArgument, "no attention maps open"), -1, {}};
            auto picture = renderMapsPicture(*maps, ask);
            if (!picture) return {std::unexpected(picture.error()), -1, {}};
            auto forms = mapsTileLabelForms(*maps, *picture, ask.scale, [&](int, int head) {
                return static_cast<std::size_t>(head) < slopes.size() ? slopes[static_cast<std::size_t>(head)]
                                                                      : explore::HeadSlopes{};
            });
            Heatmap map = picture->map;
            const int layer = ask.shows == MapsShows::Overview ? -1 : ask.layerIndex;
            // Runs on the UI thread once shown: the labels, hit test and header of this very picture.
            std::function<void()> shown;
            switch (ask.shows) {
                case MapsShows::Head:
                    shown = [this, layer, head = ask.head] { setHeadHeader(layer, head); };
                    break;
                case MapsShows::Layer:
                    shown = [this, forms = std::move(forms)]() mutable { m_grid->setTileLabels(std::move(forms)); };
                    break;
                case MapsShows::Overview:
                    shown = [this, maps, picture = std::make_shared<MapsPicture>(std::move(*picture)),
                             forms = std::move(forms)]() mutable {
                        m_overviewMap = std::move(*picture);
                        m_overview->setTileLabels(std::move(forms));
                        m_overview->setHeader(
                            u"All %1 layers x %2 heads"_s.arg(maps->layers()).arg(maps->heads()),
                            u"one row per layer, one column per head · click a tile to open that layer and head"_s);
                        highlightOverview();
                    };
                    break;
            }
            return {std::move(map), layer, std::move(shown)};
        };
    };
}

void AttentionMapsPage::refreshLayer() {
    const MapsPtr maps = m_model->maps();
    if (!maps) return;
    const int layer = m_layer->value();
    const QString layerLabel = qs(explore::mapsLayerLabel(*maps, layer));
    m_layer->setToolTip(
        u"%1 of %2 (PageUp / PageDown, or the wheel over the grid)"_s.arg(layerLabel).arg(maps->layers()));
    m_grid->refresh();  // returns at once; the labels and header follow the picture (onGridShown)
    m_gridRequested.start();
    m_headView->setCellTokens(explore::mapsKeyTokenLabels(*maps), explore::mapsQueryTokenLabels(*maps));
    m_headView->refresh();
    highlightOverview();
    refreshPlots();
    showLessonMark();
}

void AttentionMapsPage::setHeadHeader(int layer, int head) {
    const MapsPtr maps = m_model->maps();
    if (!maps || layer < 0 || layer >= maps->layers()) return;
    const explore::HeadSlopes s = slopesOf(layer, head);
    QString slopes;
    if (s.fitted) slopes += u" · fitted m* = "_s + valueText(*s.fitted);
    if (s.configured) slopes += u" · configured m = "_s + slopeText(*s.configured);
    m_headView->setHeader(u"%1, head %2%3"_s.arg(qs(explore::mapsLayerLabel(*maps, layer))).arg(head).arg(slopes),
                          u"hover for the exact cell · click a row to inspect it · wheel: head"_s);
}

void AttentionMapsPage::highlightOverview() {
    // The overview highlights the current layer's head.
    const int layer = m_layer->value(), head = m_head->value();
    for (std::size_t n = 0; n < m_overviewMap.tileLayer.size(); ++n)
        if (m_overviewMap.tileLayer[n] == layer && m_overviewMap.map.tiles[n].head == head)
            m_overview->setHighlightedTile(static_cast<int>(n));
}

void AttentionMapsPage::onGridShown() {
    const MapsPtr maps = m_model->maps();
    const int layer = m_grid->shownLayer();
    if (!maps || layer < 0 || layer >= maps->layers()) return;
    const QString layerLabel = qs(explore::mapsLayerLabel(*maps, layer));
    m_grid->setHighlightedTile(m_head->value());
    m_grid->setHeader(
        u"%1: its %2 heads"_s.arg(layerLabel).arg(maps->heads()),
        priorText() + u" · hover for the file's value · click a tile for its head · PageUp/PageDown or wheel: layer"_s);
    if (qEnvironmentVariableIsSet("ALIBI_LOG_LATENCY"))
        std::fprintf(stderr,
                     "attention maps: layer index %d grid shown %lld ms after the request (%d x %d px, H = %d, Q = "
                     "%lld, K = %lld)\n",
                     layer, static_cast<long long>(m_gridRequested.elapsed()), m_grid->imagePixels().width(),
                     m_grid->imagePixels().height(), maps->heads(), static_cast<long long>(maps->queries()),
                     static_cast<long long>(maps->keys()));
}

bool AttentionMapsPage::picturesPending() const {
    for (const MapsHeatmapView* v : {m_grid, m_overview, m_headView, m_similarity})
        if (v->pending()) return true;
    if (m_twoHeads->pending()) return true;
    return m_rowShown != m_rowRunner.latest();
}

void AttentionMapsPage::refreshPlots() {
    const MapsPtr maps = m_model->maps();
    if (!maps) return;
    const int layer = m_layer->value(), head = m_head->value();
    const QString layerLabel = qs(explore::mapsLayerLabel(*maps, layer));
    if (const HeadFit* f = m_model->fitOf(layer, head)) {
        // The core's curves over the distances where any holds 1/1000 of its peak, and its note.
        FitProfilePlot plot = fitProfilePlot(*f, *maps, m_model->fitFirstRow(), m_model->fitLastRow());
        m_profile->setSeries(std::move(plot.series));
        m_profile->setTitle(qs(fitProfileTitle(*f, *maps)));  // the figure's title too
        QString note = qs(plot.note);
        if (!f->configuredSlope)
            note += (note.isEmpty() ? u""_s : u" · "_s) + u"pair an ALiBi prior (Prior) to see the configured slope"_s;
        m_profile->setNote(note);
    } else {
        m_profile->setSeries({});
        m_profile->setTitle(u"%1 head %2: attention vs distance"_s.arg(layerLabel).arg(head));
        m_profile->setNote(m_model->fitting() ? u"fitting…"_s : u"fit the heads to see the profile and its priors"_s);
    }
    m_profile->setAxisLabels(maps->causal() ? u"distance i − j"_s : u"distance |i − j|"_s,
                             u"share of attention (all rows)"_s);
    m_rowPlot->setTitle(qs(mapsRowTitle(*maps, layer, head, m_row->value())));
    requestRow(RowRequest{maps, layer, head, m_row->value(), slopesOf(layer, head)});
}

void AttentionMapsPage::requestRow(RowRequest request) {
    // The row comes from the file (a disk read when it is not cached), off the UI thread; only
    // the newest request's row is shown.
    QPointer<AttentionMapsPage> self(this);
    m_rowRunner.submit([self, request = std::move(request)](const explore::JobContext& job) {
        auto series = explore::mapsRowSeries(*request.maps, request.layer, request.head, request.row, request.slopes);
        QMetaObject::invokeMethod(
            qApp,
            [self, request, generation = job.generation(), series = std::move(series)]() mutable {
                if (!self || generation != self->m_rowRunner.latest()) return;  // a newer row is on its way
                self->m_rowShown = generation;
                if (request.maps != self->m_model->maps()) return;  // another file since
                if (series) {
                    // The figure's keys: a steep head's few keys fill the plot (the core's window).
                    const auto& maps = *request.maps;
                    const explore::KeyWindow window =
                        explore::mapsRowWindow(*series, request.row + maps.keys() - maps.queries(), maps.keys());
                    explore::keepKeyWindow(*series, window);
                    self->m_rowPlot->setSeries(std::move(*series));
                    self->m_rowPlot->setNote(qs(explore::keyWindowNote(window, maps.keys(), false)));
                } else {
                    self->m_rowPlot->setSeries({});
                    self->m_rowPlot->setNote(shownError(series.error().message));
                }
            },
            Qt::QueuedConnection);
    });
}

void AttentionMapsPage::setSimilarity(SimilarityBasis basis, HeadOrder order) {
    m_basis->setCurrentIndex(basis == SimilarityBasis::Map ? 1 : 0);
    m_order->setCurrentIndex(order == HeadOrder::Slope ? 1 : order == HeadOrder::Similarity ? 2 : 0);
    refreshSimilarity();
}

void AttentionMapsPage::refreshSimilarity() {
    const MapsPtr maps = m_model->maps();
    if (!maps) return;
    const int layer = m_layer->value();
    std::vector<HeadFit> fits = explore::layerFits(m_model->fits(), layer);
    const bool full = m_basis->currentIndex() == 1;
    if (!full && fits.empty()) {
        m_distances = DistanceMatrix();
        m_similarityOrder.clear();
        m_similarity->setRenderer({});
        m_similarity->setMessage(m_model->fitting()
                                     ? u"Fitting… the profile distances come from the fit."_s
                                     : u"Fit the heads first: the profile distances come from the fit."_s);
        return;
    }
    const HeadOrder order = m_order->currentIndex() == 1   ? HeadOrder::Slope
                            : m_order->currentIndex() == 2 ? HeadOrder::Similarity
                                                           : HeadOrder::Index;
    const QString layerLabel = qs(explore::mapsLayerLabel(*maps, layer));
    // The distances (over full maps: every row of every head pair, slow for a large file) are
    // computed once on the view's worker and reused by the re-renders after a resize; jobs of one
    // view run one after another, so only that worker touches the cache.
    struct Distances {
        std::optional<Result<DistanceMatrix>> matrix;
        std::vector<int> order;
    };
    auto cache = std::make_shared<Distances>();
    const std::int64_t first = m_model->fitFirstRow(), last = m_model->fitLastRow();
    m_similarity->setRenderer([=, this, fits = std::move(fits)](QSize px) -> MapsHeatmapView::RenderJob {
        // Square: the matrix's cells stay square whatever the tab's shape.
        const int side = std::max(16, std::min(px.width(), px.height()));
        return [=, this]() -> RenderedMaps {
            if (!cache->matrix) {
                if (full)
                    cache->matrix = mapDistances(*maps, layer, first, last);
                else
                    cache->matrix.emplace(profileDistances(fits));
                if (*cache->matrix) cache->order = explore::similarityHeadOrder(fits, order, **cache->matrix);
            }
            if (!*cache->matrix) return {std::unexpected(cache->matrix->error()), -1, {}};
            const DistanceMatrix& d = **cache->matrix;
            auto picture = renderSimilarity(d, cache->order, Colormap::Magma, side, side);
            // On the UI thread once shown: the hover's distances and the axis labels of this picture.
            auto shown = [this, d, headOrder = cache->order] {
                m_distances = d;
                m_similarityOrder = headOrder;
                QStringList axis;
                for (int h : m_similarityOrder) axis << QString::number(h);
                m_similarity->setAxisLabels(axis);
            };
            return {std::move(picture), layer, std::move(shown)};
        };
    });
    m_similarityNote->setText(
        u"%1 · %2 heads · 0 = same distribution, 1 = disjoint"_s.arg(layerLabel).arg(maps->heads()));
    const QString similarityTitle = u"%1: head x head Jensen-Shannon distance between %2"_s.arg(
        layerLabel, full ? u"full maps"_s : u"attention-vs-distance profiles"_s);
    m_similarityTitle = similarityTitle.toStdString();
    m_similarity->setHeader(similarityTitle,
                            u"heads ordered %1 · hover a cell for the pair's distance"_s.arg(
                                order == HeadOrder::Slope        ? u"by fitted slope, steepest first"_s
                                : order == HeadOrder::Similarity ? u"in average-linkage clustering order"_s
                                                                 : u"by index"_s));
}

void AttentionMapsPage::refreshTable() {
    std::vector<std::vector<double>> values;
    for (const HeadFit& f : m_model->fits()) {
        std::vector<double> row;
        for (int c = 0; c < explore::kFitColumnCount; ++c)
            row.push_back(explore::fitColumnValue(f, static_cast<explore::FitColumn>(c)));
        values.push_back(std::move(row));
    }
    m_tableModel->setValues(std::move(values));
}

QString AttentionMapsPage::longestReadout() const {
    const MapsPtr maps = m_model->maps();
    if (!maps || maps->queries() <= 0 || maps->keys() <= 0) return {};
    QString longest;
    const std::int64_t q = maps->queries(), k = maps->keys();
    const int layers = std::min(maps->layers(), 64);  // a sample: layer names are alike
    for (int layer = 0; layer < layers; ++layer)
        for (const int head : {0, maps->heads() - 1})
            for (const std::int64_t query : {q - 1, q / 2})
                for (const std::int64_t key : {std::int64_t{0}, std::min(query, k - 1) / 2, std::min(query, k - 1)}) {
                    explore::HeadSlopes slopes = slopesOf(layer, head);
                    if (!slopes.fitted) slopes.fitted = 0.00123457;  // the fit's six digits, before it ran
                    const auto text = explore::mapsCellReadout(*maps, layer, head, query, key, slopes);
                    if (text && qs(*text).size() > longest.size()) longest = qs(*text);
                }
    // The status bar's form (one line), and room for a value with more digits than these cells'.
    return longest.replace(u'\n', u"   "_s) + u" 0.00000000"_s;
}

QString AttentionMapsPage::hoverAt(MapsHeatmapView* view, QPoint p) {
    const MapsPtr maps = m_model->maps();
    if (!maps) return {};
    if (view == m_similarity) {
        const Heatmap& map = view->heatmap();
        if (map.tiles.empty() || m_distances.n == 0 ||
            m_similarityOrder.size() != static_cast<std::size_t>(m_distances.n))
            return {};
        const HeatmapTile& t = map.tiles.front();
        if (p.x() < t.x || p.y() < t.y || p.x() >= t.x + t.width || p.y() >= t.y + t.height) return {};
        const int a =
            m_similarityOrder[static_cast<std::size_t>(pixelCells(p.y() - t.y, t.height, m_distances.n).first)];
        const int b =
            m_similarityOrder[static_cast<std::size_t>(pixelCells(p.x() - t.x, t.width, m_distances.n).first)];
        return u"head %1 vs head %2: Jensen-Shannon distance %3"_s.arg(a).arg(b).arg(valueText(m_distances.at(a, b)));
    }
    // The layer of the picture under the mouse (a newer one may be pending): the read-out is of what is shown.
    int layer = view->shownLayer() >= 0 ? view->shownLayer() : m_layer->value();
    std::optional<CellHit> hit;
    if (view == m_overview) {
        if (const auto h = mapsPictureHit(m_overviewMap, *maps, p.x(), p.y())) {
            layer = h->layerIndex;
            hit = h->cell;
        }
    } else {
        hit = mapsHitTest(view->heatmap(), *maps, p.x(), p.y());
    }
    if (!hit) return {};
    auto text = explore::mapsCellReadout(*maps, layer, hit->head, hit->query, hit->key, slopesOf(layer, hit->head));
    return text ? qs(*text) : qs(text.error().message);
}

}  // namespace alibi::qt
