// Fixture framework header in the style of course layout B (circle-renderer's
// tests, not course code): 14 scenes, loadScene without a seed.
#ifndef FIXTURE_CIRCLE_RENDERER_H
#define FIXTURE_CIRCLE_RENDERER_H

struct Image;

#define NUM_FIREWORKS 15
#define NUM_SPARKS 20

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

class CircleRenderer {
public:
    virtual ~CircleRenderer() {}
    virtual const Image* getImage() = 0;
    virtual void setup() = 0;
    virtual void loadScene(SceneName name) = 0;
    virtual void allocOutputImage(int width, int height) = 0;
    virtual void clearImage() = 0;
    virtual void advanceAnimation() = 0;
    virtual void render() = 0;
};

#endif
