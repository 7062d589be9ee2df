// Fixture stand-in for the course's display.cpp (circle-renderer's tests, not course
// code). The course's Makefile builds it; the harness replaces it with its
// own and must never compile this copy.
#error "the harness compiled the folder's display.cpp, which it replaces"
