// The plain-text scene file format (docs/SCENE_FORMAT.md):
//   # comments and blank lines anywhere
//   [shade flat|snow]        optional, before the count
//   [motion none|linear]     optional, before the count
//   N                        circle count
//   x y z vx vy vz radius r g b     N lines, one circle each
// and the course's particle format (.par, docs/SCENE_FORMAT.md): a count N,
// then N lines of x y z vx vy vz radius; a still, white, snow-shaded scene.
// Both are read by one parser (parse_items) driven by a small Format
// description: wording, the numbers on a line, header lines, colors.
#include <algorithm>
#include <cctype>
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

/// What a format calls its items and its files, for messages ("circle" and
/// "scene file" in the scene-file format, "particle" and "particle file" in .par).
struct Wording {
    const char* item;
    const char* file_kind;
};

constexpr Wording kSceneWords{"circle", "scene file"};
constexpr Wording kParticleWords{"particle", "particle file"};

/// One of the two text formats: its wording, the numbers on an item line and
/// how they make a circle.
struct Format {
    Wording words;
    const char* const* fields;  // the names of the numbers on an item line
    int field_count;
    int radius_field;           // the index of "radius" in fields
    bool headers;               // 'shade' and 'motion' lines allowed before the count
    bool colored;               // r g b are fields 7..9; otherwise the circle is white
};

constexpr int kMaxFields = 10;
constexpr const char* kSceneFields[kMaxFields] = {"x", "y", "z", "vx", "vy", "vz", "radius", "r", "g", "b"};
constexpr Format kSceneFormat{kSceneWords, kSceneFields, 10, 6, true, true};
constexpr Format kParticleFormat{kParticleWords, kSceneFields, 7, 6, false, false};  // x .. radius

/// The lines of a file's text one at a time, numbered from 1: skips a UTF-8
/// byte-order mark (some editors write one), comments and blank lines;
/// rejects lines over 4096 characters and NUL bytes. Errors name the file
/// and the current line.
class LineReader {
public:
    LineReader(const std::string& text, const std::string& label)
        : in_(text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? text.substr(3) : text), label_(label) {}

    /// The next line with content (comment stripped, trimmed); false at the end.
    bool next(std::string& content) {
        std::string raw;
        while (std::getline(in_, raw)) {
            ++line_;
            if (raw.size() > kMaxLineLength) fail("line longer than 4096 characters");
            if (raw.find('\0') != std::string::npos) fail("binary data (NUL byte) in a text file");
            content = content_of(raw);
            if (!content.empty()) return true;
        }
        return false;
    }

    /// Throws SceneFileError(file, current line, reason).
    [[noreturn]] void fail(const std::string& reason) const { throw SceneFileError(label_, line_, reason); }

private:
    std::istringstream in_;
    std::string label_;
    int line_ = 0;
};

/// The count line: `first` is its first word, `words` the rest. Returns the
/// count (0..kMaxCircles) or fails naming the problem.
long long parse_count(const std::string& first, std::istringstream& words, const LineReader& in, const Wording& w) {
    const std::string item = w.item;
    char* end = nullptr;
    errno = 0;
    const long long n = std::strtoll(first.c_str(), &end, 10);
    std::string extra;
    if (!first.empty() && *end == '\0' && errno == ERANGE)
        in.fail(item + " count " + printable(first) + " is over the limit of 100000000");
    if (first.empty() || *end != '\0') in.fail("expected the " + item + " count, got '" + printable(first) + "'");
    if (words >> extra) in.fail("extra text after the " + item + " count");
    if (n < 0) in.fail("negative " + item + " count " + first);
    if (n > kMaxCircles) in.fail(item + " count " + first + " is over the limit of 100000000");
    return n;
}

/// Reads exactly `n` numbers of one item line into `out`, each like
/// fscanf("%f") (strtof: the decimal rounded straight to float); `fields`
/// names them in messages. Non-numbers, non-finite values, too few or too
/// many numbers and a negative value of field `radius_field` fail.
void parse_numbers(std::istringstream& words, const char* const* fields, int n, int radius_field, float* out,
                   const LineReader& in, const Wording& w) {
    std::string tok, radius_text;
    int f = 0;
    while (words >> tok) {
        if (f >= n) in.fail("more than " + std::to_string(n) + " numbers on a " + w.item + " line");
        char* end = nullptr;
        errno = 0;
        const float val = std::strtof(tok.c_str(), &end);
        if (end == tok.c_str() || *end != '\0')
            in.fail(std::string("field ") + fields[f] + ": not a number '" + printable(tok) + "'");
        // ERANGE with a finite result is underflow (a subnormal or 0): accepted.
        if (!std::isfinite(val) || (errno == ERANGE && std::fabs(val) > 1.f))
            in.fail(std::string("field ") + fields[f] + ": '" + printable(tok) + "' is not a finite float");
        if (f == radius_field) radius_text = tok;
        out[f++] = val;
    }
    if (f < n) {
        std::string names;
        for (int k = 0; k < n; ++k) names += (k ? " " : "") + std::string(fields[k]);
        in.fail("expected " + std::to_string(n) + " numbers (" + names + "), got " + std::to_string(f));
    }
    if (out[radius_field] < 0) in.fail("radius " + printable(radius_text) + " is negative");
}

/// After the last line: fails when there was no count or fewer items than it said.
void check_complete(long long expected, const std::string& count_text, long long read, const LineReader& in,
                    const Wording& w) {
    if (expected < 0) in.fail(std::string("no ") + w.item + " count (empty file?)");
    if (read < expected)
        in.fail("truncated: the count says " + count_text + " " + w.item + "s, the file has " +
                std::to_string(read));
}

/// Applies a header line `first value` ("shade flat|snow", "motion none|linear") to s.
void apply_header(const std::string& first, std::istringstream& words, Scene& s, const LineReader& in) {
    std::string value, extra;
    words >> value;
    if (words >> extra) in.fail("extra text after '" + first + " " + value + "'");
    if (first == "shade" && value == "flat") s.shade = ShadeMode::Flat;
    else if (first == "shade" && value == "snow") s.shade = ShadeMode::Snow;
    else if (first == "motion" && value == "none") s.motion = Motion::None;
    else if (first == "motion" && value == "linear") s.motion = Motion::Linear;
    else in.fail("unknown " + first + " '" + printable(value) + "'");
}

/// Appends one circle: position, velocity, radius (v[0..6]) and color r, g, b.
void append_circle(Scene& s, const float* v, float r, float g, float b) {
    s.x.push_back(v[0]);
    s.y.push_back(v[1]);
    s.z.push_back(v[2]);
    s.vx.push_back(v[3]);
    s.vy.push_back(v[4]);
    s.vz.push_back(v[5]);
    s.radius.push_back(v[6]);
    s.r.push_back(r);
    s.g.push_back(g);
    s.b.push_back(b);
}

/// The whole text of file `path`; a folder or an unreadable file fails with
/// line 0 (no line number in the message).
std::string read_text(const std::string& path, const Wording& w) {
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw SceneFileError(path, 0, std::string("is a folder, not a ") + w.file_kind);
    std::ifstream f(path, std::ios::binary);
    if (!f) throw SceneFileError(path, 0, std::string("cannot open: ") + std::strerror(errno));
    std::ostringstream ss;
    ss << f.rdbuf();
    if (f.bad()) throw SceneFileError(path, 0, "read error");
    return ss.str();
}

/// Reads the count and the item lines of `text` (file `label`) in format
/// `fmt` into `s`, which holds the format's defaults; header lines, where the
/// format has them, set its shading and motion.
void parse_items(const std::string& text, const std::string& label, const Format& fmt, Scene& s) {
    long long expected = -1, read = 0;
    std::string count_text;
    LineReader in(text, label);
    std::string line;
    while (in.next(line)) {
        std::istringstream words(line);
        if (expected < 0) {
            std::string first;
            words >> first;
            if (fmt.headers && (first == "shade" || first == "motion")) {
                apply_header(first, words, s, in);
                continue;
            }
            expected = parse_count(first, words, in, fmt.words);
            count_text = printable(first);  // quoted as written in messages
            s.x.reserve(static_cast<size_t>(std::min<long long>(expected, 1 << 20)));
            continue;
        }
        if (fmt.headers && (line.rfind("shade", 0) == 0 || line.rfind("motion", 0) == 0))
            in.fail("'shade' and 'motion' lines must come before the circle count");
        if (read >= expected)
            in.fail(std::string("more ") + fmt.words.item + " lines than the count " + count_text + " says");
        float v[kMaxFields];
        parse_numbers(words, fmt.fields, fmt.field_count, fmt.radius_field, v, in, fmt.words);
        if (fmt.colored) append_circle(s, v, v[7], v[8], v[9]);
        else append_circle(s, v, 1.f, 1.f, 1.f);  // white, as the course's snow flakes
        ++read;
    }
    check_complete(expected, count_text, read, in, fmt.words);
}

}  // namespace

Scene parse_scene_text(const std::string& text, const std::string& label) {
    Scene s;
    s.name = label;
    parse_items(text, label, kSceneFormat, s);
    return s;
}

Scene load_scene_file(const std::string& path) { return parse_scene_text(read_text(path, kSceneWords), path); }

Scene parse_particle_text(const std::string& text, const std::string& label) {
    Scene s;
    s.name = label;
    s.shade = ShadeMode::Snow;
    s.motion = Motion::None;
    parse_items(text, label, kParticleFormat, s);
    return s;
}

Scene load_particle_file(const std::string& path) {
    return parse_particle_text(read_text(path, kParticleWords), path);
}

bool is_particle_path(const std::string& path) {
    if (path.size() < 4) return false;
    std::string ext = path.substr(path.size() - 4);
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext == ".par";
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

void save_particle_file(const Scene& s, const std::string& path) {
    std::string text = std::to_string(s.count()) + "\n";
    char line[160];
    for (size_t i = 0; i < s.count(); ++i) {
        std::snprintf(line, sizeof line, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", s.x[i], s.y[i], s.z[i], s.vx[i],
                      s.vy[i], s.vz[i], s.radius[i]);
        text += line;
    }
    write_text_file(path, text);
}

}  // namespace cr
