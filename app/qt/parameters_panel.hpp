// The always-visible parameters panel: every session parameter as a control, each with an
// error line under it that shows the core's message when a value is refused.
#pragma once

#include "model/presets.hpp"
#include "model/session_model.hpp"

#include <QHash>

#include <QWidget>

class QAbstractSpinBox;
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

    // How long a typed number waits for the next key before it applies (Enter and leaving the
    // box apply at once).
    static constexpr int kTypingPauseMs = 900;

    // T slider positions: the core's coarse log2 scale (explore/length_control.hpp: 100 steps per
    // doubling, 1 .. kMaxLength = 1,048,576).
    [[nodiscard]] static int lengthToSlider(std::int64_t t);
    [[nodiscard]] static std::int64_t sliderToLength(int position);

    // The controls, for tests and the storm test.
    QSlider* headsSlider;
    QSpinBox* headsBox;
    QSlider* lengthSlider;
    // Linear over a window of consecutive lengths around T (one value per pixel at least), which
    // follows T: with the coarse slider every T is reachable by mouse (issue 27).
    QSlider* lengthFine;
    QSpinBox* lengthBox;
    QSpinBox* keysBox;
    QComboBox* presetBox;
    QComboBox* modeBox;
    QComboBox* schemeBox;
    QDoubleSpinBox* maxBiasBox;
    QComboBox* arithBox;
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
    // Batch (the session's `batch` section) and the batch row the views show.
    QLineEdit* lengthsEdit;
    QComboBox* paddingBox;
    QLineEdit* documentsEdit;
    QSpinBox* windowBox;
    QSpinBox* prefixBox;
    QComboBox* positionsBox;
    QSpinBox* batchRowBox;

protected:
    // The wheel over an unfocused control scrolls the panel instead of changing the value.
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void guardControls();
    // The fine T slider's window, kept or re-centred on T by the core's rule.
    void followLengthWindow(std::int64_t t);
    // Shift+arrow on a T control: T to the next power of two (the core's stepValue).
    bool stepLengthByPowerOfTwo(QWidget* control, int key);
    void commitAfterPause(QAbstractSpinBox* box);
    QLabel* errorLabel(const QString& field);
    void showError(const QString& field, const QString& message);
    void applyMask();
    // Enter, or leaving the field after typing, applies a batch list once.
    void applyListOnCommit(QLineEdit* edit, bool (SessionModel::*setter)(const QString&));

    SessionModel* m_model;
    std::vector<Preset> m_presets;
    QHash<QString, QLabel*> m_errors;
    QLabel* m_presetSource = nullptr;
};

}  // namespace alibi::qt
