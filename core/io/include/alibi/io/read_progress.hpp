// How far the read of a whole file has come (a session file, a tensor to diagnose), for the
// explorers' progress bars, and how to stop it: the core counts the bytes read and parsed and
// words each stage; the front ends show the fraction and the text as they are (issue 25, item 3).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace alibi {

struct ReadProgress {
    enum class Stage { Reading, Parsing, ReadingHeader, ParsingHeader, ReadingData };
    Stage stage = Stage::Reading;
    std::uint64_t done = 0, total = 0;  // bytes read or parsed in this stage
    // The part of the whole read that came before this stage, and this stage's part (both 0..1):
    // the reader sets them so that fraction() never goes back.
    double before = 0, share = 1;

    // The fraction of the whole read, 0 to 1.
    [[nodiscard]] double fraction() const;
    // "reading: 3.0 MiB of 15.2 MiB", "parsing the header: 12.0 MiB of 95.4 MiB",
    // "reading the data: 200.0 MiB of 1.0 GiB".
    [[nodiscard]] std::string text() const;
};

// Called from the thread that reads, after every MiB or so; false stops the read with
// ErrorCode::Cancelled.
using ReadProgressFn = std::function<bool(const ReadProgress&)>;

// What a reader of a whole file is told besides the path.
struct ReadOptions {
    // Asked as the read goes: true stops it with ErrorCode::Cancelled (as the user's Ctrl+C does,
    // base/interrupt.hpp).
    std::function<bool()> cancelled;
    ReadProgressFn progress;
};

namespace detail {

// One check of a long read: false when it should stop (Ctrl+C, `cancelled`, or `progress`
// returning false). Reports `p` to `progress` when there is one.
[[nodiscard]] bool goOn(const ReadOptions& options, const ReadProgress& p);

}  // namespace detail

}  // namespace alibi
