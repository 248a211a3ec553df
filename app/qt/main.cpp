// alibi-explorer: the Qt 6 explorer. `alibi-explorer [OPTIONS] [FILE]`: the options both explorers
// take (app/common/explorer_options.hpp) plus --screenshot DIR and --theme; Qt's own options
// (-platform, -style, ...) go to QApplication.
#include "main_window.hpp"

#include <explorer_options.hpp>

#include <malloc.h>
#include <sys/resource.h>

#include <QApplication>
#include <QSettings>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

using namespace Qt::Literals::StringLiterals;

#ifndef ALIBI_VERSION
#define ALIBI_VERSION "0.0.0"
#endif

namespace {

void describeApplication() {
    QCoreApplication::setOrganizationName(u"alibi"_s);
    QCoreApplication::setApplicationName(u"alibi-explorer"_s);
    QCoreApplication::setApplicationVersion(QString::fromUtf8(ALIBI_VERSION));
}

// Qt's own command-line options (QGuiApplication and QApplication), with whether they take a value.
struct QtOption {
    std::string_view name;
    bool value;
};
constexpr QtOption kQtOptions[] = {
    {"platform", true},        {"platformpluginpath", true},
    {"platformtheme", true},   {"plugin", true},
    {"qwindowgeometry", true}, {"qwindowicon", true},
    {"qwindowtitle", true},    {"style", true},
    {"stylesheet", true},      {"session", true},
    {"display", true},         {"geometry", true},
    {"reverse", false},        {"widgetcount", false},
    {"nograb", false},         {"dograb", false},
};

// Splits argv into Qt's options (for QApplication) and ours (for CLI11), both starting with argv[0].
void splitArguments(int argc, char** argv, std::vector<char*>& qt, std::vector<char*>& ours) {
    qt.push_back(argv[0]);
    ours.push_back(argv[0]);
    for (int i = 1; i < argc; ++i) {
        std::string_view arg = argv[i];
        const bool single = arg.size() > 1 && arg[0] == '-' && arg[1] != '-';
        std::string_view name = arg.substr(arg.starts_with("--") ? 2 : 1);
        const QtOption* found = nullptr;
        if (arg.starts_with("-") && arg != "--")
            for (const QtOption& option : kQtOptions)
                if (option.name == name.substr(0, name.find('='))) found = &option;
        // "--session" is ours (the older spelling of FILE); Qt's session restore is "-session".
        if (found == nullptr || (found->name == "session" && !single)) {
            ours.push_back(argv[i]);
            continue;
        }
        qt.push_back(argv[i]);
        if (found->value && name.find('=') == std::string_view::npos && i + 1 < argc) qt.push_back(argv[++i]);
    }
    qt.push_back(nullptr);
    ours.push_back(nullptr);
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

// Issue 25, item 8: under an address-space limit (ulimit -v) an allocation that fails inside an
// event handler threw std::bad_alloc through Qt's event loop, which ends in std::terminate (an
// abort, exit 134). The event is dropped with a message instead; a --screenshot run then ends
// with exit 1 and that message.
class Application : public QApplication {
public:
    using QApplication::QApplication;
    bool exitOnFailure = false;

    bool notify(QObject* receiver, QEvent* event) override {
        try {
            return QApplication::notify(receiver, event);
        } catch (const std::bad_alloc&) {
            refused("out of memory");
        } catch (const std::system_error& e) {  // a thread or another resource the system refused
            refused(e.what());
        }
        return false;
    }

private:
    void refused(const char* what) {
        std::fprintf(stderr,
                     "alibi-explorer: %s while updating the window: the system allows less memory than the "
                     "explorer needs here (an address-space limit, ulimit -v?); raise the limit, or lower H and T\n",
                     what);
        if (exitOnFailure) QCoreApplication::exit(1);
    }
};

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
    // Under an address-space limit (ulimit -v) every thread's malloc arena reserved 64 MB of it, so
    // 600 MB ran out after a few threads and Qt or the driver failed inside (issue 25, item 8):
    // one arena then, shared by every thread.
    if (rlimit limit{}; ::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        ::mallopt(M_ARENA_MAX, 1);
    namespace docs = alibi::cli_docs;
    std::vector<char*> qtArgs, ourArgs;
    splitArguments(argc, argv, qtArgs, ourArgs);

    docs::ExplorerOptions options;
    std::string screenshot, theme, session;
    CLI::App cli{"alibi-explorer: the Qt explorer of ALiBi Explorer. See, compare and check ALiBi attention biases."};
    docs::addExplorerOptions(cli, options, "alibi-explorer", std::string("alibi-explorer ") + ALIBI_VERSION, 0.5,
                             4.0);  // MainWindow::setZoom's range
    cli.add_option("--screenshot", screenshot, "Render every view to PNG files in DIR once results arrive, then exit")
        ->type_name("DIR");
    cli.add_option("--theme", theme, "Theme for this run: system, light or dark")
        ->type_name("THEME")
        ->check(CLI::IsMember({"system", "light", "dark"}));
    cli.add_option("--session", session, "Open this *.alibi.json session (the older spelling of FILE)")->group("");
    cli.footer(
        "Qt's own options (-platform NAME, -style NAME, ...) are passed to Qt.\n"
        "Examples:\n"
        "  alibi-explorer /usr/share/alibi-explorer/sessions/mpt-7b.alibi.json\n"
        "  alibi-explorer --lesson alibi-in-five-steps --zoom 1.5\n"
        "  alibi-explorer maps.safetensors              # a model's attention maps");
    const int ourArgc = static_cast<int>(ourArgs.size()) - 1;
    if (const auto status = docs::parseExplorerArgs(cli, "alibi-explorer", ourArgc, ourArgs.data())) return *status;
    if (options.manPage) {
        std::fputs(docs::manPage(cli, docs::explorerManDoc("alibi-explorer", "explore ALiBi attention biases (Qt)",
                                                           ALIBI_VERSION, "Qt 6"))
                       .c_str(),
                   stdout);
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
    int qtArgc = static_cast<int>(qtArgs.size()) - 1;
    Application app(qtArgc, qtArgs.data());
    qInstallMessageHandler(g_previousHandler);
    describeApplication();
    QApplication::setApplicationDisplayName(u"ALiBi Explorer"_s);
    QApplication::setDesktopFileName(u"alibi-explorer"_s);

    using alibi::qt::Theme;
    Theme chosen = static_cast<Theme>(std::clamp(QSettings().value(u"theme"_s, 0).toInt(), 0, 2));
    if (!theme.empty()) chosen = theme == "dark" ? Theme::Dark : theme == "light" ? Theme::Light : Theme::System;
    alibi::qt::applyTheme(chosen);

    alibi::qt::MainWindow window;
    const bool shots = !screenshot.empty();
    if (shots) window.setInteractive(false);
    if (options.presentation) window.setPresentation(true);
    app.exitOnFailure = shots;
    if (options.zoom != 1.0) window.setZoom(options.zoom);
    std::string attention = options.attention;
    if (session.empty() && !options.file.empty()) {
        if (docs::isAttentionMapsFile(options.file)) {
            if (attention.empty()) attention = options.file;
        } else {
            session = options.file;
        }
    }
    if (!session.empty() && shots) {
        // A scripted run waits for its session (a bad file stops it with status 2).
        if (!window.openSession(QString::fromStdString(session))) {
            std::fprintf(stderr, "alibi-explorer: %s\n", qPrintable(window.lastError()));
            return 2;
        }
    } else if (session.empty() && !shots) {
        window.restoreLastSession();
    }
    window.show();
    // An interactive run shows its window at once and reads the session in the background, with
    // its progress and Cancel in the status bar (issue 25, item 3); a bad file is a message.
    if (!session.empty() && !shots) window.startOpenSession(QString::fromStdString(session));
    if (!attention.empty()) window.openAttentionMaps(QString::fromStdString(attention));
    if (!options.lesson.empty() && !window.openLesson(QString::fromStdString(options.lesson))) {
        std::fprintf(stderr, "alibi-explorer: %s\n", qPrintable(window.lastError()));
        if (shots) return 2;
    }
    if (shots) {
        window.takeScreenshots(QString::fromStdString(screenshot), [](bool ok) { QApplication::exit(ok ? 0 : 1); });
    }
    return app.exec();
}
