// Screenshot driver: polls the model until the snapshot, compare, extrapolation and the diagnosis
// example are all in, so every picture shows a finished view rather than "updating...".
#include "screenshot_driver.hpp"

#include "diagnose_view.hpp"
#include "main_window.hpp"

#include <alibi/analysis/diagnose.hpp>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>
#include <memory>

namespace alibi::qt {

void runScreenshots(MainWindow& window, const QString& dir, std::function<void(bool)> done) {
    // Screenshots keep one size whatever the (virtual) screen is, so they compare across runs.
    window.resize(1400, 900);
    SessionModel* model = window.model();
    model->setCompareEnabled(true);
    model->setExtrapolationEnabled(true);
    window.diagnoseView()->openExample(kSlopeOffByOne);
    QDir().mkpath(dir);
    auto shoot = std::make_shared<std::function<void()>>();
    auto timer = std::make_shared<QElapsedTimer>();
    timer->start();
    MainWindow* w = &window;
    *shoot = [w, model, dir, done, shoot, timer] {
        const SnapshotPtr s = model->snapshot();
        const bool ready = s && !model->pending() && s->compare && s->extrapolation && !w->diagnoseView()->busy();
        if (!ready) {
            if (timer->elapsed() > 60000) {
                std::fprintf(stderr, "alibi-explorer: no results after 60 s, giving up on screenshots\n");
                done(false);
                return;
            }
            QTimer::singleShot(50, w, *shoot);
            return;
        }
        const char* names[MainWindow::TabCount] = {"1-head-grid", "2-head-detail", "3-curves", "4-stages", "5-compare", "6-extrapolation", "7-diagnose",
                                                   "8-position-schemes"};
        bool ok = true;
        for (int t = 0; t < MainWindow::TabCount; ++t) {
            w->tabs()->setCurrentIndex(t);
            QApplication::processEvents();
            const QString file = QDir(dir).filePath(QString("%1.png").arg(names[t]));
            ok = w->grab().save(file, "PNG") && ok;
            std::fprintf(stdout, "screenshot: %s\n", qPrintable(file));
        }
        w->tabs()->setCurrentIndex(MainWindow::GridTab);
        std::fprintf(stdout, "latency: change -> grid median %.2f ms (first render included)\n", model->latencyMedianMs());
        done(ok);
    };
    QTimer::singleShot(200, w, *shoot);
}

}  // namespace alibi::qt
