// Issue 12 in the Qt explorer: the Attention maps tab over the example files. Opening (menu
// path, drag and drop, the Help examples' folder), the layer grid's L x H tiles and the layer
// switch (spin box, PageDown), a hovered cell reading the file's own value (decoded here with
// Qt's qfloat16, not the core), the sortable table, CSV/JSON exports byte-equal to `alibi fit`,
// and hostile files that leave a message and the previous maps in place.
#include "attention_maps_page.hpp"
#include "main_window.hpp"
#include "maps_heatmap_view.hpp"
#include "plot_widget.hpp"
#include "view_util.hpp"

#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/render/square_cells.hpp>

#include <QCheckBox>
#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QFloat16>
#include <QImage>
#include <QMenu>
#include <QMimeData>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>

#include <QUrl>
#include "patient_qtry.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>

using namespace alibi;
using namespace alibi::qt;

namespace {

const QString kAssets = QString(ALIBI_ASSETS_DIR) + "/attention/";
const QString kNpy = kAssets + "trained-like-4x8x64.npy";
const QString kSafetensors = kAssets + "trained-like-4x8x64.safetensors";

bool openAndFit(MainWindow& w, const QString& path) {
    w.openAttentionMaps(path);
    AttentionMapsModel* m = w.attentionPage()->model();
    return QTest::qWaitFor(
        [&] { return !m->opening() && m->maps() && m->path() == path && !m->fitting() && !m->fits().empty(); }, 30000);
}

// The (layer, head, query, key) value of the f16 example .npy, read straight from its bytes.
double npyValue(int layer, int head, int q, int k) {
    QFile f(kNpy);
    if (!f.open(QIODevice::ReadOnly)) return std::nan("");
    const QByteArray bytes = f.readAll();
    const int headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    const qsizetype index = ((static_cast<qsizetype>(layer) * 8 + head) * 64 + q) * 64 + k;
    const qsizetype at = 10 + headerLen + 2 * index;
    quint16 bits = static_cast<unsigned char>(bytes[at]) | (static_cast<unsigned char>(bytes[at + 1]) << 8);
    return static_cast<double>(static_cast<float>(std::bit_cast<qfloat16>(bits)));
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray runCli(const QStringList& args, const QString& out) {
    QProcess p;
    p.start(ALIBI_CLI, args + QStringList{"-o", out});
    if (!p.waitForFinished(60000) || p.exitCode() != 0) {
        qWarning() << "alibi" << args << "failed:" << p.readAllStandardError();
        return {};
    }
    return readAll(out);
}

// Starts a figure with `start` (false: refused at once), waits for the page's figureSaved and
// says whether the file was written.
bool figureWritten(AttentionMapsPage* page, const std::function<bool()>& start) {
    QSignalSpy saved(page, &AttentionMapsPage::figureSaved);
    if (!start() || !QTest::qWaitFor([&] { return saved.count() > 0; }, 30000)) return false;
    return saved.at(0).at(0).toBool();
}

// Every case's window: no dialogs, the screenshots' size, shown.
void showWindow(MainWindow& w) {
    w.setInteractive(false);
    w.resize(1400, 900);
    w.show();
}

void drop(QWidget& target, const QString& path) {
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    const QPoint at = target.rect().center();
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&target, &enter);
    QDropEvent dropped(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&target, &dropped);
}

}  // namespace

class TestAttentionMaps : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QCoreApplication::setApplicationName("alibi-explorer-test-attention"); }

    void opensTheExampleAsLayersTimesHeads() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kSafetensors));
        AttentionMapsPage* page = w.attentionPage();
        QCOMPARE(w.tabs()->currentIndex(), int(MainWindow::AttentionTab));
        const MapsPtr maps = page->model()->maps();
        QCOMPARE(maps->layers(), 4);
        QCOMPARE(maps->heads(), 8);
        // The layer grid: one tile per head; the overview: one per layer and head.
        page->views()->setCurrentIndex(AttentionMapsPage::GridView);
        QTRY_VERIFY(page->gridView()->hasPicture() && !page->gridView()->pending());
        QCOMPARE(int(page->gridView()->heatmap().tiles.size()), 8);
        page->views()->setCurrentIndex(AttentionMapsPage::OverviewView);
        QTRY_VERIFY(page->overviewView()->hasPicture() && !page->overviewView()->pending());
        QCOMPARE(int(page->overviewView()->heatmap().tiles.size()), 4 * 8);
        // Safetensors layers are listed by their number; the fit covers every layer and head.
        QCOMPARE(page->model()->tensorNames().size(), 4);
        QCOMPARE(int(page->model()->fits().size()), 32);
        // The colour bar spans the exact range of what is shown: probabilities within [0, 1].
        const Heatmap& grid = page->gridView()->heatmap();
        QVERIFY(grid.lo >= 0 && grid.hi <= 1 && grid.hi > grid.lo);
    }

    // The grid (a layer's heads) and the overview write each tile's label in the band the core
    // left above it, as Compare and Diagnose do (tileLabelsSitAboveTheirTiles): never over the
    // tile's first rows. The grid's labels are "h3  m* ...  m ..." where they fit, else "h3".
    void mapsTileLabelsSitAboveTheirTiles() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kSafetensors));
        AttentionMapsPage* page = w.attentionPage();
        const auto labelsAbove = [](MapsHeatmapView* view, std::size_t tiles, bool layerGrid) {
            QTRY_VERIFY(view->hasPicture() && !view->pending());
            view->grab();  // paints: the labels' places are those of this picture
            QCOMPARE(view->heatmap().tiles.size(), tiles);
            QVERIFY(view->labelBand() > 0);
            for (std::size_t n = 0; n < tiles; ++n) {
                const QRectF label = view->labelRect(n), tile = view->tileRect(n);
                const int head = view->heatmap().tiles[n].head;
                QVERIFY2(
                    !label.isEmpty(),
                    qPrintable(
                        QString("tile %1 has no label (tile %2 x %3)").arg(n).arg(tile.width()).arg(tile.height())));
                const QString text = view->labelText(n);
                QVERIFY2(text == QString("h%1").arg(head) || text.startsWith(QString("h%1 ").arg(head)) ||
                             (!layerGrid && text.contains(QString(" h%1").arg(head))),
                         qPrintable(text));
                // Above the tile's first row, within its columns.
                QVERIFY2(label.bottom() <= tile.top() + 0.5 && label.top() >= tile.top() - 2 * label.height() &&
                             label.left() >= tile.left() - 0.5 && label.right() <= tile.right() + 0.5,
                         qPrintable(QString("tile %1: label (%2, %3, %4 x %5), tile (%6, %7, %8 x %9)")
                                        .arg(n)
                                        .arg(label.x())
                                        .arg(label.y())
                                        .arg(label.width())
                                        .arg(label.height())
                                        .arg(tile.x())
                                        .arg(tile.y())
                                        .arg(tile.width())
                                        .arg(tile.height())));
            }
        };
        page->views()->setCurrentIndex(AttentionMapsPage::GridView);
        labelsAbove(page->gridView(), 8, true);
        page->views()->setCurrentIndex(AttentionMapsPage::OverviewView);
        labelsAbove(page->overviewView(), 4 * 8, false);
    }

    // Figure > PNG at 2x: the figure of the shown layer, drawn at twice the pixels (the core's
    // figure, so the same as alibi render FILE), written in the background.
    void figureAtTwiceThePixels() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kNpy));
        AttentionMapsPage* page = w.attentionPage();
        QTemporaryDir dir;
        const QString out = dir.filePath("layer1@2x.png");
        MapsHeatmapParams p;
        p.layerIndex = 1;
        p.width = 400;
        p.height = 300;
        QVERIFY(figureWritten(page, [&] { return page->exportFigure(out, p, 2); }));
        const QImage image(out);
        QCOMPARE(image.size(), QSize(800, 600));
        // The same bytes as the CLI draws for that layer at that size and ratio.
        const QByteArray cli =
            runCli({"render", kNpy, "--layer", "1", "--width", "400", "--height", "300", "--pixel-ratio", "2"},
                   dir.filePath("cli.png"));
        QVERIFY(!cli.isEmpty());
        QCOMPARE(readAll(out), cli);
    }

    void layerSwitchRedrawsTheGrid() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kNpy));
        AttentionMapsPage* page = w.attentionPage();
        page->views()->setCurrentIndex(AttentionMapsPage::GridView);
        page->setLayerIndex(0);
        QTRY_VERIFY(page->gridView()->hasPicture() && !page->gridView()->pending());
        const std::vector<Rgba> layer0 = page->gridView()->heatmap().image.pixels;
        page->setLayerIndex(2);
        QCOMPARE(page->layerIndex(), 2);
        QTRY_VERIFY(!page->gridView()->pending());
        QVERIFY(page->gridView()->heatmap().image.pixels != layer0);
        // PageDown steps to the next layer, PageUp back.
        page->gridView()->setFocus();
        QTest::keyClick(page->gridView(), Qt::Key_PageDown);
        QCOMPARE(page->layerIndex(), 3);
        QTest::keyClick(page->gridView(), Qt::Key_PageUp);
        QCOMPARE(page->layerIndex(), 2);
        // The wheel over the grid steps layers too (down: next).
        QWheelEvent wheel(QPointF(50, 50), page->gridView()->mapToGlobal(QPointF(50, 50)), QPoint(), QPoint(0, -120),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(page->gridView(), &wheel);
        QCOMPARE(page->layerIndex(), 3);
    }

    // The pictures render off the UI thread: a layer switch returns before its picture exists
    // (the old one stays shown), and of rapid switches only the last one's picture is shown.
    void layerSwitchRendersInTheBackground() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kNpy));
        AttentionMapsPage* page = w.attentionPage();
        page->views()->setCurrentIndex(AttentionMapsPage::GridView);
        MapsHeatmapView* grid = page->gridView();
        page->setLayerIndex(0);
        QTRY_VERIFY(grid->hasPicture() && !grid->pending());
        QCOMPARE(grid->shownLayer(), 0);
        const std::vector<Rgba> layer0 = grid->heatmap().image.pixels;

        QSignalSpy shown(grid, &MapsHeatmapView::pictureShown);
        page->setLayerIndex(2);
        // Back here before the new picture exists: pending, the layer-0 picture still shown.
        QVERIFY(grid->pending());
        QCOMPARE(shown.count(), 0);
        QCOMPARE(grid->shownLayer(), 0);
        QVERIFY(grid->heatmap().image.pixels == layer0);
        QTRY_COMPARE(shown.count(), 1);
        QVERIFY(!grid->pending());
        QCOMPARE(grid->shownLayer(), 2);
        QVERIFY(grid->heatmap().image.pixels != layer0);

        // Rapid switches without returning to the event loop: one picture, the last layer's.
        shown.clear();
        for (int layer : {1, 3, 0, 2, 1, 3}) page->setLayerIndex(layer);
        QVERIFY(grid->pending());
        QTRY_VERIFY(!grid->pending());
        QCOMPARE(shown.count(), 1);
        QCOMPARE(grid->shownLayer(), 3);
        // The very pixels the core renders for layer 3 at the view's size (not an older request's).
        MapsHeatmapParams p;
        p.layerIndex = 3;
        p.labelBand = grid->labelBand();  // the band left above each tile for its label
        // The view's room, down to the size at which the tiles' cells are square.
        const TileSize square =
            squareCellPicture(8, 64, 64, grid->imagePixels().width(), grid->imagePixels().height(), p.gap, p.labelBand);
        p.width = square.width;
        p.height = square.height;
        const auto expected = renderAttentionMaps(*page->model()->maps(), p);
        QVERIFY(expected);
        QVERIFY(grid->heatmap().image.pixels == expected->image.pixels);
    }

    void hoveredCellReadsTheFilesValue() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kNpy));
        AttentionMapsPage* page = w.attentionPage();
        page->setLayerIndex(1);
        page->setHead(3);
        page->views()->setCurrentIndex(AttentionMapsPage::HeadView);
        MapsHeatmapView* view = page->headView();
        QTRY_VERIFY(view->hasPicture() && !view->pending());
        const HeatmapTile& t = view->heatmap().tiles.front();
        QCOMPARE(t.head, 3);
        // A pixel a little below the tile's diagonal: query rows below the keys.
        const QPoint device(t.x + t.width / 4, t.y + t.height / 2);
        const QPoint pos = view->widgetPosOf(device);
        QTest::mouseMove(view, pos);
        QTRY_VERIFY(!page->hoverText().isEmpty());
        const QString text = page->hoverText();
        const auto hit = mapsHitTest(view->heatmap(), *page->model()->maps(), device.x(), device.y());
        QVERIFY(hit);
        QVERIFY2(text.contains(QString("query i = %1 · key j = %2").arg(hit->query).arg(hit->key)), qPrintable(text));
        // "file value = VALUE (f16 probability)": VALUE is the f16 in the file, exactly.
        const qsizetype at = text.indexOf("file value = ");
        QVERIFY(at >= 0);
        // The shortest text that reads back as the stored f16: read back, it is that f16.
        const double shown = text.mid(at + 13).section(' ', 0, 0).toDouble();
        const double stored = npyValue(1, 3, static_cast<int>(hit->query), static_cast<int>(hit->key));
        QVERIFY(stored > 0);
        QCOMPARE(static_cast<double>(static_cast<float>(qfloat16(static_cast<float>(shown)))), stored);
        // The status bar gets the same read-out on one line.
        QVERIFY(w.hoverText().contains("f16 probability"));
    }

    void tableSortsByAnyColumn() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(openAndFit(w, kNpy));
        QTableView* table = w.attentionPage()->table();
        QAbstractItemModel* model = table->model();
        QCOMPARE(model->rowCount(), 32);
        // Each header says what its column means.
        QVERIFY(model->headerData(static_cast<int>(explore::FitColumn::Kl), Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .contains("KL"));
        const int slope = static_cast<int>(explore::FitColumn::Slope);
        table->sortByColumn(slope, Qt::DescendingOrder);
        for (int r = 1; r < model->rowCount(); ++r)
            QVERIFY(model->index(r - 1, slope).data(Qt::UserRole).toDouble() >=
                    model->index(r, slope).data(Qt::UserRole).toDouble());
        const int sink = static_cast<int>(explore::FitColumn::SinkMass);
        table->sortByColumn(sink, Qt::AscendingOrder);
        for (int r = 1; r < model->rowCount(); ++r)
            QVERIFY(model->index(r - 1, sink).data(Qt::UserRole).toDouble() <=
                    model->index(r, sink).data(Qt::UserRole).toDouble());
        // The verdict column shows the core's verdict of each row's head, in its words.
        const int verdict = static_cast<int>(explore::FitColumn::Verdict);
        const auto& fits = w.attentionPage()->model()->fits();
        for (int r = 0; r < model->rowCount(); ++r) {
            const int l = model->index(r, static_cast<int>(explore::FitColumn::Layer)).data(Qt::UserRole).toInt();
            const int h = model->index(r, static_cast<int>(explore::FitColumn::Head)).data(Qt::UserRole).toInt();
            const auto f =
                std::find_if(fits.begin(), fits.end(), [&](const HeadFit& x) { return x.layer == l && x.head == h; });
            QVERIFY(f != fits.end());
            QCOMPARE(model->index(r, verdict).data(Qt::DisplayRole).toString(),
                     QString::fromStdString(fitVerdict(*f).text));
        }
        // Selecting a row shows that layer and head.
        table->selectRow(5);
        const int layer = model->index(5, static_cast<int>(explore::FitColumn::Layer)).data(Qt::UserRole).toInt();
        const int head = model->index(5, static_cast<int>(explore::FitColumn::Head)).data(Qt::UserRole).toInt();
        QCOMPARE(w.attentionPage()->layerIndex(), layer);
        QCOMPARE(w.attentionPage()->head(), head);
    }

    // Every fit-table cell reads as the core writes it for its head (explore::fitCellText, as
    // ImGui's table does): a head that attends only to its own position has its slope at the
    // search bound, ">= 30" (Qt's table wrote the number alone, "30", s42).
    void tableCellsAreTheCoresText() {
        QTemporaryDir dir;
        // Two heads of 8 x 8: one on the diagonal only, one even over every key its row sees.
        QByteArray data;
        for (int h = 0; h < 2; ++h)
            for (int i = 0; i < 8; ++i)
                for (int j = 0; j < 8; ++j) {
                    const float p =
                        h == 0 ? (i == j ? 1.0F : 0.0F) : (j <= i ? 1.0F / static_cast<float>(i + 1) : 0.0F);
                    data.append(reinterpret_cast<const char*>(&p), sizeof p);
                }
        QByteArray header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 8, 8), }";
        while ((10 + header.size() + 1) % 64) header += ' ';
        header += '\n';
        const QString path = dir.filePath("diagonal.npy");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header +
                   data);
        file.close();
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(openAndFit(w, path));
        auto* sorted = qobject_cast<QSortFilterProxyModel*>(w.attentionPage()->table()->model());
        QVERIFY(sorted != nullptr);
        const auto& fits = w.attentionPage()->model()->fits();
        QCOMPARE(sorted->rowCount(), 2);
        for (int r = 0; r < sorted->rowCount(); ++r) {
            const HeadFit& f = fits[static_cast<std::size_t>(sorted->mapToSource(sorted->index(r, 0)).row())];
            for (int c = 0; c < explore::kFitColumnCount; ++c)
                QCOMPARE(sorted->index(r, c).data().toString(),
                         QString::fromStdString(explore::fitCellText(f, static_cast<explore::FitColumn>(c))));
        }
        const int slope = static_cast<int>(explore::FitColumn::Slope);
        const QString diagonal = sorted->index(0, slope).data().toString();
        QVERIFY2(fits[0].slopeAtBound && diagonal.startsWith(">= "), qPrintable(diagonal));
    }

    void exportsEqualTheCli() {
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(openAndFit(w, kSafetensors));
        AttentionMapsPage* page = w.attentionPage();
        QVERIFY(page->exportTable(dir.filePath("gui.csv"), FileFormat::Csv));
        QVERIFY(page->exportTable(dir.filePath("gui.json"), FileFormat::Json));
        const QByteArray cliCsv = runCli({"fit", kSafetensors, "--format", "csv"}, dir.filePath("cli.csv"));
        const QByteArray cliJson = runCli({"fit", kSafetensors, "--format", "json"}, dir.filePath("cli.json"));
        QVERIFY(!cliCsv.isEmpty() && !cliJson.isEmpty());
        QCOMPARE(readAll(dir.filePath("gui.csv")), cliCsv);
        QCOMPARE(readAll(dir.filePath("gui.json")), cliJson);

        // Paired with the session's slopes (8 heads, the defaults) and fitted on rows 16 to 63:
        // the same as --heads 8 --rows 16:.
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 8);
        QVERIFY(page->choosePrior(AttentionMapsPage::PriorSession));
        AttentionMapsModel* m = page->model();
        QTRY_VERIFY_WITH_TIMEOUT(!m->fitting() && !m->fits().empty(), 30000);
        QVERIFY(m->fits().front().configuredKl.has_value());
        m->startFit(16, -1);
        QTRY_VERIFY_WITH_TIMEOUT(!m->fitting() && m->fitFirstRow() == 16, 30000);
        QVERIFY(page->exportTable(dir.filePath("gui2.csv"), FileFormat::Csv));
        QVERIFY(page->exportTable(dir.filePath("gui2.json"), FileFormat::Json));
        QCOMPARE(readAll(dir.filePath("gui2.csv")),
                 runCli({"fit", kSafetensors, "--heads", "8", "--rows", "16:", "--format", "csv"},
                        dir.filePath("cli2.csv")));
        QCOMPARE(readAll(dir.filePath("gui2.json")),
                 runCli({"fit", kSafetensors, "--heads", "8", "--rows", "16:", "--format", "json"},
                        dir.filePath("cli2.json")));
        QVERIFY(readAll(dir.filePath("gui2.csv")).contains("configured_slope"));
    }

    void fitCanBeCancelled() {
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(openAndFit(w, kNpy));
        AttentionMapsModel* m = w.attentionPage()->model();
        const auto before = m->fits().size();
        m->startFit(0, -1);
        m->cancelFit();
        m->waitForFit();
        // Cancelled or (if it was quicker than the cancel) finished: never a half table.
        QCOMPARE(m->fits().size(), before);
    }

    // Issue 27: the fit rows fields read "Fit rows 0 to 64", 64 excluded, beside the core's
    // caption "Fitted 32 heads on query rows 0 to 63". The second field is the last row,
    // included: 63 of 64 queries by default, and a fit asked up to row 40 requests rows up to
    // 41, excluded (the model's request stays exclusive), and its caption says "to 40".
    void fitRowsFieldIsTheLastRowIncluded() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kNpy));
        AttentionMapsPage* page = w.attentionPage();
        AttentionMapsModel* m = page->model();
        // The two fields by their tooltips ("Fit on query rows from this one…", "…up to …").
        QSpinBox *first = nullptr, *last = nullptr;
        for (QSpinBox* box : page->findChildren<QSpinBox*>()) {
            if (box->toolTip().startsWith(QStringLiteral("Fit on query rows"))) first = box;
            if (box->toolTip().startsWith(QStringLiteral("…up to"))) last = box;
        }
        QVERIFY(first != nullptr && last != nullptr);
        QCOMPARE(m->maps()->queries(), std::int64_t{64});
        QCOMPARE(last->value(), 63);
        QCOMPARE(last->maximum(), 63);
        QVERIFY(last->toolTip().contains(QStringLiteral("up to and including this one")));
        QCOMPARE(m->fitLastRow(), std::int64_t{-1});  // the default fit: every row
        first->setValue(8);
        last->setValue(40);
        QPushButton* fit = nullptr;
        for (QPushButton* b : page->findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Fit")) fit = b;
        QVERIFY(fit != nullptr);
        fit->click();
        QTRY_VERIFY_WITH_TIMEOUT(!m->fitting() && !m->fits().empty(), 30000);
        QCOMPARE(m->fitFirstRow(), std::int64_t{8});
        QCOMPARE(m->fitLastRow(), std::int64_t{last->value() + 1});
        const std::string caption = explore::fitSummaryLine(m->fits().size(), m->fitFirstRow(), m->fitLastRow(),
                                                            m->maps()->queries(), std::string());
        QVERIFY2(QString::fromStdString(caption).contains(QStringLiteral("to 40")), caption.c_str());
    }

    // Issue 27: Qt's attention maps had no per-head colour scale; ImGui's and the figures' do.
    // With "per-head scale" on, hovering a tile of the layer grid shows that tile's own range on
    // the bar: from the file's data, layer 0 head 3's probabilities (rows renormalised to sum 1)
    // over its rows of two or more keys (row 0's single key, p = 1, is left out and marked
    // ">= hi"); and the core's note of what the ranges leave out is written under the picture.
    void perHeadScaleShowsTheHoveredTilesRange() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kNpy));
        AttentionMapsPage* page = w.attentionPage();
        page->setLayerIndex(0);
        QCheckBox* perHead = nullptr;
        for (QCheckBox* box : page->findChildren<QCheckBox*>())
            if (box->text() == QStringLiteral("per-head scale")) perHead = box;
        QVERIFY2(perHead != nullptr, "no per-head scale check box on the maps page");
        QVERIFY(perHead->isEnabled());
        perHead->setChecked(true);
        MapsHeatmapView* grid = page->gridView();
        QTRY_VERIFY_WITH_TIMEOUT(!grid->pending() && grid->heatmap().tiles.size() == 8, 30000);
        const int tile = 3;
        QCOMPARE(grid->heatmap().tiles[tile].head, 3);
        QTest::mouseMove(grid, grid->tileRect(tile).center().toPoint());
        grid->repaint();
        QCOMPARE(grid->colorBarTile(), tile);
        const alibi::ColorBar bar = grid->shownColorBar();
        // The tile's own range, from the data (the picture shows every cell: no pixel summarises two).
        double lo = 1e300, hi = -1e300;
        for (int q = 1; q < 64; ++q) {
            double sum = 0;
            for (int k = 0; k <= q; ++k) sum += npyValue(0, 3, q, k);
            for (int k = 0; k <= q; ++k) {
                lo = std::min(lo, npyValue(0, 3, q, k) / sum);
                hi = std::max(hi, npyValue(0, 3, q, k) / sum);
            }
        }
        qInfo("head 3's own range [%.9g, %.9g]; the bar [%.9g, %.9g] (%s)", lo, hi, bar.lo, bar.hi, bar.head.c_str());
        QVERIFY2(std::abs(bar.lo - lo) <= 1e-9 * hi && std::abs(bar.hi - hi) <= 1e-9 * hi,
                 qPrintable(QString("bar [%1, %2], the tile's data [%3, %4]").arg(bar.lo).arg(bar.hi).arg(lo).arg(hi)));
        QVERIFY(hi < 0.99);  // not the shared [0, 1] row 0 forces on every head
        QCOMPARE(bar.head, std::string("h3"));
        QVERIFY(bar.aboveTop);  // row 0's p = 1 lies above it
        // Another tile hovered: its own range.
        QTest::mouseMove(grid, grid->tileRect(6).center().toPoint());
        grid->repaint();
        QCOMPARE(grid->colorBarTile(), 6);
        QCOMPARE(grid->shownColorBar().hi, grid->heatmap().tiles[6].hi);
        QVERIFY(grid->shownColorBar().hi != bar.hi);
        // The core's note, written whole under the picture.
        const QString note = QString::fromStdString(alibi::perHeadScaleNote(grid->heatmap(), ScaleMode::PerHead));
        QVERIFY(!note.isEmpty());
        QCOMPARE(grid->scaleNote(), note);
        bool written = false;
        for (const PaintedText& t : paintedTexts(grid))
            if (t.text == note && !t.cut && !t.elided) written = true;
        QVERIFY(written);
        QVERIFY(grid->scaleNoteRect().top() >= grid->tileRect(7).bottom());
        QVERIFY(grid->rect().contains(grid->scaleNoteRect().toAlignedRect()));
        // Off again: the shared bar and no note.
        perHead->setChecked(false);
        QTRY_VERIFY_WITH_TIMEOUT(!grid->pending(), 30000);
        grid->repaint();
        QCOMPARE(grid->colorBarTile(), -1);
        QVERIFY(grid->scaleNote().isEmpty());
    }

    // s40 review F4: the Layer field read "1 / 3" for layer 1 of a 4-layer file, which a lecturer
    // reads as "layer 1 of 3" right after the lesson said "4 layers". It names the range of the
    // positions: "1 of 0–3".
    void layerFieldNamesTheRange() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kNpy));
        AttentionMapsPage* page = w.attentionPage();
        page->setLayerIndex(1);
        QSpinBox* layer = nullptr;
        for (QSpinBox* box : page->findChildren<QSpinBox*>())
            if (box->toolTip().contains(QStringLiteral("PageUp / PageDown, or the wheel over the grid"))) layer = box;
        QVERIFY(layer != nullptr);
        QCOMPARE(layer->value(), 1);
        QCOMPARE(layer->text(), QStringLiteral("1 of 0–3"));
    }

    void hostileFilesKeepThePreviousMaps() {
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(openAndFit(w, kNpy));
        QTRY_VERIFY(w.attentionPage()->gridView()->hasPicture());  // rendered in the background
        AttentionMapsModel* m = w.attentionPage()->model();
        const QByteArray good = readAll(kNpy);
        const auto write = [&](const QString& name, const QByteArray& bytes) {
            QFile f(dir.filePath(name));
            if (f.open(QIODevice::WriteOnly)) f.write(bytes);
            return dir.filePath(name);
        };
        const auto npy = [](const QByteArray& descr, const QByteArray& shape, const QByteArray& data) {
            QByteArray header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
            while ((10 + header.size() + 1) % 64) header += ' ';
            header += '\n';
            QByteArray out("\x93NUMPY\x01\x00", 8);
            out += char(header.size() & 0xff);
            out += char(header.size() >> 8);
            return out + header + data;
        };
        QByteArray nan(16, '\0');
        const float q = std::nanf("");
        for (int i = 0; i < 4; ++i) std::memcpy(nan.data() + 4 * i, &q, 4);
        const QStringList files = {
            write("truncated.npy", good.left(good.size() / 2)),
            write("rank2.npy", npy("<f4", "(2, 2)", QByteArray(16, '\0'))),
            write("nan.npy", npy("<f4", "(1, 2, 2)", nan)),
            write("junk.safetensors", "garbage"),
        };
        for (const QString& path : files) {
            w.openAttentionMaps(path);
            m->waitForOpen();
            QVERIFY2(!w.lastError().isEmpty(), qPrintable(path));
            QVERIFY2(w.lastError().contains(QFileInfo(path).fileName()), qPrintable(w.lastError()));
            // The previous maps stay open and drawn.
            QCOMPARE(m->path(), kNpy);
            QCOMPARE(m->maps()->layers(), 4);
            QCOMPARE(int(m->fits().size()), 32);
            QVERIFY(w.attentionPage()->gridView()->hasPicture());
        }
    }

    void dragAndDrop() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        AttentionMapsModel* m = w.attentionPage()->model();
        // On the Attention maps tab: opened as attention maps, no question.
        w.tabs()->setCurrentIndex(MainWindow::AttentionTab);
        drop(w, kNpy);
        QTRY_VERIFY(!m->opening() && m->path() == kNpy);
        // Elsewhere with someone to ask: the answer decides.
        w.tabs()->setCurrentIndex(MainWindow::GridTab);
        QString asked;
        w.setDropPrompt([&](const QString& path) {
            asked = path;
            return MainWindow::DropChoice::AttentionMaps;
        });
        drop(w, kSafetensors);
        QTRY_COMPARE(asked, kSafetensors);  // once the file was read in the background
        QTRY_VERIFY(!m->opening() && m->path() == kSafetensors);
        QCOMPARE(w.tabs()->currentIndex(), int(MainWindow::AttentionTab));
        w.tabs()->setCurrentIndex(MainWindow::GridTab);
        w.setDropPrompt([](const QString&) { return MainWindow::DropChoice::Diagnose; });
        drop(w, kNpy);
        QTRY_COMPARE(w.tabs()->currentIndex(), int(MainWindow::DiagnoseTab));
        QCOMPARE(m->path(), kSafetensors);
        // Nobody to ask: rows summing to 1 read as attention maps, and the status bar says so.
        w.setDropPrompt({});
        w.tabs()->setCurrentIndex(MainWindow::GridTab);
        drop(w, kNpy);
        QTRY_VERIFY(!m->opening() && m->path() == kNpy);
        QCOMPARE(w.tabs()->currentIndex(), int(MainWindow::AttentionTab));
    }

    // Issue 25, as reported. (1) A few-MB safetensors file made the explorer abort
    // (QUnhandledException): 2000 (1, 2, 2) tensors plus one 8 MiB metadata string, and 4000
    // tensors with 300k metadata keys, each open now. (2) A file truncated while open (np.save
    // over it), then PageDown: the program died (SIGBUS) losing unsaved work; now the view says
    // "the file changed on disk; reopen it" and the unsaved parameters are still there.
    void theIssuesHostileFilesOpenAndATruncatedFileIsAMessage() {
        QTemporaryDir dir;
        const auto safetensors = [&](const QString& name, int tensors, int keys, int valueBytes) {
            QByteArray json = "{\"__metadata__\":{";
            const QByteArray value(valueBytes, 'm');
            for (int k = 0; k < keys; ++k) json += (k ? ",\"" : "\"") + QByteArray::number(k) + "\":\"" + value + "\"";
            json += "}";
            for (int t = 0; t < tensors; ++t)
                json += ",\"layers." + QByteArray::number(t) +
                        "\":{\"dtype\":\"F32\",\"shape\":[1,2,2],\"data_offsets\":[" + QByteArray::number(16 * t) +
                        "," + QByteArray::number(16 * t + 16) + "]}";
            json += "}";
            while (json.size() % 8) json += ' ';
            QByteArray length(8, '\0');
            for (int b = 0; b < 8; ++b) length[b] = static_cast<char>((quint64(json.size()) >> (8 * b)) & 0xff);
            QFile f(dir.filePath(name));
            if (!f.open(QIODevice::WriteOnly)) return QString();
            f.write(length);
            f.write(json);
            const float rows[4] = {1.0f, 0.0f, 0.5f, 0.5f};
            for (int t = 0; t < tensors; ++t) f.write(reinterpret_cast<const char*>(rows), sizeof rows);
            return dir.filePath(name);
        };
        MainWindow w;
        w.setInteractive(false);
        w.show();
        AttentionMapsModel* m = w.attentionPage()->model();
        for (const auto& [file, layers] : {std::pair{safetensors("meta-8mib.safetensors", 2000, 1, 8 << 20), 2000},
                                           std::pair{safetensors("meta-300k.safetensors", 4000, 300000, 1), 4000}}) {
            QVERIFY(!file.isEmpty());
            w.openAttentionMaps(file);
            QTRY_VERIFY(!m->opening());
            QVERIFY2(m->maps() && m->path() == file, qPrintable(w.lastError()));
            QCOMPARE(m->maps()->layers(), layers);
        }

        // (4, 16, 128, 128) f32 causal probabilities (each row uniform over its keys).
        const int L = 4, H = 16, T = 128;
        QByteArray data(qsizetype(L) * H * T * T * 4, '\0');
        for (int lh = 0; lh < L * H; ++lh)
            for (int q = 0; q < T; ++q)
                for (int k = 0; k <= q; ++k) {
                    const float v = 1.0f / static_cast<float>(q + 1);
                    std::memcpy(data.data() + ((qsizetype(lh) * T + q) * T + k) * 4, &v, 4);
                }
        QByteArray header = "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 16, 128, 128), }";
        while ((10 + header.size() + 1) % 64) header += ' ';
        header += '\n';
        const QString big = dir.filePath("t.npy");
        {
            QFile f(big);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) +
                    header + data);
        }
        w.openAttentionMaps(big);
        QTRY_VERIFY(!m->opening() && m->path() == big);
        AttentionMapsPage* page = w.attentionPage();
        page->views()->setCurrentIndex(AttentionMapsPage::GridView);
        QTRY_VERIFY(page->gridView()->hasPicture() && !page->gridView()->pending());
        QVERIFY(w.model()->setHeads(5));  // unsaved work
        QVERIFY(QFile::resize(big, 4096));
        page->setFocus();
        QTest::keyClick(page->gridView(), Qt::Key_PageDown);
        QCOMPARE(page->layerIndex(), 1);
        QTRY_VERIFY(!page->gridView()->pending());
        QVERIFY2(page->gridView()->lastError().contains("changed on disk"), qPrintable(page->gridView()->lastError()));
        QVERIFY(page->gridView()->lastError().contains("reopen it"));
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 5);  // the window and its work are still here
    }

    // Issue 25, item 3: a dropped .npy / .safetensors file outside the Attention maps tab was
    // classified (attention maps or a bias?) by reading its header on the UI thread: a legal
    // file with a large header froze the window. It is now read in the background through the
    // attention maps' own open, with the core's progress and a Cancel in the status bar; a
    // watchdog timer on the UI thread keeps firing while the file is read.
    void droppingALargeHeaderFileKeepsTheEventLoopTurning() {
        QTemporaryDir dir;
        const QString big = dir.filePath("big-header.safetensors");
        {
            // Four (1, 2, 2) layer tensors after a million metadata entries: a legal 48 MB header.
            QByteArray json = "{\"__metadata__\":{";
            json.reserve(50'000'000);
            const QByteArray value(30, 'm');
            for (int k = 0; k < 1'000'000; ++k)
                json += (k ? ",\"" : "\"") + QByteArray::number(k) + "\":\"" + value + "\"";
            json += "}";
            for (int t = 0; t < 4; ++t)
                json += ",\"layers." + QByteArray::number(t) +
                        "\":{\"dtype\":\"F32\",\"shape\":[1,2,2],\"data_offsets\":[" + QByteArray::number(16 * t) +
                        "," + QByteArray::number(16 * t + 16) + "]}";
            json += "}";
            while (json.size() % 8) json += ' ';
            QByteArray length(8, '\0');
            for (int b = 0; b < 8; ++b) length[b] = static_cast<char>((quint64(json.size()) >> (8 * b)) & 0xff);
            QFile f(big);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(length);
            f.write(json);
            const float rows[4] = {1.0f, 0.0f, 0.5f, 0.5f};
            for (int t = 0; t < 4; ++t) f.write(reinterpret_cast<const char*>(rows), sizeof rows);
        }
        MainWindow w;
        w.setInteractive(false);
        w.show();
        AttentionMapsModel* m = w.attentionPage()->model();
        auto* cancel = w.findChild<QToolButton*>("openCancel");
        auto* bar = w.findChild<QProgressBar*>("openProgress");
        QVERIFY(cancel && bar);
        w.tabs()->setCurrentIndex(MainWindow::GridTab);
        int ticksWhileReading = 0;
        QTimer watchdog;
        watchdog.setInterval(5);
        connect(&watchdog, &QTimer::timeout, [&] {
            if (m->opening()) ++ticksWhileReading;
        });
        watchdog.start();
        QSignalSpy progress(m, &AttentionMapsModel::openProgress);
        QString asked;
        w.setDropPrompt([&](const QString& path) {
            asked = path;
            return MainWindow::DropChoice::AttentionMaps;
        });
        drop(w, big);
        // The drop returned at once: the file is being read, nobody was asked yet, and the
        // status bar shows the read with its Cancel.
        QVERIFY(m->opening());
        QVERIFY(asked.isEmpty());
        QVERIFY(bar->isVisible() && cancel->isVisible());
        QTRY_COMPARE(asked, big);
        QVERIFY2(ticksWhileReading > 0, "the event loop did not turn while the dropped file was read");
        QVERIFY(progress.count() > 0);
        double last = 0;
        for (const QList<QVariant>& report : progress) {
            const double f = report.at(0).toDouble();
            QVERIFY(f >= last && f <= 1.0);
            last = f;
            QVERIFY(!report.at(1).toString().isEmpty());
        }
        QTRY_VERIFY(!m->opening() && m->path() == big);  // the file read for the question, shown
        QCOMPARE(m->maps()->layers(), 4);
        QCOMPARE(w.tabs()->currentIndex(), int(MainWindow::AttentionTab));
        QVERIFY(!bar->isVisible());

        // Cancel in the status bar while a dropped file is read: no question, the maps stay.
        w.openAttentionMaps(kNpy);
        QTRY_VERIFY(!m->opening() && m->path() == kNpy);
        w.tabs()->setCurrentIndex(MainWindow::GridTab);
        asked.clear();
        drop(w, big);
        QVERIFY(m->opening());
        cancel->click();
        QTRY_VERIFY(!m->opening());
        QVERIFY(asked.isEmpty());
        QCOMPARE(m->path(), kNpy);
        QCOMPARE(w.tabs()->currentIndex(), int(MainWindow::GridTab));
        QVERIFY(!bar->isVisible());
    }

    void similarityOrders() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kNpy));
        AttentionMapsPage* page = w.attentionPage();
        page->views()->setCurrentIndex(AttentionMapsPage::SimilarityView);
        page->setSimilarity(SimilarityBasis::Profile, HeadOrder::Index);
        QTRY_VERIFY(!page->similarityView()->pending());
        QCOMPARE(page->similarityOrder(), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
        QVERIFY(page->similarityView()->hasPicture());
        page->setSimilarity(SimilarityBasis::Profile, HeadOrder::Slope);
        QTRY_VERIFY(!page->similarityView()->pending());
        const auto fits = explore::layerFits(page->model()->fits(), page->layerIndex());
        const auto& order = page->similarityOrder();
        for (std::size_t k = 1; k < order.size(); ++k)
            QVERIFY(fits[static_cast<std::size_t>(order[k - 1])].slope >=
                    fits[static_cast<std::size_t>(order[k])].slope);
        page->setSimilarity(SimilarityBasis::Map, HeadOrder::Similarity);
        QTRY_VERIFY(!page->similarityView()->pending());
        QCOMPARE(int(page->similarityOrder().size()), 8);
        QVERIFY(page->similarityView()->hasPicture());
    }

    // Issue 27 (D5): at presentation scale the similarity matrix labelled only every other head
    // (its rule wanted room for "000" in a cell) though each cell held a label line. With a font
    // whose line fits a cell and whose "000" does not, every head is labelled on both axes.
    void similarityLabelsEveryHeadThatFits() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kNpy));
        AttentionMapsPage* page = w.attentionPage();
        page->views()->setCurrentIndex(AttentionMapsPage::SimilarityView);
        page->setSimilarity(SimilarityBasis::Profile, HeadOrder::Similarity);
        MapsHeatmapView* view = page->similarityView();
        QTRY_VERIFY(!view->pending() && view->hasPicture());
        // The axis labels are drawn at 0.9 of the view's font.
        const auto labelMetrics = [](QFont f) {
            f.setPointSizeF(f.pointSizeF() * 0.9);
            return QFontMetrics(f);
        };
        bool chosen = false;
        QString tried;
        for (int attempt = 0; attempt < 4 && !chosen; ++attempt) {
            const double cell = view->tileRect(0).height() / 8;
            QFont f = view->font();
            for (double pt = 4; pt < 60; pt += 0.5) {
                f.setPointSizeF(pt);
                const QFontMetrics fm = labelMetrics(f);
                if (fm.height() <= cell * 0.9 && fm.horizontalAdvance(u"000"_qs) + 4 > cell) break;
            }
            view->setFont(f);
            QTest::qWait(50);
            QTRY_VERIFY(!view->pending() && view->hasPicture());
            view->repaint();
            const double now = view->tileRect(0).height() / 8;
            const QFontMetrics fm = labelMetrics(f);
            chosen = fm.height() <= now && fm.horizontalAdvance(u"0"_qs) + 2 <= now &&
                     fm.horizontalAdvance(u"000"_qs) + 4 > now;
            tried += u"cell %1 -> %2 px, %3 pt: line %4, 000 %5; "_qs.arg(cell)
                         .arg(now)
                         .arg(f.pointSizeF())
                         .arg(fm.height())
                         .arg(fm.horizontalAdvance(u"000"_qs));
        }
        QVERIFY2(chosen, qPrintable(tried));
        const auto& drawn = view->axisLabelsDrawn();
        QCOMPARE(int(drawn.size()), 8);
        for (std::size_t k = 0; k < drawn.size(); ++k)
            QVERIFY2(drawn[k].first && drawn[k].second, qPrintable(QString::number(k)));
    }

    // Figure on the Similarity tab: the matrix shown, as the core's similarity figure at 2x;
    // refused with a message while no matrix is drawn.
    void similarityFigure() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kNpy));
        AttentionMapsPage* page = w.attentionPage();
        QTemporaryDir dir;
        QSignalSpy failed(page, &AttentionMapsPage::failed);
        QVERIFY(!page->exportSimilarityFigure(dir.filePath("none.png"), 640, 480, 2));
        QCOMPARE(failed.count(), 1);
        QVERIFY(!QFileInfo::exists(dir.filePath("none.png")));
        page->views()->setCurrentIndex(AttentionMapsPage::SimilarityView);
        page->setSimilarity(SimilarityBasis::Profile, HeadOrder::Similarity);
        QTRY_VERIFY(!page->similarityView()->pending() && page->similarityView()->hasPicture());
        QTRY_COMPARE(int(page->similarityOrder().size()), 8);
        const QString out = dir.filePath("similarity@2x.png");
        QVERIFY(figureWritten(page, [&] { return page->exportSimilarityFigure(out, 640, 480, 2); }));
        const QImage image(out);
        QCOMPARE(image.size(), QSize(1280, 960));
        // Drawn, not blank: the magma matrix has dark (near 0 on the diagonal) and light cells.
        int dark = 0;
        for (int y = 0; y < image.height(); y += 4)
            for (int x = 0; x < image.width(); x += 4)
                if (qGray(image.pixel(x, y)) < 40) ++dark;
        QVERIFY(dark > 100);
    }
    // Figure on the All layers tab: every layer at once, the same bytes as `alibi render FILE
    // --what overview` at 2x.
    void overviewFigureEqualsTheCli() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kNpy));
        AttentionMapsPage* page = w.attentionPage();
        QTemporaryDir dir;
        const QString out = dir.filePath("all-layers@2x.png");
        MapsHeatmapParams p;
        p.width = 640;
        p.height = 400;
        QVERIFY(figureWritten(page, [&] { return page->exportOverviewFigure(out, p, 2); }));
        QCOMPARE(QImage(out).size(), QSize(1280, 800));
        const QByteArray cli =
            runCli({"render", kNpy, "--what", "overview", "--width", "640", "--height", "400", "--pixel-ratio", "2"},
                   dir.filePath("cli.png"));
        QVERIFY(!cli.isEmpty());
        QCOMPARE(readAll(out), cli);
    }

    // The Distance & rows tab's plots as figures: the fit's attention vs distance as SVG and one
    // query row as PNG at 2x, the same bytes as `alibi render FILE --what fit|row`; the shown
    // plots carry the figures' titles.
    void plotFiguresEqualTheCli() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kNpy));
        AttentionMapsPage* page = w.attentionPage();
        page->setLayerIndex(1);
        page->setHead(2);
        page->setRow(40);
        page->views()->setCurrentIndex(AttentionMapsPage::DistanceView);
        QTemporaryDir dir;
        using Plot = AttentionMapsPage::Plot;
        const QString svg = dir.filePath("distance.svg");
        QVERIFY(figureWritten(page, [&] { return page->exportPlotFigure(Plot::Distance, svg, 700, 450, 1); }));
        const QByteArray cliSvg = runCli(
            {"render", kNpy, "--layer", "1", "--what", "fit", "--head", "2", "--width", "700", "--height", "450"},
            dir.filePath("cli.svg"));
        QVERIFY(cliSvg.contains("layer 1 head 2: attention vs distance"));
        QCOMPARE(readAll(svg), cliSvg);

        const QString png = dir.filePath("row40@2x.png");
        QVERIFY(figureWritten(page, [&] { return page->exportPlotFigure(Plot::Row, png, 700, 450, 2); }));
        QCOMPARE(QImage(png).size(), QSize(1400, 900));
        const QByteArray cliPng = runCli({"render", kNpy, "--layer", "1", "--what", "row", "--head", "2", "--query",
                                          "40", "--width", "700", "--height", "450", "--pixel-ratio", "2"},
                                         dir.filePath("cli.png"));
        QVERIFY(!cliPng.isEmpty());
        QCOMPARE(readAll(png), cliPng);

        // A bad path: a message, no file, nothing left behind.
        QSignalSpy failed(page, &AttentionMapsPage::failed);
        bool started = false;
        QVERIFY(!figureWritten(page, [&] {
            return started = page->exportPlotFigure(Plot::Row, dir.filePath("missing/row.png"), 700, 450, 1);
        }));
        QVERIFY(started);  // refused by the file system, not by the page
        QCOMPARE(failed.count(), 1);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 4);  // the four above
    }

    // The Figure menu (and a view's right-click menu) offers what the open tab can draw.
    void figureMenuFollowsTheTab() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kNpy));
        AttentionMapsPage* page = w.attentionPage();
        const auto texts = [page] {
            QMenu menu;
            page->fillFigureMenu(&menu);
            QStringList out;
            for (QAction* a : menu.actions())
                if (!a->isSeparator()) out << (a->isEnabled() ? "" : "(off) ") + a->text();
            return out;
        };
        page->views()->setCurrentIndex(AttentionMapsPage::OverviewView);
        QCOMPARE(texts(), (QStringList{"All layers: PNG at 1x…", "All layers: PNG at 2x…", "All layers: PNG at 4x…"}));
        page->views()->setCurrentIndex(AttentionMapsPage::DistanceView);
        const QStringList plots = texts();
        for (const char* want : {"Attention vs distance: PNG at 2x…", "Attention vs distance: SVG…",
                                 "Query row: PNG at 4x…", "Query row: SVG…"})
            QVERIFY2(plots.contains(want), qPrintable(plots.join(" | ")));
        page->views()->setCurrentIndex(AttentionMapsPage::TableView);
        QCOMPARE(texts(), (QStringList{"(off) The fit table exports as CSV or JSON (the buttons above)"}));
    }
    // The row plot reads its row off the UI thread; scrubbing the row lands on the last row asked
    // for, whose values are the file's (decoded here from the .npy's bytes).
    void rowPlotFollowsTheRowScrub() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kNpy));
        AttentionMapsPage* page = w.attentionPage();
        page->setLayerIndex(2);
        page->setHead(5);
        for (int row = 10; row <= 30; ++row) page->setRow(row);  // faster than the reads
        QTRY_VERIFY_WITH_TIMEOUT(!page->picturesPending(), 30000);
        const std::vector<Series>& series = page->rowPlot()->series();
        QVERIFY(!series.empty());
        QCOMPARE(int(series[0].y.size()), 31);  // keys 0..30: a causal row ends at its query
        double sum = 0;
        for (int k = 0; k <= 30; ++k) sum += npyValue(2, 5, 30, k);
        for (int k = 0; k <= 30; ++k)
            QVERIFY2(std::abs(series[0].y[static_cast<std::size_t>(k)] - npyValue(2, 5, 30, k) / sum) < 1e-12,
                     qPrintable(QString("key %1").arg(k)));
    }
};

QTEST_MAIN(TestAttentionMaps)
#include "test_attention_maps.moc"
