// The main window's sessions and settings: opening a session file in the background, saving it
// (asking when it changed on disk), the last session in the settings, unsaved changes, and the
// open view saved with the parameters.
#include "main_window.hpp"

#include "compare_view.hpp"
#include "diagnose_view.hpp"
#include "extrapolation_view.hpp"
#include "recent_files.hpp"

#include <QCryptographicHash>
#include <QEventLoop>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolButton>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {

// The model's session: parameters and Compare's B (an undoable, saved choice), not the open tab.
Session parametersOnly(Session s) {
    s.view.reset();
    s.compare = sessionCompare(compareSpecOf(s.compare));
    return s;
}

// The bytes of a session file, hashed: what "changed on disk since it was opened" compares
// (a time stamp misses two saves within its resolution). Empty when it cannot be read. It runs
// on the UI thread before a save, so it reads only what a session can be (16 MiB, the core's
// limit): a larger file, or a pipe or device put at the path, hashes as "changed" at once.
QByteArray fileHash(const QString& path) {
    constexpr qint64 kMaxSessionBytes = qint64{16} << 20;
    const QFileInfo info(path);
    if (!info.isFile()) return {};
    if (info.size() > kMaxSessionBytes) return QByteArray("larger than a session: ") + QByteArray::number(info.size());
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QCryptographicHash::hash(file.read(kMaxSessionBytes), QCryptographicHash::Sha256);
}

}  // namespace

void MainWindow::startOpenSession(const QString& path) {
    if (openingSession()) cancelOpenSession();
    m_sessionPath = path;
    m_sessionProgress->setValue(0);
    m_sessionProgress->setToolTip(u"Reading "_s + QFileInfo(path).fileName());
    m_sessionProgress->show();
    m_sessionCancel->show();
    statusBar()->showMessage(u"Opening "_s + QFileInfo(path).fileName() + u"… (Cancel stops it)"_s);
    m_sessionRead->start([file = path.toStdString()](const ReadOptions& options) {
        SessionRead out;
        std::string bytes;
        auto session = loadSession(file, SessionReadOptions{.read = options, .bytes = &bytes});
        if (!session) {
            out.error = QString::fromStdString(session.error().message);
            out.cancelled = session.error().code == ErrorCode::Cancelled;
            return out;
        }
        out.session = std::move(*session);
        out.hash = QCryptographicHash::hash(QByteArrayView(bytes.data(), static_cast<qsizetype>(bytes.size())),
                                            QCryptographicHash::Sha256);
        return out;
    });
}

void MainWindow::cancelOpenSession() {
    if (!openingSession()) return;
    m_sessionRead->cancel();
    hideSessionProgress();
    statusBar()->showMessage(u"Opening "_s + QFileInfo(m_sessionPath).fileName() + u" cancelled; the parameters stay"_s,
                             8000);
    emit sessionOpenFinished(m_sessionPath, false);
}

void MainWindow::hideSessionProgress() {
    m_sessionProgress->hide();
    m_sessionCancel->hide();
}

void MainWindow::setReadObserver(const ReadProgressFn& observer) {
    m_sessionRead->setObserver(observer);
    m_diagnose->setReadObserver(observer);
}

void MainWindow::onSessionRead(const SessionRead& read) {
    const QString path = m_sessionPath;
    hideSessionProgress();
    statusBar()->clearMessage();
    const auto finish = [&](bool opened) { emit sessionOpenFinished(path, opened); };
    if (read.cancelled) {
        statusBar()->showMessage(u"Opening "_s + QFileInfo(path).fileName() + u" cancelled; the parameters stay"_s,
                                 8000);
        return finish(false);
    }
    if (!read.session) {
        reportError(u"Cannot open session"_s, read.error);
        m_recent->remove(path);
        return finish(false);
    }
    // The model holds the parameters; the view fields go to the window.
    if (!m_model->loadSession(parametersOnly(*read.session))) {
        m_recent->remove(path);
        return finish(false);
    }
    m_extrapolation->setTrainLength(read.session->trainLength);
    applyView(*read.session);
    setCurrentFile(path);
    m_currentFileHash = read.hash;
    m_recent->add(path);
    finish(true);
}

bool MainWindow::openSession(const QString& path) {
    if (openingSession()) cancelOpenSession();
    bool opened = false;
    QEventLoop loop;
    const auto connection =
        connect(this, &MainWindow::sessionOpenFinished, &loop, [&](const QString& finished, bool ok) {
            if (finished != path) return;
            opened = ok;
            loop.quit();
        });
    startOpenSession(path);
    loop.exec();
    disconnect(connection);
    return opened;
}

bool MainWindow::saveSessionTo(const QString& path) {
    // Three explorers saving one session: the last writer won without a word (issue 25).
    if (!m_currentFile.isEmpty() && QFileInfo(path) == QFileInfo(m_currentFile) && !m_currentFileHash.isEmpty() &&
        QFileInfo::exists(path) && fileHash(path) != m_currentFileHash) {
        const QString name = QFileInfo(path).fileName();
        ChangedOnDiskChoice choice = ChangedOnDiskChoice::Cancel;
        if (m_changedPrompt) {
            choice = m_changedPrompt(path);
        } else if (m_interactive && !m_screenshotMode) {
            QMessageBox box(QMessageBox::Warning, u"Session changed on disk"_s,
                            u"%1 changed on disk since it was opened here (another window or program saved "
                            "it)."_s.arg(name),
                            QMessageBox::Cancel, this);
            box.setInformativeText(
                u"Overwrite it with this window's session, or reload it (this window's changes "
                "are dropped)?"_s);
            QPushButton* overwrite = box.addButton(u"Overwrite"_s, QMessageBox::AcceptRole);
            QPushButton* reload = box.addButton(u"Reload"_s, QMessageBox::DestructiveRole);
            box.setDefaultButton(QMessageBox::Cancel);
            box.exec();
            choice = box.clickedButton() == overwrite ? ChangedOnDiskChoice::Overwrite
                     : box.clickedButton() == reload  ? ChangedOnDiskChoice::Reload
                                                      : ChangedOnDiskChoice::Cancel;
        } else {
            reportError(
                u"Cannot save session"_s,
                u"%1 changed on disk since it was opened here; reload it or save under another name"_s.arg(path));
            return false;
        }
        if (choice == ChangedOnDiskChoice::Cancel) return false;
        if (choice == ChangedOnDiskChoice::Reload) return openSession(path);
    }
    if (auto ok = saveSession(sessionWithView(), path.toStdString()); !ok) {
        reportError(u"Cannot save session"_s, QString::fromStdString(ok.error().message));
        return false;
    }
    m_model->markSaved();
    setCurrentFile(path);
    m_currentFileHash = fileHash(path);
    m_recent->add(path);
    statusBar()->showMessage(u"Saved "_s + path, 4000);
    return true;
}

void MainWindow::restoreLastSession() {
    const QString text = QSettings().value(u"session"_s).toString();
    if (text.isEmpty()) return;
    auto session = parseSession(text.toStdString());
    if (session && validateSession(*session)) {
        m_model->loadSession(parametersOnly(*session));
        m_extrapolation->setTrainLength(session->trainLength);
        applyView(*session);
    }
}

void MainWindow::setCurrentFile(const QString& path) {
    m_currentFile = path;
    // [*] shows the modified mark (setWindowModified follows the model's history). The title ends
    // with the application's display name, so Qt does not append it a second time ("ALiBi
    // Explorer* — ALiBi Explorer").
    setWindowTitle((path.isEmpty() ? u"untitled"_s : QFileInfo(path).fileName()) + u"[*] — ALiBi Explorer"_s);
    setWindowModified(m_model->modified());
}

void MainWindow::scheduleSave() {
    m_saveTimer.start();
}

void MainWindow::saveToSettings() {
    QSettings settings;
    settings.setValue(u"session"_s, QString::fromStdString(serializeSession(sessionWithView())));
}

bool MainWindow::confirmDiscard() {
    if (!m_model->modified()) return true;
    DiscardChoice choice = DiscardChoice::Cancel;
    if (m_discardPrompt) {
        choice = m_discardPrompt();
    } else if (!m_interactive || m_screenshotMode) {
        return true;  // nobody to ask (screenshots, the storm test)
    } else {
        const auto answer = QMessageBox::question(
            this, u"Unsaved changes"_s,
            u"The parameters of %1 have changed. Save them before going on?"_s.arg(
                m_currentFile.isEmpty() ? u"this session"_s : QFileInfo(m_currentFile).fileName()),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
        choice = answer == QMessageBox::Save      ? DiscardChoice::Save
                 : answer == QMessageBox::Discard ? DiscardChoice::Discard
                                                  : DiscardChoice::Cancel;
    }
    if (choice == DiscardChoice::Cancel) return false;
    if (choice == DiscardChoice::Discard) return true;
    QString path = m_currentFile;
    if (path.isEmpty())
        path = QFileDialog::getSaveFileName(this, u"Save session"_s, u"session.alibi.json"_s,
                                            u"ALiBi sessions (*.alibi.json)"_s);
    return !path.isEmpty() && saveSessionTo(path);
}

Session MainWindow::sessionWithView() const {
    Session s = m_model->session();
    static constexpr ExplorerView kTabViews[TabCount] = {
        ExplorerView::Grid,    ExplorerView::Detail,        ExplorerView::Curves,   ExplorerView::Stages,
        ExplorerView::Compare, ExplorerView::Extrapolation, ExplorerView::Diagnose, ExplorerView::PositionSchemes,
        ExplorerView::Grid,    ExplorerView::Grid};
    s.view = kTabViews[std::clamp(m_tabs->currentIndex(), 0, TabCount - 1)];
    s.compare = m_compare->spec();
    return s;
}

int MainWindow::tabOf(ExplorerView view) {
    switch (view) {
        case ExplorerView::Grid:
            return MainWindow::GridTab;
        case ExplorerView::Detail:
            return MainWindow::DetailTab;
        case ExplorerView::Curves:
            return MainWindow::CurvesTab;
        case ExplorerView::Stages:
        case ExplorerView::Stats:
            return MainWindow::StagesTab;  // the stages view holds the row statistics
        case ExplorerView::Compare:
            return MainWindow::CompareTab;
        case ExplorerView::Extrapolation:
            return MainWindow::ExtrapolationTab;
        case ExplorerView::Diagnose:
            return MainWindow::DiagnoseTab;
        case ExplorerView::PositionSchemes:
            return MainWindow::PositionSchemesTab;
    }
    return MainWindow::GridTab;
}

void MainWindow::applyView(const Session& session) {
    const int tab = tabOf(openView(session));
    if (session.compare) {
        m_compare->setSpec(*session.compare);
        m_model->setCompareSpec(*session.compare);
    }
    m_tabs->setCurrentIndex(tab);
}

}  // namespace alibi::qt
