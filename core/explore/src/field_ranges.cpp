// See field_ranges.hpp.
#include <alibi/explore/field_ranges.hpp>

#include <alibi/model/params.hpp>
#include <alibi/render/format.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string>

namespace alibi::explore {

FieldRange fieldRange(NumberField field) {
    switch (field) {
        case NumberField::Heads:
            return {"Heads H", 1, static_cast<double>(kMaxHeads), true};
        case NumberField::Queries:
            return {"Length T", 1, static_cast<double>(kMaxLength), true};
        case NumberField::Keys:
            return {"Keys K", 0, static_cast<double>(kMaxLength), true};
        case NumberField::MaxBias:
            return {"max_bias B", kMaxBiasRange.min, kMaxBiasRange.max, false};
        case NumberField::Sigma:
            return {"sigma", kSigmaRange.min, kSigmaRange.max, false};
        case NumberField::Dk:
            return {"d_k", 1, static_cast<double>(kMaxDk), true};
        case NumberField::Temperature:
            return {"temperature", kTemperatureRange.min, kTemperatureRange.max, false};
        case NumberField::Window:
            return {"window", 0, static_cast<double>(kMaxLength), true};
        case NumberField::Prefix:
            return {"prefix", 0, static_cast<double>(kMaxLength), true};
    }
    return {"value", 0, 0, true};
}

namespace {

std::string shown(double v, bool integer) {
    if (integer && std::abs(v) < 1e18 && v == std::floor(v)) return fmt::format("{}", static_cast<long long>(v));
    return formatValue(v);
}

TypedNumber refused(std::string_view label, std::string_view what, double lo, double hi, bool integer,
                    double previous) {
    TypedNumber out;
    out.value = previous;
    out.message = fmt::format("{}: {}; enter {} to {} ({} kept)", label, what, shown(lo, integer), shown(hi, integer),
                              shown(previous, integer));
    return out;
}

}  // namespace

TypedNumber checkTyped(std::string_view label, double typed, double lo, double hi, bool integer, double previous) {
    if (std::isnan(typed)) return refused(label, "not a number", lo, hi, integer, previous);
    if (integer && typed != std::floor(typed))
        return refused(label, fmt::format("{} is not a whole number", formatValue(typed)), lo, hi, integer, previous);
    if (typed < lo)
        return refused(label, fmt::format("{} is below the smallest value", shown(typed, integer)), lo, hi, integer,
                       previous);
    if (typed > hi)
        return refused(label, fmt::format("{} is above the largest value", shown(typed, integer)), lo, hi, integer,
                       previous);
    TypedNumber out;
    out.accepted = true;
    out.value = typed;
    return out;
}

TypedNumber checkTyped(NumberField field, double typed, double previous) {
    const FieldRange r = fieldRange(field);
    return checkTyped(r.label, typed, r.lo, r.hi, r.integer, previous);
}

TypedNumber checkTypedText(std::string_view label, std::string_view text, double lo, double hi, bool integer,
                           double previous) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    const std::string typed(text.substr(0, 64));
    char* end = nullptr;
    const double value = typed.empty() ? std::nan("") : std::strtod(typed.c_str(), &end);
    if (typed.empty() || end != typed.c_str() + typed.size() || text.size() > 64)
        return refused(label, fmt::format("'{}' is not a number", typed), lo, hi, integer, previous);
    if (std::isinf(value))
        return refused(label,
                       fmt::format("{} is {} the {} value", typed, value > 0 ? "above" : "below",
                                   value > 0 ? "largest" : "smallest"),
                       lo, hi, integer, previous);
    // Quoted as typed, so 2147483648 is refused as 2147483648.
    TypedNumber out = checkTyped(label, value, lo, hi, integer, previous);
    if (!out.accepted && !std::isnan(value) && (value < lo || value > hi))
        out = refused(label,
                      fmt::format("{} is {} the {} value", typed, value > hi ? "above" : "below",
                                  value > hi ? "largest" : "smallest"),
                      lo, hi, integer, previous);
    return out;
}

TypedNumber checkTypedText(NumberField field, std::string_view text, double previous) {
    const FieldRange r = fieldRange(field);
    return checkTypedText(r.label, text, r.lo, r.hi, r.integer, previous);
}

}  // namespace alibi::explore
