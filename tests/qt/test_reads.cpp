// Issue 25, item 3: session files (File > Open, recent files, a drop, the command line) and the
// Diagnose view's tensors are read off the UI thread, with the core's progress and a Cancel; an
// open that fails or is cancelled keeps the parameters, unsaved work included.
//
// The watchdog tests hold the reading thread at its first progress report (the read observer,
// a stand-in for a slow disk) until a QTimer on the UI thread has fired a few times: a read on the
// UI thread would keep the timer from ever firing, so the hold would end only at its hang guard
// and the test fails. No test measures time.
#include "diagnose_view.hpp"
#include "main_window.hpp"
#include "patient_qtry.hpp"
#include "settled.hpp"

#include <alibi/io/session.hpp>
#include <alibi/io/tensor_io.hpp>
#include <alibi/model/bias.hpp>

#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

using namespace alibi;
using namespace alibi::qt;
using alibi::qt::test::settled;

namespace {

// Holds the reading thread at its first report until released (or a 120 s hang guard passes)
// and records every report.
struct Hold : std::enable_shared_from_this<Hold> {
    std::atomic<bool> held{false}, released{false};
    std::mutex mutex;
    std::vector<ReadProgress> reports;
    ReadProgress::Stage at = ReadProgress::Stage::Reading;  // the first report of this stage holds
    bool stop = false;                                      // return false (cancel) at that report instead of holding

    ReadProgressFn observer() {
        // The observer keeps the hold alive: the reading thread may still be in it when the test
        // has moved on.
        return [this, keep = shared_from_this()](const ReadProgress& p) {
            {
                std::lock_guard lock(mutex);
                reports.push_back(p);
            }
            if (p.stage != at || held.exchange(true)) return true;
            if (stop) return false;
            const auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(120);
            while (!released.load() && std::chrono::steady_clock::now() < guard)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            return true;
        };
    }
    // Every fraction within [0, 1], never going back, with the core's words.
    bool forward() {
        std::lock_guard lock(mutex);
        double last = 0;
        for (const ReadProgress& p : reports) {
            if (p.fraction() < last || p.fraction() > 1 || p.text().empty()) return false;
            last = p.fraction();
        }
        return !reports.empty() && reports.back().fraction() == 1.0;
    }
};

// A valid session (H = 6, T = 40, symmetric) padded with spaces to about `bytes`.
QString writeSession(const QTemporaryDir& dir, const QString& name, int bytes) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write("{\"version\": 1,");
    f.write(QByteArray(bytes, ' '));
    f.write("\"bias\": {\"heads\": 6, \"queries\": 40, \"keys\": 40, \"mode\": \"symmetric\"}}\n");
    return path;
}

// Correct causal ALiBi of (H, T, T) f32 as an .npy.
QString writeBias(const QTemporaryDir& dir, const QString& name, int heads, std::int64_t length) {
    BiasParams p;
    p.slopes.heads = heads;
    p.queries = length;
    auto bias = buildBias(p);
    const QString path = dir.filePath(name);
    ExportOptions options;
    options.format = FileFormat::Npy;
    options.allowNonFinite = true;
    if (!bias || !exportTensor(*tensorSource(*bias), path.toStdString(), options)) return {};
    return path;
}

}  // namespace

class TestReads : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("alibi-test");
        QCoreApplication::setApplicationName("alibi-explorer-reads-test");
        QSettings().clear();
    }

    // A 15 MiB session file: the window's event loop keeps turning while it is read, the status
    // bar shows its progress and Cancel, and the parameters change only once it has been read.
    void aLargeSessionIsReadWhileTheEventLoopTurns() {
        QTemporaryDir dir;
        const QString path = writeSession(dir, "large.alibi.json", 15 << 20);
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        QVERIFY(w.model()->setHeads(5));  // unsaved work
        const Session before = w.model()->session();
        auto* bar = w.findChild<QProgressBar*>("sessionProgress");
        auto* cancel = w.findChild<QToolButton*>("sessionCancel");
        QVERIFY(bar && cancel);

        auto hold = std::make_shared<Hold>();
        w.setReadObserver(hold->observer());
        int ticksWhileHeld = 0;
        QTimer watchdog;
        watchdog.setInterval(1);
        connect(&watchdog, &QTimer::timeout, [&] {
            if (hold->held.load() && !hold->released.load() && ++ticksWhileHeld >= 3) hold->released = true;
        });
        watchdog.start();
        QSignalSpy finished(&w, &MainWindow::sessionOpenFinished);
        w.startOpenSession(path);
        // Returned at once: being read, nothing changed yet, progress and Cancel shown.
        QVERIFY(w.openingSession());
        QVERIFY(w.model()->session() == before);
        QVERIFY(bar->isVisible() && cancel->isVisible());
        QTRY_VERIFY(!w.openingSession());
        QVERIFY2(ticksWhileHeld >= 3, "the event loop did not turn while the session file was read");
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(1).toBool(), true);
        QVERIFY(hold->forward());
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 6);
        QCOMPARE(w.model()->session().attention.bias.queries, 40);
        QCOMPARE(w.model()->session().attention.bias.mode, BiasMode::Symmetric);
        QVERIFY(!w.model()->modified());
        QCOMPARE(w.currentFile(), path);
        QVERIFY(!bar->isVisible() && !cancel->isVisible());
    }

    // Cancel while the file is read (the status bar's button, and the observer returning false),
    // and a file that is refused: the unsaved parameters stay each time.
    void aCancelledOrFailedSessionOpenKeepsUnsavedWork() {
        QTemporaryDir dir;
        const QString path = writeSession(dir, "large.alibi.json", 15 << 20);
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        QVERIFY(w.model()->setHeads(5));
        const Session before = w.model()->session();
        auto* cancel = w.findChild<QToolButton*>("sessionCancel");
        QVERIFY(cancel);

        {
            auto hold = std::make_shared<Hold>();
            w.setReadObserver(hold->observer());
            QSignalSpy finished(&w, &MainWindow::sessionOpenFinished);
            w.startOpenSession(path);
            QTRY_VERIFY(hold->held.load());  // the read is under way on its thread
            cancel->click();
            QVERIFY(!w.openingSession());
            QCOMPARE(finished.count(), 1);
            QCOMPARE(finished.at(0).at(1).toBool(), false);
            QVERIFY(w.statusBar()->currentMessage().contains("cancelled"));
            hold->released = true;
            w.setReadObserver({});
            QVERIFY(w.model()->session() == before);
            QVERIFY(w.model()->modified());
            QVERIFY(w.currentFile().isEmpty());
        }
        {
            // The observer says stop at the first report. (The open first waits for the cancelled
            // read above to end: whatever that one still delivered was dropped.)
            auto hold = std::make_shared<Hold>();
            hold->stop = true;
            w.setReadObserver(hold->observer());
            QVERIFY(!w.openSession(path));
            QVERIFY(w.model()->session() == before);
            QVERIFY(w.model()->modified());
            w.setReadObserver({});
        }
        // A file the core refuses: a message, the parameters stay.
        const QString bad = dir.filePath("bad.alibi.json");
        {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"version\": 1, \"bias\": {\"heads\": \"many\"}}");
        }
        QVERIFY(!w.openSession(bad));
        QVERIFY(w.lastError().contains("bias.heads"));
        QVERIFY(w.model()->session() == before);
        QVERIFY(w.model()->modified());
    }

    // A dropped session file and a recent file start the same background read: the call returns
    // while the file is being read.
    void droppedAndRecentSessionsAreReadInTheBackground() {
        QTemporaryDir dir;
        const QString path = writeSession(dir, "large.alibi.json", 15 << 20);
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        auto hold = std::make_shared<Hold>();
        w.setReadObserver(hold->observer());
        w.handleDroppedFile(path);
        QVERIFY(w.openingSession());
        hold->released = true;
        QTRY_VERIFY(!w.openingSession());
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 6);

        QVERIFY(w.model()->setHeads(9));
        w.setDiscardPrompt([] { return MainWindow::DiscardChoice::Discard; });
        QMenu* recent = nullptr;
        for (QMenu* menu : w.menuBar()->findChildren<QMenu*>())
            if (menu->title() == "&Recent files") recent = menu;
        QVERIFY(recent);
        QAction* entry = nullptr;
        for (QAction* a : recent->actions())  // newest first: this test's file
            if (!entry && a->text().contains("large.alibi.json")) entry = a;
        QVERIFY(entry);
        auto again = std::make_shared<Hold>();
        w.setReadObserver(again->observer());
        entry->trigger();
        QVERIFY(w.openingSession());
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 9);  // not yet
        again->released = true;
        QTRY_VERIFY(!w.openingSession());
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 6);
    }

    // The Diagnose view reads an 8 MiB tensor with the core's progress while the event loop
    // turns, and Cancel keeps the diagnosis shown before.
    void diagnoseReadsShowProgressAndCancelKeepsTheLastDiagnosis() {
        QTemporaryDir dir;
        const QString small = writeBias(dir, "small.npy", 4, 16);
        const QString large = writeBias(dir, "large.npy", 8, 512);  // 8 MiB of f32: two chunks of data
        QVERIFY(!small.isEmpty() && !large.isEmpty());
        MainWindow w;
        w.setInteractive(false);
        w.show();
        DiagnoseView* view = w.diagnoseView();
        auto* bar = view->findChild<QProgressBar*>("diagnoseProgress");
        auto* cancel = view->findChild<QPushButton*>("diagnoseCancel");
        QVERIFY(bar && cancel);
        QSignalSpy diagnosed(view, &DiagnoseView::diagnosed);
        w.diagnoseFile(small);
        QTRY_COMPARE(diagnosed.count(), 1);
        const QString summary = view->summaryText();
        QVERIFY(!summary.isEmpty());

        // Held in the data read until the watchdog has fired: progress, then the diagnosis.
        auto hold = std::make_shared<Hold>();
        hold->at = ReadProgress::Stage::ReadingData;
        w.setReadObserver(hold->observer());
        int ticksWhileHeld = 0;
        QTimer watchdog;
        watchdog.setInterval(1);
        connect(&watchdog, &QTimer::timeout, [&] {
            if (hold->held.load() && !hold->released.load() && ++ticksWhileHeld >= 3) hold->released = true;
        });
        watchdog.start();
        QSignalSpy progress(view, &DiagnoseView::progress);
        w.diagnoseFile(large);
        QVERIFY(view->busy());
        QVERIFY(bar->isVisible() && cancel->isVisible());
        QTRY_COMPARE(diagnosed.count(), 2);
        QVERIFY2(ticksWhileHeld >= 3, "the event loop did not turn while the tensor was read");
        QVERIFY(hold->forward());
        QVERIFY(progress.count() > 0);
        double last = 0;
        for (const QList<QVariant>& report : progress) {
            QVERIFY(report.at(0).toDouble() >= last);
            last = report.at(0).toDouble();
            QVERIFY(!report.at(1).toString().isEmpty());
        }
        QVERIFY(!bar->isVisible() && !cancel->isVisible());
        QVERIFY(view->summaryText() != summary);  // the large tensor's words (H = 8, T = 512)
        watchdog.stop();

        // Cancel while the data is read: no new diagnosis, the one shown stays.
        w.diagnoseFile(small);
        QTRY_COMPARE(diagnosed.count(), 3);
        QCOMPARE(view->summaryText(), summary);
        auto held = std::make_shared<Hold>();
        held->at = ReadProgress::Stage::ReadingData;
        w.setReadObserver(held->observer());
        QSignalSpy cancelled(view, &DiagnoseView::cancelled);
        QSignalSpy failed(view, &DiagnoseView::failed);
        w.diagnoseFile(large);
        QTRY_VERIFY(held->held.load());
        cancel->click();
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(!view->busy());
        held->released = true;
        // The observer saying stop is a cancel too.
        auto stop = std::make_shared<Hold>();
        stop->at = ReadProgress::Stage::ReadingData;
        stop->stop = true;
        w.setReadObserver(stop->observer());
        w.diagnoseFile(large);
        QTRY_VERIFY(!view->busy());
        QCOMPARE(cancelled.count(), 2);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(diagnosed.count(), 3);
        QCOMPARE(view->summaryText(), summary);
    }
};

QTEST_MAIN(TestReads)
#include "test_reads.moc"
