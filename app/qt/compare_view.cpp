// Compare view and the ImagePanel it shares with the diagnose view.
#include "compare_view.hpp"

#include "view_util.hpp"

#include <alibi/explore/compute.hpp>
#include <alibi/explore/line_breaks.hpp>
#include <alibi/model/params.hpp>

#include <QBoxLayout>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

// ---------------------------------------------------------------------------
// ImagePanel

ImagePanel::ImagePanel(QWidget* parent) : QWidget(parent) {
    setMinimumSize(240, 180);
}

void ImagePanel::setImage(const Image& image, const std::vector<HeatmapTile>& tiles, Colormap map, double lo, double hi,
                          const QString& barLabel) {
    alibi::ColorBar bar = alibi::makeColorBar(lo, hi, false, DType::F32, 5);
    bar.title = barLabel.toStdString();
    setImage(image, tiles, map, bar);
}

void ImagePanel::setImage(const Image& image, const std::vector<HeatmapTile>& tiles, Colormap map,
                          const alibi::ColorBar& bar) {
    m_image = toQImage(image);
    m_map = map;
    m_bar = bar;
    m_tiles = tiles;
    m_message.clear();
    update();
}

void ImagePanel::setTileLabels(std::vector<std::string> labels) {
    m_tileLabels = std::move(labels);
    update();
}

void ImagePanel::setReadout(std::function<QString(int tile, std::int64_t query, std::int64_t key)> readout) {
    m_readout = std::move(readout);
    setMouseTracking(static_cast<bool>(m_readout));
}

void ImagePanel::mouseMoveEvent(QMouseEvent* event) {
    const QRectF target = imageRect();
    if (!m_readout || m_image.isNull() || m_queries <= 0 || m_keys <= 0) return;
    const double sx = target.width() / m_image.width(), sy = target.height() / m_image.height();
    const QPointF at = event->position();
    for (std::size_t n = 0; n < m_tiles.size(); ++n) {
        const HeatmapTile& t = m_tiles[n];
        const QRectF tr(target.x() + t.x * sx, target.y() + t.y * sy, t.width * sx, t.height * sy);
        if (!tr.contains(at)) continue;
        const auto cell = [](double offset, double size, std::int64_t count) {
            return std::clamp(static_cast<std::int64_t>(offset / size * static_cast<double>(count)), std::int64_t{0},
                              count - 1);
        };
        const QString text = m_readout(static_cast<int>(n), cell(at.y() - tr.y(), tr.height(), m_queries),
                                       cell(at.x() - tr.x(), tr.width(), m_keys));
        QToolTip::showText(event->globalPosition().toPoint(), readoutTooltip(text), this);
        return;
    }
    QToolTip::hideText();
}

void ImagePanel::setMessage(const QString& message) {
    m_message = message;
    update();
}

void ImagePanel::setLessonMark(LessonMark mark, std::int64_t queries, std::int64_t keys) {
    m_lesson = std::move(mark);
    m_queries = queries;
    m_keys = keys;
    update();
}

QRectF ImagePanel::tileRect(std::size_t n) const {
    const QRectF target = imageRect();
    if (n >= m_tiles.size() || target.isEmpty()) return {};
    const double sx = target.width() / m_image.width(), sy = target.height() / m_image.height();
    const HeatmapTile& t = m_tiles[n];
    return {target.x() + t.x * sx, target.y() + t.y * sy, t.width * sx, t.height * sy};
}

// The room right of the picture for its colour bar: the gap, the bar, its labels and its title
// (whose head line, "h7, T = L = 64", may be wider than the labels), at the current font.
static int barRoom(const QWidget& panel, const alibi::ColorBar& bar) {
    const QFontMetrics fm(panel.font());
    QFont small = panel.font();
    small.setPointSizeF(panel.font().pointSizeF() * 0.85);
    const QFontMetrics smallFm(small);
    int labels = std::max(90, colorBarLabelRoom(fm));
    for (const std::string& text : {bar.title, bar.head})
        labels = std::max(labels, smallFm.horizontalAdvance(QString::fromStdString(text)) - 16 + 4);
    return 20 + 16 + 8 + labels;
}

int ImagePanel::labelBandFor(QSize imagePixels) const {
    const QRect area = rect().adjusted(8, 8, -barRoom(*this, m_bar), -8);
    double scale = 1;
    if (area.width() > 0 && area.height() > 0 && !imagePixels.isEmpty())
        scale = std::min(static_cast<double>(area.width()) / imagePixels.width(),
                         static_cast<double>(area.height()) / imagePixels.height());
    return tileLabelBandFor(font(), std::clamp(scale, 0.25, 4.0));
}

QRectF ImagePanel::pictureArea() const {
    return rect().adjusted(8, 8, -barRoom(*this, m_bar), -8);
}

QRectF ImagePanel::imageRect() const {
    if (m_image.isNull()) return {};
    const QRect area = rect().adjusted(8, 8, -barRoom(*this, m_bar), -8);
    const QSizeF size = QSizeF(m_image.size()).scaled(area.size(), Qt::KeepAspectRatio);
    return {static_cast<double>(area.x()), static_cast<double>(area.y()), size.width(), size.height()};
}

void ImagePanel::paintEvent(QPaintEvent*) {
    QPainter p(this);
    beginPaintedTexts(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!m_message.isEmpty() || m_image.isNull()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(24, 24, -24, -24), Qt::AlignCenter | Qt::TextWordWrap,
                   m_message.isEmpty() ? u"Nothing to show yet"_s : m_message);
        return;
    }
    const QRect area = rect().adjusted(8, 8, -barRoom(*this, m_bar), -8);
    const QRectF target = imageRect();
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(target, m_image);
    const double sx = target.width() / m_image.width(), sy = target.height() / m_image.height();
    // Each tile's label ("h3", "b1 h3") in the band the core left free above it (the head grid's
    // and the figures' place), never over its cells: the font shrinks to the band as drawn, and a
    // label wider than its tile falls back to "h3", then to none.
    p.setPen(palette().color(QPalette::WindowText));
    std::vector<QString> labels;
    for (const std::string& l : m_tileLabels) labels.push_back(QString::fromStdString(l));
    PaintedTileLabels painted = paintTileLabels(p, font(), target.topLeft(), sx, sy, m_tiles, labels);
    m_labelRects = std::move(painted.rects);
    m_labelTexts = std::move(painted.texts);
    // A lesson's heads outlined and cell framed, in the head grid's orange (dark-edged, so the
    // frame shows on any colour).
    const double pen = std::max(3.0, font().pointSizeF() / 3.0);
    for (const HeatmapTile& t : m_tiles) {
        const QRectF tr(target.x() + t.x * sx, target.y() + t.y * sy, t.width * sx, t.height * sy);
        if (m_tiles.size() > 1 && m_lesson.marksHead(t.head)) {
            p.setBrush(Qt::NoBrush);
            p.setPen(QPen(lessonOrange(), pen));
            p.drawRect(tr.adjusted(-pen / 2 + 1, -pen / 2 + 1, pen / 2 - 1, pen / 2 - 1));
        }
        if (t.head != m_lesson.cellHead || m_lesson.query >= m_queries || m_lesson.key >= m_keys || m_queries <= 0 ||
            m_keys <= 0)
            continue;
        const auto at = [](double from, double size, std::int64_t c, std::int64_t n) {
            return from + size * static_cast<double>(c) / static_cast<double>(n);
        };
        QRectF cell(
            QPointF(at(tr.x(), tr.width(), m_lesson.key, m_keys), at(tr.y(), tr.height(), m_lesson.query, m_queries)),
            QPointF(at(tr.x(), tr.width(), m_lesson.key + 1, m_keys),
                    at(tr.y(), tr.height(), m_lesson.query + 1, m_queries)));
        const double grow = std::max(0.0, (9.0 - std::min(cell.width(), cell.height())) / 2);
        cell.adjust(-grow, -grow, grow, grow);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(QColor(0, 0, 0, 200), pen + 2));
        p.drawRect(cell);
        p.setPen(QPen(lessonOrange(), pen));
        p.drawRect(cell);
    }
    p.setFont(font());
    const QFontMetrics barFm(p.font());
    // A title with a head ("probability", "h7, T = L = 64") may take two lines above the bar.
    QFont small = p.font();
    small.setPointSizeF(p.font().pointSizeF() * 0.85);
    const int above = colorBarTitleRoom(barFm) + (m_bar.head.empty() ? 0 : QFontMetrics(small).height()),
              below = colorBarKeyRoom(barFm, false);
    const QRect bar(static_cast<int>(target.right()) + 20, area.y() + above, 16,
                    std::max(40, static_cast<int>(target.height()) - above - below));
    paintColorBar(p, bar, m_bar, m_map, palette(), barRoom(*this, m_bar) - 20 - 16 - 8);
}

// ---------------------------------------------------------------------------
// CompareView

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout;
    m_scheme = new QComboBox(this);
    // "custom (from the session)" arrives with a lesson or session: the box widens to show it.
    m_scheme->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_scheme->addItem(u"same as A"_s, -1);
    for (SlopeScheme s : {SlopeScheme::Press, SlopeScheme::Geometric, SlopeScheme::Linear})
        m_scheme->addItem(QString::fromUtf8(schemeName(s).data()), static_cast<int>(s));
    m_maxBias = new QDoubleSpinBox(this);
    m_maxBias->setRange(-1, kMaxBiasRange.max);  // the core's range; -1: "same as A"
    m_maxBias->setDecimals(2);
    m_maxBias->setSingleStep(0.5);
    m_maxBias->setSpecialValueText(u"same as A"_s);
    m_maxBias->setValue(-1);
    m_maxBias->setKeyboardTracking(false);  // a typed B is one change (and one undo step), not one per key
    m_dtype = new QComboBox(this);
    m_dtype->addItem(u"same as A"_s, -1);
    for (DType d : {DType::F32, DType::F64, DType::F16, DType::BF16})
        m_dtype->addItem(QString::fromUtf8(dtypeName(d).data()), static_cast<int>(d));
    m_mode = new QComboBox(this);
    m_mode->addItem(u"same as A"_s, -1);
    for (BiasMode m : {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt})
        m_mode->addItem(QString::fromUtf8(modeName(m).data()), static_cast<int>(m));
    m_mask = new QComboBox(this);
    m_mask->addItems({u"same as A"_s, u"-1e9"_s, u"-inf"_s, u"min"_s, u"-10000"_s});
    form->addRow(u"Slope scheme"_s, m_scheme);
    form->addRow(u"max_bias B"_s, m_maxBias);
    form->addRow(u"dtype"_s, m_dtype);
    form->addRow(u"mode"_s, m_mode);
    form->addRow(u"mask value"_s, m_mask);
    auto* box = new QGroupBox(u"B: A with these changes"_s, this);
    box->setLayout(form);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Narrow enough that B's box and the read-out fit beside a lesson at a presentation font
    // (the read-out wraps; the page never scrolls sideways).
    m_summary->setMinimumWidth(160);
    auto* hint = new QLabel(
        u"Try: H = 12, press vs geometric (the non-power-of-two heads differ), or f32 vs f16/bf16 "
        "at long T with bloom mode (+m·j loses precision)."_s,
        this);
    hint->setWordWrap(true);
    hint->setForegroundRole(QPalette::PlaceholderText);
    m_hint = hint;
    // B's controls and, beside them, the summary; the picture below across the whole width, so
    // its tiles keep their size beside a lesson panel at a presentation font (issue 27).
    auto* right = new QVBoxLayout;
    right->addWidget(m_summary);
    right->addWidget(hint);
    right->addStretch(1);
    m_image = new ImagePanel(this);
    m_image->installEventFilter(this);
    auto* layout = new QGridLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    box->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);  // as wide as its widest value
    m_box = box;
    m_top = new QBoxLayout(QBoxLayout::LeftToRight);
    m_top->addWidget(box);
    m_top->addLayout(right, 1);
    layout->addLayout(m_top, 0, 0);
    layout->addWidget(m_image, 1, 0);
    layout->setRowStretch(1, 1);
    m_stale = new StaleOverlay(this);
    setSpec(explore::geometricCompare());

    auto changed = [this] { emit specChanged(spec()); };
    connect(m_scheme, &QComboBox::currentIndexChanged, this, changed);
    connect(m_dtype, &QComboBox::currentIndexChanged, this, changed);
    connect(m_mode, &QComboBox::currentIndexChanged, this, changed);
    connect(m_mask, &QComboBox::currentIndexChanged, this, changed);
    connect(m_maxBias, &QDoubleSpinBox::valueChanged, this, changed);
}

// The read-out beside B's box when its widest clause fits there, else under the box across the
// page: a clause never breaks for want of room (lesson 2 step 5 at 1280x720 in presentation mode
// broke "max |A - B|" from "= 7.5 at head 0," in a 240 px column beside the box).
void CompareView::arrange() {
    // The widest piece between two places where a line may break, in the font it is drawn in.
    QFont bold = m_summary->font();
    bold.setBold(true);
    int need = 0;
    for (const auto& [text, font] : {std::pair{m_clauses, bold}, std::pair{m_phrases, m_summary->font()}})
        for (const QString& run : text.split(u' ', Qt::SkipEmptyParts))
            need = std::max(need, QFontMetrics(font).horizontalAdvance(run) + 2);
    const QMargins margins = layout()->contentsMargins();
    const int beside = margins.left() + margins.right() + m_box->sizeHint().width() + m_top->spacing() + need;
    const auto direction = beside <= width() ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    if (m_top->direction() != direction) m_top->setDirection(direction);
}

void CompareView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    arrange();
}

void CompareView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) arrange();  // a presentation font changes the widths
}

void CompareView::setHintShown(bool shown) {
    m_hint->setVisible(shown);
}

bool CompareView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_image && (event->type() == QEvent::Resize || event->type() == QEvent::FontChange)) {
        const QSize room = (m_image->pictureArea().size() * m_image->devicePixelRatioF()).toSize();
        if (!room.isEmpty()) emit pictureSizeChanged(room, m_image->labelBandFor(room));
    }
    return QWidget::eventFilter(watched, event);
}

void CompareView::setSpec(const CompareOverrides& spec) {
    QSignalBlocker a(m_scheme), b(m_dtype), c(m_mode), d(m_mask), e(m_maxBias);
    // Custom slopes for B come only from a session or a lesson (the off-by-one 2^(-8h/H), say):
    // kept as given and offered as "custom" until another B replaces them.
    m_customB = spec.scheme == SlopeScheme::Custom ? spec.custom : std::vector<double>{};
    const int customItem = m_scheme->findData(static_cast<int>(SlopeScheme::Custom));
    if (!m_customB.empty() && customItem < 0)
        m_scheme->addItem(u"custom (from the session)"_s, static_cast<int>(SlopeScheme::Custom));
    else if (m_customB.empty() && customItem >= 0)
        m_scheme->removeItem(customItem);
    m_scheme->setCurrentIndex(std::max(0, m_scheme->findData(spec.scheme ? static_cast<int>(*spec.scheme) : -1)));
    m_dtype->setCurrentIndex(std::max(0, m_dtype->findData(spec.dtype ? static_cast<int>(*spec.dtype) : -1)));
    m_mode->setCurrentIndex(std::max(0, m_mode->findData(spec.mode ? static_cast<int>(*spec.mode) : -1)));
    m_mask->setCurrentIndex(spec.mask ? std::max(0, m_mask->findText(QString::fromStdString(maskName(*spec.mask))))
                                      : 0);
    m_maxBias->setValue(spec.maxBias ? *spec.maxBias : -1);
}

CompareOverrides CompareView::spec() const {
    CompareOverrides s;
    if (int v = m_scheme->currentData().toInt(); v >= 0) s.scheme = static_cast<SlopeScheme>(v);
    if (s.scheme == SlopeScheme::Custom) s.custom = m_customB;
    if (int v = m_dtype->currentData().toInt(); v >= 0) s.dtype = static_cast<DType>(v);
    if (int v = m_mode->currentData().toInt(); v >= 0) s.mode = static_cast<BiasMode>(v);
    if (m_mask->currentIndex() > 0) s.mask = parseMask(m_mask->currentText().toStdString());
    if (m_maxBias->value() >= 0) s.maxBias = m_maxBias->value();
    return s;
}

QString CompareView::summary() const {
    // The words, with plain spaces and without the word joiners that keep Qt from breaking.
    return QString(m_summary->text()).replace(QChar(0x00A0), u' ').remove(QChar(0x2060));
}

void CompareView::setLessonMark(LessonMark mark) {
    m_lesson = std::move(mark);
    const LessonMark& shown = m_lesson;
    m_image->setLessonMark(shown, m_queries, m_keys);
}

void CompareView::markStale() {
    m_stale->markStale();
}

void CompareView::setSnapshot(const SnapshotPtr& s) {
    if (!s || !s->compare) return;
    m_stale->clear();
    const CompareSnapshot& c = *s->compare;
    if (!c.error.empty()) {
        const QString error = shownError(c.error);
        m_summary->setText(u"<span style='color:#d33'>"_s + error.toHtmlEscaped() + u"</span>"_s);
        m_image->setMessage(error);
        return;
    }
    // Lines wrap between phrases only, never inside one ("B =" / "-0.234375" in lesson 2 step 3):
    // the core's sentence after its ", " and ": ", B's settings at their " · " (the core's rule).
    const QString text = u"<b>"_s + keepBreaksAtSpaces(explore::keepClausesWhole(c.summary)).toHtmlEscaped() +
                         u"</b><br><br>"_s + keepBreaksAtSpaces(explore::keepPhrasesWhole(c.settingsB)).toHtmlEscaped();
    m_summary->setText(text);
    m_clauses = keepBreaksAtSpaces(explore::keepClausesWhole(c.summary));
    m_phrases = keepBreaksAtSpaces(explore::keepPhrasesWhole(c.settingsB));
    arrange();
    const alibi::Session& a = s->grid->session;
    const bool masks = modeMasks(a.attention.bias.mode) || modeMasks(c.sessionB.attention.bias.mode);
    m_image->setImage(c.image, c.tiles, Colormap::Diverging, explore::compareColorBar(c, masks, 5));
    m_image->setReadout([cells = c.cells, tiles = c.tiles](int tile, std::int64_t query, std::int64_t key) {
        if (!cells || tile < 0 || tile >= static_cast<int>(tiles.size())) return QString();
        return QString::fromStdString(
            explore::compareReadout(*cells, tiles[static_cast<std::size_t>(tile)].head, query, key));
    });
    m_queries = s->grid->session.attention.bias.queries;
    m_keys = s->grid->session.attention.bias.keyCount();
    m_image->setLessonMark(m_lesson, m_queries, m_keys);
}

}  // namespace alibi::qt
