// The lesson panel (see lesson_panel.hpp): the step's text and buttons, the keys, and the hooks
// that apply a step to the main window's model and views.
#include "lesson_panel.hpp"

#include "attention_maps_page.hpp"

#include "compare_view.hpp"
#include "curves_view.hpp"
#include "extrapolation_view.hpp"
#include "head_detail_view.hpp"
#include "head_grid_view.hpp"
#include "main_window.hpp"
#include "model/background.hpp"
#include "stages_view.hpp"
#include "view_util.hpp"

#include <alibi/explore/line_breaks.hpp>

#include <QAbstractItemView>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QStyle>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <memory>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {

constexpr double kMinTextPt = 10, kMaxTextPt = 60;

// A view id of lesson files that this explorer does not have, in words for the note.
QString missingViewName(const std::string& id) {
    if (id == "attention-grid") return u"the attention maps' layer grid"_s;
    if (id == "attention-detail") return u"one head of the attention maps"_s;
    if (id == "attention-distance") return u"the attention maps' attention against distance"_s;
    if (id == "attention-row") return u"one query row of the attention maps"_s;
    if (id == "similarity") return u"the similarity of the attention maps' heads"_s;
    if (id == "fit-table") return u"the table of fitted slopes"_s;
    if (id == "schemes") return u"ALiBi beside the other position schemes"_s;
    return QString::fromStdString(id);
}

// The attention-maps page's view (AttentionMapsPage::views() index) for a lesson view id; -1: none.
int attentionViewIndex(const std::string& id) {
    if (id == "attention-grid") return AttentionMapsPage::GridView;
    if (id == "attention-detail") return AttentionMapsPage::HeadView;
    if (id == "attention-distance" || id == "attention-row") return AttentionMapsPage::DistanceView;
    if (id == "similarity") return AttentionMapsPage::SimilarityView;
    if (id == "fit-table") return AttentionMapsPage::TableView;
    return -1;
}

}  // namespace

QString LessonPanel::paragraphsHtml(const std::string& text, const QFont& font, int width) {
    const QFontMetricsF fm(font);
    const auto measure = [&fm](std::string_view piece) {
        return fm.horizontalAdvance(QString::fromUtf8(piece.data(), static_cast<qsizetype>(piece.size())));
    };
    // The core's lines (wrapLines over keepFormulasWhole), as the ImGui lesson draws them: a
    // formula whole, one wider than the line broken at its own spaces from where the line has
    // room, a word wider still after its '/', '|', dash or '('. Qt only draws them, each line
    // ended explicitly (a pixel of slack for the layout's rounding); keepBreaksAtSpaces keeps
    // Qt from breaking a line again should it ever measure it wider.
    QString html, lines;
    for (const explore::WrappedLine& line :
         explore::wrapLines(explore::keepFormulasWhole(text), width - 1.0, measure)) {
        if (!lines.isEmpty()) lines += u"<br>"_s;
        lines += keepBreaksAtSpaces(line.text).toHtmlEscaped();
        if (!line.endsParagraph) continue;
        if (!lines.isEmpty()) html += u"<p style='margin-top:0; margin-bottom:0.5em'>"_s + lines + u"</p>"_s;
        lines.clear();
    }
    return html;
}

namespace {

bool usesArrows(const QWidget* w) {
    if (qobject_cast<const QAbstractSpinBox*>(w) || qobject_cast<const QLineEdit*>(w) ||
        qobject_cast<const QComboBox*>(w) || qobject_cast<const QAbstractSlider*>(w) ||
        qobject_cast<const QAbstractItemView*>(w))
        return true;
    if (const auto* text = qobject_cast<const QTextEdit*>(w)) return !text->isReadOnly();
    return false;
}

}  // namespace

LessonPanel::LessonPanel(MainWindow* window) : QDockWidget(u"Lesson"_s, window), m_window(window) {
    setObjectName(u"lesson"_s);
    setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    auto* body = new QWidget(this);
    m_title = new QLabel(body);
    m_title->setObjectName(u"lessonTitle"_s);
    m_title->setWordWrap(true);
    m_counter = new QLabel(body);
    m_counter->setObjectName(u"lessonCounter"_s);
    m_note = new QLabel(body);
    m_note->setObjectName(u"lessonNote"_s);
    m_note->setWordWrap(true);
    m_note->setStyleSheet(u"color: #e07000"_s);
    m_note->hide();
    m_text = new QTextBrowser(body);
    m_text->setObjectName(u"lessonText"_s);
    m_text->setOpenLinks(false);
    m_text->setFrameShape(QFrame::NoFrame);
    m_previous = new QPushButton(u"◀ Previous"_s, body);
    m_next = new QPushButton(u"Next ▶"_s, body);
    m_back = new QPushButton(u"Back to the step"_s, body);
    m_back->setObjectName(u"lessonBack"_s);
    m_back->setToolTip(u"Restore this step's parameters and view (Ctrl+Z undoes it)"_s);
    auto* smaller = new QPushButton(u"A−"_s, body);
    auto* larger = new QPushButton(u"A+"_s, body);
    smaller->setToolTip(u"Smaller lesson text"_s);
    larger->setToolTip(u"Larger lesson text"_s);
    auto* close = new QPushButton(u"Close lesson"_s, body);
    m_smaller = smaller;
    m_larger = larger;
    m_close = close;

    m_bar = new QGridLayout;
    m_bar->setHorizontalSpacing(6);
    auto* column = new QVBoxLayout(body);
    column->setContentsMargins(10, 4, 10, 6);
    column->addLayout(m_bar);
    column->addWidget(m_note);
    column->addWidget(m_text, 1);
    setWidget(body);
    setColumnLayout(false);
    connect(this, &QDockWidget::dockLocationChanged, this, [this](Qt::DockWidgetArea area) {
        setColumnLayout(area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea);
    });

    connect(m_previous, &QPushButton::clicked, this, &LessonPanel::previous);
    connect(m_next, &QPushButton::clicked, this, &LessonPanel::next);
    connect(m_back, &QPushButton::clicked, this, &LessonPanel::backToStep);
    connect(close, &QPushButton::clicked, this, &LessonPanel::closeLesson);
    connect(smaller, &QPushButton::clicked, this, [this] { setTextPointSize(m_shownPt / 1.15); });
    connect(larger, &QPushButton::clicked, this, [this] { setTextPointSize(m_textPt * 1.15); });
    connect(m_window->model(), &SessionModel::sessionChanged, this, &LessonPanel::updateBackButton);
    // The dock's own close button ends the lesson too.
    connect(toggleViewAction(), &QAction::toggled, this, [this](bool shown) {
        if (!shown && m_state && !isVisible()) closeLesson();
    });

    const double base = QApplication::font().pointSizeF() > 0 ? QApplication::font().pointSizeF() : 10;
    setTextPointSize(QSettings().value(u"lessons/textPt"_s, std::max(20.0, base * 2)).toDouble());
    qApp->installEventFilter(this);
    hide();
}

LessonPanel::~LessonPanel() {
    qApp->removeEventFilter(this);
}

void LessonPanel::setTextPointSize(double pt) {
    m_textPt = std::clamp(pt, kMinTextPt, kMaxTextPt);
    QFont text = font();
    text.setPointSizeF(m_textPt);
    m_text->document()->setDefaultFont(text);
    m_text->setFont(text);
    // The heading and the note grow with the text up to a cap: at 45 and 36 pt (A+ at its
    // largest) the wrapped title and note in presentation mode's side column made the window's
    // minimum 784 to 1291 px tall on a 720 px screen.
    const double ui = font().pointSizeF();
    QFont heading = font();
    heading.setPointSizeF(std::max(ui, std::min(m_textPt * 0.75, ui * 1.6)));
    heading.setBold(true);
    m_title->setFont(heading);
    m_counter->setFont(heading);
    QFont note = font();
    note.setPointSizeF(std::max(ui, std::min(m_textPt * 0.6, ui * 1.2)));
    m_note->setFont(note);
    // At least three lines at the smallest size fitText shrinks the text to (at the chosen size,
    // 60 pt, three lines and the heading made the window 860 px tall, past a 720 px screen's
    // bottom, the status bar hidden: the s41 Qt engineer's finding).
    QFont smallest = text;
    smallest.setPointSizeF(textFloorPt());
    m_text->setMinimumHeight(QFontMetrics(smallest).lineSpacing() * 3);
    QSettings().setValue(u"lessons/textPt"_s, m_textPt);
    m_shownPt = m_textPt;
    fitText();
}

double LessonPanel::textFloorPt() {
    return std::max(kMinTextPt, QApplication::font().pointSizeF() * 1.1);
}

void LessonPanel::setColumnLayout(bool column) {
    m_column = column;
    for (QWidget* w :
         {static_cast<QWidget*>(m_title), static_cast<QWidget*>(m_counter), static_cast<QWidget*>(m_previous),
          static_cast<QWidget*>(m_next), static_cast<QWidget*>(m_back), static_cast<QWidget*>(m_smaller),
          static_cast<QWidget*>(m_larger), static_cast<QWidget*>(m_close)})
        m_bar->removeWidget(w);
    for (int c = 0; c < 9; ++c) m_bar->setColumnStretch(c, 0);
    // In the side column the buttons take short names (their tooltips say the rest), all on one
    // row under the title, so the step's text keeps the column's height.
    m_previous->setText(column ? u"◀"_s : u"◀ Previous"_s);
    m_next->setText(column ? u"▶"_s : u"Next ▶"_s);
    m_back->setText(column ? u"Back"_s : u"Back to the step"_s);
    m_close->setText(column ? u"Close"_s : u"Close lesson"_s);
    m_previous->setToolTip(u"Previous step (Page Up)"_s);
    m_next->setToolTip(u"Next step (Page Down)"_s);
    m_close->setToolTip(u"Close the lesson"_s);
    if (column) {
        m_bar->addWidget(m_title, 0, 0, 1, 5);
        m_bar->addWidget(m_counter, 0, 5, Qt::AlignRight);
        m_bar->addWidget(m_previous, 1, 0);
        m_bar->addWidget(m_next, 1, 1);
        m_bar->addWidget(m_back, 1, 2);
        m_bar->addWidget(m_smaller, 1, 3);
        m_bar->addWidget(m_larger, 1, 4);
        m_bar->addWidget(m_close, 1, 5);
        m_bar->setColumnStretch(2, 1);
    } else {
        m_bar->addWidget(m_title, 0, 0);
        m_bar->addWidget(m_counter, 0, 1);
        m_bar->addWidget(m_previous, 0, 2);
        m_bar->addWidget(m_next, 0, 3);
        m_bar->addWidget(m_back, 0, 4);
        m_bar->addWidget(m_smaller, 0, 5);
        m_bar->addWidget(m_larger, 0, 6);
        m_bar->addWidget(m_close, 0, 7);
        m_bar->setColumnStretch(0, 1);
    }
    updateTitle();
    fitText();
}

void LessonPanel::updateTitle() {
    // In the side column the dock is a tab beside "Parameters": a short title keeps both tabs
    // whole at 175 % (the bar under it names the step).
    const QString lesson = m_state ? QString::fromStdString(m_state->lesson().title) : QString();
    setWindowTitle(m_column || lesson.isEmpty() ? u"Lesson"_s : u"Lesson: "_s + lesson);
}

void LessonPanel::fitText() {
    if (!m_state || m_fitting || !isVisible()) return;
    m_fitting = true;
    // Measured on a copy: a width set on the view's own document stays when the view's vertical
    // scroll bar then appears, and the text scrolled sideways by the bar's width at the largest
    // A+ size (session 40's closing notes). The view lays out its document at its own width.
    const std::unique_ptr<QTextDocument> doc(m_text->document()->clone());
    const int width = std::max(100, m_text->viewport()->width());
    const auto docHeight = [&](double pt) {
        QFont f = m_text->font();
        f.setPointSizeF(pt);
        doc->setDefaultFont(f);
        doc->setTextWidth(width);
        return static_cast<int>(std::ceil(doc->size().height()));
    };
    // What the dock holds besides the text: its title bar, the bar, the note, margins.
    const int chrome = height() - m_text->viewport()->height();
    const bool bottom = !isFloating() && m_window->dockWidgetArea(this) == Qt::BottomDockWidgetArea;
    const int room = bottom ? m_window->height() * 45 / 100 - chrome : m_text->viewport()->height();
    // The chosen size (A− / A+), smaller only as far as the step needs, never below the UI's.
    const double floor = textFloorPt();
    double pt = m_textPt;
    int needed = docHeight(pt);
    while (needed > room && pt / 1.06 >= floor) {
        pt /= 1.06;
        needed = docHeight(pt);
    }
    m_shownPt = pt;
    QFont shown = m_text->font();
    shown.setPointSizeF(pt);
    m_text->document()->setDefaultFont(shown);
    // At the size and width chosen, a formula wider than a line breaks at its own spaces.
    setStepHtml();
    if (bottom) m_window->resizeDocks({this}, {std::min(needed, room) + chrome + 4}, Qt::Vertical);
    m_fitting = false;
}

void LessonPanel::setStepHtml() {
    if (!m_state) return;
    QTextDocument* doc = m_text->document();
    // The lines' width: the view's less a vertical scroll bar's, whether one shows or not, less
    // the document's margins either side. Planned for the narrower width, the lines fit either
    // way, so the bar coming or going plans the same lines: planned for the view's width they
    // brought the bar, which narrowed the view, whose lines dropped it again, and so on, the UI
    // thread spinning at the largest A+ size (qt.layout's presentationHoverHasNoTooltip hung).
    QScrollBar* bar = m_text->verticalScrollBar();
    const int barRoom = bar->isVisible() ? 0 : m_text->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, bar);
    const int width =
        std::max(100, m_text->viewport()->width() - barRoom) - static_cast<int>(std::ceil(2 * doc->documentMargin()));
    const QString html = paragraphsHtml(m_state->step().text, doc->defaultFont(), width);
    if (html == m_stepHtml) return;  // unchanged: the view keeps its scroll position
    m_stepHtml = html;
    m_text->setHtml(html);
}

void LessonPanel::resizeEvent(QResizeEvent* event) {
    QDockWidget::resizeEvent(event);
    // The text's room changed (the window, the dock's splitter, presentation mode).
    QMetaObject::invokeMethod(
        this, [this] { fitText(); }, Qt::QueuedConnection);
}

Result<void> LessonPanel::openLesson(const QString& nameOrPath) {
    auto path = resolveLesson(nameOrPath.toStdString(), lessonFolders());
    if (!path) return std::unexpected(path.error());
    auto lesson = loadLesson(*path);
    if (!lesson) return std::unexpected(lesson.error());
    m_state = std::make_unique<explore::LessonState>(std::move(*lesson));
    show();
    raise();
    // Room for the bar and about six lines of text, at most 40 % of the window (1280x720 keeps
    // two thirds for the views).
    const int lines = QFontMetrics(m_text->font()).lineSpacing() * 6 + m_previous->sizeHint().height() * 2;
    if (!isFloating() && m_window->dockWidgetArea(this) == Qt::BottomDockWidgetArea)
        m_window->resizeDocks({this}, {std::min(lines, m_window->height() * 2 / 5)}, Qt::Vertical);
    showStep();
    emit lessonChanged();
    return {};
}

void LessonPanel::chooseLesson() {
    QDialog dialog(m_window);
    dialog.setWindowTitle(u"Lessons"_s);
    auto* list = new QListWidget(&dialog);
    // The folders are read off the UI thread, titles only (a lesson's steps and the files they
    // name are read when it is opened): the dialog shows at once and fills when they are read.
    auto* reading = new QListWidgetItem(u"Reading the lessons folders…"_s, list);
    reading->setFlags(reading->flags() & ~Qt::ItemIsEnabled);
    QFutureWatcher<std::vector<LessonEntry>> watcher;
    connect(&watcher, &QFutureWatcher<std::vector<LessonEntry>>::finished, &dialog, [&] {
        list->clear();
        for (const LessonEntry& e : watcher.result()) {
            auto* item = new QListWidgetItem(list);
            if (e.error.empty()) {
                item->setText(u"%1  (%2 steps)%3"_s.arg(QString::fromStdString(e.title))
                                  .arg(e.steps)
                                  .arg(e.user ? u"  · your folder"_s : u""_s));
                item->setToolTip(QString::fromStdString(e.description + "\n" + e.path));
            } else {
                item->setText(u"%1: cannot be read"_s.arg(QString::fromStdString(e.name)));
                item->setToolTip(QString::fromStdString(e.error));
                item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
            }
            item->setData(Qt::UserRole, QString::fromStdString(e.path));
        }
        if (list->count() == 0) {
            auto* none = new QListWidgetItem(u"No lessons found."_s, list);
            none->setFlags(none->flags() & ~Qt::ItemIsEnabled);
        } else {
            list->setCurrentRow(0);
        }
        emit lessonsListed();
    });
    watcher.setFuture(runInBackground([] { return listLessons(lessonFolders()); }));
    const QString user = QString::fromStdString(userLessonDir().string());
    auto* hint = new QLabel(
        u"Your own lessons go in %1 (the format is in docs/LESSONS.md). "
        "Page Down / Page Up step through a lesson."_s.arg(user.toHtmlEscaped()),
        &dialog);
    hint->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, &dialog);
    auto* file = buttons->addButton(u"Open file…"_s, QDialogButtonBox::ActionRole);
    auto* column = new QVBoxLayout(&dialog);
    column->addWidget(list, 1);
    column->addWidget(hint);
    column->addWidget(buttons);
    dialog.resize(640, 360);
    QString chosen;
    connect(buttons, &QDialogButtonBox::accepted, &dialog, [&] {
        if (list->currentItem() && (list->currentItem()->flags() & Qt::ItemIsEnabled))
            chosen = list->currentItem()->data(Qt::UserRole).toString();
        dialog.accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    connect(list, &QListWidget::itemActivated, &dialog, [&](QListWidgetItem* item) {
        chosen = item->data(Qt::UserRole).toString();
        dialog.accept();
    });
    connect(file, &QPushButton::clicked, &dialog, [&] {
        const QString path =
            QFileDialog::getOpenFileName(&dialog, u"Open lesson"_s, user, u"Lessons (*.lesson.json);;JSON (*.json)"_s);
        if (path.isEmpty()) return;
        chosen = path;
        dialog.accept();
    });
    // Not waited for: should the listing still run when the dialog closes, its result is
    // dropped with the watcher (the future's state outlives both).
    if (dialog.exec() != QDialog::Accepted || chosen.isEmpty()) return;
    if (auto ok = openLesson(chosen); !ok)
        emit failed(u"Cannot open lesson"_s, QString::fromStdString(ok.error().message));
}

void LessonPanel::closeLesson() {
    m_state.reset();
    m_window->gridView()->setLessonMark({});
    m_window->detailView()->setLessonCell(-1, 0, 0);
    m_window->curvesView()->setLessonHeads({});
    m_window->stagesView()->setLessonMark({});
    m_window->compareView()->setLessonMark({});
    m_window->extrapolationView()->setLessonMark({});
    m_window->attentionPage()->setLessonMark({});
    hide();
    emit lessonChanged();
}

bool LessonPanel::next() {
    if (!m_state || !m_state->next()) return false;
    showStep();
    return true;
}

bool LessonPanel::previous() {
    if (!m_state || !m_state->previous()) return false;
    showStep();
    return true;
}

void LessonPanel::backToStep() {
    if (m_state) showStep();
}

QString LessonPanel::counterText() const {
    return m_counter->text();
}
QString LessonPanel::noteText() const {
    return m_note->isHidden() ? QString() : m_note->text();
}

void LessonPanel::showStep() {
    const LessonStep& step = m_state->step();
    const Lesson& lesson = m_state->lesson();
    updateTitle();
    m_title->setText(QString::fromStdString(step.title.empty() ? lesson.title : step.title));
    m_counter->setText(QString::fromStdString(m_state->counter()));
    m_stepHtml.clear();
    setStepHtml();
    fitText();
    m_previous->setEnabled(!m_state->atFirst());
    m_next->setEnabled(!m_state->atLast());

    // The model holds the parameters (with Compare's B) and the window the view, as when a
    // session file opens; setSession is one undoable edit.
    Session parameters = step.session;
    parameters.view.reset();
    parameters.compare = sessionCompare(compareSpecOf(parameters.compare));
    m_window->model()->setSession(parameters);
    m_window->extrapolationView()->setTrainLength(parameters.trainLength);
    if (step.explorerView) {
        m_window->applyView(step.session);
        m_note->clear();
        m_note->hide();
    } else if (const int view = attentionViewIndex(step.view); view >= 0 && !step.attentionMaps.empty()) {
        AttentionMapsPage::LessonTarget target;
        target.path = QString::fromStdString(step.attentionMaps);
        target.layerNumber = step.layer;
        target.view = view;
        target.head = step.session.head;
        target.row = step.session.queryRow;
        target.rowPlot = step.view == "attention-row";
        m_window->attentionPage()->showLessonTarget(target);
        m_window->tabs()->setCurrentIndex(MainWindow::AttentionTab);
        m_note->clear();
        m_note->hide();
    } else {
        QString note =
            u"This step opens %1 (view “%2”), which this explorer does not have yet; the text "
            "describes what it shows."_s.arg(missingViewName(step.view), QString::fromStdString(step.view));
        if (!step.attentionMaps.empty())
            note += u" File: %1, layer %2."_s.arg(QFileInfo(QString::fromStdString(step.attentionMaps)).fileName())
                        .arg(step.layer);
        m_note->setText(note);
        m_note->show();
    }
    applyHighlight();
    updateBackButton();
}

void LessonPanel::applyHighlight() {
    const LessonStep& step = m_state->step();
    // The core decides which views a step marks: a step over a model's attention maps marks
    // those views, not the ALiBi views beside them, and the other way round.
    const LessonMark mark = explore::lessonMark(step, explore::LessonMarkScope::ExplorerViews);
    m_window->gridView()->setLessonMark(mark);
    m_window->detailView()->setLessonCell(mark.cellHead, mark.query, mark.key);
    m_window->curvesView()->setLessonHeads(mark.heads);
    m_window->stagesView()->setLessonMark(mark);
    m_window->compareView()->setLessonMark(mark);
    m_window->extrapolationView()->setLessonMark(mark);
    m_window->attentionPage()->setLessonMark(explore::lessonMark(step, explore::LessonMarkScope::AttentionMaps));
}

void LessonPanel::updateBackButton() {
    m_back->setEnabled(m_state && m_state->changedFrom(m_window->model()->session()));
}

bool LessonPanel::arrowsAllowed() const {
    const QWidget* focus = QApplication::focusWidget();
    if (focus == nullptr) return true;
    if (usesArrows(focus)) return false;
    return isAncestorOf(focus) || focus == this || m_window->tabs()->isAncestorOf(focus) || focus == m_window->tabs() ||
           focus == m_window;
}

bool LessonPanel::eventFilter(QObject* watched, QEvent* event) {
    // Page Up / Page Down are the presenter's while a lesson is open: a view's own shortcut for
    // them (the Attention maps page steps its layers) must not take the key before it arrives.
    if (m_state && event->type() == QEvent::ShortcutOverride) {
        const auto* key = static_cast<QKeyEvent*>(event);
        const auto* widget = qobject_cast<QWidget*>(watched);
        if ((key->key() == Qt::Key_PageDown || key->key() == Qt::Key_PageUp) &&
            (key->modifiers() & ~Qt::KeypadModifier) == Qt::NoModifier && widget != nullptr &&
            widget->window() == m_window) {
            event->accept();
            return true;
        }
        return false;
    }
    if (!m_state || event->type() != QEvent::KeyPress) return false;
    auto* widget = qobject_cast<QWidget*>(watched);
    // Keys typed into another window (a dialog, a menu) are theirs.
    if (widget == nullptr || (widget->window() != m_window && widget->window() != window()) ||
        QApplication::activeModalWidget() != nullptr || QApplication::activePopupWidget() != nullptr)
        return false;
    const auto* key = static_cast<QKeyEvent*>(event);
    if ((key->modifiers() & ~Qt::KeypadModifier) != Qt::NoModifier) return false;
    switch (key->key()) {
        case Qt::Key_PageDown:
            next();
            return true;
        case Qt::Key_PageUp:
            previous();
            return true;
        case Qt::Key_Right:
            if (!arrowsAllowed()) return false;
            next();
            return true;
        case Qt::Key_Left:
            if (!arrowsAllowed()) return false;
            previous();
            return true;
        default:
            return false;
    }
}

}  // namespace alibi::qt
