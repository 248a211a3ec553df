// alibi-explorer: the Qt 6 explorer. `alibi-explorer [SESSION.alibi.json] [--screenshot DIR]`.
#include "main_window.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName("alibi");
    QApplication::setApplicationName("alibi-explorer");
    QApplication::setApplicationDisplayName("ALiBi Explorer");
    QApplication::setApplicationVersion("0.1.0");
    QApplication::setDesktopFileName("alibi-explorer");

    QCommandLineParser parser;
    parser.setApplicationDescription("See, compare and check ALiBi attention biases.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("session", "A session file (*.alibi.json) to open.", "[SESSION]");
    QCommandLineOption screenshot("screenshot", "Render every view to PNG files in DIR once results arrive, then exit.", "DIR");
    QCommandLineOption theme("theme", "Theme for this run: system, light or dark.", "THEME");
    parser.addOption(screenshot);
    parser.addOption(theme);
    parser.process(app);

    using alibi::qt::Theme;
    Theme chosen = static_cast<Theme>(std::clamp(QSettings().value("theme", 0).toInt(), 0, 2));
    if (parser.isSet(theme)) {
        const QString t = parser.value(theme);
        chosen = t == "dark" ? Theme::Dark : t == "light" ? Theme::Light : Theme::System;
    }
    alibi::qt::applyTheme(chosen);

    alibi::qt::MainWindow window;
    const bool shots = parser.isSet(screenshot);
    if (shots) window.setInteractive(false);
    const QStringList args = parser.positionalArguments();
    if (!args.isEmpty()) {
        if (!window.openSession(args.front()) && shots) {
            std::fprintf(stderr, "alibi-explorer: %s\n", qPrintable(window.lastError()));
            return 2;
        }
    } else if (!shots) {
        window.restoreLastSession();
    }
    window.show();
    if (shots) {
        window.takeScreenshots(parser.value(screenshot), [](bool ok) { QApplication::exit(ok ? 0 : 1); });
    }
    return app.exec();
}
