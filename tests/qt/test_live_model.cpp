// Issue 29 in the Qt explorer: Help > Example model runs the shipped BLOOM model on the Model
// tab's text off the UI thread (a zero-interval timer keeps firing while it runs: the event loop
// never waits for the model), its maps open in the Attention maps tab with the text's tokens on
// the head view's axes and in the hovered read-out; B's slope change is a session parameter
// (undone, saved and reopened) and its A vs B plots come from the core's run; folders the core
// refuses (no ALiBi, not a model) leave its words and the maps shown before. Screenshots of the
// maps and of A vs B are written to the build folder for a person to look at.
#include "attention_maps_page.hpp"
#include "live_model_view.hpp"
#include "main_window.hpp"
#include "maps_heatmap_view.hpp"
#include "plot_widget.hpp"

#include <alibi/lm/run_report.hpp>

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFontMetricsF>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>
#include <QTimer>

using namespace alibi;
using namespace alibi::qt;

namespace {

const QString kExample = QString(ALIBI_ASSETS_DIR) + "/models/license-bloom-tiny";

void showWindow(MainWindow& w) {
    w.setInteractive(false);
    w.resize(1400, 900);
    w.show();
}

// Runs `start` and waits for the run to end, counting the UI thread's timer ticks meanwhile.
bool runAndWatch(MainWindow& w, const std::function<void()>& start, int* ticks = nullptr) {
    int count = 0;
    QTimer watchdog;
    watchdog.setInterval(0);
    QObject::connect(&watchdog, &QTimer::timeout, [&] { ++count; });
    watchdog.start();
    LiveRunModel* runner = w.liveView()->runner();
    start();
    const bool began = runner->running();
    const bool ended = QTest::qWaitFor([&] { return !runner->running(); }, 120000);
    watchdog.stop();
    if (ticks) *ticks = count;
    return began && ended;
}

void saveShot(QWidget& w, const QString& name) {
    const QString dir = QString(ALIBI_QT_SCREENSHOT_DIR);
    QDir().mkpath(dir);
    QVERIFY(w.grab().save(QDir(dir).filePath(name), "PNG"));
}

}  // namespace

class TestLiveModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QCoreApplication::setApplicationName("alibi-explorer-test-live"); }

    void exampleModelOpensItsMapsWithTokens() {
        QVERIFY(QFile::exists(MainWindow::exampleModelPath() + "/config.json"));
        MainWindow w;
        showWindow(w);
        int ticks = 0;
        QVERIFY(runAndWatch(
            w, [&] { w.openExampleModel(); }, &ticks));
        QVERIFY2(w.liveView()->runner()->run(), qPrintable(w.lastError()));
        QVERIFY(ticks > 0);  // the UI thread turned while the model ran
        QVERIFY(w.model()->session().live.path.ends_with("license-bloom-tiny"));
        // The maps are in the Attention maps tab, on the head view, with the text's tokens.
        QCOMPARE(w.tabs()->currentIndex(), int(MainWindow::AttentionTab));
        AttentionMapsPage* page = w.attentionPage();
        QTRY_VERIFY_WITH_TIMEOUT(page->model()->maps() != nullptr, 30000);
        const MapsPtr maps = page->model()->maps();
        const auto tokens = lm::tokensOfText(kExample.toStdString(), w.model()->session().live.text);
        QVERIFY(tokens);
        QCOMPARE(maps->layers(), 2);
        QCOMPARE(maps->heads(), 6);
        QCOMPARE(maps->keys(), static_cast<std::int64_t>(tokens->ids.size()));
        QVERIFY(maps->tokens() == tokens->text);
        // Paired with the slopes the run used (BLOOM's for 6 heads: 2^-2, 2^-4, 2^-6, 2^-8, then
        // 2^-1, 2^-3), so each head reads beside its own ALiBi prior without a choice.
        const std::vector<double> bloom6 = {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125};
        QVERIFY(maps->fileSlopes() == bloom6);
        QVERIFY(page->model()->configured() == bloom6);
        QCOMPARE(page->model()->configuredSource(), QString("the file"));
        QCOMPARE(page->views()->currentIndex(), int(AttentionMapsPage::HeadView));
        MapsHeatmapView* head = page->headView();
        QTRY_VERIFY_WITH_TIMEOUT(head->hasPicture() && !page->picturesPending(), 30000);
        QCOMPARE(head->keyTokens().size(), tokens->ids.size());
        // A hovered cell names its query and key tokens.
        const HeatmapTile& t = head->heatmap().tiles.front();
        const QString readout = page->hoverAt(head, QPoint(t.x + t.width / 3, t.y + t.height / 2));
        QVERIFY2(readout.contains("query token") && readout.contains("key token"), qPrintable(readout));
        saveShot(w, "qt-example-model-head-maps.png");
        page->views()->setCurrentIndex(AttentionMapsPage::GridView);
        QTRY_VERIFY_WITH_TIMEOUT(!page->picturesPending(), 30000);
        saveShot(w, "qt-example-model-grid.png");
    }

    void slopeChangeIsASessionParameterWithAvsB() {
        MainWindow w;
        showWindow(w);
        QVERIFY(runAndWatch(w, [&] { w.openExampleModel(); }));
        LiveModelView* view = w.liveView();
        QCOMPARE(view->lossPlot()->series().size(), std::size_t{1});  // A alone
        QVERIFY(view->changePlot()->series().empty());
        // B: slopes x0.5 and head 4's slope 1/16, over the first 40 tokens of a longer text.
        w.tabs()->setCurrentIndex(MainWindow::ModelTab);
        view->textEdit()->setPlainText(
            "Permission is hereby granted, free of charge, to any person obtaining a copy of this software and "
            "associated documentation files (the Software), to deal in the Software without restriction, including "
            "without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense.");
        view->scaleBox()->setValue(0.5);
        emit view->scaleBox()->editingFinished();
        view->headSlopesEdit()->setText("4=1/16");
        emit view->headSlopesEdit()->editingFinished();
        view->lengthBox()->setValue(40);
        emit view->lengthBox()->editingFinished();
        QCOMPARE(w.model()->session().live.change.scale, 0.5);
        QCOMPARE(w.model()->session().live.change.headSlopes.at(4), 0.0625);
        QVERIFY2(view->cliText().contains("--slope-scale 0.5 --head-slope 4=0.0625"), qPrintable(view->cliText()));
        QVERIFY(runAndWatch(w, [&] { view->run(); }));
        const LiveRunPtr run = view->runner()->run();
        QVERIFY(run && run->loss.b);
        QCOMPARE(run->loss.tokens.ids.size(), std::size_t{40});
        QCOMPARE(view->lossPlot()->series().size(), std::size_t{2});
        QCOMPARE(view->changePlot()->series().size(), std::size_t{2});  // one per layer
        QCOMPARE(view->changePlot()->series()[0].y.size(), std::size_t{6});
        QCOMPARE(w.tabs()->currentIndex(), int(MainWindow::ModelTab));  // A vs B stays in view
        QVERIFY(w.attentionPage()->model()->maps() == run->maps);
        saveShot(w, "qt-example-model-a-vs-b.png");

        // Saved and reopened with the session; undone step by step.
        QTemporaryDir dir;
        const QString file = dir.filePath("live.alibi.json");
        QVERIFY(w.saveSessionTo(file));
        MainWindow other;
        other.setInteractive(false);
        QVERIFY(other.openSession(file));
        QVERIFY(other.model()->session().live == w.model()->session().live);
        QCOMPARE(other.liveView()->scaleBox()->value(), 0.5);
        QCOMPARE(other.liveView()->headSlopesEdit()->text(), QString("4=0.0625"));
        QVERIFY(w.model()->undo());  // the text committed by Run
        QVERIFY(w.model()->undo());  // the length
        QCOMPARE(view->lengthBox()->value(), 0);
        QVERIFY(w.model()->undo());  // head 4
        QCOMPARE(view->headSlopesEdit()->text(), QString());
        QVERIFY(w.model()->undo());  // the scale
        QCOMPARE(view->scaleBox()->value(), 1.0);
        QVERIFY(w.model()->session().live.change.none());
    }

    // Issue 27: in presentation mode (a larger font) the text box showed two and a half of its
    // four lines (its height followed the font it was built with). Four whole lines show.
    void textBoxShowsFourWholeLinesInPresentation() {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.tabs()->setCurrentIndex(MainWindow::ModelTab);
        w.setPresentation(true);
        QTest::qWait(100);
        QPlainTextEdit* text = w.liveView()->textEdit();
        const double need = 4 * QFontMetricsF(text->font()).lineSpacing() + 2 * text->document()->documentMargin();
        QVERIFY2(
            text->viewport()->height() >= need,
            qPrintable(QString("viewport %1 px for %2 px of four lines").arg(text->viewport()->height()).arg(need)));
        w.setPresentation(false);
    }

    void refusalsAreTheCoresWords() {
        MainWindow w;
        showWindow(w);
        QVERIFY(runAndWatch(w, [&] { w.openExampleModel(); }));
        const MapsPtr shown = w.attentionPage()->model()->maps();
        QVERIFY(shown);
        QTemporaryDir dir;
        QFile config(dir.filePath("config.json"));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama"})");
        config.close();
        QVERIFY(runAndWatch(w, [&] { w.openModel(dir.path()); }));
        QVERIFY2(w.lastError().contains("does not use ALiBi"), qPrintable(w.lastError()));
        QVERIFY(w.liveView()->statusText().contains("does not use ALiBi"));
        QVERIFY(runAndWatch(w, [&] { w.openModel(dir.filePath("missing")); }));
        QVERIFY2(w.lastError().contains("missing"), qPrintable(w.lastError()));
        // A head the model lacks: the core's words, the maps shown before stay.
        w.openModel(kExample);
        QVERIFY(QTest::qWaitFor([&] { return !w.liveView()->runner()->running(); }, 120000));
        LiveModelParams p = w.model()->session().live;
        p.change.headSlopes[9] = 0.5;
        QVERIFY(w.model()->setLive(p));
        QVERIFY(runAndWatch(w, [&] { w.liveView()->run(); }));
        QVERIFY2(w.lastError().contains("head 9 does not exist"), qPrintable(w.lastError()));
        QVERIFY(w.attentionPage()->model()->maps() != nullptr);
        // A refused edit never reaches the session.
        p.change.scale = -2;
        QVERIFY(!w.model()->setLive(p));
        QCOMPARE(w.model()->session().live.change.scale, 1.0);
    }
};

QTEST_MAIN(TestLiveModel)
#include "test_live_model.moc"
