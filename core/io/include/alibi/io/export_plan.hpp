// Before a tensor export starts: what it will write (shape, dtype, layout, bytes, the free space
// where it goes) and whether it can work at all. One function decides this for the CLI and both
// GUIs, so they refuse the same exports with the same words.
#pragma once

#include <alibi/base/dtype.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/io/tensor_io.hpp>
#include <alibi/model/params.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace alibi {

struct ExportRequest {
    std::string path;  // the target; "-" is standard output
    FileFormat format = FileFormat::Npy;
    std::string tensorName = "bias";  // the safetensors key (it sets the header's size)
    bool allowNonFinite = false;      // JSON only: as ExportOptions::allowNonFinite
    std::optional<Layout> layout;     // named in the summary (bias and attention tensors)
    // The value the masked entries hold, when the tensor holds any (see storedMask).
    std::optional<MaskValue> mask;
};

// The mask a bias tensor stores: set when the mode masks future keys and some key is in the
// future of some query (Q >= 2), nullopt otherwise (nothing to check).
[[nodiscard]] std::optional<MaskValue> storedMask(const BiasParams& params);

// The rule every front end refuses a tensor by (exports, and Python's arrays): a finite mask the
// dtype cannot hold, which would turn every masked entry into -inf without anyone asking for it.
// The reason, in words naming no front end's flags; nullopt when the mask fits (or there is none).
[[nodiscard]] std::optional<std::string> maskOverflowReason(DType dtype, const std::optional<MaskValue>& mask);

// Bytes available to an unprivileged writer on the file system that would hold `path` (its
// directory); nullopt for standard output, devices, pipes and folders that do not exist.
using FreeSpaceFn = std::function<std::optional<std::uint64_t>(const std::string& path)>;
[[nodiscard]] std::optional<std::uint64_t> fileSystemFreeSpace(const std::string& path);

enum class ExportRefusal {
    None,
    MaskOverflow,  // a finite mask the dtype cannot hold: it would be written as -inf
    NoSpace,       // the file cannot fit in the free space of the target's file system
};

// The one-click fix a GUI can offer next to the refusal.
enum class ExportFix { None, UseMaskMin };

struct ExportPlan {
    Shape shape;
    DType dtype = DType::F32;
    std::optional<Layout> layout;
    FileFormat format = FileFormat::Npy;
    std::uint64_t elements = 0;
    // The file's size: exact for npy, safetensors and raw; for the text formats (csv, json,
    // txt) an upper estimate, with minBytes the least the text can take.
    std::uint64_t bytes = 0;
    std::uint64_t minBytes = 0;
    bool bytesExact = true;
    std::optional<std::uint64_t> freeBytes;  // nullopt: unknown (stdout, a device, a pipe)

    ExportRefusal refusal = ExportRefusal::None;
    ExportFix fix = ExportFix::None;
    std::string reason;   // refused: why, and what to do instead
    std::string warning;  // allowed, but worth a word (a text file that may not fit)

    [[nodiscard]] bool allowed() const { return refusal == ExportRefusal::None; }
    // One line: "(8, 16, 16) f16, layout hqk, npy: 4,224 bytes (4.1 KiB); 77.0 GiB free".
    [[nodiscard]] std::string summary() const;
    // The refusal as an error (InvalidArgument for the mask, TooLarge for space); {} if allowed.
    [[nodiscard]] Result<void> check() const;
};

// Plans the export of `source` to `request.path`. `freeSpace` defaults to fileSystemFreeSpace;
// tests pass their own to stand for a small file system.
[[nodiscard]] ExportPlan planExport(const TensorSource& source, const ExportRequest& request,
                                    const FreeSpaceFn& freeSpace = {});

// The request for a bias tensor of `params` (layout and stored mask filled in).
[[nodiscard]] ExportRequest biasExportRequest(const BiasParams& params, std::string path, FileFormat format);

}  // namespace alibi
