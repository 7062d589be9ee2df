/* Source of .gl/stubs/libcr_arc4shim.so (built by scripts/make_gui_bundle.sh with gcc -shared -fPIC -O2).
 * Only preloaded when the GPU machine has glibc < 2.36, for the patched libexpat1 in .gl/debs. */
/* arc4random/arc4random_buf for glibc < 2.36 (LD_PRELOADed by scripts/gui_on_gpu.sh). */
#include <stddef.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>
void arc4random_buf(void *buf, size_t n) {
    unsigned char *p = buf;
    while (n) { long r = syscall(SYS_getrandom, p, n, 0); if (r > 0) { p += r; n -= r; } }
}
uint32_t arc4random(void) { uint32_t v; arc4random_buf(&v, sizeof v); return v; }
