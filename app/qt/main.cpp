// alibi-explorer: the Qt 6 explorer. `alibi-explorer [SESSION.alibi.json] [--screenshot DIR]`.
#include "main_window.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace {

void describeApplication() {
    QCoreApplication::setOrganizationName("alibi");
    QCoreApplication::setApplicationName("alibi-explorer");
    QCoreApplication::setApplicationVersion("0.1.0");
}

// --help and --version need no display: answer them before a QApplication (which aborts
// without one) exists.
bool wantsOnlyText(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--help" || a == "-h" || a == "-?" || a == "--help-all" || a == "--version" || a == "-v") return true;
    }
    return false;
}

// The platform Qt will use: -platform NAME, else QT_QPA_PLATFORM, else the default (xcb or wayland).
std::string_view platformName(int argc, char** argv) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "-platform") == 0 || std::strcmp(argv[i], "--platform") == 0) return argv[i + 1];
    const char* env = std::getenv("QT_QPA_PLATFORM");
    return env ? env : "";
}

bool isSet(const char* name) {
    const char* v = std::getenv(name);
    return v && *v;
}

// Without a display Qt prints "could not load the Qt platform plugin" and aborts (exit 134);
// say instead what is missing and the two ways to run anyway, as the ImGui explorer does.
bool displayAvailable(int argc, char** argv) {
    const std::string_view platform = platformName(argc, argv);
    const bool x11 = platform.empty() || platform.starts_with("xcb");
    const bool wayland = platform.empty() || platform.starts_with("wayland");
    if (!x11 && !wayland) return true;  // offscreen, minimal, vnc, eglfs: no display needed
    return (x11 && isSet("DISPLAY")) || (wayland && isSet("WAYLAND_DISPLAY"));
}

// DISPLAY set but unreachable: Qt's platform plugin fails inside QApplication and qFatal aborts
// (exit 134). Say which display could not be opened and exit 1 instead (issue 25).
QtMessageHandler g_previousHandler = nullptr;
void platformFailure(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (type != QtFatalMsg) {
        if (g_previousHandler) g_previousHandler(type, context, message);
        return;
    }
    const char* display = std::getenv("DISPLAY");
    std::fprintf(stderr,
                 "alibi-explorer: cannot open the display (DISPLAY=%s): %s\n"
                 "Check that the X server is running and reachable, run headless under `xvfb-run -a -s \"-screen 0 "
                 "1920x1080x24\"`, or use Qt's offscreen platform (QT_QPA_PLATFORM=offscreen).\n",
                 display ? display : "", qPrintable(message));
    std::_Exit(1);
}

}  // namespace

int main(int argc, char** argv) {
    QCommandLineParser parser;
    parser.setApplicationDescription("See, compare and check ALiBi attention biases.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("session", "A session file (*.alibi.json) to open.", "[SESSION]");
    QCommandLineOption screenshot("screenshot", "Render every view to PNG files in DIR once results arrive, then exit.", "DIR");
    QCommandLineOption theme("theme", "Theme for this run: system, light or dark.", "THEME");
    QCommandLineOption lesson("lesson", "Start the guided lesson NAME (e.g. alibi-in-five-steps) or the lesson file at a path.",
                              "NAME");
    parser.addOption(screenshot);
    parser.addOption(lesson);
    parser.addOption(theme);

    if (wantsOnlyText(argc, argv)) {
        QCoreApplication core(argc, argv);
        describeApplication();
        parser.process(core);  // prints and exits
        return 0;
    }
    if (!displayAvailable(argc, argv)) {
        std::fprintf(stderr,
                     "alibi-explorer: cannot open a display: DISPLAY is not set (nor WAYLAND_DISPLAY).\n"
                     "Set DISPLAY to an X server, run headless under `xvfb-run -a -s \"-screen 0 1920x1080x24\"`, or "
                     "use Qt's offscreen platform (QT_QPA_PLATFORM=offscreen, e.g. with --screenshot DIR).\n");
        return 1;
    }

    g_previousHandler = qInstallMessageHandler(platformFailure);
    QApplication app(argc, argv);
    qInstallMessageHandler(g_previousHandler);
    describeApplication();
    QApplication::setApplicationDisplayName("ALiBi Explorer");
    QApplication::setDesktopFileName("alibi-explorer");
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
    if (parser.isSet(lesson) && !window.openLesson(parser.value(lesson))) {
        std::fprintf(stderr, "alibi-explorer: %s\n", qPrintable(window.lastError()));
        if (shots) return 2;
    }
    if (shots) {
        window.takeScreenshots(parser.value(screenshot), [](bool ok) { QApplication::exit(ok ? 0 : 1); });
    }
    return app.exec();
}
