// circle-renderer's version of the course framework's image.h: a float RGBA
// image, 4 floats a pixel, row 0 at the bottom. Like the course's, it has no
// destructor (students' code owns `data` as the course lets it).
#ifndef __IMAGE_H__
#define __IMAGE_H__

struct Image {
    Image(int w, int h) {
        width = w;
        height = h;
        data = new float[4 * w * h];
    }

    /// Sets every pixel to (r, g, b, a).
    void clear(float r, float g, float b, float a) {
        const int n = width * height;
        for (int i = 0; i < n; i++) {
            data[4 * i + 0] = r;
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
