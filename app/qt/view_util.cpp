// View helpers: formatting and colour conversion only; values come from the core.
#include "view_util.hpp"

#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/render/colormap.hpp>

#include <QSplitter>
#include <QVBoxLayout>

#include <cmath>

namespace alibi::qt {

QImage toQImage(const Image& image, double devicePixelRatio) {
    if (image.width <= 0 || image.height <= 0) return {};
    QImage out(reinterpret_cast<const uchar*>(image.pixels.data()), image.width, image.height, image.width * 4,
               QImage::Format_RGBA8888);
    QImage copy = out.copy();
    copy.setDevicePixelRatio(devicePixelRatio);
    return copy;
}

QString slopeText(double slope) {
    if (!(slope > 0) || !std::isfinite(slope)) return QString::number(slope, 'g', 4);
    const double e = std::log2(slope);
    const double rounded = std::round(e);
    if (std::abs(e - rounded) < 1e-12) {
        if (rounded == 0) return "1";
        if (rounded < 0) return QString("1/%1").arg(static_cast<qint64>(std::exp2(-rounded)));
        return QString::number(static_cast<qint64>(std::exp2(rounded)));
    }
    const double half = std::round(e * 2) / 2;
    if (std::abs(e - half) < 1e-12) return QString("2^%1").arg(half, 0, 'g', 4);
    return QString::number(slope, 'g', 4);
}

QString valueText(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value < 0 ? QString::fromUtf8("−∞") : QString::fromUtf8("+∞");
    if (value == 0) return "0";
    QString s = QString::number(value, 'g', 6);
    if (s.startsWith('-')) s.replace(0, 1, QString::fromUtf8("−"));
    return s;
}

QColor toQColor(const Rgba& c) { return QColor(c.r, c.g, c.b, c.a); }

QColor contrastingText(const QColor& bg) {
    const double luminance = 0.2126 * bg.redF() + 0.7152 * bg.greenF() + 0.0722 * bg.blueF();
    return luminance > 0.5 ? QColor(20, 20, 20) : QColor(245, 245, 245);
}

QColor seriesColor(int n, int count, bool categorical) {
    static const QColor kCategorical[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),
                                          QColor(214, 39, 40),  QColor(148, 103, 189), QColor(140, 86, 75),
                                          QColor(227, 119, 194), QColor(127, 127, 127)};
    if (categorical) return kCategorical[n % 8];
    const double t = count > 1 ? 0.9 * n / (count - 1) : 0.0;
    return toQColor(colormapColor(Colormap::Viridis, t));
}

QString cellDescription(const Session& session, const std::vector<double>& slopes, int head, std::int64_t query,
                        std::int64_t key, bool html) {
    const BiasParams& bias = session.attention.bias;
    if (head < 0 || head >= static_cast<int>(slopes.size())) return {};
    const double m = slopes[static_cast<std::size_t>(head)];
    const std::int64_t k = bias.keyCount();
    const std::int64_t p = bias.queryPosition(query);
    const std::int64_t d = p - key;
    const QString sep = html ? "<br>" : "   ";
    const QString minus = QString::fromUtf8("−");
    const QString times = QString::fromUtf8(" × ");
    const QString mText = QString::number(m, 'g', 6);
    // With a KV cache the distance is measured from the query's position p_i, not from i.
    QString where = QString("head %1, query i = %2, key j = %3, distance %4%5j = %6, slope m = %7")
                        .arg(head)
                        .arg(query)
                        .arg(key)
                        .arg(p != query ? "p_i" : "i")
                        .arg(minus)
                        .arg(d)
                        .arg(slopeText(m) == mText ? mText : slopeText(m) + " = " + mText);
    if (p != query) where += QString(", position p_i = i + K %1 Q = %2").arg(minus).arg(p);
    const auto exact = biasCell(bias.mode, m, p, key, k);
    const double stored = biasValue(bias, m, head, query, key);
    const QString pi = p != query ? "p_i" : "i";
    QString formula;
    if (!exact) {
        formula = QString("j > %1: masked, bias = mask = %2").arg(pi, valueText(stored));
    } else {
        switch (bias.mode) {
            case BiasMode::Causal:
                formula = QString("bias = %1m·(%2%1j) = %1%3%4%5 = %6").arg(minus, pi, mText, times).arg(d).arg(valueText(*exact));
                break;
            case BiasMode::Symmetric:
                formula = QString("bias = %1m·|%2%1j| = %1%3%4%5 = %6").arg(minus, pi, mText, times).arg(std::abs(d)).arg(valueText(*exact));
                break;
            case BiasMode::Clamped:
                formula = QString("bias = %1m·max(%2%1j, 0) = %1%3%4%5 = %6")
                              .arg(minus, pi, mText, times)
                              .arg(std::max<std::int64_t>(d, 0))
                              .arg(valueText(*exact));
                break;
            case BiasMode::Bloom:
                formula = QString("bias = +m·j = %1%2%3 = %4").arg(mText, times).arg(key).arg(valueText(*exact));
                break;
            case BiasMode::Mpt:
                formula = QString("bias = %1m·(K%1 1%1j) = %1%2%3%4 = %5").arg(minus, mText, times).arg(k - 1 - key).arg(valueText(*exact));
                break;
        }
        if (stored != *exact) formula += QString(" (stored in %1: %2)").arg(QString::fromUtf8(dtypeName(bias.dtype).data())).arg(valueText(stored));
    }
    QString text = where + sep + formula;
    if (session.what == RenderWhat::Attention) {
        if (auto row = attentionRow(session.attention, head, query); row && key < static_cast<std::int64_t>(row->size()))
            text += sep + QString("attention p = softmax((content + bias) / τ)[j] = %1").arg(valueText((*row)[static_cast<std::size_t>(key)]));
    }
    return text;
}

void layoutControlsPlotsTable(QWidget* view, QLayout* controls, QWidget* upper, QWidget* table) {
    auto* split = new QSplitter(Qt::Vertical, view);
    split->addWidget(upper);
    split->addWidget(table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(view);
    layout->setContentsMargins(8, 8, 8, 8);
    layout->addLayout(controls);
    layout->addWidget(split, 1);
}

}  // namespace alibi::qt
