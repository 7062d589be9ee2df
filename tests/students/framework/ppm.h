// Fixture framework header (circle-renderer's tests, not course code).
#ifndef FIXTURE_PPM_H
#define FIXTURE_PPM_H

struct Image;
void writePPMImage(const Image* image, const char* filename);

#endif
