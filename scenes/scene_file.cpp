// The plain-text scene file format (docs/SCENE_FORMAT.md):
//   # comments and blank lines anywhere
//   [shade flat|snow]        optional, before the count
//   [motion none|linear]     optional, before the count
//   N                        circle count
//   x y z vx vy vz radius r g b     N lines, one circle each
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "render/core/output_file.h"
#include "scenes/scene.h"

namespace cr {

SceneFileError::SceneFileError(const std::string& f, int l, const std::string& r)
    : std::runtime_error(f + (l > 0 ? ":" + std::to_string(l) : std::string()) + ": " + r),
      file(f),
      line(l),
      reason(r) {}

namespace {

constexpr long long kMaxCircles = 100000000;  // 100M circles = 4 GB of floats
constexpr size_t kMaxLineLength = 4096;

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    const auto e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

/// Strips a trailing comment and surrounding blanks.
std::string content_of(const std::string& raw) {
    const auto hash = raw.find('#');
    return trim(hash == std::string::npos ? raw : raw.substr(0, hash));
}

std::string printable(const std::string& tok) {
    std::string out;
    for (char c : tok.substr(0, 40)) out += (c >= 32 && c < 127) ? c : '?';
    return out + (tok.size() > 40 ? "..." : "");
}

/// Parses the 10 numbers of one circle line into `s`; every message quotes
/// the offending text as written.
void parse_circle_line(std::istringstream& words, const std::string& label, int line_no, Scene& s) {
    static const char* kFields[10] = {"x", "y", "z", "vx", "vy", "vz", "radius", "r", "g", "b"};
    float v[10];
    std::string tok, radius_text;
    int f = 0;
    while (words >> tok) {
        if (f >= 10) throw SceneFileError(label, line_no, "more than 10 numbers on a circle line");
        char* end = nullptr;
        errno = 0;
        const float val = std::strtof(tok.c_str(), &end);
        if (end == tok.c_str() || *end != '\0')
            throw SceneFileError(label, line_no, std::string("field ") + kFields[f] + ": not a number '" + printable(tok) + "'");
        // ERANGE with a finite result is underflow (a subnormal or 0): accepted.
        if (!std::isfinite(val) || (errno == ERANGE && std::fabs(val) > 1.f))
            throw SceneFileError(label, line_no, std::string("field ") + kFields[f] + ": '" + printable(tok) + "' is not a finite float");
        if (f == 6) radius_text = tok;
        v[f++] = val;
    }
    if (f < 10)
        throw SceneFileError(label, line_no, "expected 10 numbers (x y z vx vy vz radius r g b), got " + std::to_string(f));
    if (v[6] < 0) throw SceneFileError(label, line_no, "radius " + printable(radius_text) + " is negative");
    s.x.push_back(v[0]); s.y.push_back(v[1]); s.z.push_back(v[2]);
    s.vx.push_back(v[3]); s.vy.push_back(v[4]); s.vz.push_back(v[5]);
    s.radius.push_back(v[6]);
    s.r.push_back(v[7]); s.g.push_back(v[8]); s.b.push_back(v[9]);
}

}  // namespace

Scene parse_scene_text(const std::string& text, const std::string& label) {
    Scene s;
    s.name = label;
    long long expected = -1;
    std::string count_text;  // the count as written, for messages
    long long read = 0;
    int line_no = 0;
    // A UTF-8 byte-order mark (some editors write one) is not part of the text.
    const bool bom = text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0;
    std::istringstream in(bom ? text.substr(3) : text);
    std::string raw;
    while (std::getline(in, raw)) {
        ++line_no;
        if (raw.size() > kMaxLineLength)
            throw SceneFileError(label, line_no, "line longer than 4096 characters");
        if (raw.find('\0') != std::string::npos)
            throw SceneFileError(label, line_no, "binary data (NUL byte) in a text file");
        const std::string line = content_of(raw);
        if (line.empty()) continue;
        std::istringstream words(line);
        if (expected < 0) {
            std::string first;
            words >> first;
            if (first == "shade" || first == "motion") {
                std::string value, extra;
                words >> value;
                if (words >> extra) throw SceneFileError(label, line_no, "extra text after '" + first + " " + value + "'");
                if (first == "shade" && value == "flat") s.shade = ShadeMode::Flat;
                else if (first == "shade" && value == "snow") s.shade = ShadeMode::Snow;
                else if (first == "motion" && value == "none") s.motion = Motion::None;
                else if (first == "motion" && value == "linear") s.motion = Motion::Linear;
                else throw SceneFileError(label, line_no, "unknown " + first + " '" + printable(value) + "'");
                continue;
            }
            char* end = nullptr;
            errno = 0;
            const long long n = std::strtoll(first.c_str(), &end, 10);
            std::string extra;
            if (!first.empty() && *end == '\0' && errno == ERANGE)
                throw SceneFileError(label, line_no, "circle count " + printable(first) + " is over the limit of 100000000");
            if (first.empty() || *end != '\0')
                throw SceneFileError(label, line_no, "expected the circle count, got '" + printable(first) + "'");
            if (words >> extra)
                throw SceneFileError(label, line_no, "extra text after the circle count");
            if (n < 0) throw SceneFileError(label, line_no, "negative circle count " + first);
            if (n > kMaxCircles)
                throw SceneFileError(label, line_no, "circle count " + first + " is over the limit of 100000000");
            expected = n;
            count_text = printable(first);
            s.x.reserve(static_cast<size_t>(std::min<long long>(n, 1 << 20)));
            continue;
        }
        if (line.rfind("shade", 0) == 0 || line.rfind("motion", 0) == 0)
            throw SceneFileError(label, line_no, "'shade' and 'motion' lines must come before the circle count");
        if (read >= expected)
            throw SceneFileError(label, line_no, "more circle lines than the count " + count_text + " says");
        parse_circle_line(words, label, line_no, s);
        ++read;
    }
    if (expected < 0) throw SceneFileError(label, line_no, "no circle count (empty file?)");
    if (read < expected)
        throw SceneFileError(label, line_no, "truncated: the count says " + count_text +
                                                 " circles, the file has " + std::to_string(read));
    return s;
}

Scene load_scene_file(const std::string& path) {
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw SceneFileError(path, 0, "is a folder, not a scene file");
    std::ifstream f(path, std::ios::binary);
    if (!f) throw SceneFileError(path, 0, std::string("cannot open: ") + std::strerror(errno));
    std::ostringstream ss;
    ss << f.rdbuf();
    if (f.bad()) throw SceneFileError(path, 0, "read error");
    return parse_scene_text(ss.str(), path);
}

void save_scene_file(const Scene& s, const std::string& path) {
    std::string text = "# circle-renderer scene: x y z vx vy vz radius r g b\n";
    text += std::string("shade ") + (s.shade == ShadeMode::Snow ? "snow" : "flat") + "\nmotion " +
            (s.motion == Motion::Linear ? "linear" : "none") + "\n" + std::to_string(s.count()) + "\n";
    char line[256];
    for (size_t i = 0; i < s.count(); ++i) {
        std::snprintf(line, sizeof line, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", s.x[i], s.y[i],
                      s.z[i], s.vx[i], s.vy[i], s.vz[i], s.radius[i], s.r[i], s.g[i], s.b[i]);
        text += line;
    }
    write_text_file(path, text);  // temporary name, then rename (render/image.h)
}

}  // namespace cr
