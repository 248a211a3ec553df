// A read-only table of numbers for QTableView: values are stored as doubles and formatted only
// when a cell is drawn, so a table of thousands of heads updates in well under a millisecond.
// Qt::UserRole gives the raw value (for sorting and tests).
#pragma once

#include <QAbstractTableModel>
#include <QColor>
#include <QStringList>

#include <functional>
#include <vector>

namespace alibi::qt {

class NumberTable : public QAbstractTableModel {
    Q_OBJECT
public:
    using Format = std::function<QString(double)>;
    using Shade = std::function<QColor(double)>;  // background; invalid QColor: none

    explicit NumberTable(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

    void setColumns(QStringList headers, std::vector<Format> formats, std::vector<Shade> shades = {});
    void setRowHeaders(QStringList headers) { m_rowHeaders = std::move(headers); }
    // What each column means, shown when the mouse rests on its header.
    void setHeaderToolTips(QStringList tips) { m_headerToolTips = std::move(tips); }
    // A table of records (the fit table's heads): each cell's text and background from its row's
    // record rather than from its number alone (the core's text for the record); the numbers
    // still sort. Set, it takes the place of the columns' formats and shades.
    struct Cell {
        QString text;
        QColor background;  // invalid: none
    };
    void setRowCells(std::function<Cell(int row, int column)> cells) { m_rowCells = std::move(cells); }
    // values[row][column]
    void setValues(std::vector<std::vector<double>> values);
    [[nodiscard]] double value(int row, int column) const {
        return m_values[static_cast<std::size_t>(row)][static_cast<std::size_t>(column)];
    }

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : static_cast<int>(m_values.size());
    }
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : static_cast<int>(m_headers.size());
    }
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QStringList m_headers, m_rowHeaders, m_headerToolTips;
    std::vector<Format> m_formats;
    std::vector<Shade> m_shades;
    std::vector<std::vector<double>> m_values;
    std::function<Cell(int, int)> m_rowCells;
};

}  // namespace alibi::qt
