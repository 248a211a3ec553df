// The words and fraction of a whole-file read's progress (read_progress.hpp).
#include <alibi/base/interrupt.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/io/read_progress.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace alibi {

double ReadProgress::fraction() const {
    const double within = total == 0 ? 1.0 : static_cast<double>(std::min(done, total)) / static_cast<double>(total);
    // The end of the last stage is exactly 1 (before + share may round just below it).
    if (within == 1.0 && before + share >= 1.0 - 1e-9) return 1.0;
    return std::clamp(before + share * within, 0.0, 1.0);
}

std::string ReadProgress::text() const {
    const char* what = "reading";
    switch (stage) {
        case Stage::Reading:
            break;
        case Stage::Parsing:
            what = "parsing";
            break;
        case Stage::ReadingHeader:
            what = "reading the header";
            break;
        case Stage::ParsingHeader:
            what = "parsing the header";
            break;
        case Stage::ReadingData:
            what = "reading the data";
            break;
    }
    return fmt::format("{}: {} of {}", what, humanBytes(done), humanBytes(total));
}

namespace detail {

bool goOn(const ReadOptions& options, const ReadProgress& p) {
    if (interruptRequested() || (options.cancelled && options.cancelled())) return false;
    return !options.progress || options.progress(p);
}

}  // namespace detail

}  // namespace alibi
