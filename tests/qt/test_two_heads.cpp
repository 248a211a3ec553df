// Issue 29 in the Qt explorer. Item 5: the Attention maps tab's "Two heads" view over the
// example file: pick head A and head B (or A's prior), the picture is the core's figure at the
// view's size, hovering a cell of any panel reads its query and key and A, B and B - A there
// (checked against the file's own values renormalised here), each side's fit is the fit table's,
// and the exported figure equals `alibi render FILE --what heads`. Item 4: a 69-token file's head
// view labels its axes with every k-th token in a 1400 x 900 window (it showed none before).
#include "attention_maps_page.hpp"
#include "main_window.hpp"
#include "maps_heatmap_view.hpp"
#include "two_heads_view.hpp"

#include "attention_maps_fixture.hpp"

#include <alibi/explore/head_compare.hpp>
#include <alibi/render/ticks.hpp>

#include <QFile>
#include <QImage>
#include <QMenu>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <set>

using namespace alibi;
using namespace alibi::qt;

namespace {

const QString kSafetensors = QString(ALIBI_ASSETS_DIR) + "/attention/trained-like-4x8x64.safetensors";

void showWindow(MainWindow& w) {
    w.setInteractive(false);
    w.resize(1400, 900);
    w.show();
}

bool openAndFit(MainWindow& w, const QString& path) {
    w.openAttentionMaps(path);
    AttentionMapsModel* m = w.attentionPage()->model();
    return QTest::qWaitFor(
        [&] { return !m->opening() && m->maps() && m->path() == path && !m->fitting() && !m->fits().empty(); }, 30000);
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The device pixel at the centre of cell (q, k) of panel `p` of the shown figure.
QPoint cellPixel(const TwoHeadsView* view, int p, std::int64_t q, std::int64_t k, std::int64_t queries,
                 std::int64_t keys) {
    const HeadComparePanel& panel = view->figure().panels[static_cast<std::size_t>(p)];
    return QPoint(
        panel.x + static_cast<int>((static_cast<double>(k) + 0.5) * panel.width / static_cast<double>(keys)),
        panel.y + static_cast<int>((static_cast<double>(q) + 0.5) * panel.height / static_cast<double>(queries)));
}

}  // namespace

class TestTwoHeads : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QCoreApplication::setApplicationName("alibi-explorer-test-two-heads"); }

    void pickTwoHeadsAndReadTheHoveredCell() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kSafetensors));
        AttentionMapsPage* page = w.attentionPage();
        page->views()->setCurrentIndex(AttentionMapsPage::TwoHeadsTab);
        TwoHeadsView* view = page->twoHeadsView();
        QCOMPARE(page->views()->currentWidget(), static_cast<QWidget*>(view));
        view->setA(1, 2);
        view->setB(explore::CompareSource::Head, 3, 5);
        QTRY_VERIFY_WITH_TIMEOUT(!view->pending() && view->canvas()->hasPicture() && view->result() &&
                                     view->result()->a.head == (explore::HeadRef{1, 2}) &&
                                     view->result()->b.head == (explore::HeadRef{3, 5}),
                                 30000);
        const auto& r = *view->result();
        const MapsPtr maps = page->model()->maps();
        // Each side's fit is the fit table's row for its head.
        QCOMPARE(r.a.fit.slope, page->model()->fitOf(1, 2)->slope);
        QCOMPARE(r.b.fit.kl, page->model()->fitOf(3, 5)->kl);
        // Hover the B - A panel at (40, 10): the mouse goes through the canvas, the read-out is
        // the core's, and A and B are the file's rows renormalised (read here from the maps).
        const QPoint pixel = cellPixel(view, 2, 40, 10, maps->queries(), maps->keys());
        QTest::mouseMove(view->canvas(), view->canvas()->widgetPosOf(pixel));
        QTRY_VERIFY(!view->hoverText().isEmpty());
        const QString text = view->hoverText();
        QVERIFY2(text.contains("query i = 40 · key j = 10 · distance 30"), qPrintable(text));
        QCOMPARE(page->hoverText(), text);
        std::vector<double> rowA(static_cast<std::size_t>(maps->keys())), rowB(rowA.size());
        QVERIFY(maps->storedRow(1, 2, 40, rowA));
        QVERIFY(maps->storedRow(3, 5, 40, rowB));
        double sumA = 0, sumB = 0;
        for (std::size_t j = 0; j < rowA.size(); ++j) sumA += rowA[j], sumB += rowB[j];
        const double a = rowA[10] / sumA, b = rowB[10] / sumB;
        const auto number = [&](const QString& key) {
            const qsizetype at = text.indexOf(key);
            return at < 0 ? std::nan("") : text.mid(at + key.size()).section(' ', 0, 0).toDouble();
        };
        QVERIFY2(std::abs(number("A (L1 h2) = ") - a) < 1e-5 * std::max(1.0, a), qPrintable(text));
        QVERIFY2(std::abs(number("B (L3 h5) = ") - b) < 1e-5 * std::max(1.0, b), qPrintable(text));
        QVERIFY2(std::abs(number("B - A = ") - (b - a)) < 1e-5, qPrintable(text));
        // A masked cell (key after the query) says so, in any panel.
        QVERIFY(view->hoverAt(cellPixel(view, 0, 5, 40, maps->queries(), maps->keys())).contains("masked"));

        // B = A's fitted prior: the pickers change the picture and the read-out.
        view->setB(explore::CompareSource::FittedPrior);
        QTRY_VERIFY_WITH_TIMEOUT(!view->pending() && view->result()->b.priorSlope.has_value(), 30000);
        QCOMPARE(*view->result()->b.priorSlope, page->model()->fitOf(1, 2)->slope);
        QVERIFY(view->hoverAt(pixel).contains("B (prior m* = "));
    }

    // The Figure menu's export of the tab: the same bytes as the CLI for the same heads and size.
    void figureEqualsTheCli() {
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, kSafetensors));
        AttentionMapsPage* page = w.attentionPage();
        page->views()->setCurrentIndex(AttentionMapsPage::TwoHeadsTab);
        page->twoHeadsView()->setA(0, 1);
        page->twoHeadsView()->setB(explore::CompareSource::Head, 2, 6);
        // The Figure menu (and the right click) offers the tab's figure.
        QMenu menu;
        page->fillFigureMenu(&menu);
        QStringList offered;
        for (QAction* a : menu.actions()) offered << a->text();
        QVERIFY2(offered.contains("Two heads: PNG at 2x…"), qPrintable(offered.join(" | ")));
        QTemporaryDir dir;
        const QString out = dir.filePath("heads.png");
        QSignalSpy saved(page, &AttentionMapsPage::figureSaved);
        QVERIFY(page->exportTwoHeadsFigure(out, 900, 420, 2));
        QVERIFY(QTest::qWaitFor([&] { return saved.count() > 0; }, 30000));
        QVERIFY(saved.at(0).at(0).toBool());
        QCOMPARE(QImage(out).size(), QSize(1800, 840));
        QProcess cli;
        cli.start(ALIBI_CLI, {"render", kSafetensors, "--what", "heads", "--head", "0:1", "--vs", "2:6", "--width",
                              "900", "--height", "420", "--pixel-ratio", "2", "-o", dir.filePath("cli.png")});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);
        QCOMPARE(readAll(out), readAll(dir.filePath("cli.png")));
    }

    // Item 4: 69 tokens in the head view of a 1400 x 900 window, cells under a text line apart:
    // the axes carry every k-th token (k from the core's rule), where they carried none before.
    void headViewLabelsEveryKthToken() {
        QTemporaryDir dir;
        const std::int64_t t = 69;
        std::string list = "[";
        for (std::int64_t j = 0; j < t; ++j) list += (j ? "," : "") + std::string("\" tok") + std::to_string(j) + "\"";
        list += "]";
        const std::string bytes = alibi::test::safetensorsBytes(
            {"model.layers.0.attn"}, {2, t, t}, {alibi::test::causalMaps({0.5, 0.125}, t, 0.3, 7)}, {{"tokens", list}});
        const QString path = dir.filePath("tokens69.safetensors");
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(bytes.data(), static_cast<qint64>(bytes.size()));
        }
        MainWindow w;
        showWindow(w);
        QVERIFY(openAndFit(w, path));
        AttentionMapsPage* page = w.attentionPage();
        page->views()->setCurrentIndex(AttentionMapsPage::HeadView);
        MapsHeatmapView* head = page->headView();
        QTRY_VERIFY_WITH_TIMEOUT(head->hasPicture() && !head->pending(), 30000);
        QCOMPARE(head->keyTokens().size(), std::size_t(69));
        // The cells are under a text line apart (so all-or-none showed none), and the core's
        // step is 2 or more.
        const QRectF cell = head->cellRect(0, 0, 0);
        const int line = head->fontMetrics().height();
        QVERIFY2(cell.height() < line, qPrintable(QString("cell %1 px, line %2 px").arg(cell.height()).arg(line)));
        const std::int64_t step = tokenLabelStep(cell.height(), line);
        QVERIFY(step >= 2 && step <= kMaxTokenStep);
        // The labels are drawn: left of the picture, the strip holds text beside the labelled
        // rows (rows 0, step, 2 step, ...).
        const QImage shot = head->grab().toImage();
        const auto inked = [&](std::int64_t row) {
            const QRectF r = head->cellRect(0, row, 0);
            int count = 0;
            const QColor background = shot.pixelColor(2, static_cast<int>(r.center().y()));
            for (int x = static_cast<int>(r.left()) - 40; x < static_cast<int>(r.left()) - 4; ++x)
                for (int y = static_cast<int>(r.top()); y <= static_cast<int>(r.bottom()); ++y)
                    if (x >= 0 && shot.pixelColor(x, y) != background) ++count;
            return count;
        };
        QVERIFY(inked(0) > 0);
        QVERIFY(inked(step) > 0);
        QVERIFY(inked(2 * step) > 0);
    }
};

QTEST_MAIN(TestTwoHeads)
#include "test_two_heads.moc"
