// Where the image goes in the window: fitting, 1:1, zoom and pan, and the
// pixel under the mouse. No GL here (unit-tested on its own).
#pragma once

namespace cr::app {

/// A rectangle in framebuffer pixels, origin bottom-left (as glViewport).
struct PixelRect {
    int x = 0, y = 0, w = 0, h = 0;
};

/// Where an image_w x image_h image goes inside `area`, keeping its aspect
/// ratio and centered on whole pixels: drawn 1:1 when `pixel_exact` and it
/// fits, else scaled to fill the area.
PixelRect fit_image(const PixelRect& area, int image_w, int image_h, bool pixel_exact);

/// Zoom and pan of the image view, on top of fit_image's placement: the
/// image is scaled by `zoom` about the center of its fitted rectangle, then
/// moved by (pan_x, pan_y) framebuffer pixels.
struct ZoomPan {
    double zoom = 1;
    double pan_x = 0, pan_y = 0;
    static constexpr double kMinZoom = 0.125, kMaxZoom = 64;
};

/// Where the image goes: fit_image's rectangle, zoomed and panned by `zp`.
PixelRect place_image(const PixelRect& area, int image_w, int image_h, bool pixel_exact, const ZoomPan& zp);

/// Zooms by `factor` keeping the image point under (fx, fy) (framebuffer
/// pixels, y from the bottom) where it is; the zoom stays within
/// kMinZoom..kMaxZoom.
void zoom_at(ZoomPan& zp, const PixelRect& area, int image_w, int image_h, bool pixel_exact, double factor,
             double fx, double fy);

/// The zoom that draws one image pixel on one framebuffer pixel (a "1:1
/// view", also for images larger than the area).
double one_to_one_zoom(const PixelRect& area, int image_w, int image_h, bool pixel_exact);

/// The image pixel under (fx, fy) (framebuffer pixels, y from the bottom)
/// when the image is drawn over `drawn`: x from the left, y = row from the
/// bottom. False when the point is outside the image.
bool image_pixel_at(const PixelRect& drawn, int image_w, int image_h, double fx, double fy, int& px, int& py);

}  // namespace cr::app
