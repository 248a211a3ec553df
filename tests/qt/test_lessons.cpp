// Guided lessons (issue 13 item 1), driven as a lecturer would under the offscreen platform:
// every step of every bundled lesson opens its view and sets its parameters (a screenshot per
// step goes to screenshots/lessons/ of this build folder: look at them); Page Down / Page Up
// always step, even from a spin box, and the arrows only from the lesson panel or a view; "Back
// to the step" restores the step after the user changed it; a step is one undo step.
#include "attention_maps_page.hpp"
#include "compare_view.hpp"
#include "extrapolation_view.hpp"
#include "head_grid_view.hpp"
#include "lesson_panel.hpp"
#include "main_window.hpp"
#include "maps_heatmap_view.hpp"
#include "parameters_panel.hpp"
#include "plot_widget.hpp"
#include "settled.hpp"
#include "stages_view.hpp"

#include <alibi/explore/lesson_state.hpp>
#include <alibi/io/lesson.hpp>

#include <QApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QListWidget>
#include <QPushButton>
#include <QScopeGuard>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <QLineF>
#include <QTableView>
#include <QTextBrowser>
#include "patient_qtry.hpp"

using namespace alibi;
using namespace alibi::qt;

namespace {

int tabOf(ExplorerView view) {
    switch (view) {
        case ExplorerView::Grid:
            return MainWindow::GridTab;
        case ExplorerView::Detail:
            return MainWindow::DetailTab;
        case ExplorerView::Curves:
            return MainWindow::CurvesTab;
        case ExplorerView::Stages:
        case ExplorerView::Stats:
            return MainWindow::StagesTab;
        case ExplorerView::Compare:
            return MainWindow::CompareTab;
        case ExplorerView::Extrapolation:
            return MainWindow::ExtrapolationTab;
        case ExplorerView::Diagnose:
            return MainWindow::DiagnoseTab;
        case ExplorerView::PositionSchemes:
            return MainWindow::PositionSchemesTab;
    }
    return -1;
}

QString lessonPath(const char* name) {
    return QString(ALIBI_ASSETS_DIR) + "/lessons/" + name;
}

// Pixels of the lesson orange (255, 140, 0) in a widget as drawn.
int orangePixels(QWidget* widget) {
    const QImage image = widget->grab().toImage().convertToFormat(QImage::Format_RGB32);
    int count = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if (image.pixel(x, y) == qRgb(255, 140, 0)) ++count;
    return count;
}

// The rows of a table view whose lesson background is set (orange, any alpha).
QList<int> orangeRows(const QTableView* table) {
    QList<int> rows;
    for (int row = 0; row < table->model()->rowCount(); ++row) {
        const QVariant bg = table->model()->index(row, 1).data(Qt::BackgroundRole);
        if (bg.canConvert<QColor>() && bg.value<QColor>().rgb() == qRgb(255, 140, 0)) rows << row;
    }
    return rows;
}

}  // namespace

class TestLessons : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("alibi-test");
        QCoreApplication::setApplicationName("alibi-explorer-test-lessons");
        QSettings().clear();
        // The bundled lessons and example maps of the source tree; no user lessons.
        qputenv("ALIBI_DATA_DIR", ALIBI_ASSETS_DIR);
        qputenv("XDG_DATA_HOME", m_home.path().toUtf8());
    }

    // Every step of every lesson: its parameters, its view (or the note for a view this
    // explorer lacks), its counter, and a screenshot at a projector's 1280x720.
    void walkEveryStepOfEveryLesson() {
        const auto entries = listLessons(lessonFolders());
        QVERIFY(entries.size() >= 5);
        const QString shots = QString(ALIBI_LESSON_SHOTS);
        for (const LessonEntry& entry : entries) {
            QVERIFY2(entry.error.empty(), entry.error.c_str());
            MainWindow w;
            QVERIFY(test::showForTest(w, 1280, 720));
            QVERIFY2(w.openLesson(QString::fromStdString(entry.path)), qPrintable(w.lastError()));
            LessonPanel* panel = w.lessonPanel();
            QVERIFY(panel->isVisible());
            const auto lesson = loadLesson(entry.path);
            QVERIFY(lesson);
            QDir().mkpath(shots + "/" + QString::fromStdString(entry.name));
            for (std::size_t n = 0; n < lesson->steps.size(); ++n) {
                const LessonStep& step = lesson->steps[n];
                const QString where = QString("%1 step %2").arg(QString::fromStdString(entry.name)).arg(n + 1);
                QCOMPARE(panel->state()->index(), static_cast<int>(n));
                QCOMPARE(panel->counterText(), QString("%1 / %2").arg(n + 1).arg(lesson->steps.size()));
                QVERIFY2(explore::sameParameters(w.model()->session(), step.session), qPrintable(where));
                if (step.explorerView) {
                    QVERIFY2(w.tabs()->currentIndex() == tabOf(*step.explorerView), qPrintable(where));
                    QVERIFY2(panel->noteText().isEmpty(), qPrintable(where));
                } else if (!step.attentionMaps.empty()) {
                    // A step over a model's attention maps opens them at its layer, head and row,
                    // in the view it names, on the Attention maps tab.
                    QVERIFY2(w.tabs()->currentIndex() == MainWindow::AttentionTab, qPrintable(where));
                    QVERIFY2(panel->noteText().isEmpty(), qPrintable(where));
                    AttentionMapsPage* page = w.attentionPage();
                    QTRY_VERIFY_WITH_TIMEOUT(page->model()->maps() != nullptr, 30000);
                    QTRY_COMPARE_WITH_TIMEOUT(
                        page->model()->maps()->layerInfo()[static_cast<std::size_t>(page->layerIndex())].number,
                        step.layer, 30000);
                    if (step.session.head >= 0) QCOMPARE(page->head(), step.session.head);
                    if (step.session.queryRow >= 0) QCOMPARE(page->row(), step.session.queryRow);
                    QTRY_VERIFY_WITH_TIMEOUT(!page->picturesPending(), 30000);
                } else {
                    QVERIFY2(panel->noteText().contains(QString::fromStdString(step.view)), qPrintable(where));
                }
                // The words as written: the shown text keeps formulas whole with no-break spaces
                // and word joiners, which are not the lesson's words.
                const auto words = [](QString t) { return t.replace(QChar(0x00A0), u' ').remove(QChar(0x2060)); };
                QVERIFY(words(panel->textView()->toPlainText())
                            .startsWith(words(
                                QString::fromStdString(step.text.substr(0, step.text.find('\n')).substr(0, 20)))));
                QTRY_VERIFY_WITH_TIMEOUT(!w.model()->pending(), 30000);
                QTest::qWait(150);  // the views repaint from the last result
                const QString file = QString("%1/%2/%3.png")
                                         .arg(shots, QString::fromStdString(entry.name))
                                         .arg(n + 1, 2, 10, QChar('0'));
                QVERIFY2(w.grab().save(file), qPrintable(file));
                if (n + 1 < lesson->steps.size()) QVERIFY(panel->next());
            }
            QVERIFY(!panel->next());  // the last step stays
        }
    }

    // Page Down / Page Up step even while a spin box has focus (a presenter remote), and do not
    // change the box; the arrows step from the lesson panel and from a view, not from the box.
    void keysStepTheLesson() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openLesson(lessonPath("01-alibi-in-five-steps.lesson.json")));
        LessonPanel* panel = w.lessonPanel();
        QSpinBox* heads = w.parameters()->headsBox;
        heads->setFocus();
        QTRY_VERIFY(heads->hasFocus());
        QTest::keyClick(heads, Qt::Key_PageDown);
        QCOMPARE(panel->state()->index(), 1);
        QCOMPARE(heads->value(), 8);
        QCOMPARE(w.tabs()->currentIndex(), static_cast<int>(MainWindow::DetailTab));
        QTest::keyClick(heads, Qt::Key_PageUp);
        QCOMPARE(panel->state()->index(), 0);
        QCOMPARE(heads->value(), 8);
        // The box keeps its arrows.
        QTest::keyClick(heads, Qt::Key_Right);
        QTest::keyClick(heads, Qt::Key_Left);
        QCOMPARE(panel->state()->index(), 0);
        // From the lesson text and from a view the arrows step.
        panel->textView()->setFocus();
        QTRY_VERIFY(panel->textView()->hasFocus());
        QTest::keyClick(panel->textView(), Qt::Key_Right);
        QCOMPARE(panel->state()->index(), 1);
        QTest::keyClick(panel->textView(), Qt::Key_Left);
        QCOMPARE(panel->state()->index(), 0);
        w.tabs()->setCurrentIndex(MainWindow::GridTab);
        w.gridView()->setFocusPolicy(Qt::StrongFocus);
        w.gridView()->setFocus();
        QTRY_VERIFY(w.gridView()->hasFocus());
        QTest::keyClick(w.gridView(), Qt::Key_Right);
        QCOMPARE(panel->state()->index(), 1);
        QTest::keyClick(w.gridView(), Qt::Key_PageDown);
        QCOMPARE(panel->state()->index(), 2);
        QCOMPARE(panel->counterText(), QString("3 / 6"));
        // Past the end nothing moves; closing ends the lesson and its keys.
        for (int k = 0; k < 10; ++k) QTest::keyClick(w.gridView(), Qt::Key_PageDown);
        QCOMPARE(panel->state()->index(), 5);
        panel->closeLesson();
        QVERIFY(!panel->active());
        QVERIFY(!panel->isVisible());
        const int tab = w.tabs()->currentIndex();
        QTest::keyClick(w.gridView(), Qt::Key_PageUp);
        QCOMPARE(w.tabs()->currentIndex(), tab);
    }

    // The user changes a step's parameters; "Back to the step" restores them (one undo step).
    void backToTheStep() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openLesson("slopes"));
        LessonPanel* panel = w.lessonPanel();
        QVERIFY(panel->next());  // H = 12
        const Session step = panel->state()->step().session;
        QVERIFY(!panel->backButton()->isEnabled());
        QVERIFY(w.model()->setHeads(5));
        QVERIFY(w.model()->setMaxBias(4));
        w.tabs()->setCurrentIndex(MainWindow::GridTab);
        QVERIFY(panel->backButton()->isEnabled());
        QTest::mouseClick(panel->backButton(), Qt::LeftButton);
        QVERIFY(explore::sameParameters(w.model()->session(), step));
        QCOMPARE(w.tabs()->currentIndex(), static_cast<int>(MainWindow::CurvesTab));
        QVERIFY(!panel->backButton()->isEnabled());
        // Undo takes back the restore as one step, then each of the user's edits.
        QVERIFY(w.model()->undo());
        QCOMPARE(w.model()->session().attention.bias.slopes.maxBias, 4.0);
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 5);
        // Stepping is one undo step too: from step 2 to step 3 and back with one Ctrl+Z.
        panel->backToStep();
        const Session before = w.model()->session();
        QVERIFY(panel->next());
        QVERIFY(!explore::sameParameters(w.model()->session(), before));
        QVERIFY(w.model()->undo());
        QVERIFY(explore::sameParameters(w.model()->session(), before));
    }

    // --lesson with an unknown name says which lessons there are; a step's highlight reaches the grid.
    void unknownLessonAndHighlight() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(!w.openLesson("rope"));
        QVERIFY(w.lastError().contains("no lesson 'rope'"));
        QVERIFY(w.lastError().contains("alibi-in-five-steps"));
        QVERIFY(!w.lessonPanel()->active());
        QVERIFY(w.openLesson("same-model-different-code"));
        QCOMPARE(w.lessonPanel()->counterText(), QString("1 / 7"));
        QVERIFY(w.lessonPanel()->textPointSize() >= 18);
        const double pt = w.lessonPanel()->textPointSize();
        w.lessonPanel()->setTextPointSize(pt * 1.5);
        QCOMPARE(w.lessonPanel()->textView()->font().pointSizeF(), pt * 1.5);
    }

    // A step's heads and cell reach the stages, compare and extrapolation views too: the key's
    // bar in every stage, the heads' rows of the statistics and mass-beyond tables, the tiles and
    // the cell in Compare, and thick curves in the extrapolation when its head is marked.
    void highlightReachesStagesCompareExtrapolation() {
        QTemporaryDir dir;
        const QString file = dir.filePath("marks.lesson.json");
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(R"({"version": 1, "title": "marks",
          "start": {"bias": {"heads": 8, "queries": 16}, "attention": {"content": "zero"}},
          "steps": [
            {"text": "stages", "view": "stages", "set": {"view": {"head": 2}, "attention": {"query": 12}},
             "highlight": {"heads": [2, 5], "cell": [12, 4]}},
            {"text": "compare", "view": "compare", "highlight": {"heads": [1, 3], "cell": [12, 4]}},
            {"text": "extrapolation", "view": "extrapolation", "set": {"view": {"train_length": 8}},
             "highlight": {"heads": [2]}},
            {"text": "extrapolation, another head", "view": "extrapolation", "set": {"view": {"head": 6}}}
          ]})");
        out.close();
        MainWindow w;
        QVERIFY(test::showForTest(w, 1280, 720));
        QVERIFY2(w.openLesson(file), qPrintable(w.lastError()));
        QTRY_VERIFY_WITH_TIMEOUT(!w.model()->pending(), 30000);
        QTest::qWait(100);

        // Stages: key 4 of head 2's row 12 is marked in all four plots, drawn orange.
        StagesView* stages = w.stagesView();
        for (int n = 0; n < 4; ++n) {
            QCOMPARE(stages->stagePlot(n)->markedX(), std::optional<double>(4.0));
            QVERIFY2(orangePixels(stages->stagePlot(n)) > 50, qPrintable(QString("stage %1").arg(n + 1)));
        }
        QList<int> marked;
        for (int row : orangeRows(stages->statsTable()))
            marked << stages->statsTable()->model()->index(row, StagesView::Head).data(Qt::UserRole).toInt();
        std::sort(marked.begin(), marked.end());
        QCOMPARE(marked, (QList<int>{2, 5}));

        // Compare: heads 1 and 3 outlined, the cell framed in head 1's tile.
        QVERIFY(w.lessonPanel()->next());
        QTRY_VERIFY_WITH_TIMEOUT(!w.model()->pending(), 30000);
        QTest::qWait(100);
        QCOMPARE(w.tabs()->currentIndex(), static_cast<int>(MainWindow::CompareTab));
        ImagePanel* image = w.compareView()->image();
        QCOMPARE(image->lessonMark().heads, (std::vector<int>{1, 3}));
        QCOMPARE(image->lessonMark().cellHead, 1);
        const int withMark = orangePixels(image);
        QVERIFY2(withMark > 400, qPrintable(QString::number(withMark)));
        // The stages' marks follow the step: no cell there now.
        QCOMPARE(stages->stagePlot(0)->markedX(), std::optional<double>());

        // Extrapolation: head 2 shown and marked: its curves thick, its row marked.
        QVERIFY(w.lessonPanel()->next());
        QTRY_VERIFY_WITH_TIMEOUT(!w.model()->pending(), 30000);
        QTest::qWait(100);
        ExtrapolationView* extrapolation = w.extrapolationView();
        QCOMPARE(orangeRows(extrapolation->table()), (QList<int>{2}));
        QVERIFY(!extrapolation->plot()->series().empty());
        QCOMPARE(extrapolation->plot()->emphasis().size(), extrapolation->plot()->series().size());
        // Another head shown, none marked: thin curves, no rows.
        QVERIFY(w.lessonPanel()->next());
        QTRY_VERIFY_WITH_TIMEOUT(!w.model()->pending(), 30000);
        QTest::qWait(100);
        QVERIFY(extrapolation->plot()->emphasis().empty());
        QVERIFY(orangeRows(extrapolation->table()).isEmpty());

        // Closing the lesson clears every mark.
        QVERIFY(w.lessonPanel()->previous());
        QVERIFY(w.lessonPanel()->previous());
        QTRY_VERIFY_WITH_TIMEOUT(!w.model()->pending(), 30000);
        w.lessonPanel()->closeLesson();
        QTest::qWait(100);
        QCOMPARE(orangePixels(image), 0);
        QVERIFY(orangeRows(stages->statsTable()).isEmpty());
        QCOMPARE(stages->stagePlot(0)->markedX(), std::optional<double>());
    }

    // Lesson 5's marks on a model's attention maps (the core's LessonMarkScope::AttentionMaps):
    // step 2 marks layer 0's heads 0-3 in the fit table, step 3 frames cell [63, 0] of layer 1's
    // head 4 in the head view; the ALiBi grid beside them marks nothing.
    void lessonFiveMarksTheMaps() {
        MainWindow w;
        QVERIFY(test::showForTest(w, 1280, 720));
        QVERIFY2(w.openLesson(lessonPath("05-reading-a-real-model.lesson.json")), qPrintable(w.lastError()));
        AttentionMapsPage* page = w.attentionPage();
        QTRY_VERIFY_WITH_TIMEOUT(page->model()->maps() != nullptr, 30000);  // step 1 opened the file
        QTRY_VERIFY_WITH_TIMEOUT(!page->picturesPending(), 30000);
        QVERIFY(w.lessonPanel()->next());
        QTRY_VERIFY_WITH_TIMEOUT(page->model()->maps() != nullptr, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!page->model()->fits().empty(), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(!page->picturesPending(), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(page->views()->currentIndex(), static_cast<int>(AttentionMapsPage::TableView), 30000);
        QCOMPARE(page->lessonMark().heads, (std::vector<int>{0, 1, 2, 3}));
        QVERIFY(w.gridView() != nullptr);
        const auto& fits = page->model()->fits();
        QList<int> want;
        auto* sorted = qobject_cast<QSortFilterProxyModel*>(page->table()->model());
        QVERIFY(sorted != nullptr);
        for (int row = 0; row < sorted->rowCount(); ++row) {
            const HeadFit& f = fits[static_cast<std::size_t>(sorted->mapToSource(sorted->index(row, 0)).row())];
            if (f.layerIndex == 0 && f.head < 4) want << row;
        }
        QCOMPARE(want.size(), 4);
        QCOMPARE(orangeRows(page->table()), want);

        // Step 3: the head view of layer 1, head 4, cell (63, 0) framed in orange.
        QVERIFY(w.lessonPanel()->next());
        QTRY_COMPARE_WITH_TIMEOUT(page->views()->currentIndex(), static_cast<int>(AttentionMapsPage::HeadView), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!page->picturesPending(), 30000);
        QTest::qWait(100);
        // Step 2's rows are no longer marked: the table marks this step's head, layer 1's head 4.
        const QList<int> now = orangeRows(page->table());
        QCOMPARE(now.size(), 1);
        const HeadFit& sink = fits[static_cast<std::size_t>(sorted->mapToSource(sorted->index(now[0], 0)).row())];
        QCOMPARE(sink.layerIndex, 1);
        QCOMPARE(sink.head, 4);
        MapsHeatmapView* head = page->headView();
        QVERIFY(head->lessonMark().marksCell(4, 63, 0));
        const QRectF cell = head->cellRect(0, 63, 0);
        QVERIFY(!cell.isEmpty());
        // Orange around the cell (bottom-left corner of the tile), none far from it.
        const QImage image = head->grab().toImage().convertToFormat(QImage::Format_RGB32);
        const double ratio = head->devicePixelRatioF();
        int near = 0, far = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                if (image.pixel(x, y) != qRgb(255, 140, 0)) continue;
                const QPointF at(x / ratio, y / ratio);
                (QLineF(at, cell.center()).length() < 40 ? near : far)++;
            }
        QVERIFY2(near > 20 && far == 0, qPrintable(QString("near %1, far %2").arg(near).arg(far)));
        // Closing the lesson takes the mark away.
        w.lessonPanel()->closeLesson();
        QVERIFY(head->lessonMark().empty());
    }

    // A lecturer pressing Next before the step's file has opened: the open under way serves the
    // new step (it is not cancelled and reopened, which dropped the step and left the first view),
    // and the page ends on the last step's view, layer, head and row.
    void stepsTakenWhileTheirFileOpensLandOnTheLastStep() {
        MainWindow w;
        QVERIFY(test::showForTest(w, 1280, 720));
        AttentionMapsPage* page = w.attentionPage();
        int opened = 0, cancelled = 0;
        QObject::connect(page->model(), &AttentionMapsModel::opened, &w, [&] { ++opened; });
        QObject::connect(page->model(), &AttentionMapsModel::openCancelled, &w, [&] { ++cancelled; });
        QVERIFY2(w.openLesson(lessonPath("05-reading-a-real-model.lesson.json")), qPrintable(w.lastError()));
        QVERIFY(w.lessonPanel()->next());  // no event processed in between: step 1's open is under way
        QVERIFY(w.lessonPanel()->next());
        QTRY_VERIFY_WITH_TIMEOUT(page->model()->maps() != nullptr && !page->model()->opening(), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(page->views()->currentIndex(), static_cast<int>(AttentionMapsPage::HeadView), 30000);
        QCOMPARE(page->layerIndex(), 1);  // step 3: layer 1's head 4, query row 63
        QCOMPARE(page->head(), 4);
        QCOMPARE(page->row(), std::int64_t{63});
        QVERIFY(page->lessonMark().marksCell(4, 63, 0));
        QCOMPARE(opened, 1);
        QCOMPARE(cancelled, 0);
    }

    // Lesson 5 on a 1280x720 projector: the Attention maps page is taller than its tab, and each
    // step scrolls it to what its text cites, whole (a view that was 90 % in sight passed before,
    // with step 1's title half off the top, h6 and h7 cut at the bottom and step 6's row h7 cut):
    // step 1's grid, step 3's cell [63, 0] of head 4, step 4's lower plot (the query row), step
    // 5's two plots, step 6's similarity matrix.
    void lessonFiveScrollsToWhatEachStepCites() {
        MainWindow w;
        QVERIFY(test::showForTest(w, 1280, 720));
        w.setPresentation(true);
        QVERIFY2(w.openLesson(lessonPath("05-reading-a-real-model.lesson.json")), qPrintable(w.lastError()));
        AttentionMapsPage* page = w.attentionPage();
        auto* area = qobject_cast<QScrollArea*>(w.tabs()->widget(MainWindow::AttentionTab));
        QVERIFY(area != nullptr);
        QTRY_VERIFY_WITH_TIMEOUT(page->model()->maps() != nullptr && !page->picturesPending(), 30000);
        // The visible part of `rect` (in `widget`) inside the tab's viewport, as a fraction of it.
        const auto shown = [&](QWidget* widget, const QRectF& rect) {
            const QRect inViewport(widget->mapTo(area->viewport(), rect.topLeft().toPoint()), rect.size().toSize());
            const QRect visible = inViewport.intersected(area->viewport()->rect());
            return visible.isEmpty() ? 0.0
                                     : double(visible.width()) * visible.height() /
                                           (double(inViewport.width()) * inViewport.height());
        };
        const auto whole = [&](QWidget* widget) {
            return QString("%1 shown %2").arg(widget->metaObject()->className()).arg(shown(widget, widget->rect()));
        };
        QTRY_COMPARE_WITH_TIMEOUT(page->views()->currentIndex(), static_cast<int>(AttentionMapsPage::GridView), 30000);
        QTest::qWait(200);
        QTRY_VERIFY2(shown(page->gridView(), page->gridView()->rect()) == 1.0, qPrintable(whole(page->gridView())));
        QVERIFY(w.lessonPanel()->next());
        QVERIFY(w.lessonPanel()->next());  // step 3: head view
        QTRY_COMPARE_WITH_TIMEOUT(page->views()->currentIndex(), static_cast<int>(AttentionMapsPage::HeadView), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!page->picturesPending(), 30000);
        QTest::qWait(200);
        const QRectF cell = page->headView()->cellRect(0, 63, 0);
        QVERIFY(!cell.isEmpty());
        QVERIFY2(shown(page->headView(), cell) == 1.0,
                 qPrintable(QString("cell [63, 0] shown %1").arg(shown(page->headView(), cell))));
        QVERIFY(w.lessonPanel()->next());  // step 4: the query row's plot, below the distance plot
        QTRY_COMPARE_WITH_TIMEOUT(page->views()->currentIndex(), static_cast<int>(AttentionMapsPage::DistanceView),
                                  30000);
        QTest::qWait(200);
        QTRY_VERIFY2(shown(page->rowPlot(), page->rowPlot()->rect()) == 1.0, qPrintable(whole(page->rowPlot())));
        QVERIFY(w.lessonPanel()->next());  // step 5: attention against distance, and query 63's row
        QTest::qWait(200);
        QTRY_VERIFY2(shown(page->profilePlot(), page->profilePlot()->rect()) == 1.0,
                     qPrintable(whole(page->profilePlot())));
        QTRY_VERIFY2(shown(page->rowPlot(), page->rowPlot()->rect()) == 1.0, qPrintable(whole(page->rowPlot())));
        QVERIFY(w.lessonPanel()->next());  // step 6: the similarity matrix
        QTRY_COMPARE_WITH_TIMEOUT(page->views()->currentIndex(), static_cast<int>(AttentionMapsPage::SimilarityView),
                                  30000);
        QTest::qWait(200);
        QTRY_VERIFY2(shown(page->similarityView(), page->similarityView()->rect()) == 1.0,
                     qPrintable(whole(page->similarityView())));
    }

    // The presenter's Page Down steps lesson 5 even with the focus on the Attention maps page,
    // whose own Page Down steps its layers (that shortcut took the key: the lesson stayed at 1/6).
    void pageDownStepsTheLessonOverTheAttentionMaps() {
        MainWindow w;
        QVERIFY(test::showForTest(w, 1280, 720));
        QVERIFY2(w.openLesson(lessonPath("05-reading-a-real-model.lesson.json")), qPrintable(w.lastError()));
        AttentionMapsPage* page = w.attentionPage();
        QTRY_VERIFY_WITH_TIMEOUT(page->model()->maps() != nullptr && !page->model()->opening(), 30000);
        QWidget* focus = page->views()->currentWidget();
        focus->setFocus();
        QTRY_VERIFY(focus->hasFocus());
        const int layer = page->layerIndex();
        QTest::keyClick(focus, Qt::Key_PageDown);
        QCOMPARE(w.lessonPanel()->state()->index(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(page->views()->currentIndex(), static_cast<int>(AttentionMapsPage::TableView), 30000);
        QCOMPARE(page->layerIndex(), layer);  // step 2 shows the same layer 0: not stepped to 1
        QTest::keyClick(page->views()->currentWidget(), Qt::Key_PageUp);
        QCOMPARE(w.lessonPanel()->state()->index(), 0);
        // Without a lesson the page's Page Down steps its layers again.
        w.lessonPanel()->closeLesson();
        page->views()->currentWidget()->setFocus();
        QTRY_VERIFY(page->views()->currentWidget()->hasFocus());
        const int before = page->layerIndex();
        QTest::keyClick(page->views()->currentWidget(), Qt::Key_PageDown);
        QCOMPARE(page->layerIndex(), before + 1);
    }

    // Help > Lessons: the list names every bundled lesson; choosing one opens it.
    void helpLessonsListsAndOpens() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QStringList listed;
        // The list fills off the UI thread (titles only); the dialog is up before it does.
        QObject::connect(
            w.lessonPanel(), &LessonPanel::lessonsListed, &w,
            [&] {
                auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
                QVERIFY(dialog != nullptr);
                auto* list = dialog->findChild<QListWidget*>();
                QVERIFY(list != nullptr);
                for (int row = 0; row < list->count(); ++row) listed << list->item(row)->text();
                QDir().mkpath(QString(ALIBI_LESSON_SHOTS));
                dialog->grab().save(QString(ALIBI_LESSON_SHOTS) + "/help-lessons-dialog.png");
                for (int row = 0; row < list->count(); ++row)
                    if (list->item(row)->text().startsWith("Slopes")) list->setCurrentRow(row);
                dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Open)->click();
            },
            Qt::SingleShotConnection);
        w.lessonPanel()->chooseLesson();
        QVERIFY2(listed.size() >= 5, qPrintable(listed.join(" | ")));
        QVERIFY(listed.front().startsWith("ALiBi in six steps  (6 steps)"));
        QVERIFY(w.lessonPanel()->active());
        QCOMPARE(QString::fromStdString(w.lessonPanel()->state()->lesson().title), QString("Slopes"));
        QCOMPARE(w.tabs()->currentIndex(), static_cast<int>(MainWindow::CurvesTab));
    }

    // Issue 25: a 64-step lesson in the user's folder whose steps name a file with a 16 MiB
    // header froze the window for minutes (Help > Lessons loaded every lesson and opened every
    // step's file on the UI thread). The list now reads titles only, off the UI thread, and a
    // lesson opens without reading its steps' files: with a damaged header behind every step the
    // lesson still lists as readable and opens, and the damage shows on the step that opens it.
    void lessonNamingALargeHeaderFileListsAndOpensWithoutReadingIt() {
        const QString folder = m_home.path() + "/alibi-explorer/lessons";
        QVERIFY(QDir().mkpath(folder));
        const QString big = m_home.path() + "/big-header.safetensors";
        {
            QFile f(big);
            QVERIFY(f.open(QIODevice::WriteOnly));
            const quint64 n = quint64{16} << 20;
            QByteArray length(8, '\0');
            for (int b = 0; b < 8; ++b) length[b] = static_cast<char>((n >> (8 * b)) & 0xff);
            QByteArray json = "{\"__metadata__\": {\"x\": \"";
            json += QByteArray(static_cast<int>(n) - json.size() - 1, 'a');
            json += "{";  // the string never closes: invalid JSON, found only by reading all 16 MiB
            f.write(length);
            f.write(json);
        }
        QString steps;
        for (int i = 0; i < 64; ++i)
            steps += QString("%1{\"text\": \"Step %2.\", \"view\": \"attention-grid\", \"attention_maps\": \"%3\"}")
                         .arg(i ? "," : "")
                         .arg(i + 1)
                         .arg(big);
        {
            QFile f(folder + "/zz-big.lesson.json");
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QString("{\"version\": 1, \"title\": \"Big headers\", \"steps\": [%1]}").arg(steps).toUtf8());
        }
        const auto cleanup = qScopeGuard([&] { QDir(folder).removeRecursively(); });

        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QStringList listed;
        QObject::connect(
            w.lessonPanel(), &LessonPanel::lessonsListed, &w,
            [&] {
                auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
                QVERIFY(dialog != nullptr);
                auto* list = dialog->findChild<QListWidget*>();
                for (int row = 0; row < list->count(); ++row)
                    if (list->item(row)->flags() & Qt::ItemIsEnabled) listed << list->item(row)->text();
                dialog->reject();
            },
            Qt::SingleShotConnection);
        w.lessonPanel()->chooseLesson();
        QVERIFY2(listed.filter("Big headers  (64 steps)").size() == 1, qPrintable(listed.join(" | ")));

        // Opening the lesson reads no step's file; the first step opens it in the background,
        // the window keeps answering, and the page says what is wrong with the file.
        QVERIFY2(w.openLesson(folder + "/zz-big.lesson.json"), qPrintable(w.lastError()));
        QCOMPARE(w.tabs()->currentIndex(), static_cast<int>(MainWindow::AttentionTab));
        QTRY_VERIFY(!w.attentionPage()->model()->opening());
        QVERIFY(w.attentionPage()->model()->maps() == nullptr);
        QVERIFY(w.lessonPanel()->next());
        QCOMPARE(w.lessonPanel()->state()->index(), 1);
        QTRY_VERIFY(!w.attentionPage()->model()->opening());
    }

private:
    QTemporaryDir m_home;
};

QTEST_MAIN(TestLessons)
#include "test_lessons.moc"
