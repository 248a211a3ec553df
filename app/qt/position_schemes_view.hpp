// The "Position schemes" view (view id `position-schemes`): ALiBi's per-head bias beside RoPE,
// sinusoidal, T5, KERPLE and Sandwich on one distance axis, from the core's positionSchemeCurves.
// A table is the legend and the hover read-out (each curve's value at the hovered distance):
// beside the plot when it fits there whole, else under it; then every curve's formula and source. Controls: what to
// show (logit contribution or zero-content attention) and the maximum distance D. Only the ALiBi slopes come from the
// session; the curves cost O(D * 64) and are computed on the UI thread.
#pragma once

#include "model/snapshot.hpp"

#include <alibi/model/position_schemes.hpp>

#include <QWidget>

#include <optional>

class QBoxLayout;
class QComboBox;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace alibi::qt {

class PlotWidget;

class PositionSchemesView : public QWidget {
    Q_OBJECT
public:
    explicit PositionSchemesView(QWidget* parent = nullptr);
    void setSnapshot(const SnapshotPtr& snapshot);
    void setMaxDistance(int d);
    void setQuantity(SchemeQuantity quantity);
    // The read-out at distance d (what hovering the plot at d shows); nullopt clears it.
    void showDistance(std::optional<double> d);

    [[nodiscard]] const PositionSchemes& schemes() const { return m_schemes; }
    [[nodiscard]] PlotWidget* plot() const { return m_plot; }
    [[nodiscard]] QTableWidget* readout() const { return m_table; }
    [[nodiscard]] QLabel* formulas() const { return m_formulas; }
    [[nodiscard]] QString error() const { return m_error; }
    // Whether the table stands beside the plot (else under it).
    [[nodiscard]] bool tableBeside() const { return m_tableBeside; }

protected:
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void recompute();
    // The table beside the plot when its columns fit whole in 40 % of the width, else under it,
    // as wide as the view and up to 35 % of its height (the plot keeps the rest).
    void placeTable();

    PositionSchemesParams m_params;
    PositionSchemes m_schemes;
    bool m_dirty = false;  // the session's slopes changed while the view was hidden
    QString m_error;
    PlotWidget* m_plot;
    QTableWidget* m_table;
    QBoxLayout* m_middle;
    bool m_tableBeside = true;
    QLabel* m_formulas;
    QLabel* m_note;
    QComboBox* m_quantity;
    QSpinBox* m_maxDistance;
};

}  // namespace alibi::qt
