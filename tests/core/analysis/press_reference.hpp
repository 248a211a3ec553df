// Press slopes written out from REFERENCES.md (independent of slopes.cpp), for the diagnosis
// tests that build their tensors by hand.
#pragma once

#include <cmath>
#include <vector>

namespace alibi::test {

// The paper's slopes for H heads and max_bias B: a geometric sequence over the largest power of
// two c <= H, then the odd steps of the sequence for 2c interleaved after it.
inline std::vector<double> pressRef(int H, double B) {
    int c = 1;
    while (c * 2 <= H) c *= 2;
    std::vector<double> s;
    for (int h = 0; h < c; ++h) s.push_back(std::pow(2.0, -B * (h + 1) / c));
    for (int k = 0; k < H - c; ++k) s.push_back(std::pow(2.0, -B * (2 * k + 1) / (2.0 * c)));
    return s;
}

}  // namespace alibi::test
