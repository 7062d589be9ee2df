# Clears the symbol version of the given undefined symbols and marks their glibc
# version requirement weak, so the library loads on an older glibc.
# Used by scripts/make_gui_bundle.sh to repack Debian 12's libexpat1 as ...+crpatch:
#   python3 elfver.py lib/x86_64-linux-gnu/libexpat.so.1.8.10 arc4random_buf   (patches the file in place)
import struct, sys
path, syms = sys.argv[1], set(sys.argv[2:])
b = bytearray(open(path, 'rb').read())
shoff, = struct.unpack_from('<Q', b, 0x28); shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
secs = []
for i in range(shnum):
    name, typ, flags, addr, off, size, link, info, align, entsize = struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * shentsize)
    secs.append(dict(name=name, type=typ, off=off, size=size, link=link, info=info, entsize=entsize))
def sec(t): return [s for s in secs if s['type'] == t][0]
dynsym = sec(11); dynstr = secs[dynsym['link']]; versym = sec(0x6fffffff); verneed = sec(0x6ffffffe)
def cstr(off):
    e = b.index(0, off); return b[off:e].decode()
idx = set()
for i in range(dynsym['size'] // 24):
    st_name, = struct.unpack_from('<I', b, dynsym['off'] + i * 24)
    if cstr(dynstr['off'] + st_name) in syms:
        v, = struct.unpack_from('<H', b, versym['off'] + 2 * i)
        idx.add(v); struct.pack_into('<H', b, versym['off'] + 2 * i, 1); print('cleared', cstr(dynstr['off'] + st_name), 'was', v)
off = verneed['off']
while True:
    vn_version, vn_cnt, vn_file, vn_aux, vn_next = struct.unpack_from('<HHIII', b, off)
    a = off + vn_aux
    for _ in range(vn_cnt):
        h, fl, other, nm, nxt = struct.unpack_from('<IHHII', b, a)
        if other in idx:
            struct.pack_into('<H', b, a + 4, fl | 2); print('weak', cstr(dynstr['off'] + nm))
        a += nxt
    if not vn_next: break
    off += vn_next
open(path, 'wb').write(b)
