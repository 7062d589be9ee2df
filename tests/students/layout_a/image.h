// Fixture framework header (circle-renderer's tests, not course code): the
// course's Image with two members a student added, one before `width`, so a
// reader that assumes the course's layout reads the wrong fields.
#ifndef FIXTURE_IMAGE_H
#define FIXTURE_IMAGE_H

struct Image {
    Image(int w, int h) : frameCounter(0), width(w), height(h), data(new float[4 * w * h]), debugName("student") {}

    void clear(float r, float g, float b, float a) {
        for (int i = 0; i < width * height; i++) {
            data[4 * i] = r;
            data[4 * i + 1] = g;
            data[4 * i + 2] = b;
            data[4 * i + 3] = a;
        }
    }

    long long frameCounter;  // the student's addition
    int width;
    int height;
    float* data;
    const char* debugName;  // the student's addition
};

#endif
