// The main window driven through its controls under the offscreen platform: sliders, spin boxes
// and combos change the views to the core's numbers; exports through the menu's code path match
// the core's files; a cancelled export leaves no file; each known-bug tensor, built here from the
// formulas, shows its finding in the diagnose view.
#include "compare_view.hpp"
#include "curves_view.hpp"
#include "diagnose_view.hpp"
#include "head_grid_view.hpp"
#include "main_window.hpp"
#include "parameters_panel.hpp"
#include "settled.hpp"
#include "stages_view.hpp"
#include "view_util.hpp"

#include <alibi/explore/compute.hpp>
#include <alibi/io/session.hpp>
#include <alibi/io/tensor_io.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/stats.hpp>
#include <alibi/render/square_cells.hpp>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include "number_table.hpp"

#include "patient_qtry.hpp"

#include <cmath>
#include <functional>

using namespace alibi;
using namespace alibi::qt;

namespace {

using alibi::qt::test::settled;

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// An (H, Q, K) f32 tensor from a formula, the way a user's framework would have built it.
Tensor hqk(std::int64_t heads, std::int64_t n, DType dtype,
           const std::function<double(std::int64_t, std::int64_t, std::int64_t)>& f) {
    Tensor t(Shape{heads, n, n}, dtype);
    for (std::int64_t h = 0; h < heads; ++h)
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < n; ++j) t.set(static_cast<std::uint64_t>((h * n + i) * n + j), f(h, i, j));
    return t;
}

double causal(double m, std::int64_t i, std::int64_t j) {
    return j <= i ? -(m * static_cast<double>(i - j)) : -1e9;
}

std::vector<double> press(int heads) {
    int c = 1;
    while (c * 2 <= heads) c *= 2;
    std::vector<double> out;
    for (int h = 0; h < c; ++h) out.push_back(std::exp2(-8.0 * (h + 1) / c));
    for (int k = 0; k < heads - c; ++k) out.push_back(std::exp2(-8.0 * (2 * k + 1) / (2 * c)));
    return out;
}

void activate(QComboBox* box, int data) {
    const int index = box->findData(data);
    QVERIFY(index >= 0);
    box->setCurrentIndex(index);
    emit box->activated(index);
}

}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("alibi-test");
        QCoreApplication::setApplicationName("alibi-explorer-test");
        QSettings().clear();
    }

    void defaultViewShowsEightHeadsWithLabels() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        QCOMPARE(w.tabs()->currentIndex(), int(MainWindow::GridTab));
        const auto grid = w.gridView()->grid();
        QVERIFY(grid);
        QCOMPARE(grid->grid.tiles.size(), std::size_t{8});
        // The image is rendered at the widget's device-pixel size.
        // The view's room, down to the size at which the tiles' cells are square (the core's gap).
        const TileSize square = squareCellPicture(8, 16, 16, w.gridView()->imagePixels().width(),
                                                  w.gridView()->imagePixels().height(), 6, w.gridView()->labelBand());
        QCOMPARE(QSize(grid->grid.image.width, grid->grid.image.height), QSize(square.width, square.height));
        QCOMPARE(grid->grid.tiles[0].width, grid->grid.tiles[0].height);
        QCOMPARE(slopeText(grid->slopes[0]), QString("1/2"));
        QCOMPARE(slopeText(grid->slopes[7]), QString("1/256"));
    }

    void slidersAndSpinBoxesDriveTheStatistics() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        w.parameters()->headsSlider->setValue(12);
        QCOMPARE(w.parameters()->headsBox->value(), 12);
        w.parameters()->lengthBox->setValue(40);
        QCOMPARE(w.parameters()->lengthSlider->value(), ParametersPanel::lengthToSlider(40));
        activate(w.parameters()->contentBox, static_cast<int>(ContentKind::Gaussian));
        w.parameters()->queryRowBox->setValue(30);
        QVERIFY(settled(w));
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 12);
        QCOMPARE(w.model()->session().attention.bias.queries, std::int64_t{40});

        // The table holds the core's statistics for the same parameters; slopes follow the formula.
        NumberTable* table = w.stagesView()->statsModel();
        QCOMPARE(table->rowCount(), 12);
        StatsParams p;
        p.attention = w.model()->session().attention;
        p.queryRow = 30;
        auto expected = computeStats(p);
        QVERIFY(expected.has_value());
        const auto slopes = press(12);
        for (int r = 0; r < 12; ++r) {
            const int head = static_cast<int>(table->value(r, StagesView::Head));
            QCOMPARE(table->index(r, StagesView::Slope).data(Qt::UserRole).toDouble(),
                     slopes[static_cast<std::size_t>(head)]);
            QCOMPARE(table->index(r, StagesView::Slope).data().toString(),
                     slopeText(slopes[static_cast<std::size_t>(head)]));
            QCOMPARE(table->value(r, StagesView::Entropy), expected->heads[static_cast<std::size_t>(head)].row.entropy);
            QCOMPARE(table->index(r, StagesView::Distance50).data(Qt::UserRole).toDouble(),
                     expected->heads[static_cast<std::size_t>(head)].row.distance50);
        }
    }

    void hoverShowsTheFormulaWithNumbers() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        w.parameters()->headsSlider->setValue(2);  // slopes 1/16, 1/256
        QVERIFY(settled(w));
        HeadGridView* view = w.gridView();
        const auto grid = view->grid();
        QVERIFY(grid);
        const HeatmapTile& tile = grid->grid.tiles.at(0);
        const double dpr = grid->devicePixelRatio;
        // Bottom-left cell of head 0: query 15, key 0, distance 15.
        const QPoint at(view->imageRect().x() + static_cast<int>((tile.x + 2) / dpr),
                        view->imageRect().y() + static_cast<int>((tile.y + tile.height - 3) / dpr));
        QTest::mouseMove(view, at);
        QTRY_VERIFY(!w.hoverText().isEmpty());
        const QString text = w.hoverText();
        QVERIFY2(text.contains("head 0"), qPrintable(text));
        QVERIFY2(text.contains("query i = 15"), qPrintable(text));
        QVERIFY2(text.contains("key j = 0"), qPrintable(text));
        QVERIFY2(text.contains("0.0625"), qPrintable(text));
        // -1/16 * 15 = -0.9375
        QVERIFY2(text.contains("= -0.0625 × 15 = -0.9375"),
                 qPrintable(text));  // the core read-out (explore::cellReadout)
    }

    void comboBoxesChangeModeAndShow() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        activate(w.parameters()->modeBox, static_cast<int>(BiasMode::Symmetric));
        activate(w.parameters()->whatBox, static_cast<int>(RenderWhat::Attention));
        QVERIFY(settled(w));
        QCOMPARE(w.model()->session().attention.bias.mode, BiasMode::Symmetric);
        QCOMPARE(w.gridView()->grid()->gridParams.what, RenderWhat::Attention);
        // Probabilities: the colour scale spans [0, something <= 1].
        QVERIFY(w.gridView()->grid()->grid.lo >= 0);
        QVERIFY(w.gridView()->grid()->grid.hi <= 1.0 + 1e-12);
    }

    void invalidCustomSlopesShowAnErrorNextToTheField() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        const Session before = w.model()->session();
        w.parameters()->customEdit->setText("0.5, oops");
        emit w.parameters()->customEdit->returnPressed();
        QVERIFY(!w.parameters()->errorText("custom").isEmpty());
        QVERIFY(w.model()->session() == before);
        w.parameters()->customEdit->setText("-1, 1, 1, 1, 1, 1, 1, 1");
        emit w.parameters()->customEdit->returnPressed();
        QVERIFY(!w.parameters()->errorText("custom").isEmpty());
        w.parameters()->customEdit->setText("1, 1/2, 1/4, 1/8, 1/16, 1/32, 1/64, 1/128");
        emit w.parameters()->customEdit->returnPressed();
        QVERIFY(w.parameters()->errorText("custom").isEmpty());
        QVERIFY(settled(w));
        QCOMPARE(w.gridView()->grid()->slopes.front(), 1.0);
        // T beyond the core's limit: the box stops at the core's kMaxLength, which the core takes.
        w.parameters()->lengthBox->setValue(1000000000);
        QCOMPARE(w.parameters()->lengthBox->value(), static_cast<int>(kMaxLength));
        QVERIFY(w.parameters()->errorText("queries").isEmpty());
        QCOMPARE(w.model()->session().attention.bias.queries, kMaxLength);
    }

    void exportThroughTheMenuPathMatchesTheCore() {
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        w.parameters()->headsSlider->setValue(6);
        w.parameters()->lengthBox->setValue(33);
        QVERIFY(settled(w));
        const Session s = w.model()->session();
        for (FileFormat f : {FileFormat::Npy, FileFormat::Safetensors, FileFormat::Csv, FileFormat::Json}) {
            const QString ours = dir.filePath(QString("ours.%1").arg(QString::fromUtf8(formatName(f).data())));
            const QString core = dir.filePath(QString("core.%1").arg(QString::fromUtf8(formatName(f).data())));
            auto result = w.exportTensorTo(ours, ExportWhat::Bias, f);
            QVERIFY2(result.has_value(), result ? "" : result.error().message.c_str());
            auto source = biasSource(s.attention.bias);
            QVERIFY(source.has_value());
            ExportOptions options;
            options.format = f;
            options.tensorName = "bias";
            options.allowNonFinite = true;
            QVERIFY(exportTensor(**source, core.toStdString(), options).has_value());
            QVERIFY(!readAll(ours).isEmpty());
            QCOMPARE(readAll(ours), readAll(core));
        }
        // Slopes: the file holds the formula's values.
        const QString slopesPath = dir.filePath("slopes.npy");
        QVERIFY(w.exportTensorTo(slopesPath, ExportWhat::Slopes, FileFormat::Npy).has_value());
        auto loaded = loadTensor(slopesPath.toStdString());
        QVERIFY(loaded.has_value());
        const auto slopes = press(6);
        QCOMPARE(loaded->tensor.size(), std::uint64_t{6});
        for (std::size_t h = 0; h < 6; ++h) QCOMPARE(loaded->tensor.at(h), slopes[h]);
        // Bias values follow the formula too (spot check the .npy).
        auto bias = loadTensor(dir.filePath("ours.npy").toStdString());
        QVERIFY(bias.has_value());
        QCOMPARE(bias->tensor.at((std::uint64_t{1} * 33 + 20) * 33 + 5),
                 static_cast<double>(static_cast<float>(-(slopes[1] * 15))));
    }

    void cancelledExportLeavesNoFile() {
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        w.parameters()->headsBox->setValue(16);
        w.parameters()->lengthBox->setValue(2048);  // 256 MiB of f32
        QVERIFY(settled(w));
        const QString path = dir.filePath("big.npy");
        int calls = 0;
        auto result = w.exportTensorTo(path, ExportWhat::Bias, FileFormat::Npy, [&](std::uint64_t done, std::uint64_t) {
            ++calls;
            return done == 0;  // cancel as soon as the first chunk is written
        });
        QVERIFY(!result.has_value());
        QCOMPARE(result.error().code, ErrorCode::Cancelled);
        QVERIFY(calls >= 1);
        QVERIFY(!QFile::exists(path));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 0);  // no temporary left
        QVERIFY(!w.exporting());
        // The explorer goes on: a small export afterwards works.
        w.parameters()->lengthBox->setValue(8);
        QVERIFY(w.exportTensorTo(dir.filePath("small.npy"), ExportWhat::Bias, FileFormat::Npy).has_value());
    }

    void diagnoseShowsEachKnownBug() {
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        const auto p8 = press(8);
        struct Case {
            const char* code;
            Tensor tensor;
        };
        std::vector<Case> cases;
        cases.push_back({kSlopeOffByOne, hqk(8, 12, DType::F32, [](auto h, auto i, auto j) {
                             return causal(std::exp2(-8.0 * static_cast<double>(h) / 8), i, j);
                         })});
        cases.push_back({kNaiveSlopesNonPow2, hqk(12, 10, DType::F32, [](auto h, auto i, auto j) {
                             return causal(std::exp2(-8.0 * static_cast<double>(h + 1) / 12), i, j);
                         })});
        cases.push_back({kSignFlipped, hqk(8, 10, DType::F32, [&](auto h, auto i, auto j) {
                             return j <= i ? p8[static_cast<std::size_t>(h)] * static_cast<double>(i - j) : -1e9;
                         })});
        cases.push_back(
            {kSingleSlopeAllHeads, hqk(4, 8, DType::F32, [](auto, auto i, auto j) { return causal(0.5, i, j); })});
        cases.push_back({kScaledBySqrtDk, hqk(8, 10, DType::F32, [&](auto h, auto i, auto j) {
                             return causal(p8[static_cast<std::size_t>(h)] / 8.0, i, j);
                         })});
        cases.push_back({kFp16MaskOverflow, hqk(4, 8, DType::F16, [&](auto h, auto i, auto j) {
                             return causal(press(4)[static_cast<std::size_t>(h)], i, j);
                         })});
        for (Case& c : cases) {
            const QString path = dir.filePath(QString("%1.npy").arg(c.code));
            ExportOptions options;
            options.format = FileFormat::Npy;
            options.allowNonFinite = true;
            QVERIFY(exportTensor(*tensorSource(c.tensor), path.toStdString(), options).has_value());
            QSignalSpy done(w.diagnoseView(), &DiagnoseView::diagnosed);
            w.diagnoseFile(path);
            QVERIFY2(done.wait(30000), c.code);
            QCOMPARE(w.tabs()->currentIndex(), int(MainWindow::DiagnoseTab));
            const QStringList codes = w.diagnoseView()->findingCodes();
            QVERIFY2(codes.contains(c.code), qPrintable(QString("%1: got %2").arg(c.code, codes.join(", "))));
            QVERIFY(w.diagnoseView()->summaryText().contains(c.code));
        }
        // An unreadable file: a clear message, no crash.
        const QString junk = dir.filePath("junk.npy");
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not a numpy file at all");
        f.close();
        QSignalSpy failed(w.diagnoseView(), &DiagnoseView::failed);
        w.diagnoseFile(junk);
        QVERIFY(failed.wait(30000));
        QVERIFY(!failed.at(0).at(0).toString().isEmpty());
        QVERIFY(!w.lastError().isEmpty());
    }

    // Issue 10.8: the error map compares with correct ALiBi, the advice names controls, not flags,
    // and "Open the corrected parameters" opens them as one undoable step.
    void diagnoseOffersTheCorrectedParameters() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        w.parameters()->headsSlider->setValue(12);
        QVERIFY(settled(w));
        QSignalSpy done(w.diagnoseView(), &DiagnoseView::diagnosed);
        w.diagnoseView()->openExample(kSlopeOffByOne);
        QVERIFY(done.wait(30000));
        QVERIFY(w.diagnoseView()->findingCodes().contains(kSlopeOffByOne));
        QVERIFY2(!w.diagnoseView()->summaryText().contains("--"), qPrintable(w.diagnoseView()->summaryText()));
        // Head 0 of the example has slope 1 where ALiBi has 1/2: 15 x 1/2 at row 15, key 0.
        QCOMPARE(w.diagnoseView()->errorMax(), 7.5);
        QPushButton* open = nullptr;
        for (auto* b : w.diagnoseView()->findChildren<QPushButton*>())
            if (b->text() == "Open the corrected parameters") open = b;
        QVERIFY(open != nullptr);
        w.tabs()->setCurrentIndex(MainWindow::DiagnoseTab);
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_VERIFY(open->isVisible());
        QTest::mouseClick(open, Qt::LeftButton);
        const BiasParams& bias = w.model()->session().attention.bias;
        QCOMPARE(bias.slopes.heads, 8);
        QCOMPARE(bias.slopes.scheme, SlopeScheme::Press);
        QCOMPARE(bias.slopes.maxBias, 8.0);
        QCOMPARE(bias.queries, std::int64_t{16});
        QCOMPARE(w.tabs()->currentIndex(), int(MainWindow::GridTab));
        // (Not "modified": the corrected parameters are this window's starting ones.)
        QVERIFY(w.model()->canUndo());
        QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 12);
    }

    // Issue 23: a diagnosis shown draws its error map once, at the panel's size (the diagnosis
    // task drew one at a fixed 900x600 and the view drew it again for its panel), and again only
    // when the panel's size changes.
    void diagnoseDrawsItsErrorMapOnce() {
        QTemporaryDir dir;
        MainWindow w;
        QVERIFY(test::showForTest(w, 1280, 720));
        QVERIFY(settled(w));
        w.tabs()->setCurrentIndex(MainWindow::DiagnoseTab);
        const QString path = dir.filePath("bias.npy");
        QVERIFY(w.exportTensorTo(path, ExportWhat::Bias, FileFormat::Npy).has_value());
        DiagnoseView* view = w.diagnoseView();
        QSignalSpy done(view, &DiagnoseView::diagnosed);
        w.diagnoseFile(path);
        QVERIFY(done.wait(30000));
        auto* image = view->findChild<ImagePanel*>();
        QVERIFY(image != nullptr);
        // The map is shown with the diagnosis, one tile per head.
        QCOMPARE(image->tileCount(), static_cast<std::size_t>(w.model()->session().attention.bias.slopes.heads));
        QTest::qWait(400);  // past the view's resize delay (80 ms): no second drawing
        QCOMPARE(view->mapsDrawn(), 1);
        QVERIFY(view->errorMax() >= 0);
        w.resize(1000, 640);
        QTRY_COMPARE_WITH_TIMEOUT(view->mapsDrawn(), 2, 10000);
        QTest::qWait(400);
        QCOMPARE(view->mapsDrawn(), 2);
    }

    void sessionsRoundTripAndCliCommand() {
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        w.parameters()->headsSlider->setValue(5);
        activate(w.parameters()->modeBox, static_cast<int>(BiasMode::Mpt));
        const Session saved = w.model()->session();
        const QString path = dir.filePath("s.alibi.json");
        QVERIFY(w.saveSessionTo(path));
        w.parameters()->headsSlider->setValue(9);
        QVERIFY(!(w.model()->session() == saved));
        QVERIFY(w.openSession(path));
        QVERIFY(w.model()->session() == saved);
        QCOMPARE(w.parameters()->headsBox->value(), 5);
        QVERIFY(QSettings().value("recentFiles").toStringList().contains(QFileInfo(path).absoluteFilePath()));
        QCOMPARE(w.copyCliCommand(), QString::fromStdString(cliCommand(saved, "bias", "bias.npy")));
        QVERIFY(!w.openSession(dir.filePath("missing.alibi.json")));
        QVERIFY(w.model()->session() == saved);
        // The last session is kept in the settings on quit.
        w.close();
        auto restored = parseSession(QSettings().value("session").toString().toStdString());
        QVERIFY(restored.has_value());
        QVERIFY(restored->view.has_value());  // the open tab and Compare's B come along
        restored->view.reset();
        restored->compare.reset();
        QVERIFY(*restored == saved);
    }

    // Issue 25: three explorers saving one session file: the last writer won without a word. A
    // save over a file that changed on disk since this window opened it asks: overwrite it, reload
    // it, or cancel; with nobody to ask it is refused.
    void savingOverASessionChangedOnDiskAsks() {
        QTemporaryDir dir;
        const QString path = dir.filePath("shared.alibi.json");
        QVERIFY(saveSession(defaultSession(), path.toStdString()));
        MainWindow a, b, c;
        for (MainWindow* w : {&a, &b, &c}) {
            w->setInteractive(false);
            QVERIFY(w->openSession(path));
        }
        QVERIFY(a.model()->setHeads(4));
        QVERIFY(a.saveSessionTo(path));  // unchanged since a opened it: saved without a question
        QVERIFY(b.model()->setHeads(6));
        const auto heads = [&] { return loadSession(path.toStdString())->attention.bias.slopes.heads; };
        // Nobody to ask: refused, the file keeps a's session.
        QVERIFY(!b.saveSessionTo(path));
        QVERIFY(b.lastError().contains("changed on disk"));
        QCOMPARE(heads(), 4);
        // Asked: cancel keeps the file, overwrite writes b's session.
        QStringList asked;
        MainWindow::ChangedOnDiskChoice answer = MainWindow::ChangedOnDiskChoice::Cancel;
        b.setChangedOnDiskPrompt([&](const QString& p) {
            asked << p;
            return answer;
        });
        QVERIFY(!b.saveSessionTo(path));
        QCOMPARE(heads(), 4);
        answer = MainWindow::ChangedOnDiskChoice::Overwrite;
        QVERIFY(b.saveSessionTo(path));
        QCOMPARE(heads(), 6);
        QCOMPARE(asked.size(), 2);
        // c reloads instead: its changes go, the file's session comes in, nothing is written.
        QVERIFY(c.model()->setHeads(12));
        c.setChangedOnDiskPrompt([](const QString&) { return MainWindow::ChangedOnDiskChoice::Reload; });
        QVERIFY(c.saveSessionTo(path));
        QCOMPARE(c.model()->session().attention.bias.slopes.heads, 6);
        QCOMPARE(heads(), 6);
        // b saved last and nothing changed since: no question.
        QVERIFY(b.model()->setHeads(7));
        QVERIFY(b.saveSessionTo(path));
        QCOMPARE(asked.size(), 2);
        QCOMPARE(heads(), 7);
    }

    void curvesAreDimmedUntilTheirNewSnapshot() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        w.tabs()->setCurrentIndex(MainWindow::CurvesTab);
        QVERIFY(!w.curvesView()->stale());
        // A change marks the curves within 100 ms (the overlay waits 60 ms so a fast answer never
        // flickers); the next snapshot clears the mark.
        w.curvesView()->markStale();
        QTRY_VERIFY_WITH_TIMEOUT(w.curvesView()->stale(), 1000);
        w.curvesView()->setSnapshot(w.model()->snapshot());
        QVERIFY(!w.curvesView()->stale());
        // The window wires the mark to every parameter change.
        w.parameters()->headsSlider->setValue(5);
        QVERIFY(settled(w));
        QVERIFY(!w.curvesView()->stale());
    }

    void compareTabReportsTheMaximum() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        w.parameters()->headsSlider->setValue(12);
        w.tabs()->setCurrentIndex(MainWindow::CompareTab);
        QVERIFY(QTest::qWaitFor(
            [&] { return w.model()->snapshot() && w.model()->snapshot()->compare && !w.model()->pending(); }, 30000));
        const double expected = 15 * (std::exp2(-0.5) - std::exp2(-6.0));
        const double got = w.model()->snapshot()->compare->maxAbsDifference;
        QVERIFY(std::abs(got - expected) < 1e-5);
        QVERIFY(w.compareView()->summary().contains("head 8"));
    }

    // Issue 27: a snapshot's error reads in the explorer's words. B = geometric against A's
    // hf-bloom arithmetic fails with the core's CLI-worded "--scheme ... (drop --scheme, ...)";
    // Compare shows it as "Scheme" and names no flag.
    void compareErrorNamesNoFlag() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        QVERIFY(w.model()->setArith(Arith::HfBloom));
        CompareOverrides b;
        b.scheme = SlopeScheme::Geometric;
        w.model()->setCompareSpec(b);
        w.tabs()->setCurrentIndex(MainWindow::CompareTab);
        QVERIFY(QTest::qWaitFor(
            [&] {
                return w.model()->snapshot() && w.model()->snapshot()->compare && !w.model()->pending() &&
                       !w.model()->snapshot()->compare->error.empty();
            },
            30000));
        QTest::qWait(50);
        const QString shown = w.compareView()->summary();
        QVERIFY2(!shown.isEmpty() && !shown.contains(QStringLiteral("--")), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("Scheme")) || shown.contains(QStringLiteral("scheme")),
                 qPrintable(shown));
    }

    void presetsComeFromTheAssetFiles() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        QComboBox* box = w.parameters()->presetBox;
        QVERIFY2(box->count() >= 5, "assets/presets/*.json not found");
        const int bloom = box->findText("BLOOM-176B");
        QVERIFY(bloom > 0);
        box->setCurrentIndex(bloom);
        emit box->activated(bloom);
        const Session& s = w.model()->session();
        QCOMPARE(s.attention.bias.slopes.heads, 112);  // bigscience/bloom config.json n_head
        QCOMPARE(s.attention.bias.mode, BiasMode::Bloom);
        QCOMPARE(s.attention.bias.slopes.maxBias, 8.0);
        QCOMPARE(s.trainLength, std::int64_t{2048});
        const int mpt = box->findText("MPT-7B");
        QVERIFY(mpt > 0);
        emit box->activated(mpt);
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 32);
        QCOMPARE(w.model()->session().attention.bias.mode, BiasMode::Mpt);
        for (const Preset& p : loadPresets(presetFolders())) QVERIFY2(!p.source.empty(), p.name.c_str());
    }

    void batchControlsShowOneRowWithItsMasks() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        ParametersPanel* p = w.parameters();
        QVERIFY(!p->batchRowBox->isEnabled());  // one sequence: nothing to choose
        // Lengths typed and applied with Enter, as a user would.
        p->lengthsEdit->setFocus();
        QTest::keyClicks(p->lengthsEdit, "16, 9 4");
        QTest::keyClick(p->lengthsEdit, Qt::Key_Return);
        QCOMPARE(w.model()->session().batch.lengths, (std::vector<std::int64_t>{16, 9, 4}));
        QCOMPARE(p->batchRowBox->maximum(), 2);
        QVERIFY(p->batchRowBox->isEnabled());
        activate(p->paddingBox, static_cast<int>(Padding::Left));
        QCOMPARE(w.model()->session().batch.padding, Padding::Left);
        p->batchRowBox->setValue(2);
        QCOMPARE(w.model()->session().batchRow, std::int64_t{2});
        QVERIFY(settled(w));
        const GridPtr grid = w.gridView()->grid();
        QVERIFY2(grid->title.find("batch row 2 of 3: 4 real tokens, left padding") != std::string::npos,
                 grid->title.c_str());
        // Row 2 holds 12 padding tokens on the left: under the causal mask queries 0..11 see only
        // padding keys, fully masked rows, striped; the real queries' padding keys are masked.
        const HeatmapTile& tile = grid->grid.tiles.front();
        QVERIFY(grid->grid.fullyMaskedRows);
        const int x = tile.x + tile.width / 32, top = tile.y + tile.height / 32;
        QCOMPARE(grid->grid.image.at(x, top), fullyMaskedStripe(x, top));
        const int bottom = tile.y + tile.height - 1 - tile.height / 32;
        QCOMPARE(grid->grid.image.at(x, bottom), kMaskedColor);  // query 15, key 0: padding
        const QString padding = cellDescription(w.model()->session(), grid->slopes, 0, 15, 0, false);
        QVERIFY2(padding.contains("masked (padding key)"), qPrintable(padding));
        const QString full = cellDescription(w.model()->session(), grid->slopes, 0, 3, 0, false);
        QVERIFY2(full.contains("fully masked row"), qPrintable(full));
        const QString allowed = cellDescription(w.model()->session(), grid->slopes, 0, 15, 13, false);
        QVERIFY2(allowed.contains("bias = -m·|p_i - p_j|"), qPrintable(allowed));
        // Window and documents through their controls.
        p->windowBox->setValue(3);
        QCOMPARE(w.model()->session().batch.window, std::int64_t{3});
        p->documentsEdit->setFocus();
        QTest::keyClicks(p->documentsEdit, "2, 2");
        QTest::keyClick(p->documentsEdit, Qt::Key_Return);
        QCOMPARE(w.model()->session().batch.documents, (std::vector<std::int64_t>{2, 2}));
        activate(p->positionsBox, static_cast<int>(PositionRule::Document));
        QCOMPARE(w.model()->session().batch.positions, PositionRule::Document);
        // Bad input: the core's message under the field, the session kept.
        p->lengthsEdit->selectAll();
        QTest::keyClicks(p->lengthsEdit, "16, x");
        QTest::keyClick(p->lengthsEdit, Qt::Key_Return);
        QVERIFY2(p->errorText("lengths").startsWith("Lengths: 'x' is not a whole number"),
                 qPrintable(p->errorText("lengths")));
        QCOMPARE(w.model()->session().batch.lengths.size(), std::size_t{3});
        p->lengthsEdit->selectAll();
        QTest::keyClicks(p->lengthsEdit, "20");
        QTest::keyClick(p->lengthsEdit, Qt::Key_Return);
        QVERIFY2(p->errorText("lengths").contains("row 0 has length 20"), qPrintable(p->errorText("lengths")));
        // A shorter T keeps the batch valid (the core's fitBatch) and says so.
        QSignalSpy adjusted(w.model(), &SessionModel::adjusted);
        p->lengthBox->setValue(8);
        QCOMPARE(w.model()->session().batch.lengths, (std::vector<std::int64_t>{8, 8, 4}));
        QCOMPARE(adjusted.count(), 1);
        QVERIFY(settled(w));
        // The session written holds the batch and its row; the CLI reads it.
        const std::string text = serializeSession(w.model()->session());
        QVERIFY2(text.find("\"row\": 2") != std::string::npos, text.c_str());
        QCOMPARE(parseSession(text).value(), w.model()->session());
    }

    // File > Export figure writes the open tab as the core's figure: the head grid at 2x has
    // exactly twice the session's size, the curves as SVG are an SVG document. (Every tab, the
    // dialog, byte equality with the core and the 2x-is-not-upscaled checks are in
    // test_figure_export.cpp.)
    void viewExportsWriteFiles() {
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        auto grid = w.figureSubject();
        QVERIFY(grid);
        FigureJob png{*grid, false, dir.filePath("grid.png")};
        png.subject.request.scale = 2;
        QVERIFY(w.exportFigure(png).has_value());
        QCOMPARE(QImage(dir.filePath("grid.png")).size(),
                 QSize(2 * w.model()->session().width, 2 * w.model()->session().height));
        w.tabs()->setCurrentIndex(MainWindow::CurvesTab);
        auto curves = w.figureSubject();
        QVERIFY(curves);
        FigureJob svg{*curves, true, dir.filePath("slopes.svg")};
        QVERIFY(w.exportFigure(svg).has_value());
        QVERIFY(readAll(dir.filePath("slopes.svg")).startsWith("<"));
    }

    // A preview being refined keeps its "preview, refining..." mark where no tile label is (issue
    // 26: at the top it hid the middle tile's label): every label band is painted exactly as
    // over the exact grid, and the mark is drawn somewhere else.
    void refiningMarkLeavesEveryTileLabelAlone() {
        HeadGridView view;
        view.resize(1200, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        explore::Request r;
        r.session.attention.bias.slopes.heads = 8;
        r.session.attention.bias.queries = 64;
        r.gridWidth = view.imagePixels().width();
        r.gridHeight = view.imagePixels().height();
        r.devicePixelRatio = view.devicePixelRatioF();
        r.labelBand = view.labelBand();
        auto exact = explore::computeGrid(r);
        QVERIFY(exact.has_value());
        const auto grid = std::make_shared<const explore::GridSnapshot>(*exact);
        explore::GridSnapshot preview = *exact;
        preview.grid.rowStep = 2;  // what the view takes for a preview being refined
        view.setGrid(grid);
        const QImage plain = view.grab().toImage();
        view.setGrid(std::make_shared<const explore::GridSnapshot>(preview));
        view.setProgress(0.5);
        const QImage marked = view.grab().toImage();
        QCOMPARE(marked.size(), plain.size());
        QVERIFY2(marked != plain, "no refining mark drawn");
        const double dpr = marked.devicePixelRatio();
        const QRect area = view.imageRect();
        const double band = grid->gridParams.labelBand / grid->devicePixelRatio;
        QVERIFY(band > 0);
        QCOMPARE(grid->grid.tiles.size(), std::size_t{8});
        for (const HeatmapTile& t : grid->grid.tiles) {
            const double x0 = area.x() + t.x / grid->devicePixelRatio, y1 = area.y() + t.y / grid->devicePixelRatio;
            for (int y = static_cast<int>(std::ceil((y1 - band) * dpr)); y < static_cast<int>(y1 * dpr); ++y)
                for (int x = static_cast<int>(std::ceil(x0 * dpr));
                     x < static_cast<int>((x0 + t.width / grid->devicePixelRatio) * dpr); ++x)
                    QVERIFY2(marked.pixel(x, y) == plain.pixel(x, y),
                             qPrintable(QString("head %1's label band changed at %2, %3").arg(t.head).arg(x).arg(y)));
        }
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
