// The "Recent files" menu: the last sessions and tensors opened, kept in QSettings
// ("recentFiles", newest first, at most eight), each with an Alt+Shift+N shortcut.
#pragma once

#include <QObject>
#include <QString>

#include <functional>

class QMenu;

namespace alibi::qt {

class RecentFiles : public QObject {
    Q_OBJECT
public:
    // `open` is called with the absolute path of the entry the user picked.
    RecentFiles(std::function<void(const QString&)> open, QObject* parent = nullptr);

    // The menu to fill; rebuilt now and after every change.
    void setMenu(QMenu* menu);
    void add(const QString& path);
    void remove(const QString& path);

private:
    void rebuildMenu();

    std::function<void(const QString&)> m_open;
    QMenu* m_menu = nullptr;
};

}  // namespace alibi::qt
