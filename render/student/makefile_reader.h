// Reading a course folder's Makefile the way `make` would run it, without
// running make: which source files its default goal compiles and links, and
// the flags of the recipe that compiles its .cu files.
//
// A small evaluator of GNU make's language as course Makefiles use it:
// variables (=, :=, ::=, +=, ?=, override/export), line continuations,
// comments, conditionals (ifeq/ifneq/ifdef/ifndef, else, endif), the text
// functions (subst, patsubst, addprefix, addsuffix, wildcard, notdir,
// basename, filter, foreach, if, ...), substitution references
// ($(OBJS:.o=.cu)), explicit, pattern and static pattern rules, and make's
// built-in rules for .c/.cc/.cpp objects. `$(shell ...)` is not run (it
// expands to nothing, with a note); `include` is not followed.
#pragma once

#include <string>
#include <vector>

namespace cr::student {

/// What a Makefile builds, as read by read_makefile.
struct MakefileReading {
    /// True when a default goal was found and at least one source it builds.
    bool understood = false;
    std::string goal;                  ///< the default goal ("render"), "" when none
    std::vector<std::string> sources;  ///< compiled sources, in the order make reaches them (folder-relative)
    /// The words of the recipe that compiles the first .cu source, expanded
    /// (e.g. {"nvcc", "cudaRenderer.cu", "-O3", "-m64", "-c", "-o", "objs/cudaRenderer.o"}).
    std::vector<std::string> cuda_command;
    std::vector<std::string> notes;  ///< what was not understood (an unknown function, an object with no rule, ...)
};

/// Reads `makefile_text` (CRLF or LF) for a folder that holds the files
/// `folder_files` (names relative to the folder). Pure: it reads nothing
/// else. Never throws for odd Makefiles: what it cannot follow goes to notes.
MakefileReading read_makefile(const std::string& makefile_text, const std::vector<std::string>& folder_files);

/// True for the names of files a compiler compiles: .cu .cpp .cc .cxx .c .C.
bool is_compiled_source_name(const std::string& name);

}  // namespace cr::student
