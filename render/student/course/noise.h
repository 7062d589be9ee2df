// circle-renderer's version of the course framework's noise.h: the snow
// scene's cell noise (SCENES.md) and its three 256-entry tables.
#ifndef __NOISE_H__
#define __NOISE_H__

/// result = the noise at location (x, y, z) for particle `index`.
void vec2CellNoise(float location[3], float result[2], int index);

/// Hands out the tables: permutation x and y (256 ints each), values (256 floats).
void getNoiseTables(int** permX, int** permY, float** value1D);

#endif
