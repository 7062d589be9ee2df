#include "view_geometry.h"

#include <algorithm>
#include <cmath>

namespace cr::app {

PixelRect fit_image(const PixelRect& area, int image_w, int image_h, bool pixel_exact) {
    if (area.w <= 0 || area.h <= 0 || image_w <= 0 || image_h <= 0) return {area.x, area.y, 0, 0};
    int w = image_w, h = image_h;
    if (!pixel_exact || w > area.w || h > area.h) {
        const double s = std::min(double(area.w) / image_w, double(area.h) / image_h);
        w = std::max(1, static_cast<int>(image_w * s));
        h = std::max(1, static_cast<int>(image_h * s));
    }
    return {area.x + (area.w - w) / 2, area.y + (area.h - h) / 2, w, h};
}

PixelRect place_image(const PixelRect& area, int image_w, int image_h, bool pixel_exact, const ZoomPan& zp) {
    const PixelRect base = fit_image(area, image_w, image_h, pixel_exact);
    if (zp.zoom == 1 && zp.pan_x == 0 && zp.pan_y == 0) return base;
    const double cx = base.x + base.w / 2.0 + zp.pan_x, cy = base.y + base.h / 2.0 + zp.pan_y;
    const double w = base.w * zp.zoom, h = base.h * zp.zoom;
    return {static_cast<int>(std::lround(cx - w / 2)), static_cast<int>(std::lround(cy - h / 2)),
            std::max(1, static_cast<int>(std::lround(w))), std::max(1, static_cast<int>(std::lround(h)))};
}

void zoom_at(ZoomPan& zp, const PixelRect& area, int image_w, int image_h, bool pixel_exact, double factor,
             double fx, double fy) {
    const PixelRect base = fit_image(area, image_w, image_h, pixel_exact);
    if (base.w <= 0) return;
    const double z = std::min(ZoomPan::kMaxZoom, std::max(ZoomPan::kMinZoom, zp.zoom * factor));
    const double bx = base.x + base.w / 2.0, by = base.y + base.h / 2.0;
    const double qx = bx + zp.pan_x, qy = by + zp.pan_y;  // the image's center now
    zp.pan_x = fx - (fx - qx) * z / zp.zoom - bx;
    zp.pan_y = fy - (fy - qy) * z / zp.zoom - by;
    zp.zoom = z;
}

double one_to_one_zoom(const PixelRect& area, int image_w, int image_h, bool pixel_exact) {
    const PixelRect base = fit_image(area, image_w, image_h, pixel_exact);
    return base.w > 0 ? static_cast<double>(image_w) / base.w : 1.0;
}

bool image_pixel_at(const PixelRect& drawn, int image_w, int image_h, double fx, double fy, int& px, int& py) {
    if (drawn.w <= 0 || drawn.h <= 0) return false;
    const double u = (fx - drawn.x) / drawn.w, v = (fy - drawn.y) / drawn.h;
    if (u < 0 || v < 0 || u >= 1 || v >= 1) return false;
    px = std::min(image_w - 1, static_cast<int>(u * image_w));
    py = std::min(image_h - 1, static_cast<int>(v * image_h));
    return true;
}

}  // namespace cr::app
