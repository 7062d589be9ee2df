// Fixture framework header (circle-renderer's tests, not course code): the
// window's OpenGL header. The harness must use its own stand-in: this one
// needs GLUT, which a GPU machine may not have.
#ifndef FIXTURE_PLATFORM_GL_H
#define FIXTURE_PLATFORM_GL_H
#include <GL/glut.h>
#endif
