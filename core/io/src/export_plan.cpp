// The export plan: sizes from the same header builders the writers use, the free space from
// the target's file system, and the two rules every front end shares.
#include <alibi/io/export_plan.hpp>

#include "tensor_io_detail.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <system_error>

namespace alibi {

namespace {

// The longest number the text writers produce: the shortest round-trip spelling of a double,
// e.g. "-1.2345678901234567e-308" (24 characters), plus its separator.
constexpr std::uint64_t kMaxTextNumber = 25;
// Header lines, index columns and the JSON "params" object, generously.
constexpr std::uint64_t kTextOverhead = 64 * 1024;

std::uint64_t saturatingMul(std::uint64_t a, std::uint64_t b) {
    if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return std::numeric_limits<std::uint64_t>::max();
    return a * b;
}

std::uint64_t saturatingAdd(std::uint64_t a, std::uint64_t b) {
    return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

// "4,224": byte counts people compare digit by digit.
std::string grouped(std::uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string maskSpelling(const MaskValue& mask) {
    return maskName(mask);
}

}  // namespace

std::optional<MaskValue> storedMask(const BiasParams& params) {
    // Row 0 sits at p_0 = K - Q; it has future keys exactly when K - Q < K - 1, i.e. Q >= 2.
    if (!modeMasks(params.mode) || params.queries < 2) return std::nullopt;
    return params.mask;
}

std::optional<std::uint64_t> fileSystemFreeSpace(const std::string& path) {
    namespace fs = std::filesystem;
    if (path.empty() || path == "-") return std::nullopt;
    std::error_code ec;
    const fs::path target(path);
    // A device or pipe is written in place and has no file system size to speak of.
    if (const auto status = fs::status(target, ec); !ec && fs::exists(status) && !fs::is_regular_file(status))
        return std::nullopt;
    fs::path dir = target.parent_path();
    if (dir.empty()) dir = ".";
    const auto space = fs::space(dir, ec);
    if (ec) return std::nullopt;
    return static_cast<std::uint64_t>(space.available);
}

std::optional<std::string> maskOverflowReason(DType dtype, const std::optional<MaskValue>& mask) {
    if (!mask || mask->kind != MaskValue::Kind::Finite || !std::isinf(roundTo(dtype, mask->value))) return std::nullopt;
    const auto name = dtypeName(dtype);
    return fmt::format(
        "{} cannot hold the mask {}: its largest finite value is {}, so every masked entry would be written as "
        "-inf. Use the mask min ({}'s lowest finite value, {}) for a finite mask, or the mask -inf if -inf is "
        "what you want",
        name, maskSpelling(*mask), dtypeMax(dtype), name, dtypeLowest(dtype));
}

ExportPlan planExport(const TensorSource& source, const ExportRequest& request, const FreeSpaceFn& freeSpace) {
    ExportPlan plan;
    plan.shape = source.shape();
    plan.dtype = source.dtype();
    plan.layout = request.layout;
    plan.format = request.format;
    plan.elements = elementCount(plan.shape).value_or(std::numeric_limits<std::uint64_t>::max());
    const std::uint64_t payload = saturatingMul(plan.elements, dtypeSize(plan.dtype));

    switch (request.format) {
        case FileFormat::Npy:
            plan.bytes = saturatingAdd(npyHeader(plan.shape, plan.dtype).size(), payload);
            break;
        case FileFormat::Safetensors:
            plan.bytes = saturatingAdd(
                detail::safetensorsHeader(plan.shape, plan.dtype, request.tensorName, source.metadata()).size(),
                payload);
            break;
        case FileFormat::Raw:
            plan.bytes = payload;
            break;
        default:
            // Text: each number takes 1 to kMaxTextNumber characters with its separator.
            plan.bytesExact = false;
            plan.bytes = saturatingAdd(saturatingMul(plan.elements, kMaxTextNumber), kTextOverhead);
            plan.minBytes = saturatingMul(plan.elements, 2);
            break;
    }
    if (plan.bytesExact) plan.minBytes = plan.bytes;
    plan.freeBytes = freeSpace ? freeSpace(request.path) : fileSystemFreeSpace(request.path);

    // Rule 1: a finite mask the dtype cannot hold turns into -inf without anyone asking for it.
    if (auto reason = maskOverflowReason(plan.dtype, request.mask)) {
        plan.refusal = ExportRefusal::MaskOverflow;
        plan.fix = ExportFix::UseMaskMin;
        plan.reason = std::move(*reason);
        return plan;
    }
    // Rule 2: a file that cannot fit would fail near the end, after minutes of writing.
    if (plan.freeBytes && plan.minBytes > *plan.freeBytes) {
        plan.refusal = ExportRefusal::NoSpace;
        plan.reason = fmt::format(
            "the export needs {}{} ({} bytes) but the file system of the target has only {} ({} bytes) free: lower "
            "H or T, choose a smaller dtype (f16 or bf16 take half of f32), a binary format instead of text, or a "
            "folder on a disk with more space",
            plan.bytesExact ? "" : "at least ", humanBytes(plan.minBytes), grouped(plan.minBytes),
            humanBytes(*plan.freeBytes), grouped(*plan.freeBytes));
        return plan;
    }
    if (plan.freeBytes && plan.bytes > *plan.freeBytes)
        plan.warning = fmt::format("the text may take up to {}, more than the {} free on the target's file system",
                                   humanBytes(plan.bytes), humanBytes(*plan.freeBytes));
    return plan;
}

std::string ExportPlan::summary() const {
    std::string s = fmt::format("{} {}", shapeString(shape), dtypeName(dtype));
    if (layout) s += fmt::format(", layout {}", layoutName(*layout));
    s += fmt::format(", {}: ", formatName(format));
    if (bytesExact)
        s += fmt::format("{} bytes ({})", grouped(bytes), humanBytes(bytes));
    else
        s += fmt::format("about {} to {}", humanBytes(minBytes), humanBytes(bytes));
    s += freeBytes ? fmt::format("; {} free", humanBytes(*freeBytes)) : std::string("; free space unknown");
    return s;
}

Result<void> ExportPlan::check() const {
    switch (refusal) {
        case ExportRefusal::None:
            return {};
        case ExportRefusal::MaskOverflow:
            return fail(ErrorCode::InvalidArgument, reason);
        case ExportRefusal::NoSpace:
            return fail(ErrorCode::TooLarge, reason);
    }
    return {};
}

ExportRequest biasExportRequest(const BiasParams& params, std::string path, FileFormat format) {
    ExportRequest r;
    r.path = std::move(path);
    r.format = format;
    r.tensorName = "bias";
    r.layout = params.layout;
    r.mask = storedMask(params);
    return r;
}

}  // namespace alibi
