// `render refs`: regenerates the stored reference images with cpuref.
#include <cstdio>
#include <memory>

#include "render/cli/commands.h"
#include "render/image_io.h"
#include "render/options.h"
#include "render/reference_set.h"
#include "render/renderer_factory.h"

namespace cr {

int run_refs(const RefsArgs& args) {
    if (check_output_folder(args.out_dir, /*create=*/true)) std::printf("Created folder %s\n", args.out_dir.c_str());
    const auto set = reference_set(args.only_small);
    const std::unique_ptr<Renderer> cpuref = make_renderer("cpuref");
    size_t i = 0;
    for (const auto& spec : set) {
        ++i;
        const Scene scene = make_scene(spec.scene, spec.seed);
        const Image& img = render_last_frame(*cpuref, scene, spec.width, spec.height, spec.frame + 1);
        const std::string path = args.out_dir + "/" + spec.file_name();
        write_image(img, path, ImageFormat::Png);
        std::printf("[%zu/%zu] wrote %s\n", i, set.size(), path.c_str());
        std::fflush(stdout);
    }
    return kExitOk;
}

}  // namespace cr
