// The request/reply protocol between the harness (render, the GUI) and the
// student-renderer worker process. Requests go to the worker's fd 3, replies
// come from its fd 4: a fixed-size header, then `text_bytes` bytes of text.
// Scenes and images travel through a SharedRegion whose name is the text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "render/core/circles.h"

namespace cr::student {

constexpr uint32_t kProtocolMagic = 0x43525354;  // "CRST"

/// What the harness asks the worker to do.
enum class Op : uint32_t {
    Load = 1,     ///< text: path of the student's shared library to dlopen
    Setup = 2,    ///< text: region holding the scene; new renderer, allocOutputImage, loadScene, setup
    Clear = 3,    ///< clearImage()
    Advance = 4,  ///< advanceAnimation()
    Render = 5,   ///< render()
    Image = 6,    ///< text: region of width*height*16 bytes for getImage()'s pixels
    Quit = 7,     ///< delete the renderer and exit
    Profile = 8,  ///< arg 1: cudaProfilerStart(), 0: cudaProfilerStop() (in the student's runtime)
    /// A frame as the course's process runs it: clearImage(), advanceAnimation(), render(), each followed
    /// by cudaDeviceSynchronize() and timed, back to back; then, when the text names a file, getImage()
    /// and that PPM file written by the worker itself, as the course's binary does between frames.
    /// The reply's text: the three times in ms ("CLEAR ADVANCE RENDER").
    CourseFrame = 9,
};

/// The student's calls, named in reports ("in render(), frame 3").
enum class Call : int32_t {
    None = 0,
    LoadLibrary,
    Constructor,
    AllocOutputImage,
    LoadScene,
    Setup,
    ClearImage,
    AdvanceAnimation,
    Render,
    GetImage,
    Destructor,
    Frame,  ///< a frame's three calls, synchronized after them (a course frame timed without synchronizing)
};

/// "render()", "the CudaRenderer constructor", ...
const char* call_name(Call c);

/// How a request ended.
enum class Status : int32_t {
    Ok = 0,
    CudaError = 1,  ///< text: the CUDA error string
    Failed = 2,     ///< text: an exception's what() or another reason
    BadImage = 3,   ///< getImage() gave no image or one of another size (reply's width/height)
};

struct Request {
    uint32_t magic = kProtocolMagic;
    Op op = Op::Quit;
    int32_t width = 0, height = 0;  ///< Setup, Image: the image size asked for
    uint64_t region_bytes = 0;      ///< size of the region named in the text
    uint32_t text_bytes = 0;
    int32_t arg = 0;                ///< Profile: on (1) or off (0)
};

struct Reply {
    uint32_t magic = kProtocolMagic;
    Status status = Status::Ok;
    Call call = Call::None;         ///< the student's call that failed (or ran)
    int32_t width = 0, height = 0;  ///< Image: the size of the student's image
    double ms = 0;                  ///< the call's host time incl. cudaDeviceSynchronize (course method)
    uint32_t text_bytes = 0;
    int32_t cuda_error = 0;         ///< CudaError: the student's cudaError_t value
};

/// The worker's status block, in shared memory the harness reads after the
/// worker died: the student's call in progress, and, when the student's code
/// called exit() during a call, its code and the last CUDA error of the
/// student's runtime at that moment (students' error checks often pass a
/// cudaError_t to exit(), which keeps only its low 8 bits: 700 becomes 188).
struct WorkerStatus {
    volatile int32_t call = 0;        ///< a Call value
    volatile int32_t exited = 0;      ///< 1: the student's code called exit() during `call`
    volatile int32_t exit_code = 0;
    volatile int32_t cuda_error = 0;  ///< the student's last CUDA error then (0: none)
    char cuda_text[240] = {0};        ///< "cudaErrorIllegalAddress\tan illegal memory access was encountered"
};

/// The text of the student runtime's "name<TAB>text" ("an illegal memory
/// access was encountered"; all of it when there is no tab).
std::string cuda_error_text(const std::string& name_and_text);

/// One sentence for a CUDA error of the student's, from its code and the
/// "name<TAB>text" the student's runtime gave: "CUDA error 700
/// (cudaErrorIllegalAddress), an illegal memory access was encountered".
std::string cuda_error_sentence(int code, const std::string& name_and_text);

/// What a worker whose student code called exit() during a call says
/// (status.exited): "your code called exit(188) in render(), frame 0", and
/// with a CUDA error noted then ", after CUDA error 700 (...), ... (188 is
/// what exit() keeps of 700)"; "" when the student's code did not call
/// exit(). `where` is e.g. "render(), frame 0".
std::string exit_sentence(const WorkerStatus& status, const std::string& where);

/// The course's SceneName value (0..13) a scene is given to the student's
/// renderer as: its own for a course scene; for other scenes the closest
/// course behaviour (snow shading: SNOWFLAKES_SINGLE_FRAME, 9; rand10M:
/// CIRCLE_TEST_1M, 12; anything else: CIRCLE_TEST_10K, 2).
int course_scene_value(const Scene& scene);

/// Our scene name of a course SceneName value ("" when out of range).
std::string course_scene_name(int value);

/// Bytes a scene of `count` circles needs in a region.
size_t scene_region_bytes(size_t count);
/// Writes the scene (its circles, name, seed, shade, motion) at `region`.
void write_scene(void* region, const Scene& scene);
/// Reads a scene written by write_scene. Throws std::runtime_error when the
/// region does not hold one (or is too small for it).
Scene read_scene(const void* region, size_t region_bytes);

}  // namespace cr::student
