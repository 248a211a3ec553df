// Screenshot driver: polls the model until the snapshot, compare, extrapolation and the diagnosis
// example are all in, so every picture shows a finished view rather than "updating...".
#include "screenshot_driver.hpp"

#include "attention_maps_page.hpp"
#include "diagnose_view.hpp"
#include "main_window.hpp"
#include "maps_heatmap_view.hpp"

#include <alibi/analysis/diagnose.hpp>
#include <alibi/base/data_dir.hpp>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QMouseEvent>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>
#include <memory>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

void runScreenshots(MainWindow& window, const QString& dir, std::function<void(bool)> done) {
    // Screenshots keep one size whatever the (virtual) screen is, so they compare across runs
    // (ALIBI_SCREENSHOT_SIZE=1280x720 checks a projector's size).
    QSize size(1400, 900);
    const QStringList wh = qEnvironmentVariable("ALIBI_SCREENSHOT_SIZE").split(u'x');
    if (wh.size() == 2 && wh[0].toInt() >= 640 && wh[1].toInt() >= 480) size = QSize(wh[0].toInt(), wh[1].toInt());
    window.resize(size);
    SessionModel* model = window.model();
    model->setCompareEnabled(true);
    model->setExtrapolationEnabled(true);
    window.diagnoseView()->openExample(QString::fromUtf8(kSlopeOffByOne));
    // The Attention maps tab shows the example file (the Help menu's first example), fitted.
    AttentionMapsPage* page = window.attentionPage();
    if (const auto folder = findDataDir("attention")) {
        // ALIBI_SCREENSHOT_ATTENTION=FILE shows another file (timing a large one with ALIBI_LOG_LATENCY).
        const QString file =
            qEnvironmentVariableIsSet("ALIBI_SCREENSHOT_ATTENTION")
                ? qEnvironmentVariable("ALIBI_SCREENSHOT_ATTENTION")
                : QDir(QString::fromStdString(folder->string())).filePath(u"trained-like-4x8x64.safetensors"_s);
        if (QFileInfo::exists(file)) page->openFile(file);
    }
    QDir().mkpath(dir);
    auto shoot = std::make_shared<std::function<void()>>();
    auto timer = std::make_shared<QElapsedTimer>();
    timer->start();
    MainWindow* w = &window;
    *shoot = [w, model, dir, done, shoot, timer] {
        const SnapshotPtr s = model->snapshot();
        const AttentionMapsModel* maps = w->attentionPage()->model();
        bool mapsReady = !maps->opening() && !maps->fitting() && (!maps->maps() || !maps->fits().empty());
        // Paired with the session's slopes (the example has the default 8 heads), so the configured
        // slopes show beside the fitted ones.
        if (mapsReady && maps->maps() && maps->configured().empty() &&
            maps->maps()->heads() == model->session().attention.bias.slopes.heads) {
            w->attentionPage()->choosePrior(AttentionMapsPage::PriorSession);
            mapsReady = false;
        }
        const bool ready =
            s && !model->pending() && s->compare && s->extrapolation && !w->diagnoseView()->busy() && mapsReady;
        if (!ready) {
            if (timer->elapsed() > 60000) {
                // Why, when something said so (out of memory under an address-space limit, issue 25).
                const QString why = w->lastError();
                std::fprintf(stderr, "alibi-explorer: no results after 60 s, giving up on screenshots%s%s\n",
                             why.isEmpty() ? "" : "; the last error: ", qPrintable(why));
                done(false);
                return;
            }
            QTimer::singleShot(50, w, *shoot);
            return;
        }
        const QString names[MainWindow::TabCount] = {
            u"1-head-grid"_s,     u"2-head-detail"_s, u"3-curves"_s,           u"4-stages"_s,         u"5-compare"_s,
            u"6-extrapolation"_s, u"7-diagnose"_s,    u"8-position-schemes"_s, u"9-attention-grid"_s, u"10-model"_s};
        bool ok = true;
        for (int t = 0; t < MainWindow::AttentionTab; ++t) {
            w->tabs()->setCurrentIndex(t);
            QApplication::processEvents();
            const QString file = QDir(dir).filePath(u"%1.png"_s.arg(names[t]));
            ok = w->grab().save(file, "PNG") && ok;
            std::fprintf(stdout, "screenshot: %s\n", qPrintable(file));
        }
        // The Attention maps tab, each of its views; the grid and head views with a hovered cell
        // (the read-out shows in the status bar) on the second layer, head 2, so a steep head's
        // diagonal and the colour bar's exact ends can be checked.
        AttentionMapsPage* page = w->attentionPage();
        w->tabs()->setCurrentIndex(MainWindow::AttentionTab);
        if (page->model()->maps() && page->model()->maps()->layers() > 1) page->setLayerIndex(1);
        page->setHead(std::min(2, page->model()->maps() ? page->model()->maps()->heads() - 1 : 0));
        const QString viewNames[AttentionMapsPage::ViewCount] = {
            u"9-attention-grid"_s,      u"9b-attention-overview"_s,   u"9c-attention-head"_s,
            u"9d-attention-distance"_s, u"9e-attention-similarity"_s, u"9f-attention-fit-table"_s,
            u"9g-attention-two-heads"_s};
        for (int v = 0; v < AttentionMapsPage::ViewCount; ++v) {
            page->views()->setCurrentIndex(v);
            QApplication::processEvents();
            // The pictures render in the background: shoot them, not the "updating..." mark.
            QElapsedTimer waited;
            waited.start();
            while (page->picturesPending() && waited.elapsed() < 60000)
                QApplication::processEvents(QEventLoop::AllEvents, 20);
            MapsHeatmapView* hover = v == AttentionMapsPage::GridView   ? page->gridView()
                                     : v == AttentionMapsPage::HeadView ? page->headView()
                                                                        : nullptr;
            if (hover && hover->hasPicture() && !hover->heatmap().tiles.empty()) {
                // A cell on the diagonal, a third of the way down the shown head's tile.
                const auto& tiles = hover->heatmap().tiles;
                const HeatmapTile& t =
                    tiles[std::min<std::size_t>(tiles.size() - 1, static_cast<std::size_t>(page->head()))];
                const QPoint device(t.x + t.width / 3, t.y + t.height / 3);
                const QPointF at = hover->widgetPosOf(device);
                QMouseEvent move(QEvent::MouseMove, at, hover->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                                 Qt::NoModifier);
                QApplication::sendEvent(hover, &move);
                QApplication::processEvents();
            }
            const QString file = QDir(dir).filePath(u"%1.png"_s.arg(viewNames[v]));
            ok = w->grab().save(file, "PNG") && ok;
            std::fprintf(stdout, "screenshot: %s\n", qPrintable(file));
        }
        w->tabs()->setCurrentIndex(MainWindow::GridTab);
        std::fprintf(stdout, "latency: change -> grid median %.2f ms (first render included)\n",
                     model->latencyMedianMs());
        done(ok);
    };
    QTimer::singleShot(200, w, *shoot);
}

}  // namespace alibi::qt
