// Shared by the attention-map tests: causal maps made from known slopes with the plain formula
// softmax(content - m (i - j)), and .npy / .safetensors bytes written by hand, so nothing under
// test produces its own inputs.
#pragma once

#include <alibi/io/attention_maps.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace alibi::test {

using alibi::AttentionValues;

// 2^(-8 (h+1) / H): the paper's slopes for a power-of-two H, computed here independently.
inline double paperSlope(int h, int heads) {
    return std::pow(2.0, -8.0 * (h + 1) / heads);
}

// One causal row of softmax(content_j - m (i - j)) over keys 0..i (zeros after), as logits when
// `scores` (masked keys -inf).
inline std::vector<double> causalRow(double slope, std::int64_t i, std::int64_t keys, double sigma,
                                     std::mt19937_64& rng, bool scores) {
    std::normal_distribution<double> normal(0.0, sigma);
    std::vector<double> logits(static_cast<std::size_t>(keys), -std::numeric_limits<double>::infinity());
    double top = -std::numeric_limits<double>::infinity();
    for (std::int64_t j = 0; j <= i && j < keys; ++j) {
        logits[static_cast<std::size_t>(j)] = (sigma > 0 ? normal(rng) : 0.0) - slope * static_cast<double>(i - j);
        top = std::max(top, logits[static_cast<std::size_t>(j)]);
    }
    if (scores) return logits;
    std::vector<double> p(static_cast<std::size_t>(keys), 0.0);
    double sum = 0;
    for (std::size_t j = 0; j < p.size(); ++j)
        if (std::isfinite(logits[j])) sum += (p[j] = std::exp(logits[j] - top));
    for (double& v : p) v /= sum;
    return p;
}

inline std::string npyBytes(const std::vector<std::int64_t>& shape, const std::vector<float>& data) {
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
    for (std::size_t i = 0; i < shape.size(); ++i)
        dict += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? ", " : "");
    dict += "), }";
    while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
    dict += '\n';
    std::string out = "\x93NUMPY";
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(dict.size() & 0xff);
    out += static_cast<char>(dict.size() >> 8);
    out += dict;
    out.append(reinterpret_cast<const char*>(data.data()), data.size() * 4);
    return out;
}

// `s` as a JSON string (quotes, backslashes and control characters escaped).
inline std::string jsonString(const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            const char* hex = "0123456789abcdef";
            out += "\\u00";
            out += hex[(c >> 4) & 0xF];
            out += hex[c & 0xF];
        } else {
            out += c;
        }
    }
    return out + "\"";
}

// A safetensors file with one F32 tensor per (name, data), all of `shape`, in the given order,
// after a __metadata__ of (key, value) strings when `metadata` is not empty.
inline std::string safetensorsBytes(const std::vector<std::string>& names, const std::vector<std::int64_t>& shape,
                                    const std::vector<std::vector<float>>& data,
                                    const std::vector<std::pair<std::string, std::string>>& metadata = {}) {
    std::string json = "{";
    if (!metadata.empty()) {
        json += "\"__metadata__\":{";
        for (std::size_t k = 0; k < metadata.size(); ++k)
            json += (k ? "," : "") + jsonString(metadata[k].first) + ":" + jsonString(metadata[k].second);
        json += "}";
        if (!names.empty()) json += ",";
    }
    std::uint64_t offset = 0;
    for (std::size_t t = 0; t < names.size(); ++t) {
        std::string dims;
        for (std::size_t i = 0; i < shape.size(); ++i) dims += (i ? "," : "") + std::to_string(shape[i]);
        const std::uint64_t bytes = data[t].size() * 4;
        json += (t ? "," : "") + std::string("\"") + names[t] + "\":{\"dtype\":\"F32\",\"shape\":[" + dims +
                "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + bytes) + "]}";
        offset += bytes;
    }
    json += "}";
    while (json.size() % 8) json += ' ';
    std::string out(8, '\0');
    for (int b = 0; b < 8; ++b) out[static_cast<std::size_t>(b)] = static_cast<char>((json.size() >> (8 * b)) & 0xff);
    out += json;
    for (const auto& d : data) out.append(reinterpret_cast<const char*>(d.data()), d.size() * 4);
    return out;
}

// (H, T, T) causal maps with the given slopes, Gaussian content of `sigma`.
inline std::vector<float> causalMaps(const std::vector<double>& slopes, std::int64_t t, double sigma,
                                     std::uint64_t seed, bool scores = false) {
    std::mt19937_64 rng(seed);
    std::vector<float> out;
    out.reserve(slopes.size() * static_cast<std::size_t>(t * t));
    for (const double m : slopes)
        for (std::int64_t i = 0; i < t; ++i)
            for (const double v : causalRow(m, i, t, sigma, rng, scores)) out.push_back(static_cast<float>(v));
    return out;
}

inline alibi::AttentionOpenOptions tensorNamed(std::string name) {
    alibi::AttentionOpenOptions o;
    o.tensor = std::move(name);
    return o;
}
inline alibi::AttentionOpenOptions batchElement(int batch) {
    alibi::AttentionOpenOptions o;
    o.batch = batch;
    return o;
}
inline alibi::AttentionOpenOptions valuesAre(AttentionValues values) {
    alibi::AttentionOpenOptions o;
    o.values = values;
    return o;
}

inline std::span<const std::byte> asBytes(const std::string& s) {
    return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

}  // namespace alibi::test
