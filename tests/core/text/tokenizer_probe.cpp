// The tokenizer tests' probe: loads a tokenizer.json and encodes the texts of a JSON list read
// from stdin, printing one JSON object with the ids, the decoded text and the display text of
// every id, so test_tokenizer.py can hold them against its Python reference BPE. A file that
// does not load prints its error on stderr and exits with status 2.
//   alibi_tokenizer_probe TOKENIZER_JSON < texts.json
#include <alibi/text/tokenizer.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: alibi_tokenizer_probe TOKENIZER_JSON < texts.json\n");
        return 2;
    }
    auto tokenizer = alibi::text::Tokenizer::load(argv[1]);
    if (!tokenizer) {
        std::fprintf(stderr, "%s\n", tokenizer.error().message.c_str());
        return 2;
    }
    const std::string input{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    const auto texts = nlohmann::json::parse(input, nullptr, false);
    if (texts.is_discarded() || !texts.is_array()) {
        std::fprintf(stderr, "stdin is not a JSON list of texts\n");
        return 2;
    }
    nlohmann::json out;
    out["summary"] = tokenizer->summary();
    out["vocab_size"] = tokenizer->vocabSize();
    out["results"] = nlohmann::json::array();
    for (const auto& text : texts) {
        const auto ids = tokenizer->encode(text.get<std::string>());
        nlohmann::json display = nlohmann::json::array();
        for (const auto id : ids) display.push_back(tokenizer->displayText(id));
        out["results"].push_back({{"ids", ids}, {"decoded", tokenizer->decode(ids)}, {"display", display}});
    }
    std::cout << out.dump() << "\n";
    return 0;
}
