// Recent files: the list lives in QSettings so every window and the next start see it.
#include "recent_files.hpp"

#include <QFileInfo>
#include <QKeySequence>
#include <QMenu>
#include <QSettings>
#include <QStringList>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {

constexpr int kMaxRecent = 8;

}  // namespace

RecentFiles::RecentFiles(std::function<void(const QString&)> open, QObject* parent)
    : QObject(parent), m_open(std::move(open)) {}

void RecentFiles::setMenu(QMenu* menu) {
    m_menu = menu;
    rebuildMenu();
}

void RecentFiles::add(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value(u"recentFiles"_s).toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecent) recent.removeLast();
    settings.setValue(u"recentFiles"_s, recent);
    rebuildMenu();
}

void RecentFiles::remove(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value(u"recentFiles"_s).toStringList();
    if (recent.removeAll(QFileInfo(path).absoluteFilePath()) == 0) return;
    settings.setValue(u"recentFiles"_s, recent);
    rebuildMenu();
}

void RecentFiles::rebuildMenu() {
    if (!m_menu) return;
    m_menu->clear();
    const QStringList recent = QSettings().value(u"recentFiles"_s).toStringList();
    int n = 0;
    for (const QString& path : recent) {
        ++n;
        m_menu->addAction(u"&%1 %2"_s.arg(n).arg(QFileInfo(path).fileName()), QKeySequence(u"Alt+Shift+%1"_s.arg(n)),
                          this, [this, path] { m_open(path); });
    }
    m_menu->setEnabled(!recent.isEmpty());
}

}  // namespace alibi::qt
