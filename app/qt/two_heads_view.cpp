// The "Two heads" tab (see the header): pickers, the core's figure and its read-out.
#include "two_heads_view.hpp"
#include "view_util.hpp"

#include <QApplication>
#include <QComboBox>
#include <QCursor>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPointer>
#include <QSpinBox>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

// ---------------------------------------------------------------------------
// The canvas

HeadCompareCanvas::HeadCompareCanvas(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumSize(320, 200);
}

void HeadCompareCanvas::setPicture(QImage image, double ratio) {
    m_image = std::move(image);
    m_ratio = ratio;
    m_message.clear();
    update();
}

void HeadCompareCanvas::setMessage(const QString& message) {
    m_message = message;
    if (!message.isEmpty()) m_image = QImage();
    update();
}

std::optional<QPoint> HeadCompareCanvas::devicePixelAt(QPointF pos) const {
    if (m_image.isNull()) return std::nullopt;
    const QPoint p(static_cast<int>(std::floor(pos.x() * m_ratio)), static_cast<int>(std::floor(pos.y() * m_ratio)));
    if (p.x() < 0 || p.y() < 0 || p.x() >= m_image.width() || p.y() >= m_image.height()) return std::nullopt;
    return p;
}

QPoint HeadCompareCanvas::widgetPosOf(QPoint p) const {
    return QPoint(static_cast<int>((p.x() + 0.5) / m_ratio), static_cast<int>((p.y() + 0.5) / m_ratio));
}

void HeadCompareCanvas::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    if (!m_image.isNull()) {
        painter.drawImage(QRectF(0, 0, m_image.width() / m_ratio, m_image.height() / m_ratio), m_image);
        return;
    }
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, m_message);
}

void HeadCompareCanvas::resizeEvent(QResizeEvent*) {
    emit resized();
}

void HeadCompareCanvas::mouseMoveEvent(QMouseEvent* event) {
    emit hovered(devicePixelAt(event->position()).value_or(QPoint(-1, -1)));
}

void HeadCompareCanvas::leaveEvent(QEvent*) {
    emit hovered(QPoint(-1, -1));
}

// ---------------------------------------------------------------------------
// The view

TwoHeadsView::TwoHeadsView(AttentionMapsModel* model, QWidget* parent) : QWidget(parent), m_model(model) {
    const auto spin = [this](const QString& tip) {
        auto* s = new QSpinBox(this);
        s->setToolTip(tip);
        s->setRange(0, 0);
        return s;
    };
    m_aLayer = spin(u"Head A's layer (its index in the file, as the Layer control above)"_s);
    m_aHead = spin(u"Head A"_s);
    m_bKind = new QComboBox(this);
    m_bKind->addItem(u"another head"_s, static_cast<int>(explore::CompareSource::Head));
    m_bKind->addItem(u"A's prior at the configured slope"_s, static_cast<int>(explore::CompareSource::ConfiguredPrior));
    m_bKind->addItem(u"A's prior at its fitted m*"_s, static_cast<int>(explore::CompareSource::FittedPrior));
    m_bKind->setToolTip(
        u"What B is: any head of the file, or A's ALiBi prior softmax(-m d) at the paired slope or at A's fitted m*"_s);
    m_bLayer = spin(u"Head B's layer (its index in the file)"_s);
    m_bHead = spin(u"Head B"_s);
    m_bLayerLabel = new QLabel(u"layer"_s, this);
    m_bHeadLabel = new QLabel(u"head"_s, this);
    m_readout = new QLabel(this);
    m_readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_readout->setMinimumHeight(3 * fontMetrics().height());
    m_readout->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_canvas = new HeadCompareCanvas(this);
    m_canvas->setMessage(u"Open attention maps to compare two heads"_s);

    auto* pickers = new QHBoxLayout;
    pickers->addWidget(new QLabel(u"<b>A</b>: layer"_s, this));
    pickers->addWidget(m_aLayer);
    pickers->addWidget(new QLabel(u"head"_s, this));
    pickers->addWidget(m_aHead);
    pickers->addSpacing(16);
    pickers->addWidget(new QLabel(u"<b>B</b>:"_s, this));
    pickers->addWidget(m_bKind);
    pickers->addWidget(m_bLayerLabel);
    pickers->addWidget(m_bLayer);
    pickers->addWidget(m_bHeadLabel);
    pickers->addWidget(m_bHead);
    pickers->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(pickers);
    layout->addWidget(m_canvas, 1);
    layout->addWidget(m_readout);

    for (QSpinBox* s : {m_aLayer, m_aHead, m_bLayer, m_bHead})
        connect(s, &QSpinBox::valueChanged, this, [this] { refresh(); });
    connect(m_bKind, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    connect(m_canvas, &HeadCompareCanvas::resized, this, [this] { refresh(); });
    connect(m_canvas, &HeadCompareCanvas::hovered, this, &TwoHeadsView::onHovered);
}

TwoHeadsView::~TwoHeadsView() {
    m_runner.cancel();
}

void TwoHeadsView::setA(int layerIndex, int head) {
    const QSignalBlocker a(m_aLayer), b(m_aHead);
    m_aLayer->setValue(layerIndex);
    m_aHead->setValue(head);
    refresh();
}

void TwoHeadsView::setB(explore::CompareSource source, int layerIndex, int head) {
    const QSignalBlocker k(m_bKind), a(m_bLayer), b(m_bHead);
    m_bKind->setCurrentIndex(m_bKind->findData(static_cast<int>(source)));
    m_bLayer->setValue(layerIndex);
    m_bHead->setValue(head);
    refresh();
}

void TwoHeadsView::updatePickers() {
    const MapsPtr maps = m_model->maps();
    const int layers = maps ? maps->layers() : 1, heads = maps ? maps->heads() : 1;
    for (QSpinBox* s : {m_aLayer, m_bLayer}) {
        const QSignalBlocker block(s);
        s->setRange(0, std::max(layers - 1, 0));
    }
    for (QSpinBox* s : {m_aHead, m_bHead}) {
        const QSignalBlocker block(s);
        s->setRange(0, std::max(heads - 1, 0));
    }
    const bool head = m_bKind->currentData().toInt() == static_cast<int>(explore::CompareSource::Head);
    for (QWidget* w : std::initializer_list<QWidget*>{m_bLayer, m_bHead, m_bLayerLabel, m_bHeadLabel})
        w->setVisible(head);
}

std::optional<explore::HeadCompareRequest> TwoHeadsView::request() const {
    const MapsPtr maps = m_model->maps();
    if (!maps) return std::nullopt;
    explore::HeadCompareRequest r;
    r.a = {m_aLayer->value(), m_aHead->value()};
    r.b = static_cast<explore::CompareSource>(m_bKind->currentData().toInt());
    r.bHead = {m_bLayer->value(), m_bHead->value()};
    r.configured = m_model->configured();
    // The fit table's rows and fits: the same m*, interval, verdict and KL as the table.
    if (!m_model->fits().empty()) {
        r.firstRow = m_model->fitFirstRow();
        r.lastRow = m_model->fitLastRow();
        r.fits = m_model->fits();
    }
    return r;
}

void TwoHeadsView::showEvent(QShowEvent*) {
    if (m_dirty) refresh();
}

void TwoHeadsView::refresh() {
    updatePickers();
    // Hidden (another tab): drawn when shown, so a large file is not read for nothing.
    if (!isVisible()) {
        m_dirty = true;
        return;
    }
    m_dirty = false;
    auto r = request();
    if (!r) {
        m_canvas->setMessage(u"Open attention maps to compare two heads"_s);
        return;
    }
    const double ratio = m_canvas->devicePixelRatioF();
    const int width = std::max(320, m_canvas->width()), height = std::max(200, m_canvas->height());
    m_pending = true;
    QPointer<TwoHeadsView> self(this);
    m_runner.submit([self, maps = m_model->maps(), request = std::move(*r), width, height,
                     ratio](const explore::JobContext& job) mutable {
        request.progress = job.progress();
        auto compared = explore::compareHeads(*maps, request);
        Result<HeadCompareFigure> figure = fail(ErrorCode::Cancelled, "cancelled");
        if (compared) {
            // Drawn at the device pixels, the layout at the widget's size (scale 1, 2 on HiDPI).
            const int scale = std::clamp(static_cast<int>(std::round(ratio)), 1, 4);
            figure = renderHeadCompareFigure(*maps, *compared, {Colormap::Viridis, width, height, scale});
        }
        QMetaObject::invokeMethod(
            qApp,
            [self, maps, generation = job.generation(), compared = std::move(compared), figure = std::move(figure),
             scale = std::clamp(static_cast<int>(std::round(ratio)), 1, 4)]() mutable {
                if (!self || generation != self->m_runner.latest()) return;
                self->m_pending = false;
                self->m_shown = generation;
                if (!compared) {
                    if (compared.error().code != ErrorCode::Cancelled)
                        self->m_canvas->setMessage(shownError(compared.error().message));
                } else if (!figure) {
                    self->m_canvas->setMessage(shownError(figure.error().message));
                } else {
                    self->m_result = std::make_shared<const explore::HeadCompareResult>(std::move(*compared));
                    self->m_resultMaps = maps;
                    self->m_figure = std::move(*figure);
                    const Image& image = self->m_figure.image;
                    QImage q(reinterpret_cast<const uchar*>(image.pixels.data()), image.width, image.height,
                             image.width * 4, QImage::Format_RGBA8888);
                    self->m_canvas->setPicture(q.copy(), scale);
                }
                emit self->pictureShown();
            },
            Qt::QueuedConnection);
    });
}

QString TwoHeadsView::hoverAt(QPoint p) const {
    if (!m_result || !m_resultMaps) return {};
    const auto hit = headCompareHitTest(m_figure, *m_result, p.x(), p.y());
    if (!hit) return {};
    return qs(explore::headCompareReadout(*m_resultMaps, *m_result, hit->query, hit->key));
}

void TwoHeadsView::onHovered(QPoint p) {
    const QString text = p.x() < 0 ? QString() : hoverAt(p);
    m_hoverText = text;
    m_readout->setText(text);
    emit cellHovered(QString(text).replace(u'\n', u"   "_s));
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(QCursor::pos(), text.toHtmlEscaped().replace(u'\n', u"<br>"_s), m_canvas);
}

std::optional<FigureJobRequest> TwoHeadsView::figureRequest(int width, int height, int scale) const {
    auto r = request();
    if (!r) return std::nullopt;
    FigureJobRequest job;
    job.kind = FigureJobRequest::Kind::MapsHeads;
    job.maps = m_model->maps();
    job.headCompare = std::move(*r);
    job.width = width;
    job.height = height;
    job.scale = scale;
    return job;
}

QString TwoHeadsView::figureName() const {
    const QString a = u"layer%1-head%2"_s.arg(m_aLayer->value()).arg(m_aHead->value());
    switch (static_cast<explore::CompareSource>(m_bKind->currentData().toInt())) {
        case explore::CompareSource::ConfiguredPrior:
            return a + u"-vs-prior"_s;
        case explore::CompareSource::FittedPrior:
            return a + u"-vs-fitted-prior"_s;
        default:
            return a + u"-vs-layer%1-head%2"_s.arg(m_bLayer->value()).arg(m_bHead->value());
    }
}

}  // namespace alibi::qt
