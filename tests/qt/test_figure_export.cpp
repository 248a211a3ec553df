// File > Export figure (issue 13, item 3) under the offscreen platform: every tab with a figure,
// exported through the controller and through the real dialog, is byte for byte what the core
// draws for the same view and state (what `alibi render` writes): PNG at exactly 1x, 2x and 4x
// the size, SVG where the view is vector and only there; a bad path gives the error and leaves
// no file; a cancelled figure leaves none either; the Compare tab at 2x is drawn at 2x, not
// upscaled; the Attention maps tab opens its own Figure menu.
#include "attention_maps_page.hpp"
#include "compare_view.hpp"
#include "diagnose_view.hpp"
#include "figure_export_dialog.hpp"
#include "head_grid_view.hpp"
#include "main_window.hpp"
#include "position_schemes_view.hpp"
#include "settled.hpp"
#include "stages_view.hpp"

#include <alibi/analysis/diagnose.hpp>
#include <alibi/figure/view_figure.hpp>
#include <alibi/io/tensor_io.hpp>
#include <alibi/render/png.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace alibi;
using namespace alibi::qt;

namespace {

using alibi::qt::test::settled;

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray bytesOf(const Result<Image>& image) {
    if (!image) return "error: " + QByteArray::fromStdString(image.error().message);
    auto png = encodePng(*image);
    if (!png) return "error: " + QByteArray::fromStdString(png.error().message);
    return QByteArray(reinterpret_cast<const char*>(png->data()), static_cast<qsizetype>(png->size()));
}

// What `alibi render` writes for the request: the core's figure, PNG-encoded.
QByteArray corePng(const ViewFigureRequest& request) {
    return bytesOf(renderViewFigurePng(request));
}

QByteArray coreSvg(const ViewFigureRequest& request) {
    auto svg = renderViewFigureSvg(request);
    return svg ? QByteArray::fromStdString(*svg) : "error: " + QByteArray::fromStdString(svg.error().message);
}

MainWindow::Tab tabOf(ExplorerView view) {
    switch (view) {
        case ExplorerView::Grid:
            return MainWindow::GridTab;
        case ExplorerView::Detail:
            return MainWindow::DetailTab;
        case ExplorerView::Curves:
            return MainWindow::CurvesTab;
        case ExplorerView::Stages:
            return MainWindow::StagesTab;
        case ExplorerView::Compare:
            return MainWindow::CompareTab;
        case ExplorerView::Extrapolation:
            return MainWindow::ExtrapolationTab;
        case ExplorerView::PositionSchemes:
            return MainWindow::PositionSchemesTab;
        default:
            return MainWindow::DiagnoseTab;
    }
}

// Opens the tab of `view` and sets its own state through its controls, the way a user would;
// returns the request the core must draw for it, written here from the values set (not read
// back from the window): the session as it was, with the view, head, query row, Compare's B,
// train length or the position schemes' D and quantity changed.
ViewFigureRequest prepareTab(MainWindow& w, ExplorerView view) {
    ViewFigureRequest r;
    r.session = w.model()->session();
    r.session.view = view;
    r.view = view;
    w.tabs()->setCurrentIndex(tabOf(view));
    switch (view) {
        case ExplorerView::Detail:
            w.model()->setSelectedHead(2);
            r.session.head = 2;
            break;
        case ExplorerView::Stages:
            w.stagesView()->headBox()->setValue(3);  // the tab's own head box
            w.model()->setQueryRow(9);
            r.session.head = 3;
            r.session.queryRow = 9;
            break;
        case ExplorerView::Compare: {
            CompareOverrides b;
            b.scheme = SlopeScheme::Linear;
            b.maxBias = 4;
            w.compareView()->setSpec(b);
            w.model()->setCompareSpec(b);
            r.session.compare = b;
            break;
        }
        case ExplorerView::Extrapolation:
            w.model()->setSelectedHead(5);
            w.model()->setTrainLength(8);
            r.session.head = 5;
            r.session.trainLength = 8;
            break;
        case ExplorerView::PositionSchemes:
            w.positionSchemesView()->setMaxDistance(300);
            w.positionSchemesView()->setQuantity(SchemeQuantity::Attention);
            r.schemesMaxDistance = 300;
            r.schemesQuantity = SchemeQuantity::Attention;
            break;
        default:
            break;
    }
    return r;
}

QStringList formatsOffered(const FigureExportDialog& d) {
    QStringList out;
    for (int i = 0; i < d.formatBox->count(); ++i) out << d.formatBox->itemText(i);
    return out;
}

}  // namespace

class TestFigureExport : public QObject {
    Q_OBJECT
private slots:
    void init() { QSettings().remove("figureExport"); }  // every case starts from the defaults

    void everyTabThroughTheController_data() {
        QTest::addColumn<int>("view");
        QTest::addColumn<int>("curves");
        QTest::newRow("grid") << int(ExplorerView::Grid) << 0;
        QTest::newRow("detail") << int(ExplorerView::Detail) << 0;
        QTest::newRow("curves slopes") << int(ExplorerView::Curves) << int(CurveKind::Slopes);
        QTest::newRow("curves bias") << int(ExplorerView::Curves) << int(CurveKind::BiasDistance);
        QTest::newRow("curves attention") << int(ExplorerView::Curves) << int(CurveKind::AttentionDistance);
        QTest::newRow("stages") << int(ExplorerView::Stages) << 0;
        QTest::newRow("compare") << int(ExplorerView::Compare) << 0;
        QTest::newRow("extrapolation") << int(ExplorerView::Extrapolation) << 0;
        QTest::newRow("position schemes") << int(ExplorerView::PositionSchemes) << 0;
    }

    // Each tab's figure at 1x, 2x and 4x, and as SVG where the view is vector: the file is
    // exactly the core's figure for the tab's state, its pixels exactly the size times the scale.
    void everyTabThroughTheController() {
        QFETCH(int, view);
        QFETCH(int, curves);
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.resize(1200, 850);
        w.show();
        QVERIFY(settled(w));
        ViewFigureRequest expected = prepareTab(w, static_cast<ExplorerView>(view));
        QVERIFY(settled(w));
        expected.curves = static_cast<CurveKind>(curves);
        // Small figures keep the test quick; the four stages side by side need 1000 x 400, the
        // position schemes' caption (every formula) 900 x 700.
        const QSize size1x = expected.view == ExplorerView::Stages            ? QSize(1000, 420)
                             : expected.view == ExplorerView::PositionSchemes ? QSize(900, 700)
                                                                              : QSize(480, 360);
        expected.session.width = size1x.width();
        expected.session.height = size1x.height();

        QString why;
        const auto subject = w.figureSubject(&why);
        QVERIFY2(subject, qPrintable(why));
        QCOMPARE(subject->kind, FigureSubject::Kind::View);
        for (const int scale : {1, 2, 4}) {
            FigureJob job{*subject, false, dir.filePath(QString("figure-%1x.png").arg(scale))};
            job.subject.request.session.width = size1x.width();
            job.subject.request.session.height = size1x.height();
            job.subject.request.curves = static_cast<CurveKind>(curves);
            job.subject.request.scale = scale;
            const auto size = w.exportFigure(job);
            QVERIFY2(size, size ? "" : size.error().message.c_str());
            QCOMPARE(*size, size1x * scale);
            expected.scale = scale;
            const QByteArray file = readAll(job.path), core = corePng(expected);
            QVERIFY2(!core.startsWith("error"), core.constData());
            QVERIFY2(
                file == core,
                qPrintable(
                    QString("%1x: %2 bytes written, the core draws %3").arg(scale).arg(file.size()).arg(core.size())));
            QCOMPARE(QImage(job.path).size(), size1x * scale);
            QCOMPARE(w.statusBar()->currentMessage(), QString("Saved %1 (%2 x %3 px)")
                                                          .arg(job.path)
                                                          .arg(size1x.width() * scale)
                                                          .arg(size1x.height() * scale));
        }
        expected.scale = 1;
        FigureJob svg{*subject, true, dir.filePath("figure.svg")};
        svg.subject.request.session.width = size1x.width();
        svg.subject.request.session.height = size1x.height();
        svg.subject.request.curves = static_cast<CurveKind>(curves);
        if (viewFigureIsVector(expected.view)) {
            QVERIFY(svg.svgOffered());
            QVERIFY(w.exportFigure(svg).has_value());
            const QByteArray file = readAll(svg.path), core = coreSvg(expected);
            QVERIFY2(!core.startsWith("error"), core.constData());
            QCOMPARE(file, core);
            QVERIFY(file.startsWith("<"));
        } else {
            // A heatmap view has no SVG: refused with a message, no file.
            QVERIFY(!svg.svgOffered());
            const auto refused = w.exportFigure(svg);
            QVERIFY(!refused);
            QVERIFY2(w.lastError().contains("PNG"), qPrintable(w.lastError()));
            QVERIFY(!QFileInfo::exists(svg.path));
        }
    }

    // The real dialog, driven as a user would: the default size is the session's, the format
    // list has SVG only for vector views, the pixel size and the default file name follow the
    // choices, Export writes the core's figure and says so in the status bar, and the next
    // dialog starts from the last choices.
    void theDialogExportsWhatTheCoreDraws_data() {
        QTest::addColumn<int>("view");
        QTest::newRow("stages (vector)") << int(ExplorerView::Stages);
        QTest::newRow("compare (heatmap)") << int(ExplorerView::Compare);
        QTest::newRow("curves (vector, a plot to choose)") << int(ExplorerView::Curves);
    }

    void theDialogExportsWhatTheCoreDraws() {
        QFETCH(int, view);
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.resize(1200, 850);
        w.show();
        QVERIFY(settled(w));
        ViewFigureRequest expected = prepareTab(w, static_cast<ExplorerView>(view));
        QVERIFY(settled(w));
        const bool vector = viewFigureIsVector(expected.view);
        const QString path = dir.filePath("from-dialog.png");
        bool driven = false;
        w.exportFigureDialog([&](FigureExportDialog& d) {
            driven = true;
            QCOMPARE(d.widthBox->value(), expected.session.width);  // the session's, 1024 x 768
            QCOMPARE(d.heightBox->value(), expected.session.height);
            QCOMPARE(formatsOffered(d).contains("SVG"), vector);
            QCOMPARE(formatsOffered(d).mid(0, 3), (QStringList{"PNG 1x", "PNG 2x", "PNG 4x"}));
            QCOMPARE(d.plotBox->isVisible(), expected.view == ExplorerView::Curves);
            d.formatBox->setCurrentIndex(d.formatBox->findText("PNG 2x"));
            QCOMPARE(d.pixelsLabel->text(),
                     QString("%1 x %2 px").arg(2 * expected.session.width).arg(2 * expected.session.height));
            if (expected.view == ExplorerView::Curves) {
                d.plotBox->setCurrentIndex(d.plotBox->findText("Bias vs distance"));
                expected.curves = CurveKind::BiasDistance;
            }
            d.widthBox->setValue(600);
            d.heightBox->setValue(400);
            QCOMPARE(d.pixelsLabel->text(), QString("1200 x 800 px"));
            expected.session.width = 600;
            expected.session.height = 400;
            expected.scale = 2;
            // The default name is the core's for this figure.
            QCOMPARE(QFileInfo(d.pathEdit->text()).fileName(),
                     QString::fromStdString(viewFigureFileName(expected, false)));
            if (vector) {
                d.formatBox->setCurrentIndex(d.formatBox->findText("SVG"));
                QCOMPARE(QFileInfo(d.pathEdit->text()).fileName(),
                         QString::fromStdString(viewFigureFileName(expected, true)));
                d.formatBox->setCurrentIndex(d.formatBox->findText("PNG 2x"));
            }
            d.pathEdit->setText(path);
            QTest::mouseClick(d.buttons->button(QDialogButtonBox::Ok), Qt::LeftButton);
        });
        QVERIFY(driven);
        const QByteArray file = readAll(path), core = corePng(expected);
        QVERIFY2(!core.startsWith("error"), core.constData());
        QVERIFY2(file == core,
                 qPrintable(QString("%1 bytes written, the core draws %2").arg(file.size()).arg(core.size())));
        QCOMPARE(QImage(path).size(), QSize(1200, 800));
        QCOMPARE(w.statusBar()->currentMessage(), QString("Saved %1 (1200 x 800 px)").arg(path));
        // The next dialog remembers the format, size and folder; Cancel writes nothing.
        w.exportFigureDialog([&](FigureExportDialog& d) {
            QCOMPARE(d.formatBox->currentText(), QString("PNG 2x"));
            QCOMPARE(d.widthBox->value(), 600);
            QCOMPARE(d.heightBox->value(), 400);
            QCOMPARE(QFileInfo(d.pathEdit->text()).absolutePath(), QFileInfo(path).absolutePath());
            if (expected.view == ExplorerView::Curves) QCOMPARE(d.plotBox->currentText(), QString("Bias vs distance"));
            QTest::mouseClick(d.buttons->button(QDialogButtonBox::Cancel), Qt::LeftButton);
        });
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"from-dialog.png"});
    }

    // The head grid's "log colours" box (attention) is part of what the grid's figure draws.
    void gridLogColoursFollowTheGridsBox() {
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        QVERIFY(w.model()->setWhat(RenderWhat::Attention));
        QVERIFY(settled(w));
        ViewFigureRequest expected = prepareTab(w, ExplorerView::Grid);
        QCheckBox* log = nullptr;
        for (QCheckBox* box : w.gridView()->findChildren<QCheckBox*>())
            if (box->text().contains("log", Qt::CaseInsensitive)) log = box;
        QVERIFY(log);
        log->setChecked(true);
        QVERIFY(settled(w));
        expected.logScale = true;
        expected.session.width = 480;
        expected.session.height = 360;
        expected.scale = 2;
        const auto subject = w.figureSubject();
        QVERIFY(subject);
        FigureJob job{*subject, false, dir.filePath("log.png")};
        job.subject.request.session.width = 480;
        job.subject.request.session.height = 360;
        job.subject.request.scale = 2;
        QVERIFY(w.exportFigure(job).has_value());
        const QByteArray file = readAll(job.path), core = corePng(expected);
        QVERIFY2(!core.startsWith("error"), core.constData());
        QVERIFY(file == core);
        expected.logScale = false;
        QVERIFY(file != corePng(expected));  // the box changes the picture
    }

    // A path that cannot be written: the error names the problem, and nothing is left behind
    // (no partial file, no temporary file). A cancelled figure leaves nothing either.
    void badPathsAndCancelLeaveNoFile() {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir("a-folder"));
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        const auto subject = w.figureSubject();
        QVERIFY(subject);
        const QStringList before = QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
        for (const QString& path : {dir.filePath("missing/figure.png"), dir.filePath("a-folder")}) {
            FigureJob job{*subject, false, path};
            job.subject.request.scale = 2;
            const auto result = w.exportFigure(job);
            QVERIFY(!result);
            QVERIFY2(!w.lastError().isEmpty(), qPrintable(path));
            QVERIFY2(w.statusBar()->currentMessage().startsWith("Cannot export the figure: "),
                     qPrintable(w.statusBar()->currentMessage()));
            QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), before);
            QVERIFY(QDir(dir.filePath("a-folder")).isEmpty());
        }
        // Cancelled while the attention grid is drawn (the test stands in for the Cancel button;
        // the bias grid is closed-form and done before a cancel could matter).
        QVERIFY(w.model()->setWhat(RenderWhat::Attention));
        QVERIFY(settled(w));
        const auto attention = w.figureSubject();
        QVERIFY(attention);
        FigureJob job{*attention, false, dir.filePath("cancelled.png")};
        job.subject.request.scale = 4;
        int steps = 0;
        const auto cancelled = w.exportFigure(job, [&](std::uint64_t, std::uint64_t) { return ++steps < 1; });
        QVERIFY2(!cancelled, qPrintable(QString("not cancelled after %1 progress steps").arg(steps)));
        QCOMPARE(cancelled.error().code, ErrorCode::Cancelled);
        QCOMPARE(steps, 1);
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), before);
        QVERIFY(w.statusBar()->currentMessage().contains("cancelled"));
    }

    // The Diagnose tab's figure is the core's diagnosis figure of the tensor loaded there; before
    // anything is diagnosed there is none, and the dialog says why instead of opening.
    void diagnoseTabExportsTheDiagnosisFigure() {
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        w.tabs()->setCurrentIndex(MainWindow::DiagnoseTab);
        QString why;
        QVERIFY(!w.figureSubject(&why));
        QVERIFY2(why.contains("diagnose"), qPrintable(why));
        bool opened = false;
        w.exportFigureDialog([&](FigureExportDialog&) { opened = true; });
        QVERIFY(!opened);
        QVERIFY2(w.lastError().contains("diagnose"), qPrintable(w.lastError()));

        // A bias with the off-by-one slopes 2^(-8h/H), built here from the formula.
        const std::int64_t heads = 8, n = 24;
        Tensor t(Shape{heads, n, n}, DType::F32);
        for (std::int64_t h = 0; h < heads; ++h)
            for (std::int64_t i = 0; i < n; ++i)
                for (std::int64_t j = 0; j < n; ++j)
                    t.set(
                        static_cast<std::uint64_t>((h * n + i) * n + j),
                        j <= i ? -std::exp2(-8.0 * static_cast<double>(h) / heads) * static_cast<double>(i - j) : -1e9);
        const QString path = dir.filePath("off-by-one.npy");
        ExportOptions options;
        options.format = FileFormat::Npy;
        QVERIFY(exportTensor(*tensorSource(t), path.toStdString(), options).has_value());
        QSignalSpy done(w.diagnoseView(), &DiagnoseView::diagnosed);
        w.diagnoseFile(path);
        QVERIFY(done.wait(30000));
        const auto subject = w.figureSubject(&why);
        QVERIFY2(subject, qPrintable(why));
        QCOMPARE(subject->kind, FigureSubject::Kind::Diagnosis);
        FigureJob job{*subject, false, dir.filePath("diagnosis.png")};
        job.subject.request.session.width = 640;
        job.subject.request.session.height = 480;
        job.subject.request.scale = 2;
        QVERIFY(!job.svgOffered());
        QCOMPARE(job.defaultFileName(), QString("diagnosis-off-by-one.png"));
        QVERIFY(w.exportFigure(job).has_value());
        // The same figure from the file read and diagnosed here.
        auto loaded = loadTensor(path.toStdString());
        QVERIFY(loaded);
        auto diagnosis = diagnose(loaded->tensor);
        QVERIFY(diagnosis);
        DiagnosisFigureRequest r;
        r.tensor = &loaded->tensor;
        r.diagnosis = &*diagnosis;
        r.source = "off-by-one.npy";
        r.width = 640;
        r.height = 480;
        r.scale = 2;
        const QByteArray core = bytesOf(renderDiagnosisFigure(r));
        QVERIFY2(!core.startsWith("error"), core.constData());
        QVERIFY(readAll(job.path) == core);
        QCOMPARE(QImage(job.path).size(), QSize(1280, 960));
    }

    // The heatmap tabs at 2x are drawn at 2x: where one 1x pixel spans several cells (T = 2000
    // keys in tiles a few hundred pixels wide), the 2x2 pixels standing for it differ, which an
    // upscaled picture never shows. (Moved here from the window test's grid case.)
    void heatmapsAt2xAreRenderedNotUpscaled_data() {
        QTest::addColumn<int>("view");
        QTest::newRow("compare") << int(ExplorerView::Compare);
        QTest::newRow("grid") << int(ExplorerView::Grid);
    }

    void heatmapsAt2xAreRenderedNotUpscaled() {
        QFETCH(int, view);
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        w.model()->setHeads(4);
        w.model()->setQueries(2000);
        QVERIFY(settled(w, 60000));
        prepareTab(w, static_cast<ExplorerView>(view));
        QVERIFY(settled(w, 60000));
        const auto subject = w.figureSubject();
        QVERIFY(subject);
        FigureJob one{*subject, false, dir.filePath("one.png")};
        one.subject.request.session.width = 640;
        one.subject.request.session.height = 480;
        FigureJob two = one;
        two.subject.request.scale = 2;
        two.path = dir.filePath("two.png");
        QVERIFY(w.exportFigure(one).has_value());
        QVERIFY(w.exportFigure(two).has_value());
        const QImage a(one.path), b(two.path);
        QCOMPARE(b.size(), 2 * a.size());
        // The heatmap's inside: 1x pixels whose 5 x 5 neighbourhood is all strongly coloured
        // (text, frames, ticks and the background are grey).
        const auto coloured = [&](int x, int y) { return a.pixelColor(x, y).hsvSaturation() > 60; };
        int inside = 0, mixed = 0;
        for (int y = 2; y < a.height() - 2; ++y)
            for (int x = 2; x < a.width() - 2; ++x) {
                bool all = true;
                for (int dy = -2; dy <= 2 && all; ++dy)
                    for (int dx = -2; dx <= 2 && all; ++dx) all = coloured(x + dx, y + dy);
                if (!all) continue;
                ++inside;
                const QRgb p = b.pixel(2 * x, 2 * y);
                if (b.pixel(2 * x + 1, 2 * y) != p || b.pixel(2 * x, 2 * y + 1) != p ||
                    b.pixel(2 * x + 1, 2 * y + 1) != p)
                    ++mixed;
            }
        QVERIFY2(inside > 10000, qPrintable(QString("%1 heatmap pixels found").arg(inside)));
        QVERIFY2(mixed > inside / 20, qPrintable(QString("%1 of %2 blocks differ inside").arg(mixed).arg(inside)));
    }

    // On the Attention maps tab File > Export figure opens that tab's own Figure menu (what the
    // open tab can draw, see test_attention_maps), not a window grab; with no maps open it says
    // how to open them.
    void attentionMapsTabOpensItsFigureMenu() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        w.tabs()->setCurrentIndex(MainWindow::AttentionTab);
        QVERIFY(!w.figureSubject());
        w.exportFigureDialog();
        QMenu* shown = nullptr;
        for (QMenu* menu : w.attentionPage()->findChildren<QMenu*>())
            if (menu->isVisible()) shown = menu;
        QVERIFY(shown);
        QStringList entries;
        for (QAction* a : shown->actions()) entries << (a->isEnabled() ? "" : "(off) ") + a->text();
        QCOMPARE(entries, (QStringList{"(off) Open attention maps first (Ctrl+Shift+O)"}));
        shown->hide();
    }
};

QTEST_MAIN(TestFigureExport)
#include "test_figure_export.moc"
