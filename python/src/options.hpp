// Keyword arguments of the Python functions -> an alibi::Session, with the CLI's names,
// defaults and checks. Names map one to one to the CLI's flags (max_bias is --max-bias); every
// string option goes through the core's own parser (parseScheme, parseMode, parseMask, ...), so a
// value the core learns is accepted here without a change. A bad value raises ValueError naming
// the keyword.
#pragma once

#include <alibi/io/preset.hpp>
#include <alibi/io/session.hpp>

#include <pybind11/pybind11.h>

namespace alibi::python {

// Applies every (keyword, value) of `options` whose value is not None on top of `session`.
// Unknown keywords raise TypeError (the Python wrappers only pass known ones).
void applyOptions(Session& session, const pybind11::dict& options);

// The model named by preset= (a preset name or file) or from_config= (a Hugging Face config.json):
// the last one given, as --preset and --from-config read; nullopt when both are None.
[[nodiscard]] std::optional<Preset> namedPreset(const pybind11::object& preset, const pybind11::object& fromConfig);

// The thread count keyword (0: every core), checked like --threads.
[[nodiscard]] unsigned threadCount(const pybind11::object& threads);

}  // namespace alibi::python
