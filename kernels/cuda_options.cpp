// CR_CUDA_OPTIONS: the developer switches of the CUDA renderers, in one
// table (every key, its values, the kernels it acts on, what it does), from
// which the parser, its error message, `render --list` and docs/KERNELS.md's
// table of switches are made; and the check, before a renderer is built, of
// the combinations a kernel cannot run. Host code only: the CPU tests check
// it on a machine without a GPU.
#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda_renderer.h"
#include "render/core/numbers.h"

namespace cr {

namespace {

/// The index of `value` in `words`, or -1.
int word_index(const std::string& value, std::initializer_list<const char*> words) {
    int i = 0;
    for (const char* w : words) {
        if (value == w) return i;
        ++i;
    }
    return -1;
}

/// `value` ("auto", "on" or "off") into `c`; false (c untouched) for anything else.
bool set_choice(const std::string& value, Choice& c) {
    const int i = word_index(value, {"auto", "on", "off"});
    if (i < 0) return false;
    c = i == 1 ? Choice::On : i == 2 ? Choice::Off : Choice::Auto;
    return true;
}

/// `value` ("auto", `off_word` or `on_word`) into `c`; false (c untouched) for anything else.
bool set_named_choice(const std::string& value, const char* off_word, const char* on_word, Choice& c) {
    const int i = word_index(value, {"auto", off_word, on_word});
    if (i < 0) return false;
    c = i == 2 ? Choice::On : i == 1 ? Choice::Off : Choice::Auto;
    return true;
}

/// `value`, a whole number in [lo, hi], into `out`; false for anything else.
bool set_number(const std::string& value, long long lo, long long hi, long long& out) {
    return parse_integer(value, lo, hi, out);
}

/// set_number into an int field (`hi` within int's range); `out` untouched on failure.
bool set_number(const std::string& value, int lo, int hi, int& out) {
    long long n = 0;
    return set_number(value, lo, hi, n) && (out = static_cast<int>(n), true);
}

/// The teaching variant `value` names for `key` (list, cull, scan), or false.
bool set_variant(const std::string& value, const char* variant_word, const char* default_word, int variant, CudaOptions& o) {
    const int i = word_index(value, {variant_word, default_word});
    if (i < 0) return false;
    o.shade_variant = i == 0 ? variant : 0;
    return true;
}

const char* const kBinned = "tiled, persistent, ftb";
const char* const kTiledOnly = "tiled (16x16 tiles, rows=4)";

const std::vector<CudaOptionKey> kKeys = {
    {"tile", "8|16", "tiled, persistent", "tile edge in pixels (8x8 tiles: one warp a tile, 2 rows a thread)",
     [](const std::string& v, CudaOptions& o) {
         const int i = word_index(v, {"8", "16"});
         return i >= 0 && (o.tile_size = i == 0 ? 8 : 16, true);
     }},
    {"rows", "4|8", "tiled, persistent (16x16 tiles)", "pixel rows each shading thread owns",
     [](const std::string& v, CudaOptions& o) {
         const int i = word_index(v, {"4", "8"});
         return i >= 0 && (o.rows_per_thread = i == 0 ? 4 : 8, true);
     }},
    {"direct", "N>=0", kBinned, "scenes of at most N circle x tile tests skip binning (every block scans every circle)",
     [](const std::string& v, CudaOptions& o) { return set_number(v, 0, 1ll << 40, o.direct_limit); }},
    {"batch", "1..2^30", kBinned, "most circle-tile pairs binned at once; more are binned in batches of circles",
     [](const std::string& v, CudaOptions& o) { return set_number(v, 1, 1ll << 30, o.max_pairs_per_batch); }},
    {"memlimit_mib", "N>=1", "every CUDA renderer", "device memory the renderer may hold (for out-of-memory tests)",
     [](const std::string& v, CudaOptions& o) {
         long long mib = 0;
         return set_number(v, 1, 1ll << 40, mib) && (o.memory_limit = static_cast<size_t>(mib) << 20, true);
     }},
    {"fill", "thread|warp", kBinned, "bin.fill one thread a circle (the coalescing lesson) or a warp a circle",
     [](const std::string& v, CudaOptions& o) {
         const int i = word_index(v, {"thread", "warp"});
         return i >= 0 && (o.fill_per_thread = i == 0, true);
     }},
    {"list", "split|records", kTiledOnly, "the shared-memory list as two arrays (the bank-conflict lesson)",
     [](const std::string& v, CudaOptions& o) { return set_variant(v, "split", "records", kShadeSplitList, o); }},
    {"cull", "warp|none", kTiledOnly, "warp-uniform culling of the listed circles (a lesson)",
     [](const std::string& v, CudaOptions& o) { return set_variant(v, "warp", "none", kShadeWarpCull, o); }},
    {"scan", "shuffle|ballot", kTiledOnly, "the shading's compaction with the general shuffle scan (a lesson)",
     [](const std::string& v, CudaOptions& o) { return set_variant(v, "shuffle", "ballot", kShadeShuffleScan, o); }},
    {"spec", "on|off|tight", kBinned, "speculative pair capacity: with slack, off (wait for each total), or tight",
     [](const std::string& v, CudaOptions& o) {
         const int i = word_index(v, {"on", "off", "tight"});
         return i >= 0 && (o.speculation = i == 0 ? Speculation::Slack : i == 1 ? Speculation::Off : Speculation::Tight, true);
     }},
    {"coarse", "0|1|2|4", kBinned, "bins of NxN tiles (0: chosen per scene)",
     [](const std::string& v, CudaOptions& o) {
         const int i = word_index(v, {"0", "1", "2", "4"});
         return i >= 0 && (o.coarse = i == 3 ? 4 : i, true);
     }},
    {"bins", "auto|sort", kBinned, "sort: never bin.compact",
     [](const std::string& v, CudaOptions& o) {
         const int i = word_index(v, {"auto", "sort"});
         return i >= 0 && (o.allow_compact = i == 0, true);
     }},
    {"compact", "N>=0", kBinned, "bin.compact for scenes of at most N circles x bins",
     [](const std::string& v, CudaOptions& o) { return set_number(v, 0, 1ll << 40, o.compact_limit); }},
    {"rowcull", "auto|on|off", "tiled, persistent, ftb (16x16, rows=4)", "row culling in the shading",
     [](const std::string& v, CudaOptions& o) { return set_choice(v, o.row_cull); }},
    {"strips", "auto|on|off", "tiled, persistent, ftb (16x16, rows=4)", "per-strip hit masks in the shading",
     [](const std::string& v, CudaOptions& o) { return set_choice(v, o.strips); }},
    {"split", "auto|on|off", kBinned, "bin.split of coarse bins into per-tile lists",
     [](const std::string& v, CudaOptions& o) { return set_choice(v, o.split); }},
    {"count", "auto|on|off", kBinned, "binning by the counting sort instead of the sorting stages",
     [](const std::string& v, CudaOptions& o) { return set_choice(v, o.counting); }},
    {"order", "auto|on|off", "persistent; tiled (with the early stop)",
     "tiles handed out heaviest first, by their work in the frame before (bin.order, computed beside binning: "
     "the chunks a tile walked with the early stop, else its list length; persistent: the first frame by list "
     "length; tiled: with the early stop only, by default on counted lists, with on on every list, faster on "
     "biglittle), or off: row-major",
     [](const std::string& v, CudaOptions& o) { return set_choice(v, o.order); }},
    {"stop", "auto|on|off", "tiled, persistent (16x16, rows=4)",
     "exact early stopping: shade each tile from where two trajectories meet (on: every scene, off: never)",
     [](const std::string& v, CudaOptions& o) { return set_choice(v, o.coalesce); }},
    {"start", "auto|walk|guess", "tiled, persistent (with the early stop)",
     "where the early stop starts a tile: walk its list back (walk), or guess a window from the mean coverage "
     "(auto: guess, but walk on bin.compact's lists)",
     [](const std::string& v, CudaOptions& o) { return set_named_choice(v, "walk", "guess", o.guess_start); }},
    {"window", "1..1000", "tiled, persistent (start=guess)",
     "the guessed start's window: covering circles a pixel, on average (small values force second tries)",
     [](const std::string& v, CudaOptions& o) { return set_number(v, 1, 1000, o.guess_hits); }},
    {"gap", "1..32", "tiled, persistent (start=walk)",
     "the walk back stops where every pixel's two trajectories differ by less than 2^-N (small values force "
     "second tries)",
     [](const std::string& v, CudaOptions& o) { return set_number(v, 1, 32, o.walk_gap_bits); }},
    {"layout", "auto|strips|quads", "tiled, persistent (16x16, rows=4; no culling, no early stop)",
     "pixels of a shading thread: a 4-row column strip, or 2x2 pixels 8 columns and 4 rows apart (a warp's pixel "
     "index is an 8x4 block; auto: quads on snow scenes)",
     [](const std::string& v, CudaOptions& o) { return set_named_choice(v, "strips", "quads", o.quad_layout); }},
    {"snowdiv", "auto|ieee|recip", "tiled, persistent (16x16, rows=4; snow scenes, no early stop)",
     "snow's sqrt(d2)/r by the IEEE division, or from the radius's reciprocal and one correction (the same float; "
     "auto: with the quad layout)",
     [](const std::string& v, CudaOptions& o) { return set_named_choice(v, "ieee", "recip", o.snow_reciprocal); }},
    {"gather", "arrays|records", "tiled, persistent (16x16, rows=4; flat scenes)",
     "the shading reads a listed circle's geometry and color from two arrays, or from one 32-byte record of both",
     [](const std::string& v, CudaOptions& o) {
         const int i = word_index(v, {"arrays", "records"});
         return i >= 0 && (o.circle_records = i == 1, true);
     }},
    {"place", "auto|direct|staged", kBinned,
     "the counting sort's bin.place: each window's entries stored where they belong, or staged in shared memory in "
     "tile order and stored from consecutive slots (auto: staged for split bins of large scenes)",
     [](const std::string& v, CudaOptions& o) { return set_named_choice(v, "direct", "staged", o.staged_place); }},
    {"chunks", "1..32", kBinned, "the counting sort's blocks per multiprocessor",
     [](const std::string& v, CudaOptions& o) { return set_number(v, 1, 32, o.count_chunks_per_sm); }},
};

/// "key=values" of every key, comma-separated (the error message's list).
std::string key_list() {
    std::string out;
    for (const CudaOptionKey& k : kKeys) out += (out.empty() ? "" : ", ") + std::string(k.key) + "=" + k.values;
    return out;
}

/// One "key=value" item of CR_CUDA_OPTIONS applied to `o`; throws on a bad one.
void apply_cuda_option(const std::string& item, CudaOptions& o) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("CR_CUDA_OPTIONS: '" + item + "' is not key=value");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    for (const CudaOptionKey& k : kKeys) {
        if (key != k.key) continue;
        if (k.apply(value, o)) return;
        throw std::invalid_argument("CR_CUDA_OPTIONS: '" + item + "': " + key + " takes " + k.values);
    }
    throw std::invalid_argument("CR_CUDA_OPTIONS: unknown key in '" + item + "' (" + key_list() + ")");
}

/// The CR_CUDA_OPTIONS item that set shade_variant `v` ("list=split", ...).
std::string variant_item(int v) {
    return v == kShadeSplitList ? "list=split" : v == kShadeWarpCull ? "cull=warp" : "scan=shuffle";
}

/// layout=quads, snowdiv=recip and gather=records act on the exact
/// kernels' default shape (16x16 tiles, rows=4, no teaching variant);
/// quads and the reciprocal only without the early stop, quads also without
/// culling: the combinations that cannot run are refused here, before a
/// renderer is built, rather than planned away in silence.
void validate_shading_switches(KernelKind kind, const CudaOptions& o) {
    const bool quads = o.quad_layout == Choice::On, reciprocal = o.snow_reciprocal == Choice::On;
    if ((!quads && !reciprocal && !o.circle_records) || kind == KernelKind::FrontToBack) return;
    const std::string item = quads ? "layout=quads" : reciprocal ? "snowdiv=recip" : "gather=records";
    if (o.tile_size != 16 || o.rows_per_thread != 4 || o.shade_variant != 0)
        throw std::invalid_argument("CR_CUDA_OPTIONS " + item + " needs 16x16 tiles, rows=4 and no teaching variant");
    if (!quads && !reciprocal) return;  // records also stop early
    if (o.coalesce == Choice::On)
        throw std::invalid_argument("CR_CUDA_OPTIONS " + item + " and stop=on: the early stop keeps the strips layout "
                                    "and the IEEE division");
    if (quads && (o.strips == Choice::On || o.row_cull == Choice::On))
        throw std::invalid_argument("CR_CUDA_OPTIONS layout=quads with strips=on or rowcull=on: culling walks the "
                                    "strips layout");
}

}  // namespace

const std::vector<CudaOptionKey>& cuda_option_keys() { return kKeys; }

CudaOptions parse_cuda_options(const std::string& text, CudaOptions o) {
    for (size_t pos = 0; pos < text.size();) {
        size_t comma = text.find(',', pos);
        if (comma == std::string::npos) comma = text.size();
        const std::string item = text.substr(pos, comma - pos);
        pos = comma + 1;
        if (!item.empty()) apply_cuda_option(item, o);
    }
    return o;
}

CudaOptions cuda_options_from_env(CudaOptions o) {
    if (const char* sync = std::getenv("CR_SYNC_STAGES")) o.sync_stages = std::string(sync) == "1";
    const char* env = std::getenv("CR_CUDA_OPTIONS");
    return env ? parse_cuda_options(env, o) : o;
}

void validate_cuda_options(KernelKind kind, const CudaOptions& o) {
    const bool binned = kind == KernelKind::Tiled || kind == KernelKind::Persistent || kind == KernelKind::FrontToBack;
    if (!binned) return;  // naive and unordered take none of these switches
    if (kind == KernelKind::FrontToBack && o.tile_size == 8)  // the grid takes anything else as 16
        throw std::invalid_argument("CR_CUDA_OPTIONS tile=8: the ftb kernel works on 16x16 tiles only");
    if (o.tile_size == 8 && o.rows_per_thread != 4)
        throw std::invalid_argument("CR_CUDA_OPTIONS rows=8 needs tile=16 (an 8x8 tile is one warp of 2 rows a thread)");
    if (o.coalesce == Choice::On && kind != KernelKind::FrontToBack &&
        (o.tile_size != 16 || o.rows_per_thread != 4 || o.shade_variant != 0))
        throw std::invalid_argument("CR_CUDA_OPTIONS stop=on: exact early stopping needs 16x16 tiles, rows=4 and no "
                                    "teaching variant");
    validate_shading_switches(kind, o);
    if (o.shade_variant != 0 && kind != KernelKind::FrontToBack) {
        if (kind == KernelKind::Persistent)
            throw std::invalid_argument("CR_CUDA_OPTIONS " + variant_item(o.shade_variant) +
                                        " is a lesson of the tiled kernel only (not of persistent)");
        if (o.tile_size != 16 || o.rows_per_thread != 4)
            throw std::invalid_argument("CR_CUDA_OPTIONS " + variant_item(o.shade_variant) +
                                        " needs the tiled kernel's 16x16 tiles and rows=4");
    }
}

std::string cuda_options_help() {
    std::string out;
    for (const CudaOptionKey& k : kKeys) {
        std::string item = std::string(k.key) + "=" + k.values;
        item.resize(std::max<size_t>(item.size() + 1, 26), ' ');
        out += "  " + item + k.what + " [" + k.acts_on + "]\n";
    }
    return out;
}

std::string cuda_options_markdown() {
    std::string out = "| key=values | acts on | what |\n|---|---|---|\n";
    for (const CudaOptionKey& k : kKeys) {
        std::string values;  // a | inside a table cell is written \| (GitHub's tables)
        for (const char* c = k.values; *c; ++c) values += *c == '|' ? std::string("\\|") : std::string(1, *c);
        out += "| `" + std::string(k.key) + "=" + values + "` | " + k.acts_on + " | " + k.what + " |\n";
    }
    return out;
}

}  // namespace cr
