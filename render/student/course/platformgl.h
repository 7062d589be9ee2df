// circle-renderer's stand-in for the course framework's platformgl.h. The
// harness opens no window from the student's code (the GUI shows the images),
// so no OpenGL header is needed here.
#ifndef __PLATFORM_GL_H__
#define __PLATFORM_GL_H__
#endif
