// The always-visible parameters panel: every session parameter as a control, each with an
// error line under it that shows the core's message when a value is refused.
#pragma once

#include "model/presets.hpp"
#include "model/session_model.hpp"

#include <QHash>
#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSlider;
class QSpinBox;

namespace alibi::qt {

class ParametersPanel : public QWidget {
    Q_OBJECT
public:
    ParametersPanel(SessionModel* model, std::vector<Preset> presets, QWidget* parent = nullptr);

    // Shows the model's session in the controls (without feeding changes back).
    void syncFromSession();
    [[nodiscard]] QString errorText(const QString& field) const;

    // T slider positions: 100 steps per doubling, 1 .. kMaxLength (1,048,576).
    [[nodiscard]] static int lengthToSlider(std::int64_t t);
    [[nodiscard]] static std::int64_t sliderToLength(int position);

    // The controls, for tests and the storm test.
    QSlider* headsSlider;
    QSpinBox* headsBox;
    QSlider* lengthSlider;
    QSpinBox* lengthBox;
    QSpinBox* keysBox;
    QComboBox* presetBox;
    QComboBox* modeBox;
    QComboBox* schemeBox;
    QDoubleSpinBox* maxBiasBox;
    QLineEdit* customEdit;
    QComboBox* maskBox;
    QComboBox* dtypeBox;
    QComboBox* layoutBox;
    QComboBox* contentBox;
    QDoubleSpinBox* sigmaBox;
    QSpinBox* dkBox;
    QSpinBox* seedBox;
    QDoubleSpinBox* temperatureBox;
    QSpinBox* queryRowBox;
    QComboBox* colormapBox;
    QComboBox* scaleBox;
    QComboBox* whatBox;

private:
    QLabel* errorLabel(const QString& field);
    void showError(const QString& field, const QString& message);
    void applyMask();

    SessionModel* m_model;
    std::vector<Preset> m_presets;
    QHash<QString, QLabel*> m_errors;
    QLabel* m_presetSource = nullptr;
};

}  // namespace alibi::qt
