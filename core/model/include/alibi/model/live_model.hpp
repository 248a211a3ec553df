// A language model run on the user's text, as a session holds it (issue 29): the checkpoint
// folder, the text, the slope change B is run with (every slope scaled by k, another scheme or
// max_bias, one head's slope set) and the length. Plain data so both explorers, the session file
// and the undo history share it; lm/ runs it (lm/live_run.hpp), io/ saves it (section `model`).
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/model/params.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace alibi {

// An intervention on the slopes, applied in this order: the scheme (and max_bias) the slopes
// are computed from, then the scale, then the heads set one by one.
struct SlopeChange {
    std::optional<SlopeScheme> scheme;  // nullopt: the model's (press, as BLOOM and MPT compute it)
    std::optional<double> maxBias;      // nullopt: the model's (BLOOM 8, MPT attn_config.alibi_bias_max)
    double scale = 1.0;                 // every slope times this
    std::map<int, double> headSlopes;   // head -> slope (from 0)
    [[nodiscard]] bool none() const { return !scheme && !maxBias && scale == 1.0 && headSlopes.empty(); }
    friend bool operator==(const SlopeChange&, const SlopeChange&) = default;
};

// The ranges the CLI's --slope-scale, --slope-max-bias and --head-slope accept.
inline constexpr NumberRange kSlopeScaleRange{0, 1e6};
inline constexpr NumberRange kSlopeMaxBiasRange{0, 1024};
inline constexpr NumberRange kHeadSlopeRange{0, 1e6};
// The longest text a session holds (the CLI reads larger files with --file).
inline constexpr std::size_t kMaxLiveTextBytes = std::size_t{1} << 20;

// The text a fresh session runs: a sentence the shipped example model read in training.
inline constexpr const char* kDefaultLiveText =
    "Permission is hereby granted, free of charge, to any person obtaining a copy of this software and "
    "associated documentation files, to deal in the Software without restriction.";

struct LiveModelParams {
    std::string path;                     // the model's folder; "": no model
    std::string text = kDefaultLiveText;  // what the model reads
    SlopeChange change;                   // B: the model with these slopes (none: A only)
    std::int64_t length = 0;              // 0: every token of the text; N: its first N tokens
    friend bool operator==(const LiveModelParams&, const LiveModelParams&) = default;
};

// "3=0.25, 0=1/2" (heads from 0; items separated by commas, semicolons or spaces; each slope a
// number or fraction as the slope lists take it) -> head -> slope; "" gives none. Messages name
// --head-slope.
[[nodiscard]] Result<std::map<int, double>> parseHeadSlopes(std::string_view text);
// "3=0.25, 5=0.5": the map as the fields show it.
[[nodiscard]] std::string headSlopesText(const std::map<int, double>& slopes);

// Checks the ranges (scale, max_bias, scheme not custom, head slopes, length, text size); an
// error names the CLI's flag (--slope-scale, ...). Which heads exist is the model's to say.
[[nodiscard]] Result<void> validateSlopeChange(const SlopeChange& change);
[[nodiscard]] Result<void> validateLiveModel(const LiveModelParams& params);

}  // namespace alibi
