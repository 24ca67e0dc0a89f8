"""Writes the variants of v0_generated.cc (glimpse's kernel for VGG-16's 64-channel 224x224 3x3
layer with its first blocked seed) that run.sh times, each leaving out or changing one part:

  v1_no_pack          the activation packing left out (Ip is read as left by the allocator)
  v2_pack_only        only the packing (the convolution left out)
  v3_blocked_store    the tiles stored into a blocked output O[k/32][oh][ow][32] (a wrong layout,
                      timed only as a bound on what the NCHW store costs)
  v4_no_pack_blocked  both: the convolution's own time
  v5_pack_strips      only the packing, its rows copied in strips of 16 columns with the channel
                      loop outside the strip

usage: make_variants.py SOURCE_DIR OUT_DIR
"""
import os
import re
import sys

source_dir, out_dir = sys.argv[1:3]
src = open(os.path.join(source_dir, "v0_generated.cc")).read()
pack_start = src.index("  for (int64_t pn = 0;")
conv_start = src.index("  for (int64_t n = 0; n < 1; ++n) {")
conv_end = src.index("  std::free(Ip);")
pack = src[pack_start:conv_start]
# The NCHW output index of the store, whatever line breaks the formatter put in it.
nchw_store = re.compile(r"O\[3211264 \* n \+ 1605632 \* k0[^\]]*\]")
assert len(nchw_store.findall(src)) == 1
blocked_store = "O[1605632 * k0 + 7168 * oh1 + 448 * ow1 + 32 * ww + wk2]"
# The same packing, each row copied in strips of 16 columns with the channel loop outside the
# strip, and the two pad columns zeroed apart.
strips_pack = """  for (int64_t pn = 0; pn < 1; ++pn) {
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t pc0 = 0; pc0 < 2; ++pc0) {
      for (int64_t ph = 0; ph < 226; ++ph) {
        for (int64_t pw0 = 0; pw0 < 14; ++pw0) {
          for (int64_t pc1 = 0; pc1 < 32; ++pc1) {
            for (int64_t pw1 = 0; pw1 < 16; ++pw1) {
              Ip[3268864 * pn + 1634432 * pc0 + 7232 * ph + 512 * pw0 + 32 * pw1 + pc1 + 32] =
                  ((ph - 1) >= 0 && (ph - 1) < 224
                       ? I[3211264 * pn + 1605632 * pc0 + 50176 * pc1 + 224 * ph + 16 * pw0 +
                           pw1 - 224]
                       : 0.0f);
            }
          }
        }
        for (int64_t pc1 = 0; pc1 < 32; ++pc1) {
          Ip[3268864 * pn + 1634432 * pc0 + 7232 * ph + pc1] = 0.0f;
          Ip[3268864 * pn + 1634432 * pc0 + 7232 * ph + 7200 + pc1] = 0.0f;
        }
      }
    }
  }
"""
pack_only = src[:conv_start] + src[conv_end:]
variants = {
    "v1_no_pack": src.replace(pack, ""),
    "v2_pack_only": pack_only,
    "v3_blocked_store": nchw_store.sub(blocked_store, src),
    "v4_no_pack_blocked": nchw_store.sub(blocked_store, src.replace(pack, "")),
    "v5_pack_strips": pack_only.replace(pack, strips_pack),
}
for name, text in variants.items():
    with open(os.path.join(out_dir, name + ".cc"), "w") as out:
        out.write(text)
