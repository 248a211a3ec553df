// Issue 10, driven as a person would under the offscreen platform: typed numbers apply as a
// whole (Enter, leaving the box, a pause) and keep the dependent choices; the wheel scrolls the
// panel; undo, redo, reset, the modified mark and the unsaved-changes prompt; the export dialog
// says what it will write and refuses (with the CLI's words and a fix) what cannot work; custom
// slopes set H; zoom; sessions hold the view.
#include "compare_view.hpp"
#include "export_controller.hpp"
#include "extrapolation_view.hpp"
#include "main_window.hpp"
#include "parameters_panel.hpp"

#include <alibi/io/tensor_io.hpp>

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <QWheelEvent>
#include "patient_qtry.hpp"

#include <cmath>

using namespace alibi;
using namespace alibi::qt;

namespace {

// Select the box's text and type `text` the way a person does, without pressing Enter.
void typeInto(QAbstractSpinBox* box, const QString& text) {
    box->setFocus();
    QTest::keyClick(box, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(box, text);
}

void wheelOver(QWidget* w, int delta) {
    const QPointF local(w->width() / 2.0, w->height() / 2.0);
    QWheelEvent event(local, w->mapToGlobal(local), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &event);
}

QString assetSession(const char* name) {
    return QString(ALIBI_ASSETS_DIR) + "/sessions/" + name;
}

}  // namespace

class TestEdits : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("alibi-test");
        QCoreApplication::setApplicationName("alibi-explorer-test-edits");
        QSettings().clear();
    }

    // "Query row 40 at T = 128, then type 256 into Length T": the row stays 40.
    void typedLengthKeepsTheQueryRow() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        ParametersPanel* p = w.parameters();
        QVERIFY(w.model()->setQueries(128));
        QVERIFY(w.model()->setQueryRow(40));
        typeInto(p->lengthBox, "256");
        // Nothing applied while typing: T passed through 2 and 25 only in the box.
        QCOMPARE(w.model()->session().attention.bias.queries, std::int64_t{128});
        QTest::keyClick(p->lengthBox, Qt::Key_Return);
        QCOMPARE(w.model()->session().attention.bias.queries, std::int64_t{256});
        QCOMPARE(w.model()->session().queryRow, std::int64_t{40});
        QCOMPARE(p->queryRowBox->value(), 40);
    }

    // "Head 20 selected, then type 24 into Heads H": the head stays 20.
    void typedHeadsKeepTheSelectedHead() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.model()->setHeads(32));
        QVERIFY(w.model()->setSelectedHead(20));
        typeInto(w.parameters()->headsBox, "24");
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 32);
        // Leaving the box applies it too.
        w.parameters()->lengthBox->setFocus();
        QTRY_COMPARE(w.model()->session().attention.bias.slopes.heads, 24);
        QCOMPARE(w.model()->session().head, 20);
    }

    void aPauseAppliesTheTypedNumber() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        typeInto(w.parameters()->lengthBox, "64");
        QCOMPARE(w.model()->session().attention.bias.queries, std::int64_t{16});
        QTRY_COMPARE_WITH_TIMEOUT(w.model()->session().attention.bias.queries, std::int64_t{64},
                                  ParametersPanel::kTypingPauseMs * 3);
    }

    // An invalid dependent choice is clamped to the nearest valid one, with a note.
    void anInvalidQueryRowIsClampedWithANote() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.model()->setQueries(128));
        QVERIFY(w.model()->setQueryRow(100));
        QVERIFY(w.model()->setHeads(16));
        QVERIFY(w.model()->setSelectedHead(12));
        QSignalSpy notes(w.model(), &SessionModel::adjusted);
        typeInto(w.parameters()->lengthBox, "32");
        QTest::keyClick(w.parameters()->lengthBox, Qt::Key_Return);
        QCOMPARE(w.model()->session().queryRow, std::int64_t{31});
        QCOMPARE(notes.count(), 1);
        QVERIFY(notes.at(0).at(0).toString().contains("query row 100 → 31"));
        QVERIFY(w.statusBar()->currentMessage().contains("query row 100 → 31"));
        typeInto(w.parameters()->headsBox, "8");
        QTest::keyClick(w.parameters()->headsBox, Qt::Key_Return);
        QCOMPARE(w.model()->session().head, 7);
    }

    // The wheel over an unfocused combo scrolls the panel; the export layout stays.
    void wheelScrollsThePanelUnlessTheControlHasFocus() {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1280, 600);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        ParametersPanel* p = w.parameters();
        auto* area = qobject_cast<QScrollArea*>(p->parentWidget()->parentWidget());
        QVERIFY(area);
        QVERIFY(area->verticalScrollBar()->maximum() > 0);
        const int before = area->verticalScrollBar()->value();
        QCOMPARE(p->layoutBox->currentData().toInt(), int(Layout::Hqk));
        w.parameters()->headsSlider->setFocus();
        wheelOver(p->layoutBox, -120);
        wheelOver(p->layoutBox, -120);
        QCOMPARE(p->layoutBox->currentData().toInt(), int(Layout::Hqk));
        QCOMPARE(w.model()->session().attention.bias.layout, Layout::Hqk);
        QVERIFY(area->verticalScrollBar()->value() > before);
        // Spin boxes and sliders too.
        wheelOver(p->lengthBox, 120);
        wheelOver(p->headsBox, 120);
        QCOMPARE(w.model()->session().attention.bias.queries, std::int64_t{16});
        // A focused control takes the wheel.
        p->maxBiasBox->setFocus();
        wheelOver(p->maxBiasBox, 120);
        QCOMPARE(w.model()->session().attention.bias.slopes.maxBias, 8.5);
    }

    void undoRedoResetAndTheModifiedMark() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(!w.isWindowModified());
        typeInto(w.parameters()->headsBox, "12");
        QTest::keyClick(w.parameters()->headsBox, Qt::Key_Return);
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 12);
        QVERIFY(w.isWindowModified());
        QVERIFY(w.windowTitle().contains("[*]"));
        activate(w.parameters()->modeBox, int(BiasMode::Symmetric));
        QCOMPARE(w.model()->session().attention.bias.mode, BiasMode::Symmetric);

        QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w.model()->session().attention.bias.mode, BiasMode::Causal);
        QCOMPARE(w.parameters()->modeBox->currentData().toInt(), int(BiasMode::Causal));
        QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 8);
        QCOMPARE(w.parameters()->headsBox->value(), 8);
        QVERIFY(!w.isWindowModified());
        QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 12);
        QVERIFY(w.isWindowModified());

        // A slider drag is one step, however many values it passed.
        QSlider* slider = w.parameters()->headsSlider;
        emit slider->sliderPressed();
        for (int h : {13, 17, 25, 40}) slider->setValue(h);
        emit slider->sliderReleased();
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 40);
        QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 12);

        // Reset to defaults, itself undoable.
        QVERIFY(w.model()->setQueries(99));
        QTest::keyClick(&w, Qt::Key_R, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(w.model()->session() == defaultSession());
        QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w.model()->session().attention.bias.queries, std::int64_t{99});
    }

    void openAndQuitAskBeforeDiscarding() {
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        int asked = 0;
        MainWindow::DiscardChoice answer = MainWindow::DiscardChoice::Cancel;
        w.setDiscardPrompt([&] {
            ++asked;
            return answer;
        });
        QVERIFY(w.confirmDiscard());  // nothing changed: no question
        QCOMPARE(asked, 0);
        QVERIFY(w.model()->setHeads(5));
        QVERIFY(!w.confirmDiscard());
        QCOMPARE(asked, 1);
        w.close();  // cancelled: the window stays
        QVERIFY(w.isVisible());
        QCOMPARE(asked, 2);
        // Save: written to the current file, then nothing is modified.
        const QString path = dir.filePath("s.alibi.json");
        QVERIFY(w.saveSessionTo(path));
        QVERIFY(!w.isWindowModified());
        QVERIFY(w.model()->setHeads(6));
        answer = MainWindow::DiscardChoice::Save;
        QVERIFY(w.confirmDiscard());
        QCOMPARE(loadSession(path.toStdString())->attention.bias.slopes.heads, 6);
        QVERIFY(w.model()->setHeads(7));
        answer = MainWindow::DiscardChoice::Discard;
        QVERIFY(w.confirmDiscard());
        QVERIFY(w.openSession(path));
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 6);
        QVERIFY(!w.isWindowModified());
        QVERIFY(!w.model()->canUndo());
    }

    // The fp16-mask-overflow example through the export dialog: refused with the CLI's words,
    // fixed with one click, then written with finite masked entries.
    void f16ExportIsRefusedThenFixed() {
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(w.openSession(assetSession("fp16-mask-overflow.alibi.json")));
        const QString path = dir.filePath("bias.npy");
        bool refused = false, fixed = false;
        w.exportTensorDialog([&](ExportDialog& d) {
            d.pathEdit->setText(path);
            QVERIFY(d.plan());
            QVERIFY(d.summaryLabel->text().startsWith("(8, 16, 16) f16, layout hqk, npy: 4,224 bytes"));
            QVERIFY(d.summaryLabel->text().contains("free"));
            auto* ok = d.buttons->button(QDialogButtonBox::Ok);
            refused = !ok->isEnabled() && d.fixButton->isVisibleTo(&d) &&
                      d.problemLabel->text().contains(
                          "f16 cannot hold the mask -1e9: its largest finite value is 65504, so every masked entry "
                          "would be written as -inf. Use the mask min");
            QTest::mouseClick(d.fixButton, Qt::LeftButton);
            fixed = ok->isEnabled() && !d.fixButton->isVisibleTo(&d);
            QTest::mouseClick(ok, Qt::LeftButton);
        });
        QVERIFY(refused);
        QVERIFY(fixed);
        QCOMPARE(w.model()->session().attention.bias.mask.kind, MaskValue::Kind::Lowest);
        auto loaded = loadTensor(path.toStdString());
        QVERIFY(loaded);
        QCOMPARE(loaded->tensor.dtype(), DType::F16);
        QCOMPARE(loaded->tensor.at(1), -65504.0);  // (h 0, i 0, j 1) is masked
        for (std::uint64_t k = 0; k < loaded->tensor.size(); ++k) QVERIFY(std::isfinite(loaded->tensor.at(k)));
    }

    // H = 256, T = 65536 against a small file system: refused before a byte is written.
    void tooLargeExportIsRefused() {
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.show();
        std::string asked;
        w.setFreeSpaceQuery([&](const std::string& p) {
            asked = p;
            return std::optional<std::uint64_t>(std::uint64_t{1} << 20);  // a 1 MiB disk
        });
        QVERIFY(w.model()->setHeads(256));
        QVERIFY(w.model()->setQueries(65536));
        const QString path = dir.filePath("big.npy");
        QString problem;
        w.exportTensorDialog([&](ExportDialog& d) {
            d.pathEdit->setText(path);
            problem = d.problemLabel->text();
            QVERIFY(!d.buttons->button(QDialogButtonBox::Ok)->isEnabled());
            QVERIFY(!d.fixButton->isVisibleTo(&d));
            QTest::mouseClick(d.buttons->button(QDialogButtonBox::Ok), Qt::LeftButton);  // does nothing
            QVERIFY(d.isVisible());
            d.reject();
        });
        QCOMPARE(QString::fromStdString(asked), path);
        QVERIFY(problem.contains("needs 4.0 TiB"));
        QVERIFY(problem.contains("only 1.0 MiB (1,048,576 bytes) free"));
        auto result = w.exportTensorTo(path, ExportWhat::Bias, FileFormat::Npy);
        QVERIFY(!result);
        QCOMPARE(result.error().code, ErrorCode::TooLarge);
        QVERIFY(!QFile::exists(path));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 0);
    }

    void customSlopesSetH() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QLineEdit* edit = w.parameters()->customEdit;
        edit->setFocus();
        QTest::keyClicks(edit, "1/2, 0.25, 2^-3");
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 8);
        QTest::keyClick(edit, Qt::Key_Return);
        const auto& slopes = w.model()->session().attention.bias.slopes;
        QCOMPARE(slopes.scheme, SlopeScheme::Custom);
        QCOMPARE(slopes.heads, 3);
        QCOMPARE(slopes.custom, (std::vector<double>{0.5, 0.25, 0.125}));
        QCOMPARE(w.parameters()->headsBox->value(), 3);
        // Errors speak of the control, not of session-file fields or flags.
        edit->selectAll();
        QTest::keyClicks(edit, "0.5, -1");
        QTest::keyClick(edit, Qt::Key_Return);
        const QString error = w.parameters()->errorText("custom");
        QVERIFY2(error.startsWith("Custom slopes: '-1' is not a positive number"), qPrintable(error));
        QVERIFY(!error.contains("session field"));
        // H past the core's limit: the box's range is the core's (1..kMaxHeads); "5000" is kept as
        // typed and refused at the field, H stays 3 (issue 25: it used to stop silently at "500").
        w.parameters()->headsBox->setFocus();
        typeInto(w.parameters()->headsBox, "5000");
        QTest::keyClick(w.parameters()->headsBox, Qt::Key_Return);
        QCOMPARE(w.parameters()->headsBox->maximum(), kMaxHeads);
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 3);
        QVERIFY2(w.parameters()->errorText("heads").contains("5000"), qPrintable(w.parameters()->errorText("heads")));
    }

    // Issue 16 item 6: every numeric control's range is the core's one set of limits.
    void controlRangesAreTheCoresLimits() {
        MainWindow w;
        w.setInteractive(false);
        const ParametersPanel* p = w.parameters();
        QCOMPARE(p->headsBox->minimum(), 1);
        QCOMPARE(p->headsBox->maximum(), kMaxHeads);
        QCOMPARE(p->lengthBox->maximum(), static_cast<int>(kMaxLength));
        QCOMPARE(p->keysBox->maximum(), static_cast<int>(kMaxLength));
        QCOMPARE(p->maxBiasBox->minimum(), kMaxBiasRange.min);
        QCOMPARE(p->maxBiasBox->maximum(), kMaxBiasRange.max);
        QCOMPARE(p->sigmaBox->minimum(), kSigmaRange.min);
        QCOMPARE(p->sigmaBox->maximum(), kSigmaRange.max);
        QCOMPARE(p->dkBox->maximum(), kMaxDk);
        QCOMPARE(p->temperatureBox->minimum(), kTemperatureRange.min);
        QCOMPARE(p->temperatureBox->maximum(), kTemperatureRange.max);
        QCOMPARE(p->windowBox->maximum(), static_cast<int>(kMaxLength));
        QCOMPARE(p->prefixBox->maximum(), static_cast<int>(kMaxLength));
        // Both ends are accepted by the core as they are.
        Session s = defaultSession();
        s.attention.content.temperature = p->temperatureBox->minimum();
        s.attention.content.sigma = p->sigmaBox->maximum();
        s.attention.bias.slopes.maxBias = p->maxBiasBox->maximum();
        s.attention.bias.slopes.heads = p->headsBox->maximum();
        s.attention.content.dk = p->dkBox->maximum();
        QVERIFY(validateSession(s));
    }

    // Issue 25: typing 100000 into Heads H gave H = 1000 (the spin box dropped the keystrokes that
    // left its range), 2147483648 into Length T gave 214748, without a word. Every digit is kept
    // now; the value is refused at the field by the core's rule and the previous value stays.
    void typedOutOfRangeValuesAreRefusedAtTheField() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        ParametersPanel* p = w.parameters();
        const int heads = w.model()->session().attention.bias.slopes.heads;
        typeInto(p->headsBox, "100000");
        QCOMPARE(p->headsBox->text(), QString("100000"));  // no keystroke dropped
        QTest::keyClick(p->headsBox, Qt::Key_Return);
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, heads);
        QCOMPARE(p->headsBox->value(), heads);
        QVERIFY2(p->errorText("heads").contains("100000"), qPrintable(p->errorText("heads")));
        QVERIFY2(p->errorText("heads").contains("1 to 4096"), qPrintable(p->errorText("heads")));
        QVERIFY2(p->errorText("heads").contains(QString("%1 kept").arg(heads)), qPrintable(p->errorText("heads")));

        const std::int64_t queries = w.model()->session().attention.bias.queries;
        typeInto(p->lengthBox, "2147483648");
        QCOMPARE(p->lengthBox->text(), QString("2147483648"));
        p->headsBox->setFocus();  // leaving the box commits it
        QTRY_VERIFY(p->errorText("queries").contains("2147483648"));
        QCOMPARE(w.model()->session().attention.bias.queries, queries);

        // The typing pause commits (and so refuses) an out-of-range number too.
        typeInto(p->keysBox, "9999999");
        QTRY_VERIFY(p->errorText("keys").contains("9999999"));
        QCOMPARE(w.model()->session().attention.bias.keys, std::int64_t{0});

        // A value in range is taken, and the message goes.
        typeInto(p->headsBox, "12");
        QTest::keyClick(p->headsBox, Qt::Key_Return);
        QCOMPARE(w.model()->session().attention.bias.slopes.heads, 12);
        QTRY_VERIFY(p->errorText("heads").isEmpty());
    }

    // The decimal boxes alike (as ImGui's sliders refuse them): 5000 into max_bias B gave 500 and
    // 0.0000001 into the temperature 0.000000 (QDoubleSpinBox dropped the keystrokes), silently.
    void typedOutOfRangeDecimalsAreRefusedAtTheField() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        ParametersPanel* p = w.parameters();
        const double maxBias = w.model()->session().attention.bias.slopes.maxBias;
        typeInto(p->maxBiasBox, "5000");
        QCOMPARE(p->maxBiasBox->text(), QString("5000"));  // no keystroke dropped
        QTest::keyClick(p->maxBiasBox, Qt::Key_Return);
        QCOMPARE(w.model()->session().attention.bias.slopes.maxBias, maxBias);
        QCOMPARE(p->maxBiasBox->value(), maxBias);
        QVERIFY2(p->errorText("maxBias").contains("5000 is above the largest value"),
                 qPrintable(p->errorText("maxBias")));
        QVERIFY2(p->errorText("maxBias").contains("kept"), qPrintable(p->errorText("maxBias")));

        const double temperature = w.model()->session().attention.content.temperature;
        typeInto(p->temperatureBox, "0.0000001");
        QCOMPARE(p->temperatureBox->text(), QString("0.0000001"));
        p->maxBiasBox->setFocus();  // leaving the box commits it
        QTRY_VERIFY2(p->errorText("temperature").contains("below the smallest value"),
                     qPrintable(p->errorText("temperature")));
        QCOMPARE(w.model()->session().attention.content.temperature, temperature);

        // In range: taken, and the message goes.
        typeInto(p->maxBiasBox, "900");
        QTest::keyClick(p->maxBiasBox, Qt::Key_Return);
        QCOMPARE(w.model()->session().attention.bias.slopes.maxBias, 900.0);
        QTRY_VERIFY(p->errorText("maxBias").isEmpty());
    }

    void zoomScalesFontsAndCtrlZeroResets() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const double base = QApplication::font().pointSizeF();
        QTest::keyClick(&w, Qt::Key_Equal, Qt::ControlModifier);
        QVERIFY(QApplication::font().pointSizeF() > base * 1.1);
        QTRY_VERIFY2(w.parameters()->headsBox->font().pointSizeF() > base * 1.1,
                     qPrintable(QString("%1 vs %2, %3")
                                    .arg(w.parameters()->headsBox->font().pointSizeF())
                                    .arg(base)
                                    .arg(w.font().pointSizeF())));
        QVERIFY(w.model()->setSelectedHead(3));
        QTest::keyClick(&w, Qt::Key_0, Qt::ControlModifier);
        QCOMPARE(QApplication::font().pointSizeF(), base);
        QCOMPARE(w.model()->session().head, 3);  // Ctrl+0 no longer deselects the head
    }

    void firstWindowFitsA720pScreen() {
        MainWindow w;
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        QVERIFY(w.width() <= available.width());
        QVERIFY(w.height() <= available.height());
    }

    // Compare's B is saved with the session, so changing it is an undo step and an unsaved change.
    void compareBIsAnUndoStep() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openSession(assetSession("press-vs-geometric-12.alibi.json")));
        QVERIFY(!w.model()->modified());
        QComboBox* scheme = w.compareView()->findChildren<QComboBox*>().value(0);  // B's slope scheme
        QVERIFY(scheme != nullptr);
        QCOMPARE(scheme->currentData().toInt(), static_cast<int>(SlopeScheme::Geometric));
        scheme->setFocus();
        QTest::keyClick(scheme, Qt::Key_Down);  // geometric -> linear
        QVERIFY(w.model()->session().compare.has_value());
        QCOMPARE(w.model()->session().compare->scheme, std::optional<SlopeScheme>(SlopeScheme::Linear));
        QVERIFY(w.model()->modified());
        QVERIFY(w.isWindowModified());
        QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(scheme->currentData().toInt(), static_cast<int>(SlopeScheme::Geometric));
        QVERIFY(!w.model()->modified());
        QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(scheme->currentData().toInt(), static_cast<int>(SlopeScheme::Linear));
    }

    // press-vs-geometric-12 opens on Compare with B = geometric; the view round-trips.
    void sessionsHoldTheView() {
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(w.openSession(assetSession("press-vs-geometric-12.alibi.json")));
        QCOMPARE(w.tabs()->currentIndex(), int(MainWindow::CompareTab));
        QCOMPARE(w.compareView()->spec().scheme, std::optional<SlopeScheme>(SlopeScheme::Geometric));
        // An old file with `what` = slopes and no `view.open` opens on the curves.
        const QString old = dir.filePath("old.alibi.json");
        {
            QFile f(old);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"version": 1, "bias": {"heads": 4}, "view": {"what": "slopes"}})");
        }
        QVERIFY(w.openSession(old));
        QCOMPARE(w.tabs()->currentIndex(), int(MainWindow::CurvesTab));

        QVERIFY(w.model()->setWhat(RenderWhat::Attention));
        QVERIFY(w.model()->setSelectedHead(2));
        QVERIFY(w.model()->setQueryRow(5));
        QVERIFY(w.model()->setColormap(Colormap::Magma));
        QVERIFY(w.model()->setScaleMode(ScaleMode::PerHead));
        w.tabs()->setCurrentIndex(MainWindow::StagesTab);
        CompareOverrides spec;
        spec.scheme = SlopeScheme::Linear;
        spec.mode = BiasMode::Symmetric;
        w.compareView()->setSpec(spec);
        const QString path = dir.filePath("view.alibi.json");
        QVERIFY(w.saveSessionTo(path));

        MainWindow again;
        again.setInteractive(false);
        QVERIFY(again.openSession(path));
        const Session& s = again.model()->session();
        QCOMPARE(again.tabs()->currentIndex(), int(MainWindow::StagesTab));
        QCOMPARE(s.what, RenderWhat::Attention);
        QCOMPARE(s.head, 2);
        QCOMPARE(s.queryRow, std::int64_t{5});
        QCOMPARE(s.colormap, Colormap::Magma);
        QCOMPARE(s.scale, ScaleMode::PerHead);
        QCOMPARE(again.compareView()->spec().scheme, std::optional<SlopeScheme>(SlopeScheme::Linear));
        QCOMPARE(again.compareView()->spec().mode, std::optional<BiasMode>(BiasMode::Symmetric));
    }

    // Compare's max_bias B and Extrapolation's training length take the core's ranges
    // (kMaxBiasRange, kMaxLength), as ImGui's fields do: Qt's boxes stopped at 64 and 65536, so
    // a session's B of 100 read back as 64 and a training length of 100000 as 65536 (s42).
    void compareAndTrainLengthTakeTheCoresRanges() {
        MainWindow w;
        w.setInteractive(false);
        CompareOverrides spec;
        spec.maxBias = 100.0;
        w.compareView()->setSpec(spec);
        QCOMPARE(w.compareView()->spec().maxBias, std::optional<double>(100.0));
        QSpinBox* length = w.extrapolationView()->findChildren<QSpinBox*>().value(0);  // L, the view's first box
        QVERIFY(length != nullptr);
        length->setValue(100000);
        QCOMPARE(w.model()->session().trainLength, std::int64_t{100000});
    }

private:
    static void activate(QComboBox* box, int data) {
        const int index = box->findData(data);
        QVERIFY(index >= 0);
        box->setCurrentIndex(index);
        emit box->activated(index);
    }
};

QTEST_MAIN(TestEdits)
#include "test_edits.moc"
