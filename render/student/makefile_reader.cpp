// The Makefile reader (makefile_reader.h): parse into variables and rules as
// make reads a Makefile (targets and prerequisites expanded at once, recipes
// later), then walk the default goal's prerequisites to the sources that its
// objects are compiled from.
#include "render/student/makefile_reader.h"

#include <fnmatch.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "render/core/text.h"

namespace cr::student {

namespace {

std::string trim(const std::string& s) {
    const size_t a = s.find_first_not_of(" \t");
    if (a == std::string::npos) return "";
    const size_t b = s.find_last_not_of(" \t");
    return s.substr(a, b - a + 1);
}

std::string join(const std::vector<std::string>& ws) {
    std::string out;
    for (const auto& w : ws) out += (out.empty() ? "" : " ") + w;
    return out;
}

/// A folder-relative name without a leading "./".
std::string plain_name(std::string n) {
    while (starts_with(n, "./")) n = n.substr(2);
    return n;
}

/// The index just past the ')' or '}' that closes the reference opening at
/// `open` (the '(' or '{' after a '$'); npos when it is not closed.
size_t closing(const std::string& s, size_t open) {
    const char o = s[open], c = o == '(' ? ')' : '}';
    int depth = 0;
    for (size_t i = open; i < s.size(); ++i) {
        if (s[i] == o) ++depth;
        else if (s[i] == c && --depth == 0) return i + 1;
    }
    return std::string::npos;
}

/// Splits at the commas outside parentheses and braces.
std::vector<std::string> split_args(const std::string& s) {
    std::vector<std::string> out(1);
    int depth = 0;
    for (char ch : s) {
        if (ch == '(' || ch == '{') ++depth;
        if (ch == ')' || ch == '}') --depth;
        if (ch == ',' && depth == 0) out.emplace_back();
        else out.back() += ch;
    }
    return out;
}

/// make's pattern match: `pattern` holds at most one '%'; the stem is what it matched.
bool pattern_match(const std::string& pattern, const std::string& word, std::string& stem) {
    const size_t pct = pattern.find('%');
    if (pct == std::string::npos) {
        stem.clear();
        return pattern == word;
    }
    const std::string pre = pattern.substr(0, pct), post = pattern.substr(pct + 1);
    if (word.size() < pre.size() + post.size() || !starts_with(word, pre) || !ends_with(word, post)) return false;
    stem = word.substr(pre.size(), word.size() - pre.size() - post.size());
    return true;
}

std::string with_stem(const std::string& pattern, const std::string& stem) {
    const size_t pct = pattern.find('%');
    return pct == std::string::npos ? pattern : pattern.substr(0, pct) + stem + pattern.substr(pct + 1);
}

std::string patsubst(const std::string& pattern, const std::string& replacement, const std::string& text) {
    std::vector<std::string> out;
    std::string stem;
    for (const auto& w : split_words(text))
        out.push_back(pattern_match(pattern, w, stem) ? with_stem(replacement, stem) : w);
    return join(out);
}

/// Logical lines: CR removed, backslash-newline joined with a space.
std::vector<std::string> logical_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::string current;
    std::istringstream in(text);
    std::string raw;
    while (std::getline(in, raw)) {
        if (!raw.empty() && raw.back() == '\r') raw.pop_back();
        size_t slashes = 0;
        while (slashes < raw.size() && raw[raw.size() - 1 - slashes] == '\\') ++slashes;
        if (slashes % 2 == 1) {
            current += raw.substr(0, raw.size() - 1) + " ";
            continue;
        }
        lines.push_back(current + raw);
        current.clear();
    }
    if (!current.empty()) lines.push_back(current);
    return lines;
}

/// A line without its comment ('#' not escaped, outside a reference).
std::string strip_comment(const std::string& line) {
    for (size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '#') {
            ++i;
            continue;
        }
        if (line[i] == '$' && i + 1 < line.size() && (line[i + 1] == '(' || line[i + 1] == '{')) {
            const size_t end = closing(line, i + 1);
            if (end == std::string::npos) return line;
            i = end - 1;
            continue;
        }
        if (line[i] == '#') return line.substr(0, i);
    }
    return line;
}

/// Splits a command into words, with '…' and "…" quoting.
std::vector<std::string> shell_words(const std::string& s) {
    std::vector<std::string> out;
    std::string w;
    bool any = false;
    char quote = 0;
    for (char ch : s) {
        if (quote) {
            if (ch == quote) quote = 0;
            else w += ch;
        } else if (ch == '\'' || ch == '"') {
            quote = ch;
            any = true;
        } else if (ch == ' ' || ch == '\t') {
            if (any || !w.empty()) out.push_back(w);
            w.clear();
            any = false;
        } else {
            w += ch;
        }
    }
    if (any || !w.empty()) out.push_back(w);
    return out;
}

struct Variable {
    std::string value;
    bool recursive = true;
};

struct Rule {
    std::vector<std::string> targets, prereqs, recipe;
};

/// The automatic variables of the recipe being expanded.
struct AutoVars {
    std::string target, first, all, stem;
};

/// One assignment or rule line, split where make splits it.
struct LineKind {
    enum { Assign, RuleLine, Other } kind = Other;
    std::string left, op, right;
};

LineKind classify(const std::string& line) {
    LineKind k;
    for (size_t i = 0; i < line.size(); ++i) {
        const char ch = line[i];
        if (ch == '$' && i + 1 < line.size() && (line[i + 1] == '(' || line[i + 1] == '{')) {
            const size_t end = closing(line, i + 1);
            if (end == std::string::npos) return k;
            i = end - 1;
        } else if (ch == '=') {
            const bool two = i > 0 && std::string("+?!").find(line[i - 1]) != std::string::npos;
            k = {LineKind::Assign, trim(line.substr(0, two ? i - 1 : i)), two ? line.substr(i - 1, 2) : "=",
                 line.substr(i + 1)};
            return k;
        } else if (ch == ':') {
            if (line.compare(i, 2, ":=") == 0) return {LineKind::Assign, trim(line.substr(0, i)), ":=", line.substr(i + 2)};
            if (line.compare(i, 3, "::=") == 0) return {LineKind::Assign, trim(line.substr(0, i)), ":=", line.substr(i + 3)};
            const size_t skip = line.compare(i, 2, "::") == 0 ? 2 : 1;
            return {LineKind::RuleLine, line.substr(0, i), ":", line.substr(i + skip)};
        }
    }
    return k;
}

/// A conditional's state: whether its branch is read, and whether a branch was.
struct Conditional {
    bool parent_active, active, taken;
};

class Make {
public:
    explicit Make(const std::vector<std::string>& files) {
        for (const auto& f : files) files_.insert(plain_name(f));
        vars_["CXX"] = {"g++", false};
        vars_["CC"] = {"cc", false};
        vars_["RM"] = {"rm -f", false};
        vars_["MAKE"] = {"make", false};
        vars_["SHELL"] = {"/bin/sh", false};
    }

    void parse(const std::string& text);
    MakefileReading read();

private:
    bool active() const { return conds_.empty() || conds_.back().active; }
    bool is_file(const std::string& n) const { return files_.count(plain_name(n)) > 0; }
    void note(const std::string& n) {
        if (std::find(notes_.begin(), notes_.end(), n) == notes_.end()) notes_.push_back(n);
    }
    std::string expand(const std::string& s, int depth = 0);
    std::string reference(const std::string& inner, int depth);
    std::string function(const std::string& name, const std::string& args, int depth);
    std::string text_function(const std::string& name, const std::vector<std::string>& a);
    std::string wildcard(const std::string& patterns);
    std::string variable(const std::string& name, int depth);
    bool directive(const std::string& line);
    bool condition(const std::string& keyword, const std::string& rest);
    void assign(const LineKind& k);
    void rule(const LineKind& k);
    void visit(const std::string& target, int depth);
    bool compile_object(const std::string& target);
    void add_source(const std::string& source, const std::vector<std::string>* recipe, const AutoVars& av);
    std::string default_goal() const;

    std::set<std::string> files_;
    std::map<std::string, Variable> vars_;
    std::vector<Rule> rules_;
    std::vector<Conditional> conds_;
    std::vector<std::string> notes_, sources_, cuda_command_;
    std::set<std::string> visited_;
    const AutoVars* auto_ = nullptr;
    int last_rule_ = -1;  ///< the first rule the next recipe line belongs to (-1: none)
    std::string define_name_, define_value_;
    bool in_define_ = false;
};

std::string Make::variable(const std::string& name, int depth) {
    if (auto_ && name.size() == 1) {
        switch (name[0]) {
            case '@': return auto_->target;
            case '<': return auto_->first;
            case '^': case '+': return auto_->all;
            case '*': return auto_->stem;
            case '?': return auto_->all;
        }
    }
    const auto it = vars_.find(name);
    if (it == vars_.end()) return "";
    return it->second.recursive ? expand(it->second.value, depth + 1) : it->second.value;
}

std::string Make::expand(const std::string& s, int depth) {
    if (depth > 64) {
        note("a variable refers to itself (expansion stopped)");
        return "";
    }
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '$' || i + 1 >= s.size()) {
            out += s[i];
            continue;
        }
        const char next = s[i + 1];
        if (next == '$') {
            out += '$';
            ++i;
        } else if (next == '(' || next == '{') {
            const size_t end = closing(s, i + 1);
            if (end == std::string::npos) return out;  // make: "unterminated variable reference"
            out += reference(s.substr(i + 2, end - i - 3), depth);
            i = end - 1;
        } else {
            out += variable(std::string(1, next), depth);
            ++i;
        }
    }
    return out;
}

std::string Make::reference(const std::string& inner, int depth) {
    const size_t space = inner.find_first_of(" \t");
    if (space != std::string::npos) {
        const std::string name = inner.substr(0, space);
        static const std::set<std::string> known = {
            "subst", "patsubst", "strip", "findstring", "filter", "filter-out", "sort", "word", "words", "firstword",
            "lastword", "dir", "notdir", "suffix", "basename", "addsuffix", "addprefix", "join", "wildcard",
            "realpath", "abspath", "if", "or", "and", "foreach", "shell", "error", "warning", "info", "value",
            "origin", "call", "eval", "flavor", "wordlist"};
        if (known.count(name)) return function(name, inner.substr(space + 1), depth);
    }
    const size_t colon = inner.find(':');
    if (colon != std::string::npos && inner.find('=', colon) != std::string::npos) {  // $(VAR:a=b)
        const size_t eq = inner.find('=', colon);
        const std::string value = variable(expand(inner.substr(0, colon), depth), depth);
        std::string from = expand(inner.substr(colon + 1, eq - colon - 1), depth);
        std::string to = expand(inner.substr(eq + 1), depth);
        if (from.find('%') == std::string::npos) {
            from = "%" + from;
            to = "%" + to;
        }
        return patsubst(from, to, value);
    }
    return variable(expand(inner, depth), depth);
}

std::string Make::function(const std::string& name, const std::string& args, int depth) {
    std::vector<std::string> a = split_args(args);
    if (name == "if") {
        const std::string cond = trim(expand(a[0], depth));
        if (!cond.empty()) return a.size() > 1 ? expand(a[1], depth) : "";
        return a.size() > 2 ? expand(a[2], depth) : "";
    }
    if (name == "foreach" && a.size() >= 3) {
        const std::string var = trim(expand(a[0], depth));
        const Variable saved = vars_[var];
        std::vector<std::string> out;
        for (const auto& w : split_words(expand(a[1], depth))) {
            vars_[var] = {w, false};
            out.push_back(expand(a[2], depth));
        }
        vars_[var] = saved;
        return join(out);
    }
    if (name == "shell") {
        note("$(shell " + trim(args) + ") was not run (taken as empty)");
        return "";
    }
    if (name == "eval" || name == "call") {
        note("$(" + name + " ...) is not followed");
        return "";
    }
    if (name == "origin" || name == "flavor") return vars_.count(trim(expand(args, depth))) ? "file" : "undefined";
    if (name == "value") {
        const auto it = vars_.find(trim(args));
        return it == vars_.end() ? "" : it->second.value;
    }
    for (auto& arg : a) arg = expand(arg, depth);
    return text_function(name, a);
}

std::string Make::text_function(const std::string& name, const std::vector<std::string>& a) {
    const auto arg = [&](size_t i) { return i < a.size() ? a[i] : std::string(); };
    const auto each = [&](const std::string& text, const std::function<std::string(const std::string&)>& f) {
        std::vector<std::string> out;
        for (const auto& w : split_words(text)) out.push_back(f(w));
        return join(out);
    };
    if (name == "subst") {
        std::string s = arg(2), from = arg(0), to = arg(1);
        if (from.empty()) return s;
        for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
        return s;
    }
    if (name == "patsubst") return patsubst(trim(arg(0)), trim(arg(1)), arg(2));
    if (name == "strip") return join(split_words(arg(0)));
    if (name == "findstring") return arg(1).find(arg(0)) != std::string::npos ? arg(0) : "";
    if (name == "filter" || name == "filter-out") {
        std::vector<std::string> out;
        std::string stem;
        for (const auto& w : split_words(arg(1))) {
            bool hit = false;
            for (const auto& p : split_words(arg(0))) hit = hit || pattern_match(p, w, stem);
            if (hit == (name == "filter")) out.push_back(w);
        }
        return join(out);
    }
    if (name == "sort") {
        std::vector<std::string> ws = split_words(arg(0));
        std::sort(ws.begin(), ws.end());
        ws.erase(std::unique(ws.begin(), ws.end()), ws.end());
        return join(ws);
    }
    if (name == "words") return std::to_string(split_words(arg(0)).size());
    if (name == "firstword" || name == "lastword") {
        const auto ws = split_words(arg(0));
        return ws.empty() ? "" : (name == "firstword" ? ws.front() : ws.back());
    }
    if (name == "word") {
        const auto ws = split_words(arg(1));
        const size_t n = static_cast<size_t>(std::atoi(arg(0).c_str()));
        return n >= 1 && n <= ws.size() ? ws[n - 1] : "";
    }
    if (name == "dir")
        return each(arg(0), [](const std::string& w) { const size_t s = w.rfind('/'); return s == std::string::npos ? std::string("./") : w.substr(0, s + 1); });
    if (name == "notdir")
        return each(arg(0), [](const std::string& w) { const size_t s = w.rfind('/'); return s == std::string::npos ? w : w.substr(s + 1); });
    if (name == "suffix" || name == "basename")
        return each(arg(0), [&](const std::string& w) {
            const size_t dot = w.rfind('.'), slash = w.rfind('/');
            const bool has = dot != std::string::npos && (slash == std::string::npos || dot > slash);
            return name == "suffix" ? (has ? w.substr(dot) : std::string()) : (has ? w.substr(0, dot) : w);
        });
    if (name == "addsuffix") return each(arg(1), [&](const std::string& w) { return w + trim(arg(0)); });
    if (name == "addprefix") return each(arg(1), [&](const std::string& w) { return trim(arg(0)) + w; });
    if (name == "wildcard") return wildcard(arg(0));
    if (name == "realpath" || name == "abspath") return arg(0);
    if (name == "or") {
        for (const auto& x : a) if (!trim(x).empty()) return trim(x);
        return "";
    }
    if (name == "and") {
        std::string last;
        for (const auto& x : a) {
            if (trim(x).empty()) return "";
            last = trim(x);
        }
        return last;
    }
    if (name == "error") note("the Makefile stops with $(error " + arg(0) + ") (ignored here)");
    return "";  // warning, info, join, wordlist and anything else: nothing
}

std::string Make::wildcard(const std::string& patterns) {
    std::vector<std::string> out;
    for (const auto& p : split_words(patterns)) {
        const std::string pattern = plain_name(p);
        for (const auto& f : files_)
            if (fnmatch(pattern.c_str(), f.c_str(), FNM_PATHNAME) == 0) out.push_back(f);
    }
    return join(out);
}

/// ifeq (a,b), ifeq "a" "b", ifneq, ifdef VAR, ifndef VAR: the condition's value.
bool Make::condition(const std::string& keyword, const std::string& rest) {
    if (keyword == "ifdef" || keyword == "ifndef") {
        const std::string name = trim(expand(rest));
        const auto it = vars_.find(name);
        const bool defined = it != vars_.end() && !trim(it->second.value).empty();
        return keyword == "ifdef" ? defined : !defined;
    }
    std::string a, b;
    const std::string r = trim(rest);
    if (!r.empty() && r.front() == '(' && r.back() == ')') {
        const auto parts = split_args(r.substr(1, r.size() - 2));
        a = parts.size() > 0 ? parts[0] : "";
        b = parts.size() > 1 ? parts[1] : "";
    } else {
        const auto parts = shell_words(r);
        a = parts.size() > 0 ? parts[0] : "";
        b = parts.size() > 1 ? parts[1] : "";
    }
    const bool same = trim(expand(a)) == trim(expand(b));
    return keyword == "ifeq" ? same : !same;
}

/// Handles a conditional or another directive; true when the line was one.
bool Make::directive(const std::string& line) {
    const std::string t = trim(line);
    const size_t sp = t.find_first_of(" \t(");
    const std::string kw = t.substr(0, sp), rest = sp == std::string::npos ? "" : t.substr(sp);
    if (kw == "ifeq" || kw == "ifneq" || kw == "ifdef" || kw == "ifndef") {
        const bool parent = active();
        const bool value = parent && condition(kw, rest);
        conds_.push_back({parent, value, value});
        return true;
    }
    if (kw == "else") {
        if (conds_.empty()) return true;
        Conditional& c = conds_.back();
        const std::string r = trim(rest);
        const size_t sp2 = r.find_first_of(" \t(");
        const std::string kw2 = r.substr(0, sp2);
        bool value = !c.taken;
        if (value && !kw2.empty()) value = c.parent_active && condition(kw2, sp2 == std::string::npos ? "" : r.substr(sp2));
        c.active = c.parent_active && value;
        c.taken = c.taken || c.active;
        return true;
    }
    if (kw == "endif") {
        if (!conds_.empty()) conds_.pop_back();
        return true;
    }
    if (!active()) return true;  // lines of a branch not taken
    if (kw == "include" || kw == "-include" || kw == "sinclude") {
        note("'" + t + "' is not followed");
        return true;
    }
    if (kw == "define") {
        in_define_ = true;
        define_value_.clear();
        define_name_ = trim(rest);
        for (const char* op : {"::=", ":=", "+=", "?=", "="})
            if (ends_with(define_name_, op)) define_name_ = trim(define_name_.substr(0, define_name_.size() - std::string(op).size()));
        return true;
    }
    return kw == "vpath" || kw == "unexport" || (kw == "export" && rest.find('=') == std::string::npos);
}

void Make::assign(const LineKind& k) {
    const std::string name = trim(expand(k.left));
    const std::string value = trim(k.right);
    Variable& v = vars_[name];
    if (k.op == ":=") v = {expand(value), false};
    else if (k.op == "?=") {
        if (v.value.empty()) v = {value, true};
    } else if (k.op == "+=") {
        const std::string add = v.recursive ? value : expand(value);
        v.value = v.value.empty() ? add : v.value + " " + add;
    } else if (k.op == "!=") {
        note("'" + name + " != ...' runs a shell command (taken as empty)");
        v = {"", false};
    } else {
        v = {value, true};
    }
}

void Make::rule(const LineKind& k) {
    std::string right = k.right;
    std::string inline_recipe;
    const size_t semi = right.find(';');
    if (semi != std::string::npos) {
        inline_recipe = right.substr(semi + 1);
        right = right.substr(0, semi);
    }
    const LineKind inner = classify(right);
    if (inner.kind == LineKind::Assign) return;  // a target-specific variable
    Rule r;
    r.targets = split_words(expand(k.left));
    last_rule_ = static_cast<int>(rules_.size());  // the recipe that follows goes to the rules from here on
    if (inner.kind == LineKind::RuleLine) {  // static pattern rule: targets: %.o: %.cu
        const std::string target_pattern = trim(expand(inner.left));
        const std::vector<std::string> prereq_patterns = split_words(expand(inner.right));
        for (const auto& t : r.targets) {
            std::string stem;
            if (!pattern_match(target_pattern, t, stem)) continue;
            Rule one{{t}, {}, {}};
            for (const auto& p : prereq_patterns) one.prereqs.push_back(with_stem(p, stem));
            if (!trim(inline_recipe).empty()) one.recipe.push_back(inline_recipe);
            rules_.push_back(one);
        }
        return;
    }
    for (const auto& p : split_words(expand(right)))
        if (p != "|") r.prereqs.push_back(p);
    if (!trim(inline_recipe).empty()) r.recipe.push_back(inline_recipe);
    rules_.push_back(r);
}

void Make::parse(const std::string& text) {
    for (const std::string& line : logical_lines(text)) {
        if (in_define_) {
            if (trim(line) == "endef") {
                if (active()) vars_[define_name_] = {define_value_, true};
                in_define_ = false;
            } else {
                define_value_ += (define_value_.empty() ? "" : "\n") + line;
            }
            continue;
        }
        if (!line.empty() && line[0] == '\t' && last_rule_ >= 0) {
            if (active())  // a static pattern rule's recipe is every one of its targets'
                for (size_t i = static_cast<size_t>(last_rule_); i < rules_.size(); ++i)
                    rules_[i].recipe.push_back(line.substr(1));
            continue;
        }
        const std::string code = strip_comment(line);
        if (trim(code).empty() || directive(code) || !active()) continue;
        std::string t = trim(code);
        for (const std::string prefix : {"override ", "export "})  // an assignment like any other here
            if (starts_with(t, prefix)) t = trim(t.substr(prefix.size()));
        const LineKind k = classify(t);
        if (k.kind == LineKind::Assign) {
            assign(k);
            last_rule_ = -1;
        } else if (k.kind == LineKind::RuleLine) {
            rule(k);
        }
    }
    if (!conds_.empty()) note("a conditional has no endif");
}

std::string Make::default_goal() const {
    const auto it = vars_.find(".DEFAULT_GOAL");
    if (it != vars_.end() && !trim(it->second.value).empty()) return trim(it->second.value);
    for (const auto& r : rules_)
        for (const auto& t : r.targets) {
            if (t.find('%') != std::string::npos) continue;
            if (t[0] == '.' && t.find('/') == std::string::npos) continue;
            return t;
        }
    return "";
}

void Make::add_source(const std::string& source, const std::vector<std::string>* recipe, const AutoVars& av) {
    const std::string name = plain_name(source);
    if (std::find(sources_.begin(), sources_.end(), name) == sources_.end()) sources_.push_back(name);
    if (!ends_with(name, ".cu") || !cuda_command_.empty() || !recipe) return;
    auto_ = &av;
    for (const auto& line : *recipe) {
        std::string cmd = expand(line);
        for (const char* sep : {"&&", ";", "\n"})
            for (size_t p = cmd.find(sep); p != std::string::npos; p = cmd.find(sep)) cmd.replace(p, std::string(sep).size(), "\x1f");
        std::istringstream parts(cmd);
        std::string part;
        while (std::getline(parts, part, '\x1f')) {
            std::vector<std::string> ws = shell_words(trim(part));
            if (ws.empty() || std::find(ws.begin(), ws.end(), av.first) == ws.end()) continue;
            while (!ws[0].empty() && std::string("@-+").find(ws[0][0]) != std::string::npos) ws[0].erase(0, 1);
            if (ws[0].empty()) ws.erase(ws.begin());
            cuda_command_ = ws;
            break;
        }
        if (!cuda_command_.empty()) break;
    }
    auto_ = nullptr;
}

/// An object's source, by its explicit rule, a pattern rule or make's built-in
/// rules. False when make would find no way to make it.
bool Make::compile_object(const std::string& target) {
    const std::vector<std::string>* explicit_recipe = nullptr;
    std::vector<std::string> prereqs;
    for (const auto& r : rules_)
        if (std::find(r.targets.begin(), r.targets.end(), target) != r.targets.end()) {
            prereqs.insert(prereqs.end(), r.prereqs.begin(), r.prereqs.end());
            if (!r.recipe.empty() && !explicit_recipe) explicit_recipe = &r.recipe;
        }
    // The first source among the explicit prerequisites, compiled by the explicit recipe (if any) as $<.
    const auto from_prerequisites = [&] {
        for (const auto& p : prereqs)
            if (is_compiled_source_name(p) && is_file(p)) {
                add_source(p, explicit_recipe, AutoVars{target, p, join(prereqs), ""});
                return true;
            }
        return false;
    };
    if (explicit_recipe && from_prerequisites()) return true;  // an explicit rule with a recipe comes first
    for (const auto& r : rules_) {  // pattern rules, in order: the first whose first prerequisite exists
        if (r.targets.empty() || r.targets[0].find('%') == std::string::npos) continue;
        std::string stem;
        if (!pattern_match(r.targets[0], target, stem) || r.prereqs.empty()) continue;
        const std::string first = with_stem(r.prereqs[0], stem);
        if (!is_file(first)) continue;
        add_source(first, explicit_recipe ? explicit_recipe : &r.recipe, AutoVars{target, first, first, stem});
        return true;
    }
    if (from_prerequisites()) return true;
    const std::string stem = target.substr(0, target.size() - 2);
    for (const char* ext : {".c", ".cc", ".cpp", ".C"})  // make's built-in rules
        if (is_file(stem + ext)) {
            add_source(stem + ext, nullptr, AutoVars{});
            return true;
        }
    return false;
}

void Make::visit(const std::string& target, int depth) {
    if (depth > 50 || !visited_.insert(target).second) return;
    if (is_compiled_source_name(target) && is_file(target)) {  // a source linked directly (nvcc -o render a.cu b.cpp)
        add_source(target, nullptr, AutoVars{});
        return;
    }
    if (ends_with(target, ".o") || ends_with(target, ".obj")) {
        if (!compile_object(target)) {
            if (is_file(target)) note("links the prebuilt object " + target + " (not rebuilt)");
            else note("make has no rule to make " + target);
        }
        return;
    }
    bool has_rule = false;
    for (const auto& r : rules_)
        if (std::find(r.targets.begin(), r.targets.end(), target) != r.targets.end()) {
            has_rule = true;
            for (const auto& p : r.prereqs) visit(p, depth + 1);
        }
    if (!has_rule && !is_file(target)) note("make has no rule to make " + target);
}

MakefileReading Make::read() {
    MakefileReading out;
    out.goal = default_goal();
    if (out.goal.empty()) note("no default goal (no rule)");
    else visit(out.goal, 0);
    out.sources = sources_;
    out.cuda_command = cuda_command_;
    out.notes = notes_;
    out.understood = !out.goal.empty() && !out.sources.empty();
    return out;
}

}  // namespace

bool is_compiled_source_name(const std::string& name) {
    for (const char* ext : {".cu", ".cpp", ".cc", ".cxx", ".c", ".C"})
        if (ends_with(name, ext)) return true;
    return false;
}

MakefileReading read_makefile(const std::string& makefile_text, const std::vector<std::string>& folder_files) {
    Make make(folder_files);
    make.parse(makefile_text);
    return make.read();
}

}  // namespace cr::student
