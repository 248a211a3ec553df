// -o/--output and --format: where a command writes and in which format, text written atomically
// or to stdout, and --quiet (options.hpp).
#include "options.hpp"

#include "inputs.hpp"

#include <alibi/io/output_file.hpp>

#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace alibi::cli {

void addOutputFlags(CLI::App& cmd, OutputFlags& flags, std::span<const FileFormat> formats, bool required,
                    bool tensorExport) {
    std::string names;
    for (const FileFormat format : formats) names += fmt::format("{}{}", names.empty() ? "" : ", ", formatName(format));
    addFlag(cmd, flags.output, "-o,--output", "FILE",
            std::string(required ? "Output file (required)" : "Output file (default: stdout)") +
                "; '-' writes a text format to stdout. The format follows the extension unless --format is given. "
                "Example: -o " +
                (tensorExport ? "bias.npy"
                 : required   ? "grid.png"
                              : "out.json"));
    addFlag(cmd, flags.format, "--format", "FORMAT",
            fmt::format("Output format: {} (default: from -o's extension). Example: --format {}", names,
                        formatName(formats.size() > 1 ? formats[1] : formats[0])));
    if (tensorExport)
        cmd.add_flag("--allow-nonfinite", flags.allowNonFinite,
                     "JSON only: write -Infinity as Python's json module does, instead of refusing a non-finite value. "
                     "Example: --mask -inf --format json --allow-nonfinite");
}

namespace {
bool g_quiet = false;  // set once, by main() after parsing, before any command runs
}  // namespace

void setQuiet(bool quiet) {
    g_quiet = quiet;
}
bool quiet() {
    return g_quiet;
}

bool isTextFormat(FileFormat format) {
    return format == FileFormat::Text || format == FileFormat::Csv || format == FileFormat::Json ||
           format == FileFormat::Svg;
}

Result<OutputTarget> resolveOutput(const OutputFlags& flags, std::span<const FileFormat> formats,
                                   std::optional<FileFormat> fallback) {
    std::string names;
    for (const FileFormat format : formats) names += fmt::format("{}{}", names.empty() ? "" : ", ", formatName(format));
    const auto allowed = [&](FileFormat format) {
        for (const FileFormat f : formats)
            if (f == format) return true;
        return false;
    };

    OutputTarget target;
    target.path = flags.output.given() ? flags.output.value : "-";
    if (auto ok = checkNotAnInput(target.path); !ok) return std::unexpected(ok.error());
    if (flags.output.given() && flags.output.value.empty())
        return fail(ErrorCode::InvalidArgument, "-o/--output is empty: give a file name, or '-' for stdout");
    if (!flags.output.given() && !fallback)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("-o/--output is required: give a file, e.g. -o out.{}", formatName(formats[0])));

    if (flags.format.given()) {
        const auto format = parseFormat(flags.format.value);
        if (!format || !allowed(*format))
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--format must be one of {} here, got '{}'", names, flags.format.value));
        target.format = *format;
    } else if (target.toStdout()) {
        // stdout: the command's text default, if it has one.
        if (!fallback || (!isTextFormat(*fallback) && ::isatty(STDOUT_FILENO) == 1)) {
            std::string textNames;
            for (const FileFormat format : formats)
                if (isTextFormat(format))
                    textNames += fmt::format("{}{}", textNames.empty() ? "" : " or ", formatName(format));
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("-o - writes to stdout, which needs a text --format ({}); give one, or -o FILE",
                                    textNames));
        }
        target.format = *fallback;
    } else {
        const auto format = formatFromPath(target.path);
        if (!format)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("cannot tell the format of '{}': it has no known extension and --format is not "
                                    "given; add an extension to -o (e.g. .{}) or give --format ({})",
                                    target.path, formatName(formats[0]), names));
        if (!allowed(*format))
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("-o {}: the {} format is not available here; use one of {} (or give --format)",
                                    target.path, formatName(*format), names));
        target.format = *format;
    }
    // Binary formats go to a pipe or a redirected stdout; a terminal would show noise.
    if (target.toStdout() && !isTextFormat(target.format) && ::isatty(STDOUT_FILENO) == 1)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("cannot write binary {} to stdout (-o -) when it is a terminal: pipe or redirect it "
                                "(-o - | python3 ..., > out.{}), or give -o FILE",
                                formatName(target.format), formatName(target.format)));
    return target;
}

Result<void> writeText(const std::string& path, std::string_view text) {
    if (path != "-") return writeFileAtomic(path, text);
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
        return fail(ErrorCode::Io, fmt::format("cannot write to stdout: {}", std::strerror(errno)));
    return {};
}

}  // namespace alibi::cli
