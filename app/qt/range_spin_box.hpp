// A spin box that never drops a keystroke (issue 25): QSpinBox refuses, key by key, any text
// whose value would leave its range, so typing 100000 into Heads H (1..4096) gave 1000 and
// 2147483648 into Length T gave 214748, without a word. Here a whole number of any size stays as
// typed (an intermediate input); when it is committed (Enter, leaving the box, the typing pause)
// and out of range, `refused` receives the text, the box keeps its previous value, and the panel
// shows the core's message (alibi/explore/field_ranges.hpp) at the field.
#pragma once

#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>

#include <functional>

namespace alibi::qt {

class RangeSpinBox : public QSpinBox {
public:
    using QSpinBox::QSpinBox;

    // Called with the committed text when it is a whole number outside the range.
    std::function<void(const QString& typed)> refused;

    // The editor holds a whole number (of any size), perhaps outside the range.
    [[nodiscard]] bool holdsWholeNumber() const { return isWholeNumber(lineEdit()->text()); }

protected:
    QValidator::State validate(QString& text, int& pos) const override {
        const QValidator::State state = QSpinBox::validate(text, pos);
        if (state != QValidator::Invalid) return state;
        return isWholeNumber(text) ? QValidator::Intermediate : state;
    }

    void fixup(QString& input) const override {
        if (refused && isWholeNumber(input)) refused(input);
        QSpinBox::fixup(input);
    }

private:
    [[nodiscard]] bool isWholeNumber(QString text) const {
        if (!prefix().isEmpty() && text.startsWith(prefix())) text.remove(0, prefix().size());
        if (!suffix().isEmpty() && text.endsWith(suffix())) text.chop(suffix().size());
        text = text.trimmed();
        if (text.startsWith(u'-') || text.startsWith(u'+')) text.remove(0, 1);
        if (text.isEmpty() || text.size() > 40) return false;
        for (const QChar c : text)
            if (!c.isDigit()) return false;
        return true;
    }
};

// The same for a decimal box (max_bias B, sigma, temperature): QDoubleSpinBox refuses, key by
// key, a number outside its range (5000 into max_bias gave 500, 0.0000001 into the temperature
// gave 0.000000), so such a number stays as typed and is refused, with the core's message, when
// it is committed. A number inside the range with more decimals than the box shows is still
// refused key by key (it is not out of range).
class RangeDoubleSpinBox : public QDoubleSpinBox {
public:
    using QDoubleSpinBox::QDoubleSpinBox;

    // Called with the committed text when it is a number outside the range.
    std::function<void(const QString& typed)> refused;

    // The editor holds a number outside the range.
    [[nodiscard]] bool holdsNumberOutOfRange() const { return outOfRange(lineEdit()->text()); }

protected:
    QValidator::State validate(QString& text, int& pos) const override {
        const QValidator::State state = QDoubleSpinBox::validate(text, pos);
        if (state != QValidator::Invalid) return state;
        return outOfRange(text) ? QValidator::Intermediate : state;
    }

    void fixup(QString& input) const override {
        if (refused && outOfRange(input)) refused(input);
        QDoubleSpinBox::fixup(input);
    }

private:
    [[nodiscard]] bool outOfRange(QString text) const {
        if (!prefix().isEmpty() && text.startsWith(prefix())) text.remove(0, prefix().size());
        if (!suffix().isEmpty() && text.endsWith(suffix())) text.chop(suffix().size());
        text = text.trimmed();
        if (text.isEmpty() || text.size() > 40) return false;
        bool ok = false;
        double v = locale().toDouble(text, &ok);
        if (!ok) v = text.toDouble(&ok);
        return ok && (v < minimum() || v > maximum());
    }
};

}  // namespace alibi::qt
