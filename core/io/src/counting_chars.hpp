// A JSON text's characters for nlohmann's parsers, leaving in `*at` how far the parser has read:
// its events carry no position, and a parse's progress is the bytes it has read (the safetensors
// header, session files).
#pragma once

#include <cstddef>
#include <iterator>

namespace alibi::detail {

struct CountingChars {
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;
    const char* p = nullptr;
    const char** at = nullptr;
    reference operator*() const { return *p; }
    CountingChars& operator++() {
        *at = ++p;
        return *this;
    }
    CountingChars operator++(int) {
        CountingChars before = *this;
        ++*this;
        return before;
    }
    friend bool operator==(const CountingChars& a, const CountingChars& b) { return a.p == b.p; }
};

}  // namespace alibi::detail
