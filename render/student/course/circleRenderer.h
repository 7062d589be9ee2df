// circle-renderer's own version of the course framework's circleRenderer.h
// (written from ../shared/COURSE_INTERFACE.md): the scene names and the
// abstract renderer a student's CudaRenderer derives from.
#ifndef __CIRCLE_RENDERER_H__
#define __CIRCLE_RENDERER_H__

struct Image;

#define NUM_FIREWORKS 15
#define NUM_SPARKS 20

/// The course's scenes, values 0..13 in the course's order.
typedef enum {
    CIRCLE_RGB,
    CIRCLE_RGBY,
    CIRCLE_TEST_10K,
    CIRCLE_TEST_100K,
    PATTERN,
    SNOWFLAKES,
    FIREWORKS,
    HYPNOSIS,
    BOUNCING_BALLS,
    SNOWFLAKES_SINGLE_FRAME,
    BIG_LITTLE,
    LITTLE_BIG,
    CIRCLE_TEST_1M,
    MICRO_2M
} SceneName;

/// What the course's main loop drives: allocOutputImage, loadScene, setup,
/// then per frame clearImage, advanceAnimation, render, getImage.
class CircleRenderer {
public:
    virtual ~CircleRenderer() {}
    virtual const Image* getImage() = 0;
    virtual void setup() = 0;
#ifdef CR_COURSE_NO_SEED
    // Course layouts A and B (before October 2025): no seed. The harness
    // defines CR_COURSE_NO_SEED when the student's cudaRenderer.h declares
    // this form and their folder brings no circleRenderer.h of its own.
    virtual void loadScene(SceneName name) = 0;
#else
    virtual void loadScene(SceneName name, int seed = 0) = 0;
#endif
    virtual void allocOutputImage(int width, int height) = 0;
    virtual void clearImage() = 0;
    virtual void advanceAnimation() = 0;
    virtual void render() = 0;
};

#endif
