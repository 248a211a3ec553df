// The Qt explorer's "Position schemes" tab (view id `position-schemes`): the core's curves for the
// session's slopes with the six labels, a hover over the plot fills the read-out with each
// curve's value at the hovered distance (checked against the formulas computed here), the D
// control and the logit/attention toggle, sessions opening on the view, and screenshots of the
// tab at 1280x720 and 1920x1080, logit and attention, in the build folder
// (screenshots/position-schemes-*.png).
#include "main_window.hpp"
#include "plot_widget.hpp"
#include "position_schemes_view.hpp"
#include "settled.hpp"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <optional>
#include <set>

using namespace alibi;
using namespace alibi::qt;
using namespace Qt::Literals::StringLiterals;

namespace {

using alibi::qt::test::settled;

int rowOf(const QTableWidget* table, const QString& name) {
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->item(r, 0) && table->item(r, 0)->text() == name) return r;
    return -1;
}

double valueIn(const QTableWidget* table, const QString& name) {
    const int row = rowOf(table, name);
    return row >= 0 && table->item(row, 1) ? table->item(row, 1)->text().toDouble() : std::nan("");
}

}  // namespace

class TestPositionSchemes : public QObject {
    Q_OBJECT
private slots:
    void showsTheSixSchemesForTheSessionSlopes() {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1280, 720);
        w.show();
        QVERIFY(settled(w));
        QVERIFY(w.model()->setHeads(12));
        QVERIFY(settled(w));
        w.tabs()->setCurrentIndex(MainWindow::PositionSchemesTab);
        // Its name, or where the tabs are short of room its short name with the name as tooltip.
        const QString tabText = w.tabs()->tabText(MainWindow::PositionSchemesTab);
        QVERIFY2(tabText == u"Position schemes"_s ||
                     (tabText == u"Schemes"_s &&
                      w.tabs()->tabBar()->tabToolTip(MainWindow::PositionSchemesTab) == u"Position schemes"_s),
                 qPrintable(tabText));
        PositionSchemesView* v = w.positionSchemesView();
        std::set<std::string> labels;
        int alibi = 0;
        for (const PositionCurve& c : v->schemes().curves) {
            labels.insert(c.label);
            alibi += c.scheme == PositionScheme::ALiBi;
        }
        QCOMPARE(labels, (std::set<std::string>{"ALiBi", "RoPE", "sinusoidal", "T5", "KERPLE", "Sandwich"}));
        QCOMPARE(alibi, 12);
        QCOMPARE(int(v->plot()->series().size()), int(v->schemes().curves.size()));
        QCOMPARE(v->readout()->rowCount(), int(v->schemes().curves.size()));
        // The formulas and sources are listed under the plot.
        for (const char* words :
             {"ALiBi, 12 heads", "RoFormer", "Vaswani", "illustrative, not learned", "KERPLE", "Sandwich", "ACL 2023"})
            QVERIFY2(v->formulas()->text().contains(words), words);
    }

    void hoverReadsOutEveryCurveAtTheDistance() {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1280, 720);
        w.show();
        QVERIFY(settled(w));
        w.tabs()->setCurrentIndex(MainWindow::PositionSchemesTab);
        PositionSchemesView* v = w.positionSchemesView();
        PlotWidget* plot = v->plot();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // Move across the plot until the read-out names a distance, as a person's mouse would.
        std::optional<double> d;
        for (int x = plot->width() / 2; x < plot->width() && !d; x += 3) {
            QTest::mouseMove(plot, QPoint(x, plot->height() / 2));
            if (auto at = plot->dataXAt(QPointF(x, plot->height() / 2.0))) d = std::round(*at);
        }
        QVERIFY(d.has_value());
        QVERIFY(v->readout()->horizontalHeaderItem(1)->text().contains(QString("d = %1").arg(*d)));
        // Default session: H = 8, press slopes 1/2 .. 1/256.
        // The read-out shows 6 significant digits (alibi::formatValue).
        QVERIFY(std::abs(valueIn(v->readout(), "ALiBi h0 (m = 1/2)") - -0.5 * *d) < 1e-5 * std::max(1.0, *d));
        QVERIFY(std::abs(valueIn(v->readout(), "ALiBi h7 (m = 1/256)") - -(*d) / 256) < 1e-6);
        QVERIFY(std::abs(valueIn(v->readout(), "KERPLE log") - -2 * std::log1p(*d)) < 1e-5);  // r1 = 2, r2 = 1
        QVERIFY(std::abs(valueIn(v->readout(), "KERPLE power") - -std::sqrt(*d)) < 1e-5);
        double pp = 0, rope = 0, sandwich = 0;  // sinusoidal p_i.p_j and RoPE's expectation, d_model = d_k = 128
        for (int k = 0; k < 64; ++k) {
            pp += std::cos(*d / std::pow(10000.0, 2.0 * k / 128));
            rope += 2 * std::cos(*d * std::pow(10000.0, -2.0 * k / 128)) / std::sqrt(128.0);
            sandwich += std::cos(*d / std::pow(10000.0, 2.0 * (k + 1) / 128));  // Sandwich (NeMo): k = 1..64
        }
        QVERIFY(std::abs(valueIn(v->readout(), "sinusoidal p_i·p_j/sqrt(d)") - pp / std::sqrt(128.0)) < 1e-3);
        QVERIFY(std::abs(valueIn(v->readout(), "RoPE E[q·R(d)q]/sqrt(d_k)") - rope) < 1e-3);
        // Sandwich's first head: (p_i.p_j - 64) / (8h/H) with h = 1 of H = 8.
        QVERIFY(std::abs(valueIn(v->readout(), "Sandwich h0 (scale 1)") - (sandwich - 64)) < 1e-3);
    }

    void maxDistanceAndAttentionToggle() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        w.tabs()->setCurrentIndex(MainWindow::PositionSchemesTab);
        PositionSchemesView* v = w.positionSchemesView();
        auto* spin = v->findChild<QSpinBox*>("schemesMaxDistance");
        auto* quantity = v->findChild<QComboBox*>("schemesQuantity");
        QVERIFY(spin && quantity);
        spin->setValue(1000);
        QCOMPARE(v->schemes().maxDistance, std::int64_t{1000});
        QCOMPARE(v->plot()->series().front().x.back(), 1000.0);
        quantity->setCurrentIndex(quantity->findData(static_cast<int>(SchemeQuantity::Attention)));
        QCOMPARE(v->schemes().quantity, SchemeQuantity::Attention);
        for (const PositionCurve& c : v->schemes().curves) {
            QVERIFY(c.scheme != PositionScheme::RoPE && c.scheme != PositionScheme::Sinusoidal);
            double sum = 0;
            for (double y : c.y) sum += y;
            QVERIFY(std::abs(sum - 1) < 1e-12);
        }
        QVERIFY(v->plot()->title().contains("attention"));
    }

    void sessionsOpenOnTheView() {
        QTemporaryDir dir;
        const QString path = dir.filePath("schemes.alibi.json");
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"version": 1, "bias": {"heads": 4}, "view": {"open": "position-schemes"}})");
        }
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(w.openSession(path));
        QCOMPARE(w.tabs()->currentIndex(), int(MainWindow::PositionSchemesTab));
        QVERIFY(settled(w));
        int alibi = 0;
        for (const PositionCurve& c : w.positionSchemesView()->schemes().curves)
            alibi += c.scheme == PositionScheme::ALiBi;
        QCOMPARE(alibi, 4);
    }

    // Look at these: build/tests/qt/screenshots/position-schemes-1280x720.png and -1920x1080.png.
    void screenshots() {
        QDir().mkpath(ALIBI_QT_SCREENSHOT_DIR);
        for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
            MainWindow w;
            w.setInteractive(false);
            w.resize(size);
            w.show();
            QVERIFY(settled(w));
            w.tabs()->setCurrentIndex(MainWindow::PositionSchemesTab);
            PlotWidget* plot = w.positionSchemesView()->plot();
            QTest::mouseMove(plot, QPoint(plot->width() * 2 / 5, plot->height() / 2));
            QApplication::processEvents();
            const QString file =
                QDir(ALIBI_QT_SCREENSHOT_DIR)
                    .filePath(QString("position-schemes-%1x%2.png").arg(size.width()).arg(size.height()));
            QVERIFY(w.grab().save(file, "PNG"));
            // The attention toggle: zero-content attention on a log2 axis.
            auto* quantity = w.positionSchemesView()->findChild<QComboBox*>("schemesQuantity");
            quantity->setCurrentIndex(quantity->findData(static_cast<int>(SchemeQuantity::Attention)));
            QApplication::processEvents();
            QVERIFY(w.grab().save(
                QDir(ALIBI_QT_SCREENSHOT_DIR)
                    .filePath(QString("position-schemes-attention-%1x%2.png").arg(size.width()).arg(size.height())),
                "PNG"));
        }
    }
};

QTEST_MAIN(TestPositionSchemes)
#include "test_position_schemes.moc"
