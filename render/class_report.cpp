// The class report (class_report.h): CSV and static HTML, no scripts.
#include "render/class_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "render/core/output_file.h"
#include "render/grading.h"

namespace fs = std::filesystem;

namespace cr {

namespace {

using json = nlohmann::json;

std::string text_of(const json& j, const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

/// The student's total, or -1 when not graded.
int total_of(const json& s) {
    return s.contains("grade") && s["grade"].is_object() && s["grade"].contains("total") ? s["grade"]["total"].get<int>() : -1;
}

/// The grade's row of `scene` (null when none).
json scene_row(const json& s, const std::string& scene) {
    if (!s.contains("grade") || !s["grade"].is_object()) return nullptr;
    for (const auto& row : s["grade"]["scenes"])
        if (row.value("scene", "") == scene) return row;
    return nullptr;
}

/// A grade row's score as text, `none` when it has none.
std::string score_text(const json& row, const char* none) {
    return row["score"].is_number() ? std::to_string(row["score"].get<int>()) : none;
}

std::string number(const json& v, const char* format) {
    if (!v.is_number()) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, format, v.get<double>());
    return buf;
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

const char* kStyle =
    "body{font-family:sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;margin:.8em 0}"
    "th,td{border:1px solid #bbb;padding:.25em .6em;text-align:right}th{background:#dde3f0}"
    "td.id,th.id{text-align:left}.bad{color:#b00020;font-weight:bold}.warn{color:#a05a00}"
    "pre{background:#f4f4f4;padding:.6em;overflow-x:auto;font-size:85%}h1{font-size:150%}";

std::string page(const std::string& title, const std::string& body) {
    return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + html_escape(title) + "</title><style>" +
           kStyle + "</style></head><body>\n" + body + "</body></html>\n";
}

/// The histogram of totals as inline SVG: bins of 9 points (0-8 .. 63-71, 72).
std::string histogram(const std::vector<json>& students) {
    std::vector<int> bins(9, 0);
    for (const auto& s : students)
        if (total_of(s) >= 0) ++bins[static_cast<size_t>(std::min(8, total_of(s) / 9))];
    if (std::all_of(bins.begin(), bins.end(), [](int n) { return n == 0; })) return "<p>No student graded yet.</p>\n";
    const int top = std::max(1, *std::max_element(bins.begin(), bins.end()));
    // bars of at most 140 px standing on y = 160, the count 5 px above each (so 15 px stay for the tallest's)
    std::string svg = "<svg width=\"480\" height=\"190\" role=\"img\" aria-label=\"histogram of totals\">";
    for (size_t i = 0; i < bins.size(); ++i) {
        const int h = 140 * bins[i] / top, x = 20 + static_cast<int>(i) * 50;
        const std::string label = i == 8 ? "72" : std::to_string(9 * i) + "-" + std::to_string(9 * i + 8);
        svg += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(160 - h) + "\" width=\"40\" height=\"" +
               std::to_string(h) + "\" fill=\"#4a6fb0\"/><text x=\"" + std::to_string(x + 20) +
               "\" y=\"178\" font-size=\"11\" text-anchor=\"middle\">" + label + "</text><text x=\"" +
               std::to_string(x + 20) + "\" y=\"" + std::to_string(155 - h) +
               "\" font-size=\"11\" text-anchor=\"middle\">" + std::to_string(bins[i]) + "</text>";
    }
    return svg + "</svg>\n";
}

std::string reference_table(const ClassSummary& c) {
    if (!c.reference.is_array() || c.reference.empty()) return "";
    std::string t = "<h2>Reference times (T_ref, ms)</h2>\n<table><tr><th class=\"id\">GPU</th><th class=\"id\">when</th>";
    for (const auto& s : course_scored_scenes()) t += "<th>" + s + "</th>";
    t += "</tr>\n";
    for (const auto& g : c.reference)
        for (const char* when : {"start", "end"}) {
            if (!g.contains(when)) continue;
            t += "<tr><td class=\"id\">" + std::to_string(g.value("gpu", -1)) + "</td><td class=\"id\">" + when + "</td>";
            for (const auto& s : course_scored_scenes()) t += "<td>" + number(g[when].value(s, json()), "%.4f") + "</td>";
            t += "</tr>\n";
        }
    t += "</table>\n";
    for (const auto& w : reference_drift(c.reference))
        t += "<p class=\"warn\">T_ref moved more than the course's run-to-run spread (30%): " + html_escape(w) + "</p>\n";
    return t;
}

std::string class_table(std::vector<json> students) {
    std::stable_sort(students.begin(), students.end(), [](const json& a, const json& b) { return total_of(a) > total_of(b); });
    std::string t = "<table><tr><th class=\"id\">student</th><th>total</th>";
    for (const auto& s : course_scored_scenes()) t += "<th>" + s + "</th>";
    t += "<th class=\"id\">status</th><th>GPU</th></tr>\n";
    for (const auto& s : students) {
        const std::string id = text_of(s, "id");
        t += "<tr><td class=\"id\"><a href=\"students/" + html_escape(id) + ".html\">" + html_escape(id) + "</a></td><td>" +
             (total_of(s) >= 0 ? std::to_string(total_of(s)) : "-") + "</td>";
        for (const auto& scene : course_scored_scenes()) {
            const json row = scene_row(s, scene);
            const bool bad = row.is_object() && !row.value("correct", true);
            t += std::string("<td") + (bad ? " class=\"bad\"" : "") + ">" +
                 (row.is_object() ? score_text(row, "-") : "-") + "</td>";
        }
        t += "<td class=\"id\">" + html_escape(text_of(s, "status")) + "</td><td>" +
             (s.value("gpu", -1) >= 0 ? std::to_string(s.value("gpu", -1)) : "-") + "</td></tr>\n";
    }
    return t + "</table>\n";
}

}  // namespace

std::string html_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        if (c == '&') out += "&amp;";
        else if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '"') out += "&quot;";
        else out += c;
    }
    return out;
}

std::vector<std::string> reference_drift(const json& reference, double spread) {
    std::vector<std::string> out;
    if (!reference.is_array()) return out;
    for (const auto& g : reference) {
        if (!g.contains("start") || !g.contains("end")) continue;
        for (const auto& s : course_scored_scenes()) {
            const json a = g["start"].value(s, json()), b = g["end"].value(s, json());
            if (!a.is_number() || !b.is_number() || a.get<double>() <= 0) continue;
            const double change = b.get<double>() / a.get<double>() - 1;
            if (std::fabs(change) <= spread) continue;
            char buf[160];
            std::snprintf(buf, sizeof buf, "GPU %d: %s %.4f -> %.4f ms (%+.0f%%)", g.value("gpu", -1), s.c_str(),
                          a.get<double>(), b.get<double>(), 100 * change);
            out.push_back(buf);
        }
    }
    return out;
}

std::string grades_csv(const std::vector<json>& students) {
    std::string out = "id,status,total";
    for (const auto& s : course_scored_scenes()) out += "," + s + "_score," + s + "_T," + s + "_T_ref," + s + "_correct";
    out += ",gpu,hash\n";
    for (const auto& st : students) {
        out += csv_field(text_of(st, "id")) + "," + csv_field(text_of(st, "status")) + "," +
               (total_of(st) >= 0 ? std::to_string(total_of(st)) : "");
        for (const auto& scene : course_scored_scenes()) {
            const json row = scene_row(st, scene);
            if (!row.is_object()) {
                out += ",,,,";
                continue;
            }
            out += "," + score_text(row, "") + "," +
                   number(row.value("stu_time", json()), "%.4f") + "," + number(row.value("ref_time", json()), "%.4f") +
                   "," + (row.value("correct", false) ? "yes" : "no");
        }
        out += "," + (st.value("gpu", -1) >= 0 ? std::to_string(st.value("gpu", -1)) : "") + "," + text_of(st, "hash") + "\n";
    }
    return out;
}

std::string class_page(const std::vector<json>& students, const ClassSummary& c) {
    int graded = 0;
    for (const auto& s : students) graded += total_of(s) >= 0;
    std::string body = "<h1>" + html_escape(c.title) + "</h1>\n<p>" + std::to_string(students.size()) + " students, " +
                       std::to_string(graded) + " graded; " + html_escape(c.mode);
    if (c.wall_s > 0) body += "; " + number(json(c.wall_s), "%.0f") + " s of wall time";
    body += ". The scores are the course's (8 scenes at 1024x1024, 9 points each, 72 in all); <a href=\"grades.csv\">grades.csv</a>.</p>\n";
    for (const auto& m : c.missing) body += "<p class=\"bad\">no result yet: " + html_escape(m) + "</p>\n";
    body += "<h2>Totals</h2>\n" + histogram(students) + "<h2>Students (by total)</h2>\n" + class_table(students) +
            reference_table(c);
    return page(c.title, body);
}

std::string student_page(const json& s) {
    const std::string id = text_of(s, "id");
    std::string body = "<p><a href=\"../report.html\">the class</a></p>\n<h1>" + html_escape(id) + "</h1>\n<p>" +
                       html_escape(text_of(s, "status")) +
                       (total_of(s) >= 0 ? " &mdash; total " + std::to_string(total_of(s)) + " / 72" : "") +
                       (text_of(s, "layout").empty() ? "" : "; " + html_escape(text_of(s, "layout"))) +
                       (s.value("gpu", -1) >= 0 ? "; GPU " + std::to_string(s.value("gpu", -1)) : "") + "</p>\n";
    if (!text_of(s, "problem").empty()) body += "<p class=\"bad\">" + html_escape(text_of(s, "problem")) + "</p>\n";
    if (s.contains("grade") && s["grade"].is_object()) {
        body += "<table><tr><th class=\"id\">scene</th><th class=\"id\">correct (seed)</th><th>T (ms)</th><th>T_ref (ms)</th><th>score</th><th class=\"id\">notes</th></tr>\n";
        for (const auto& row : s["grade"]["scenes"]) {
            const bool ok = row.value("correct", false);
            std::string notes = text_of(row, "why") + " " + text_of(row, "warning") + " " + text_of(row, "time_error") + " " + text_of(row, "ref_note");
            body += "<tr><td class=\"id\">" + html_escape(text_of(row, "scene")) + "</td><td class=\"id" + (ok ? "" : " bad") + "\">" +
                    (ok ? "yes" : "NO") + " (" + std::to_string(row.value("seed", 0)) + ")</td><td>" +
                    number(row.value("stu_time", json()), "%.4f") + "</td><td>" + number(row.value("ref_time", json()), "%.4f") +
                    "</td><td>" + score_text(row, "-") +
                    "</td><td class=\"id\">" + html_escape(notes) + "</td></tr>\n";
        }
        body += "</table>\n";
        for (const auto& row : s["grade"]["scenes"]) {
            if (row.value("correct", true) && text_of(row, "warning").empty()) continue;
            body += "<h2>" + html_escape(text_of(row, "scene")) + "</h2>\n";
            if (!text_of(row, "warning").empty()) body += "<p class=\"warn\">" + html_escape(text_of(row, "warning")) + "</p>\n";
            if (!text_of(row, "why").empty()) body += "<p class=\"bad\">" + html_escape(text_of(row, "why")) + "</p>\n";
            if (!text_of(row, "story").empty()) body += "<pre>" + html_escape(text_of(row, "story")) + "</pre>\n";
            if (!text_of(row, "diff_png").empty())
                body += "<p><img alt=\"diff heat map of " + html_escape(text_of(row, "scene")) + "\" width=\"512\" src=\"../" +
                        html_escape(id) + "/" + html_escape(text_of(row, "diff_png")) + "\"></p>\n";
        }
    }
    const json build = s.value("build", json::object());
    body += "<h2>Build</h2>\n<pre>" + html_escape(text_of(build, "log")) + "</pre>\n";
    if (!text_of(s, "grade_log").empty()) body += "<h2>Grade's output</h2>\n<pre>" + html_escape(text_of(s, "grade_log")) + "</pre>\n";
    return page(id + ": circle-renderer grade", body);
}

void write_class_report(const std::string& results_dir, const std::vector<json>& students, const ClassSummary& summary) {
    const fs::path dir(results_dir);
    fs::create_directories(dir / "students");
    write_text_file((dir / "grades.csv").string(), grades_csv(students));
    for (const auto& s : students) write_text_file((dir / "students" / (text_of(s, "id") + ".html")).string(), student_page(s));
    write_text_file((dir / "report.html").string(), class_page(students, summary));
}

}  // namespace cr
