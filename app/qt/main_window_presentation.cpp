// The main window's presentation: presentation mode (large fonts, the screen filled, the lesson
// beside the views and its tabs only), zoom, the Parameters dock's width, and the hover read-out's
// band in the status bar.
#include "main_window.hpp"

#include "attention_maps_page.hpp"
#include "compare_view.hpp"
#include "head_detail_view.hpp"
#include "head_grid_view.hpp"
#include "lesson_panel.hpp"
#include "parameters_panel.hpp"
#include "view_util.hpp"

#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QResizeEvent>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

void MainWindow::showLessonTabs() {
    const explore::LessonState* lesson = m_lessons ? m_lessons->state() : nullptr;
    std::vector<bool> shown(TabCount, !m_presentation || lesson == nullptr);
    if (lesson != nullptr) {
        for (const LessonStep& step : lesson->lesson().steps) {
            if (step.explorerView)
                shown[static_cast<std::size_t>(tabOf(openView(step.session)))] = true;
            else if (!step.attentionMaps.empty())
                shown[AttentionTab] = true;
        }
    }
    if (m_tabs->currentIndex() >= 0) shown[static_cast<std::size_t>(m_tabs->currentIndex())] = true;
    bool changed = false;
    for (int t = 0; t < TabCount; ++t)
        if (m_tabs->isTabVisible(t) != shown[static_cast<std::size_t>(t)]) {
            m_tabs->setTabVisible(t, shown[static_cast<std::size_t>(t)]);
            changed = true;
        }
    if (changed) refitTabs(m_tabs);
}

void MainWindow::setZoom(double zoom) {
    m_zoom = std::clamp(zoom, 0.5, 4.0);
    QFont font = QApplication::font();
    font.setPointSizeF(m_baseFontPt * m_zoom);
    // The application font reaches every widget and every plot label drawn with the widget's font.
    QApplication::setFont(font);
    statusBar()->showMessage(u"Zoom %1%"_s.arg(std::lround(m_zoom * 100)), 2000);
    // The new font reaches the widgets through posted events: fit the dock once they are in.
    QTimer::singleShot(0, this, [this] {
        fitParametersDock();
        fitHoverReadout();
    });
}

namespace {
// What QStatusBar adds around its widgets' row (3 px above it, 2 below, measured): its minimum
// height is the band's plus this, so hiding the read-out for a message moves nothing.
constexpr int kStatusBarRim = 5;
}  // namespace

void MainWindow::fitHoverReadout() {
    // A band of fixed height in the status bar, in presentation mode too: the status bar never
    // grows or shrinks while the pointer moves (the page above would shift under it), and the
    // read-out never covers a view, the dock's tabs or a colour bar (a read-out floating over the
    // views did, wrapped to three lines at 1280x720, issue 27).
    const int band = readoutBandHeight();
    // The status bar hides the read-out while it shows a message ("Zoom 175%", an error): it is
    // shown again by the status bar then, and the bar keeps the band's height meanwhile.
    if (band == 0)
        m_hover->hide();
    else if (statusBar()->currentMessage().isEmpty())
        m_hover->show();
    m_hover->setFixedHeight(band);
    statusBar()->setMinimumHeight(band > 0 ? band + kStatusBarRim : 0);
    holdHoverReadout();
}

QString MainWindow::longestReadout() const {
    switch (m_tabs->currentIndex()) {
        case GridTab:
        case DetailTab: {
            // The grid's and the detail's read-out of a masked cell of the last head on the last
            // row: the longest indices, the masked value's note.
            const SnapshotPtr s = m_model->snapshot();
            if (!s || !s->grid) return {};
            const auto& session = s->grid->session;
            const int heads = session.attention.bias.slopes.heads;
            const std::int64_t queries = session.attention.bias.queries;
            if (heads <= 0 || queries <= 0) return {};
            QString longest;
            for (const std::int64_t key : {std::int64_t{0}, queries - 1, queries / 2}) {
                const QString text = cellDescription(session, s->grid->slopes, heads - 1, queries - 1, key, false);
                if (text.size() > longest.size()) longest = text;
            }
            return longest;
        }
        case AttentionTab:
            return m_attention->longestReadout();
        default:
            return {};  // the other views read out in their own panels or tooltips
    }
}

int MainWindow::readoutBandHeight() const {
    const int line = m_hover->fontMetrics().lineSpacing();
    // Normal mode: two lines hold the longest read-out at 1280 px, on every tab.
    if (!m_presentation) return 2 * line + 2;
    // Presentation mode: only as tall as the longest read-out of the current tab's views needs
    // at the band's width (none on a tab with no read-out), so the views keep the rest.
    const QString longest = longestReadout();
    if (longest.isEmpty()) return 0;
    return std::max(line, readoutHeight(longest)) + 2;
}

int MainWindow::readoutHeight(const QString& text) const {
    // The band's width: the status bar's, less its margins and size grip (the read-out is the
    // only widget in it in presentation mode, where the latency is hidden).
    const int width = m_hover->isVisible() && m_hover->width() > 0 ? m_hover->width() : statusBar()->width() - 24;
    // Measured as the read-out measures itself (selectable text lays out in a document).
    QLabel probe;
    probe.setWordWrap(true);
    probe.setTextInteractionFlags(m_hover->textInteractionFlags());
    probe.setFont(m_hover->font());
    probe.setText(readoutBreaks(text));  // as shown
    return probe.heightForWidth(std::max(width, 100));
}

void MainWindow::holdHoverReadout() {
    if (!m_presentation || m_hover->text().isEmpty()) return;
    // A read-out longer than the tab's estimate (a long token, an error) grows the band rather
    // than being cut; the next fit (tab change, resize) brings it back to the estimate.
    // Measured on a probe: the read-out's own heightForWidth is never below its fixed height.
    const int needed = readoutHeight(m_hover->text()) + 2;
    if (needed > m_hover->height()) {
        m_hover->setFixedHeight(needed);
        statusBar()->setMinimumHeight(needed + kStatusBarRim);
    }
    if (!m_hover->isVisible() && statusBar()->currentMessage().isEmpty()) m_hover->show();
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    // The band's height follows its width (a resized window, a shown or hidden progress bar).
    if (watched == m_hover && event->type() == QEvent::Resize && m_presentation) {
        const auto* resize = static_cast<QResizeEvent*>(event);
        if (resize->size().width() != resize->oldSize().width())
            QTimer::singleShot(0, this, &MainWindow::fitHoverReadout);
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::setPresentation(bool on) {
    if (m_presentationAction && m_presentationAction->isChecked() != on) {
        m_presentationAction->setChecked(on);  // toggled() comes back here
        return;
    }
    // Large fonts for the back row; the plots draw their lines thicker with the larger font.
    m_presentation = on;
    qApp->setProperty("alibiLineScale", on ? 2.5 : 1.0);
    // Plot text (ticks, legends, axis labels) grows less than the lesson text: the plots keep room.
    qApp->setProperty("alibiPlotTextScale", on ? 0.75 : 1.0);
    // The room goes to the read-out: a lecture does not need the grid's latency.
    m_latency->setVisible(!on);
    m_compare->setHintShown(!on);
    m_attention->setHoverTips(!on);  // the read-out band says it; the tooltip covered the maps
    m_grid->setHoverTips(!on);       // ... the neighbouring tiles (s40 review F2)
    m_detail->setHoverTips(!on);     // ... the cited cell
    setZoom(on ? 1.75 : 1.0);
    if (on) {
        m_detail->setCornerWidget(m_detailBar);
    } else if (m_detailBar->parentWidget() == m_detail) {
        m_detail->setCornerWidget(nullptr);
        m_detailPageLayout->insertWidget(0, m_detailBar);
    }
    placeLessonDock();
    showLessonTabs();
    if (m_interactive && !m_screenshotMode) fillScreen(on);
    update();
}

void MainWindow::fillScreen(bool on) {
    if (!on) {
        if (!m_geometryBeforePresentation) return;
        const QRect before = *m_geometryBeforePresentation;
        m_geometryBeforePresentation.reset();
        setWindowState(windowState() & ~Qt::WindowMaximized);
        setGeometry(before);
        return;
    }
    // Already maximised or full screen (by the user or the window manager): left as it is.
    if (m_geometryBeforePresentation || (windowState() & (Qt::WindowMaximized | Qt::WindowFullScreen))) return;
    QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
    if (screen == nullptr) return;
    m_geometryBeforePresentation = geometry();
    // The frame a window manager draws (none without one, or before the first show).
    const QRect frame = frameGeometry(), inner = geometry();
    const QMargins margins(inner.left() - frame.left(), inner.top() - frame.top(), frame.right() - inner.right(),
                           frame.bottom() - inner.bottom());
    setGeometry(screen->availableGeometry().marginsRemoved(margins));
    setWindowState(windowState() | Qt::WindowMaximized);
}

void MainWindow::placeLessonDock() {
    if (!m_lessons || !m_parametersDock || m_lessons->isFloating()) return;
    const Qt::DockWidgetArea want = m_presentation ? Qt::LeftDockWidgetArea : Qt::BottomDockWidgetArea;
    if (dockWidgetArea(m_lessons) == want) return;
    const bool shown = m_lessons->isVisible();
    if (m_presentation)
        tabifyDockWidget(m_parametersDock, m_lessons);
    else
        addDockWidget(Qt::BottomDockWidgetArea, m_lessons);
    m_lessons->setVisible(shown);
    if (shown) m_lessons->raise();
}

void MainWindow::fitParametersDock() {
    if (!m_parametersScroll || !m_parameters) return;
    // The panel's controls at the current font, plus the scroll area's frame and vertical bar.
    m_parameters->adjustSize();
    const int needed = m_parameters->sizeHint().width() + 2 * m_parametersScroll->frameWidth() +
                       m_parametersScroll->verticalScrollBar()->sizeHint().width();
    m_parametersScroll->setMinimumWidth(needed);
    if (m_parametersDock && !m_parametersDock->isFloating() && m_parametersDock->width() < needed)
        resizeDocks({m_parametersDock}, {needed}, Qt::Horizontal);
}

// A word joiner inside every "->": the band wrapped "configured m = 1/32 -" | "> 0.0356" (Qt
// breaks after a hyphen); it is invisible and taken out again for hoverText().
constexpr QChar kWordJoiner(0x2060);

// The band lays a read-out out by the tooltips' rule (readoutBreaks): its " · " phrases and
// arrows whole, an operator with its value, a short parenthesised phrase on one line ("p = 0
// (row renormalised to sum" | "1)" broke at 1280x720 in presentation, the s40 review's L8).
void MainWindow::showHoverReadout(const QString& text) {
    m_hover->setText(readoutBreaks(text));
}

QString MainWindow::hoverText() const {
    return m_hover->text().remove(kWordJoiner).replace(QChar(0x00A0), u' ');
}
QString MainWindow::latencyText() const {
    return m_latency->text();
}

}  // namespace alibi::qt
