// The lesson panel: a guided lesson (alibi/io/lesson.hpp) shown in a dock under the views, in
// text large enough for the back of a room (A− / A+ change it), with Previous / Next, the step
// counter, "Back to the step" and Close. Page Up / Page Down always step (presenter remotes send
// them, even while a spin box has focus); Left / Right step when the lesson panel or a view has
// focus, never while a field that uses the arrows is being edited. A step applies its parameters
// through the model as one undoable edit, opens its view and draws its highlight in the views.
#pragma once

#include <alibi/explore/lesson_state.hpp>

#include <QDockWidget>

#include <memory>
#include <optional>

class QFont;
class QGridLayout;
class QLabel;
class QPushButton;
class QTextBrowser;

namespace alibi::qt {

class MainWindow;

class LessonPanel : public QDockWidget {
    Q_OBJECT
public:
    explicit LessonPanel(MainWindow* window);
    ~LessonPanel() override;

    // Opens a lesson by name ("slopes", "02-slopes") or path and shows its first step.
    Result<void> openLesson(const QString& nameOrPath);
    // Help > Lessons: the lessons found (built-in and the user's folder), or a file; opens the choice.
    void chooseLesson();
    void closeLesson();

    bool next();
    bool previous();
    // Applies the current step again: its parameters (one undoable edit), its view, its highlight.
    void backToStep();

    [[nodiscard]] bool active() const { return m_state != nullptr; }
    [[nodiscard]] const explore::LessonState* state() const { return m_state.get(); }
    [[nodiscard]] QString counterText() const;
    [[nodiscard]] QString noteText() const;  // the note shown when the step's view is missing
    [[nodiscard]] QPushButton* backButton() const { return m_back; }
    [[nodiscard]] QTextBrowser* textView() const { return m_text; }
    [[nodiscard]] double textPointSize() const { return m_textPt; }
    void setTextPointSize(double pt);
    // In a side column (presentation mode puts the lesson beside the views, tabbed with the
    // Parameters), the bar's title, steps and size buttons go on rows of their own.
    void setColumnLayout(bool column);
    // The step's whole text shown: the dock as tall as it needs (in the bottom area, up to 45 %
    // of the window), and where that is not enough the text a little smaller for this step.
    void fitText();
    // The smallest size fitText shrinks the lesson text to: the interface's, a little larger.
    [[nodiscard]] static double textFloorPt();
    // "Lesson: its title" under the views, "Lesson" as a tab of the side column.
    void updateTitle();
    [[nodiscard]] double shownTextPointSize() const { return m_shownPt; }
    // A step's text as the panel shows it in lines `width` px wide at `font`: paragraphs, each
    // formula whole (the core's keepFormulasWhole) where it fits a line; one wider than the line
    // breaks only at its own spaces, never inside a number or a name (Qt broke it anywhere).
    [[nodiscard]] static QString paragraphsHtml(const std::string& text, const QFont& font, int width);

signals:
    void failed(const QString& title, const QString& message);
    // A lesson was opened or closed.
    void lessonChanged();
    // Help > Lessons filled its list (read off the UI thread).
    void lessonsListed();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void showStep();
    void setStepHtml();  // the step's text for the text view's width and font
    void applyHighlight();
    void updateBackButton();
    [[nodiscard]] bool arrowsAllowed() const;

    MainWindow* m_window;
    std::unique_ptr<explore::LessonState> m_state;
    QString m_stepHtml;  // what the text view was last given
    QLabel* m_title;
    QLabel* m_counter;
    QLabel* m_note;
    QTextBrowser* m_text;
    QPushButton* m_previous;
    QPushButton* m_next;
    QPushButton* m_back;
    QPushButton* m_smaller;
    QPushButton* m_larger;
    QPushButton* m_close;
    QGridLayout* m_bar;
    double m_textPt = 0;
    double m_shownPt = 0;
    bool m_column = false;
    bool m_fitting = false;
};

}  // namespace alibi::qt
