// The subcommands. Each add*Command registers its flags on the root app and returns the
// function that runs it once parsing has selected it; errors come back as alibi::Error and
// are reported by errors.cpp.
#pragma once

#include <alibi/base/error.hpp>

#include <CLI/CLI.hpp>

#include <functional>

namespace alibi::cli {

using RunFn = std::function<Result<void>()>;

[[nodiscard]] RunFn addSlopesCommand(CLI::App& root);
[[nodiscard]] RunFn addBiasCommand(CLI::App& root);
[[nodiscard]] RunFn addAttentionCommand(CLI::App& root);
[[nodiscard]] RunFn addStatsCommand(CLI::App& root);
[[nodiscard]] RunFn addRenderCommand(CLI::App& root);
[[nodiscard]] RunFn addDiagnoseCommand(CLI::App& root);
[[nodiscard]] RunFn addFitCommand(CLI::App& root);
[[nodiscard]] RunFn addRunCommand(CLI::App& root);
[[nodiscard]] RunFn addLossCommand(CLI::App& root);

}  // namespace alibi::cli
