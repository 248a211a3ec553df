// What a lesson step points at, for the views that draw it (head grid, stages, compare,
// extrapolation, the attention-map views): the heads, and one cell (query, key) of cellHead. The
// orange is the head grid's.
#pragma once

#include <alibi/explore/lesson_state.hpp>

#include <QColor>
#include <QFont>
#include <QIdentityProxyModel>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace alibi::qt {

// The core's mark of a lesson step (explore/lesson_state.hpp).
using LessonMark = explore::LessonMark;

inline QColor lessonOrange() {
    return {255, 140, 0};
}

// A table of one row per head with the lesson's heads marked: an orange background and bold
// text. The head of a row is the value of `headColumn` (Qt::UserRole), or the row number when -1.
class LessonRowsProxy : public QIdentityProxyModel {
public:
    explicit LessonRowsProxy(int headColumn, QObject* parent = nullptr)
        : QIdentityProxyModel(parent), m_column(headColumn) {}

    void setHeads(std::vector<int> heads) {
        if (heads == m_heads) return;
        m_heads = std::move(heads);
        if (rowCount() > 0 && columnCount() > 0)
            emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), {Qt::BackgroundRole, Qt::FontRole});
    }
    // Rows marked by a test of the row instead of the heads (a table of several layers' heads).
    void setRowTest(std::function<bool(int row)> test) {
        m_test = std::move(test);
        if (rowCount() > 0 && columnCount() > 0)
            emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), {Qt::BackgroundRole, Qt::FontRole});
    }
    [[nodiscard]] bool marksRow(int row) const {
        if (m_test) return m_test(row);
        if (m_heads.empty()) return false;
        const int head = m_column < 0 ? row : index(row, m_column).data(Qt::UserRole).toInt();
        return std::find(m_heads.begin(), m_heads.end(), head) != m_heads.end();
    }
    [[nodiscard]] QVariant data(const QModelIndex& proxyIndex, int role) const override {
        if ((role == Qt::BackgroundRole || role == Qt::FontRole) && proxyIndex.isValid() &&
            marksRow(proxyIndex.row())) {
            if (role == Qt::FontRole) {
                QFont bold;
                bold.setBold(true);
                return bold;
            }
            QColor orange = lessonOrange();
            orange.setAlpha(150);
            return orange;
        }
        return QIdentityProxyModel::data(proxyIndex, role);
    }
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation, int role) const override {
        if (orientation == Qt::Vertical && role == Qt::BackgroundRole && marksRow(section)) return lessonOrange();
        return QIdentityProxyModel::headerData(section, orientation, role);
    }

private:
    int m_column;
    std::vector<int> m_heads;
    std::function<bool(int row)> m_test;
};

}  // namespace alibi::qt
