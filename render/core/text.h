// Small text helpers shared by the layers above: prefix and suffix tests
// (C++17's std::string has neither) and a whole file's bytes.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cr {

/// True when `s` begins with `prefix`.
inline bool starts_with(const std::string& s, const std::string& prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
}

/// True when `s` ends with `suffix`.
inline bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// The words of `s`, split at whitespace (none for a blank string).
inline std::vector<std::string> split_words(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

/// The non-empty parts of "a,b,c", spaces dropped ("2, 3" -> {"2", "3"}).
inline std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : text + ",") {
        if (c == ',') {
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
        } else if (c != ' ') {
            cur += c;
        }
    }
    return out;
}

/// Every byte of the file at `path`, as read in binary mode ("" when it
/// cannot be opened: a caller that must tell a missing file from an empty
/// one checks first).
inline std::string read_file_bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace cr
