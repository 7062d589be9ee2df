// Fixture framework header (circle-renderer's tests, not course code): the
// snow noise functions a course folder declares.
#ifndef FIXTURE_NOISE_H
#define FIXTURE_NOISE_H

void vec2CellNoise(float location[3], float result[2], int index);
void getNoiseTables(int** permX, int** permY, float** value1D);

#endif
