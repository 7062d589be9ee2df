// The project's course framework files (render/student/course/), embedded
// into the binary at build time (scripts/embed_files.cmake), so the harness
// needs no source tree at run time.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cr::student {

/// (file name, contents) of every file of render/student/course/.
const std::vector<std::pair<std::string, std::string>>& embedded_course_files();

}  // namespace cr::student
