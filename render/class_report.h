// The report of a class grade (`render grade --class`, `--collect`): from
// the per-student results (RESULTS/ID.json, written by write_result in
// render/cli/class_work.h), the CSV an instructor imports
// (RESULTS/grades.csv) and a static web page (RESULTS/report.html: the class
// sorted by score, a histogram of totals, the reference times of each GPU at
// the start and the end, and a page per student with the build messages,
// each scene's verdict, the first wrong pixel's story with its diff heat
// map, and races).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace cr {

/// What the report says about the class as a whole.
struct ClassSummary {
    std::string title = "circle-renderer: class grade";
    std::string mode;              ///< e.g. "graded on 2 GPUs", "built only (no GPU here)"
    double wall_s = 0;             ///< the class's wall time (0: unknown, e.g. Slurm)
    nlohmann::json reference;      ///< per GPU: {"gpu": N, "start": {scene: ms}, "end": {scene: ms}}
    std::vector<std::string> missing;  ///< entries without a result (Slurm tasks that did not finish)
};

/// Scenes whose T_ref moved more than `spread` (0.3: the course's own T_ref
/// moves by up to 30% run to run) between a GPU's start and end, as
/// "GPU 0: rgb 0.097 -> 0.131 ms (+35%)". Pure.
std::vector<std::string> reference_drift(const nlohmann::json& reference, double spread = 0.3);

/// grades.csv: a header, then one row a student in id order: id, status,
/// total, then for each scored scene its score, T, T_ref and correct; the
/// GPU and the content hash. Pure.
std::string grades_csv(const std::vector<nlohmann::json>& students);

/// report.html, the class page (links to students/ID.html). Pure.
std::string class_page(const std::vector<nlohmann::json>& students, const ClassSummary& summary);

/// students/ID.html, one student's page (images at ../ID/SCENE_diff.png). Pure.
std::string student_page(const nlohmann::json& student);

/// Writes grades.csv, report.html and students/*.html into `results_dir`.
void write_class_report(const std::string& results_dir, const std::vector<nlohmann::json>& students,
                        const ClassSummary& summary);

/// Escapes & < > " for HTML text and attributes.
std::string html_escape(const std::string& text);

}  // namespace cr
