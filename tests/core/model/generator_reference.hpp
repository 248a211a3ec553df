// The Gaussian generator's documented recipes (attention.hpp), written out a second time for
// the tests, in the plainest scalar form: recipe 2 from its formulas, recipe 1 with the C
// library's functions. Defined in test_generator.cpp, compiled without contraction.
#pragma once

#include <cstdint>

namespace alibi::test {

// standardNormal(seed, stream, index) under recipe 1 or 2.
double referenceNormal(std::uint64_t seed, std::uint64_t stream, std::uint64_t index, int generator);

}  // namespace alibi::test
