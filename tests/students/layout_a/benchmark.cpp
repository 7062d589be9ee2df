// Fixture stand-in for an older course year's benchmark.cpp (circle-renderer's
// tests, not course code): built by the folder's Makefile, replaced by the harness.
#error "the harness compiled the folder's benchmark.cpp, which it replaces"
