// circle-renderer's version of the course framework's ppm.h.
#ifndef __PPM_H__
#define __PPM_H__

struct Image;

/// Writes `image` as a binary PPM (P6), top row first, each channel
/// (char)(255 * clamp(v, 0, 1)). Prints a message when the file cannot be written.
void writePPMImage(const Image* image, const char* filename);

#endif
