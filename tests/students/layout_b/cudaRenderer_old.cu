// Fixture (circle-renderer's tests): an old copy a student kept in the
// folder. Their Makefile does not build it (and it no longer compiles).
#include "cudaRenderer.h"

void CudaRenderer::render() { thisFunctionWasRenamed(); }
