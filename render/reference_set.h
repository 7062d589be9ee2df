// The stored reference images (reference_images/): which scenes, sizes,
// seeds and frames. `render refs` writes them; tests and --check read them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cr {

/// One stored reference image: scene rendered by cpuref at width x height
/// with `seed`, frames 0..frame (the image is frame `frame`).
struct ReferenceSpec {
    std::string scene;
    int width, height;
    uint32_t seed;
    int frame;
    /// File name: SCENE_WxH_sSEED_fFRAME.png
    std::string file_name() const;
};

/// File name of a stored reference image: SCENE_WxH_sSEED_fFRAME.png.
std::string reference_file_name(const std::string& scene, int width, int height, uint32_t seed, int frame);

/// The full set: every course scene at 1024x1024 and 256x256, seed 0, frame
/// 0, plus later frames of the animated scenes (snow at 150 and 300, when
/// flakes are on screen: the frames checked against the course's reference
/// renderer). snowsingle's images are of the generated stand-in.
/// `small_only` keeps the 256x256 entries.
std::vector<ReferenceSpec> reference_set(bool small_only);

/// Where stored reference images live: $CR_REFERENCE_DIR when set, else the
/// source tree's reference_images/ (the path is compiled in).
std::string default_reference_dir();

}  // namespace cr
