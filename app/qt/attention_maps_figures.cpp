// The Attention maps tab's exports: the Figure menu, the figure dialogs, the figure jobs saved in
// the background (the same pictures as `alibi render FILE`), and the fit table as CSV or JSON.
#include "attention_maps_page.hpp"

#include "maps_heatmap_view.hpp"
#include "plot_widget.hpp"
#include "two_heads_view.hpp"
#include "view_util.hpp"

#include <QApplication>
#include <QCheckBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QPointer>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>

#include <algorithm>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

QString AttentionMapsPage::figureFileName(const QString& what, int scale, bool svg) const {
    return QFileInfo(m_model->path()).completeBaseName() + u"-"_s + what +
           (svg         ? u".svg"_s
            : scale > 1 ? u"@%1x.png"_s.arg(scale)
                        : u".png"_s);
}

void AttentionMapsPage::fillFigureMenu(QMenu* menu) {
    const auto note = [menu](const QString& text) { menu->addAction(text)->setEnabled(false); };
    if (!m_model->maps()) {
        note(u"Open attention maps first (Ctrl+Shift+O)"_s);
        return;
    }
    QWidget* tab = m_views->currentWidget();
    if (tab == m_table) {
        note(u"The fit table exports as CSV or JSON (the buttons above)"_s);
        return;
    }
    if (tab == m_distancePage) {
        for (const auto& [plot, name] :
             {std::pair{Plot::Distance, u"Attention vs distance"_s}, std::pair{Plot::Row, u"Query row"_s}}) {
            menu->addSection(name);
            for (const int scale : {1, 2, 4})
                menu->addAction(u"%1: PNG at %2x…"_s.arg(name).arg(scale), this,
                                [this, plot, scale] { exportPlotDialog(plot, scale); });
            menu->addAction(u"%1: SVG…"_s.arg(name), this, [this, plot] { exportPlotDialog(plot, 0); });
        }
        return;
    }
    if (tab == m_twoHeads) {
        for (const int scale : {1, 2, 4})
            menu->addAction(u"Two heads: PNG at %1x…"_s.arg(scale), this, [this, scale] { exportFigureDialog(scale); });
        return;
    }
    const QString name = tab == m_overview   ? u"All layers"_s
                         : tab == m_headView ? u"Head %1"_s.arg(m_head->value())
                         : tab == m_grid     ? u"Layer grid"_s
                                             : u"Similarity matrix"_s;
    for (const int scale : {1, 2, 4})
        menu->addAction(u"%1: PNG at %2x…"_s.arg(name).arg(scale), this, [this, scale] { exportFigureDialog(scale); });
}

void AttentionMapsPage::exportFigureDialog(int scale) {
    const MapsPtr maps = m_model->maps();
    if (!maps) return;
    if (m_views->currentWidget() == m_twoHeads) {
        const QString path = QFileDialog::getSaveFileName(
            this, u"Save the figure"_s, figureFileName(m_twoHeads->figureName(), scale), u"PNG image (*.png)"_s);
        if (path.isEmpty()) return;
        (void)exportTwoHeadsFigure(path, std::max(m_twoHeads->width(), 640), std::max(m_twoHeads->height(), 400),
                                   scale);
        return;
    }
    if (m_views->currentWidget() == m_overview) {
        const QString path = QFileDialog::getSaveFileName(
            this, u"Save the figure"_s, figureFileName(u"all-layers"_s, scale), u"PNG image (*.png)"_s);
        if (path.isEmpty()) return;
        MapsHeatmapParams p;
        p.logScale = m_log->isChecked();
        p.scale = m_perHead->isChecked() ? ScaleMode::PerHead : ScaleMode::Shared;  // as the view shows it
        p.width = std::max(m_overview->width(), 480);
        p.height = std::max(m_overview->height(), 320);
        (void)exportOverviewFigure(path, p, scale);
        return;
    }
    if (m_views->currentWidget() == m_similarity->parentWidget()) {
        const QString base = figureFileName(u"layer%1-similarity"_s.arg(m_layer->value()), scale);
        const QString path = QFileDialog::getSaveFileName(this, u"Save the figure"_s, base, u"PNG image (*.png)"_s);
        if (path.isEmpty()) return;
        // Square like the view, whose cells stay square; wide enough for the colour bar and caption.
        const int side = std::max(std::min(m_similarity->width(), m_similarity->height()), 480);
        (void)exportSimilarityFigure(path, side + 160, side, scale);
        return;
    }
    const bool oneHead = m_views->currentWidget() == m_headView;
    const QString base = figureFileName(
        oneHead ? u"layer%1-head%2"_s.arg(m_layer->value()).arg(m_head->value()) : u"layer%1"_s.arg(m_layer->value()),
        scale);
    const QString path = QFileDialog::getSaveFileName(this, u"Save the figure"_s, base, u"PNG image (*.png)"_s);
    if (path.isEmpty()) return;
    MapsHeatmapParams p;
    p.layerIndex = m_layer->value();
    p.head = oneHead ? m_head->value() : -1;
    p.logScale = m_log->isChecked();
    p.scale = !oneHead && m_perHead->isChecked() ? ScaleMode::PerHead : ScaleMode::Shared;
    const QWidget* view = oneHead ? static_cast<QWidget*>(m_headView) : static_cast<QWidget*>(m_grid);
    p.width = std::max(view->width(), 320);
    p.height = std::max(view->height(), 240);
    (void)exportFigure(path, p, scale);
}

bool AttentionMapsPage::exportFigure(const QString& path, const MapsHeatmapParams& params, int scale) {
    return exportMapsFigure(FigureJobRequest::Kind::Maps, path, params, scale);
}

bool AttentionMapsPage::exportOverviewFigure(const QString& path, const MapsHeatmapParams& params, int scale) {
    return exportMapsFigure(FigureJobRequest::Kind::MapsOverview, path, params, scale);
}

bool AttentionMapsPage::exportMapsFigure(FigureJobRequest::Kind kind, const QString& path,
                                         const MapsHeatmapParams& params, int scale) {
    const MapsPtr maps = m_model->maps();
    if (!maps) return false;
    FigureJobRequest r;
    r.kind = kind;
    r.maps = maps;
    r.mapsParams = params;
    r.scale = scale;
    saveFigureInBackground(path, u"at %1x"_s.arg(scale), std::move(r));
    return true;
}

bool AttentionMapsPage::exportTwoHeadsFigure(const QString& path, int width, int height, int scale) {
    auto request = m_twoHeads->figureRequest(width, height, scale);
    if (!request) return false;
    saveFigureInBackground(path, u"at %1x"_s.arg(scale), std::move(*request));
    return true;
}

bool AttentionMapsPage::exportSimilarityFigure(const QString& path, int width, int height, int scale) {
    if (m_distances.n == 0 || m_similarityOrder.empty()) {
        emit failed(
            u"No similarity matrix to save"_s,
            u"The matrix is not drawn yet: fit the heads (or choose full maps) and open the Similarity tab first."_s);
        return false;
    }
    FigureJobRequest r;
    r.kind = FigureJobRequest::Kind::Similarity;
    r.distances = m_distances;
    r.similarityOrder = m_similarityOrder;
    r.similarityTitle = m_similarityTitle;
    r.width = width;
    r.height = height;
    r.scale = scale;
    saveFigureInBackground(path, u"at %1x"_s.arg(scale), std::move(r));
    return true;
}

void AttentionMapsPage::exportPlotDialog(Plot plot, int scale) {
    if (!m_model->maps()) return;
    const bool svg = scale == 0;
    const QString what = u"layer%1-head%2-"_s.arg(m_layer->value()).arg(m_head->value()) +
                         (plot == Plot::Distance ? u"distance"_s : u"row%1"_s.arg(m_row->value()));
    const QString path = QFileDialog::getSaveFileName(this, u"Save the figure"_s, figureFileName(what, scale, svg),
                                                      svg ? u"SVG image (*.svg)"_s : u"PNG image (*.png)"_s);
    if (path.isEmpty()) return;
    const PlotWidget* widget = plot == Plot::Distance ? m_profile : m_rowPlot;
    (void)exportPlotFigure(plot, path, std::max(widget->width(), 640), std::max(widget->height(), 400),
                           std::max(scale, 1));
}

bool AttentionMapsPage::exportPlotFigure(Plot plot, const QString& path, int width, int height, int scale) {
    const MapsPtr maps = m_model->maps();
    if (!maps) return false;
    const int layer = m_layer->value(), head = m_head->value();
    // The figure's data is gathered here, drawn and written by the core's figure job on the
    // worker: the row plot reads its row from the file, which may be on a slow disk.
    FigureJobRequest r;
    r.maps = maps;
    r.mapsParams.layerIndex = layer;
    r.mapsParams.head = head;
    r.width = width;
    r.height = height;
    r.scale = scale;
    r.svg = path.endsWith(u".svg"_s, Qt::CaseInsensitive);
    if (plot == Plot::Distance) {
        const HeadFit* fit = m_model->fitOf(layer, head);
        if (fit == nullptr) {
            emit failed(u"No distance profile to save"_s,
                        m_model->fitting()
                            ? u"The heads are still being fitted: save the figure once the fit is done."_s
                            : u"Fit the heads first (Fit): the profile and its priors come from the fit."_s);
            return false;
        }
        r.kind = FigureJobRequest::Kind::MapsProfile;
        r.headFit = *fit;
        r.fitFirstRow = m_model->fitFirstRow();
        r.fitLastRow = m_model->fitLastRow();
    } else {
        r.kind = FigureJobRequest::Kind::MapsRow;
        r.rowQuery = m_row->value();
        r.rowSlopes = slopesOf(layer, head);
    }
    saveFigureInBackground(path, r.svg ? u"as SVG"_s : u"at %1x"_s.arg(scale), std::move(r));
    return true;
}

void AttentionMapsPage::saveFigureInBackground(const QString& path, const QString& what, FigureJobRequest request) {
    emit statusMessage(u"Drawing the figure %1…"_s.arg(what), 0);
    // The core's figure job on the page's figure runner (a large file's rows are read from disk);
    // the outcome comes back to the page through its event loop, or is dropped if the page is gone.
    QPointer<AttentionMapsPage> self(this);
    m_figureRunner.submit([self, request = std::move(request), path](const explore::JobContext& job) {
        const auto written = writeFigureJob(request, path.toStdString(), job.progress());
        const Result<void> ok = written ? Result<void>{} : Result<void>{std::unexpected(written.error())};
        QMetaObject::invokeMethod(
            qApp,
            [self, ok, path] {
                if (!self) return;
                if (ok)
                    emit self->statusMessage(u"Saved the figure to "_s + path, 6000);
                else
                    emit self->failed(u"Cannot save the figure"_s, QString::fromStdString(ok.error().message));
                emit self->figureSaved(static_cast<bool>(ok));
            },
            Qt::QueuedConnection);
    });
}

Result<void> AttentionMapsPage::exportTable(const QString& path, FileFormat format) {
    auto ok = m_model->exportTable(path, format);
    if (ok)
        emit statusMessage(u"Exported the fit table to "_s + path, 6000);
    else
        emit failed(u"Cannot export the fit table"_s, qs(ok.error().message));
    return ok;
}

void AttentionMapsPage::exportDialog(FileFormat format) {
    const bool csv = format == FileFormat::Csv;
    const QString base = QFileInfo(m_model->path()).completeBaseName() + (csv ? u"-fit.csv"_s : u"-fit.json"_s);
    const QString path = QFileDialog::getSaveFileName(this, u"Export the fit table"_s, base,
                                                      csv ? u"CSV (*.csv)"_s : u"JSON (*.json)"_s);
    if (!path.isEmpty()) (void)exportTable(path, format);
}

}  // namespace alibi::qt
