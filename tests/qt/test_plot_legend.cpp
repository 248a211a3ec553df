// The Qt plot's legend follows the core's plan (render/legend_layout.hpp), as the ImGui plots
// and the figures do: 32 heads' whole names in a roomy plot, brief names ("h13") in a smaller
// one, and in a very small one the emphasised head, the first and the last with "k of 32 listed".
// Every listed text is drawn whole (never elided or cut).
#include "plot_widget.hpp"
#include "view_util.hpp"

#include <QApplication>
#include <QTest>

#include <algorithm>
#include <string>

using namespace alibi;
using namespace alibi::qt;

class PlotLegendTest : public QObject {
    Q_OBJECT
private slots:
    void listsWholeThenBriefThenSomeWithANote() {
        PlotWidget plot;
        std::vector<Series> series;
        for (int h = 0; h < 32; ++h)
            series.push_back({"head " + std::to_string(h) + " (m = 1/4096)", {0.0, 1.0}, {0.0, -1.0 * h}});
        plot.setSeries(series);
        plot.setEmphasis({13});
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        QStringList shortened;
        const auto drawn = [&](int width, int height) {
            plot.resize(width, height);
            plot.repaint();
            QStringList texts;
            for (const PaintedText& t : paintedTexts(&plot)) {
                if (t.elided || t.cut) shortened << t.text;
                texts << t.text;
            }
            return texts;
        };
        QStringList texts = drawn(2400, 1400);
        QVERIFY2(texts.contains(u"head 31 (m = 1/4096)"_qs), qPrintable(texts.join(u" | "_qs)));
        texts = drawn(700, 300);
        QVERIFY2(texts.contains(u"h0"_qs) && texts.contains(u"h31"_qs), qPrintable(texts.join(u" | "_qs)));
        QVERIFY(!texts.contains(u"head 0 (m = 1/4096)"_qs));
        texts = drawn(420, 160);
        QVERIFY2(texts.contains(u"h0"_qs) && texts.contains(u"h13"_qs) && texts.contains(u"h31"_qs),
                 qPrintable(texts.join(u" | "_qs)));
        QVERIFY2(
            std::any_of(texts.begin(), texts.end(), [](const QString& t) { return t.endsWith(u" of 32 listed"_qs); }),
            qPrintable(texts.join(u" | "_qs)));
        QVERIFY2(shortened.isEmpty(), qPrintable(shortened.join(u" | "_qs)));
    }
};

QTEST_MAIN(PlotLegendTest)
#include "test_plot_legend.moc"
