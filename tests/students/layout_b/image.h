// Fixture framework header (circle-renderer's tests, not course code): the
// course's Image as it is.
#ifndef FIXTURE_IMAGE_H
#define FIXTURE_IMAGE_H

struct Image {
    Image(int w, int h) : width(w), height(h), data(new float[4 * w * h]) {}
    void clear(float r, float g, float b, float a) {
        for (int i = 0; i < width * height; i++) {
            data[4 * i] = r;
            data[4 * i + 1] = g;
            data[4 * i + 2] = b;
            data[4 * i + 3] = a;
        }
    }
    int width;
    int height;
    float* data;
};

#endif
