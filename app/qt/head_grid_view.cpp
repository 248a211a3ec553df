// Head grid view: paints the core's image 1:1 in device pixels and draws labels over it.
#include "head_grid_view.hpp"

#include "view_util.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <cmath>

namespace alibi::qt {

namespace {
constexpr int kMargin = 12;
constexpr int kHeader = 50;  // title and a one-line explanation
constexpr int kBarWidth = 16;
constexpr int kBarArea = 96;  // colour bar plus its labels
}  // namespace

HeadGridView::HeadGridView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumSize(320, 240);
    setAttribute(Qt::WA_OpaquePaintEvent, false);
}

QRect HeadGridView::imageRect() const {
    return QRect(kMargin, kMargin + kHeader, std::max(16, width() - 2 * kMargin - kBarArea),
                 std::max(16, height() - 2 * kMargin - kHeader));
}

QSize HeadGridView::imagePixels() const {
    const double dpr = devicePixelRatioF();
    const QRect r = imageRect();
    return QSize(static_cast<int>(std::floor(r.width() * dpr)), static_cast<int>(std::floor(r.height() * dpr)));
}

void HeadGridView::setGrid(GridPtr grid) {
    m_grid = std::move(grid);
    m_image = m_grid ? toQImage(m_grid->grid.image, m_grid->devicePixelRatio) : QImage();
    if (m_grid) {
        const double dpr = devicePixelRatioF();
        const int h = static_cast<int>(std::max(16.0, (imageRect().height() - 40) * dpr));
        m_colorBar = toQImage(renderColorBar(m_grid->session.colormap, static_cast<int>(kBarWidth * dpr), h, true), dpr);
    }
    update();
}

void HeadGridView::setHighlightedHead(int head) {
    if (head == m_highlight) return;
    m_highlight = head;
    update();
}

void HeadGridView::setSelectedHead(int head) {
    if (head == m_selected) return;
    m_selected = head;
    update();
}

void HeadGridView::resizeEvent(QResizeEvent*) { emit pixelSizeChanged(imagePixels(), devicePixelRatioF()); }

void HeadGridView::changeEvent(QEvent* event) { QWidget::changeEvent(event); }

std::optional<CellHit> HeadGridView::hitAt(QPointF pos) const {
    if (!m_grid || m_image.isNull()) return std::nullopt;
    const QRect r = imageRect();
    const double dpr = m_grid->devicePixelRatio;
    const int x = static_cast<int>(std::floor((pos.x() - r.x()) * dpr));
    const int y = static_cast<int>(std::floor((pos.y() - r.y()) * dpr));
    if (x < 0 || y < 0 || x >= m_grid->grid.image.width || y >= m_grid->grid.image.height) return std::nullopt;
    return hitTest(m_grid->grid, m_grid->gridParams, x, y);
}

void HeadGridView::mouseMoveEvent(QMouseEvent* event) {
    const auto hit = hitAt(event->position());
    if (!hit) {
        QToolTip::hideText();
        emit cellHovered({});
        emit headHovered(-1);
        return;
    }
    emit headHovered(hit->head);
    emit cellHovered(cellDescription(m_grid->session, m_grid->slopes, hit->head, hit->query, hit->key, false));
    QToolTip::showText(event->globalPosition().toPoint(),
                       cellDescription(m_grid->session, m_grid->slopes, hit->head, hit->query, hit->key, true), this);
}

void HeadGridView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    if (const auto hit = hitAt(event->position())) emit headClicked(hit->head);
}

void HeadGridView::leaveEvent(QEvent*) {
    emit cellHovered({});
    emit headHovered(-1);
}

void HeadGridView::paintColorBar(QPainter& p, const QRect& bar) {
    if (!m_grid) return;
    const QRect barRect(bar.x(), bar.y() + 20, kBarWidth, bar.height() - 40);
    p.drawImage(barRect, m_colorBar);
    p.setBrush(Qt::NoBrush);
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(barRect.adjusted(0, 0, -1, -1));
    p.setPen(palette().color(QPalette::WindowText));
    const double lo = m_grid->grid.lo, hi = m_grid->grid.hi;
    const QFontMetrics fm(font());
    auto label = [&](double v, int y) {
        p.drawText(QRect(barRect.right() + 6, y - fm.height() / 2, kBarArea - kBarWidth - 8, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, valueText(v));
    };
    label(hi, barRect.top());
    label(0.5 * (lo + hi), barRect.center().y());
    label(lo, barRect.bottom());
    QFont small = font();
    small.setPointSizeF(font().pointSizeF() * 0.85);
    p.setFont(small);
    const bool attention = m_grid->gridParams.what == RenderWhat::Attention;
    p.drawText(QRect(bar.x() - 4, bar.y(), kBarArea, 18), Qt::AlignLeft | Qt::AlignVCenter,
               attention ? "probability" : "bias");
    if (m_grid->session.scale == ScaleMode::PerHead)
        p.drawText(QRect(bar.x() - 4, barRect.bottom() + 4, kBarArea, 16), Qt::AlignLeft, "per-head scale");
    if (modeMasks(m_grid->session.attention.bias.mode)) {
        const QRect swatch(bar.x(), barRect.bottom() + 20, 12, 12);
        p.fillRect(swatch, toQColor(kMaskedColor));
        p.drawText(QRect(swatch.right() + 5, swatch.y() - 2, kBarArea, 16), Qt::AlignLeft | Qt::AlignVCenter, "masked");
    }
    p.setFont(font());
}

void HeadGridView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!m_grid) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, "Computing…");
        return;
    }
    // Moved to a screen with another scale: ask for an image at the new device-pixel size.
    if (m_grid->devicePixelRatio != devicePixelRatioF())
        QMetaObject::invokeMethod(this, [this] { emit pixelSizeChanged(imagePixels(), devicePixelRatioF()); }, Qt::QueuedConnection);
    const Session& s = m_grid->session;
    const auto& bias = s.attention.bias;
    const QRect r = imageRect();

    // Header: what is shown, in words.
    QFont title = font();
    title.setBold(true);
    title.setPointSizeF(font().pointSizeF() * 1.1);
    p.setFont(title);
    p.setPen(palette().color(QPalette::WindowText));
    const QString what = m_grid->gridParams.what == RenderWhat::Attention ? "Attention probabilities" : "ALiBi bias";
    const QString header = QString("%1 · %2 heads · %3 queries × %4 keys · %5 mode · %6 slopes (B = %7) · %8")
                               .arg(what)
                               .arg(bias.slopes.heads)
                               .arg(bias.queries)
                               .arg(bias.keyCount())
                               .arg(QString::fromUtf8(modeName(bias.mode).data()))
                               .arg(QString::fromUtf8(schemeName(bias.slopes.scheme).data()))
                               .arg(bias.slopes.maxBias)
                               .arg(QString::fromUtf8(dtypeName(bias.dtype).data()));
    p.drawText(QRect(kMargin, kMargin, width() - 2 * kMargin, 22), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(title).elidedText(header, Qt::ElideRight, width() - 2 * kMargin));
    p.setFont(font());

    // One line that says what the picture means, in the mode's own formula.
    QString formula;
    switch (bias.mode) {
        case BiasMode::Causal: formula = "bias(i, j) = −m·(i − j) for keys j ≤ i, future keys masked"; break;
        case BiasMode::Symmetric: formula = "bias(i, j) = −m·|i − j| in both directions (encoders)"; break;
        case BiasMode::Clamped: formula = "bias(i, j) = −m·max(i − j, 0): future keys get 0, not a mask"; break;
        case BiasMode::Bloom: formula = "bias(i, j) = +m·j for j ≤ i (a row constant away from causal: same softmax)"; break;
        case BiasMode::Mpt: formula = "bias(i, j) = −m·(K − 1 − j) for j ≤ i (same softmax as causal)"; break;
    }
    if (m_grid->gridParams.what == RenderWhat::Attention)
        formula = "p(i, j) = softmax over keys j of (content + bias) / temperature, with " + formula;
    const QString explain = formula + "  ·  one slope m per head: steep = local, flat = global  ·  rows: query i, "
                                      "columns: key j";
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(QRect(kMargin, kMargin + 22, width() - 2 * kMargin, 20), Qt::AlignLeft | Qt::AlignVCenter,
               fontMetrics().elidedText(explain, Qt::ElideRight, width() - 2 * kMargin));
    p.setPen(palette().color(QPalette::WindowText));

    // The image at 1:1 device pixels (scaled only while a resize is in flight).
    const QSizeF logical = m_image.deviceIndependentSize();
    p.drawImage(QRectF(r.topLeft(), logical.boundedTo(QSizeF(r.size()))), m_image,
                QRectF(0, 0, std::min<double>(m_image.width(), r.width() * m_grid->devicePixelRatio),
                       std::min<double>(m_image.height(), r.height() * m_grid->devicePixelRatio)));

    // Head labels over the tiles.
    const double dpr = m_grid->devicePixelRatio;
    p.setRenderHint(QPainter::Antialiasing, true);
    QFont labelFont = font();
    labelFont.setPointSizeF(font().pointSizeF() * 0.9);
    const QFontMetrics fm(labelFont);
    p.setFont(labelFont);
    for (const HeatmapTile& t : m_grid->grid.tiles) {
        const QRectF tr(r.x() + t.x / dpr, r.y() + t.y / dpr, t.width / dpr, t.height / dpr);
        if (t.head == m_selected || t.head == m_highlight) {
            QPen pen(t.head == m_highlight ? palette().color(QPalette::Highlight) : palette().color(QPalette::WindowText),
                     t.head == m_highlight ? 3 : 1.5, t.head == m_highlight ? Qt::SolidLine : Qt::DashLine);
            p.setPen(pen);
            p.setBrush(Qt::NoBrush);
            p.drawRect(tr.adjusted(-1.5, -1.5, 1.5, 1.5));
        }
        if (tr.width() < 24 || tr.height() < 16) continue;
        const double m = t.head < static_cast<int>(m_grid->slopes.size()) ? m_grid->slopes[static_cast<std::size_t>(t.head)] : 0;
        QString label = QString("h%1  m = %2").arg(t.head).arg(slopeText(m));
        if (fm.horizontalAdvance(label) + 10 > tr.width()) label = QString("h%1").arg(t.head);
        if (fm.horizontalAdvance(label) + 10 > tr.width()) label = QString::number(t.head);
        const QRectF box(tr.x() + 4, tr.y() + 4, fm.horizontalAdvance(label) + 10, fm.height() + 4);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0, 0, 0, 150));
        p.drawRoundedRect(box, 4, 4);
        p.setPen(QColor(255, 255, 255));
        p.drawText(box, Qt::AlignCenter, label);
    }
    p.setFont(font());
    p.setRenderHint(QPainter::Antialiasing, false);
    paintColorBar(p, QRect(r.right() + 16, r.y(), kBarArea - 16, r.height()));
}

}  // namespace alibi::qt
