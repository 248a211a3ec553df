// Correct rounding from double into the four storage dtypes.
// f16 and bf16 are rounded straight from double (never via float, which would round twice).
#include <alibi/base/dtype.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace alibi {
namespace {

// An IEEE binary format with 1 sign bit, `expBits` exponent bits and `mantBits` stored
// mantissa bits, packed into 16 bits.
struct SmallFloat {
    int expBits;
    int mantBits;
    [[nodiscard]] int bias() const { return (1 << (expBits - 1)) - 1; }
    [[nodiscard]] int maxExp() const { return bias(); }      // largest normal exponent
    [[nodiscard]] int minExp() const { return 1 - bias(); }  // smallest normal exponent
};

constexpr SmallFloat kHalf{5, 10};
constexpr SmallFloat kBFloat{8, 7};

std::uint16_t encodeSmall(const SmallFloat& f, double x) {
    const std::uint16_t sign = std::signbit(x) ? std::uint16_t(1U << 15) : std::uint16_t(0);
    const auto expAll = static_cast<std::uint16_t>(((1U << f.expBits) - 1U) << f.mantBits);
    if (std::isnan(x)) return static_cast<std::uint16_t>(sign | expAll | (1U << (f.mantBits - 1)));
    const double a = std::fabs(x);
    if (std::isinf(a)) return static_cast<std::uint16_t>(sign | expAll);
    if (a == 0.0) return sign;

    int e2 = 0;
    (void)std::frexp(a, &e2);  // a = frac * 2^e2, frac in [0.5, 1)
    int e = e2 - 1;            // a in [2^e, 2^(e+1))
    if (e < f.minExp()) {
        // Subnormal: multiples of 2^(minExp - mantBits). Scaling by a power of two is exact and
        // nearbyint rounds to nearest even, so this is one correct rounding.
        const double q = std::nearbyint(std::ldexp(a, f.mantBits - f.minExp()));
        // q may reach 2^mantBits, which is exactly the smallest normal's encoding.
        return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(q));
    }
    double m = std::nearbyint(std::ldexp(a, f.mantBits - e));  // in [2^mb, 2^(mb+1)]
    if (m == std::ldexp(1.0, f.mantBits + 1)) {
        m = std::ldexp(1.0, f.mantBits);
        ++e;
    }
    if (e > f.maxExp()) return static_cast<std::uint16_t>(sign | expAll);
    const auto biased = static_cast<std::uint16_t>(e + f.bias());
    const auto frac = static_cast<std::uint16_t>(static_cast<std::uint32_t>(m) - (1U << f.mantBits));
    return static_cast<std::uint16_t>(sign | (biased << f.mantBits) | frac);
}

double decodeSmall(const SmallFloat& f, std::uint16_t bits) {
    const bool negative = (bits >> 15) & 1U;
    const unsigned expField = (bits >> f.mantBits) & ((1U << f.expBits) - 1U);
    const unsigned frac = bits & ((1U << f.mantBits) - 1U);
    double value = 0;
    if (expField == (1U << f.expBits) - 1U) {
        value = frac ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    } else if (expField == 0) {
        value = std::ldexp(static_cast<double>(frac), f.minExp() - f.mantBits);
    } else {
        value = std::ldexp(static_cast<double>(frac + (1U << f.mantBits)),
                           static_cast<int>(expField) - f.bias() - f.mantBits);
    }
    return negative ? -value : value;
}

double largestFinite(const SmallFloat& f) {
    return std::ldexp(2.0 - std::ldexp(1.0, -f.mantBits), f.maxExp());
}

}  // namespace

std::size_t dtypeSize(DType dtype) {
    switch (dtype) {
        case DType::F32:
            return 4;
        case DType::F64:
            return 8;
        case DType::F16:
        case DType::BF16:
            return 2;
    }
    return 4;
}

std::string_view dtypeName(DType dtype) {
    switch (dtype) {
        case DType::F32:
            return "f32";
        case DType::F64:
            return "f64";
        case DType::F16:
            return "f16";
        case DType::BF16:
            return "bf16";
    }
    return "f32";
}

std::optional<DType> parseDType(std::string_view name) {
    if (name == "f32" || name == "float32" || name == "F32") return DType::F32;
    if (name == "f64" || name == "float64" || name == "F64") return DType::F64;
    if (name == "f16" || name == "float16" || name == "F16") return DType::F16;
    if (name == "bf16" || name == "bfloat16" || name == "BF16") return DType::BF16;
    return std::nullopt;
}

std::string_view safetensorsDTypeName(DType dtype) {
    switch (dtype) {
        case DType::F32:
            return "F32";
        case DType::F64:
            return "F64";
        case DType::F16:
            return "F16";
        case DType::BF16:
            return "BF16";
    }
    return "F32";
}

std::string_view numpyDescr(DType dtype) {
    switch (dtype) {
        case DType::F32:
            return "<f4";
        case DType::F64:
            return "<f8";
        case DType::F16:
            return "<f2";
        case DType::BF16:
            return "<u2";
    }
    return "<f4";
}

double dtypeMax(DType dtype) {
    switch (dtype) {
        case DType::F32:
            return std::numeric_limits<float>::max();
        case DType::F64:
            return std::numeric_limits<double>::max();
        case DType::F16:
            return largestFinite(kHalf);
        case DType::BF16:
            return largestFinite(kBFloat);
    }
    return std::numeric_limits<float>::max();
}

double dtypeLowest(DType dtype) {
    return -dtypeMax(dtype);
}

std::uint16_t toHalfBits(double value) {
    return encodeSmall(kHalf, value);
}
std::uint16_t toBFloat16Bits(double value) {
    return encodeSmall(kBFloat, value);
}
double halfBitsToDouble(std::uint16_t bits) {
    return decodeSmall(kHalf, bits);
}
double bfloat16BitsToDouble(std::uint16_t bits) {
    return decodeSmall(kBFloat, bits);
}

double roundTo(DType dtype, double value) {
    switch (dtype) {
        case DType::F32:
            return static_cast<double>(static_cast<float>(value));
        case DType::F64:
            return value;
        case DType::F16:
            return halfBitsToDouble(toHalfBits(value));
        case DType::BF16:
            return bfloat16BitsToDouble(toBFloat16Bits(value));
    }
    return value;
}

// The project targets little-endian hosts (x86-64, aarch64); memcpy of native values is
// then the little-endian encoding the file formats require.
static_assert(std::endian::native == std::endian::little, "ALiBi Explorer assumes a little-endian host");

void storeAs(DType dtype, double value, std::byte* out) {
    switch (dtype) {
        case DType::F32: {
            const float f = static_cast<float>(value);
            std::memcpy(out, &f, 4);
            return;
        }
        case DType::F64:
            std::memcpy(out, &value, 8);
            return;
        case DType::F16: {
            const std::uint16_t b = toHalfBits(value);
            std::memcpy(out, &b, 2);
            return;
        }
        case DType::BF16: {
            const std::uint16_t b = toBFloat16Bits(value);
            std::memcpy(out, &b, 2);
            return;
        }
    }
}

double loadAs(DType dtype, const std::byte* in) {
    switch (dtype) {
        case DType::F32: {
            float f = 0;
            std::memcpy(&f, in, 4);
            return f;
        }
        case DType::F64: {
            double d = 0;
            std::memcpy(&d, in, 8);
            return d;
        }
        case DType::F16:
        case DType::BF16: {
            std::uint16_t b = 0;
            std::memcpy(&b, in, 2);
            return dtype == DType::F16 ? halfBitsToDouble(b) : bfloat16BitsToDouble(b);
        }
    }
    return 0;
}

}  // namespace alibi
