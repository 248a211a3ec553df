// NumberTable: lazily formatted numeric cells.
#include "number_table.hpp"

namespace alibi::qt {

void NumberTable::setColumns(QStringList headers, std::vector<Format> formats, std::vector<Shade> shades) {
    beginResetModel();
    m_headers = std::move(headers);
    m_formats = std::move(formats);
    m_shades = std::move(shades);
    m_values.clear();
    endResetModel();
}

void NumberTable::setValues(std::vector<std::vector<double>> values) {
    beginResetModel();
    m_values = std::move(values);
    endResetModel();
}

QVariant NumberTable::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const auto& row = m_values[static_cast<std::size_t>(index.row())];
    if (static_cast<std::size_t>(index.column()) >= row.size()) return {};
    const double v = row[static_cast<std::size_t>(index.column())];
    const auto column = static_cast<std::size_t>(index.column());
    switch (role) {
        case Qt::DisplayRole:
            if (m_rowCells) return m_rowCells(index.row(), index.column()).text;
            return column < m_formats.size() && m_formats[column] ? m_formats[column](v) : QString::number(v);
        case Qt::UserRole:
            return v;
        case Qt::TextAlignmentRole:
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        case Qt::BackgroundRole:
            if (m_rowCells) {
                const QColor c = m_rowCells(index.row(), index.column()).background;
                return c.isValid() ? QVariant(c) : QVariant();
            }
            if (column < m_shades.size() && m_shades[column]) {
                const QColor c = m_shades[column](v);
                if (c.isValid()) return c;
            }
            return {};
        default:
            return {};
    }
}

QVariant NumberTable::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role == Qt::ToolTipRole && orientation == Qt::Horizontal)
        return section < m_headerToolTips.size() ? m_headerToolTips[section] : QVariant();
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Horizontal) return section < m_headers.size() ? m_headers[section] : QVariant();
    return section < m_rowHeaders.size() ? m_rowHeaders[section] : QVariant(section);
}

}  // namespace alibi::qt
