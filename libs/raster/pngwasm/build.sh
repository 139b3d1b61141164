#!/bin/sh
# build.sh: builds png.wasm, the render page's PNG encoder, from png.c and
# the vendored libdeflate (v1.25, MIT: libdeflate/COPYING). Pinned to
# Debian 12's clang 14 and lld 14 (apt-get install clang lld), whose
# output is byte for byte the same on every build: TestPNGWasmRebuilds
# rebuilds it and compares with the checked-in file.
#   sh build.sh [OUT]   (OUT defaults to png.wasm)
set -eu
cd "$(dirname "$0")"
CLANG=${CLANG:-clang-14}
"$CLANG" --target=wasm32 -O2 -msimd128 -mbulk-memory -nostdlib -ffreestanding -DFREESTANDING \
  -fno-ident -Wall -Wno-unused-function \
  -Wl,--no-entry -Wl,--strip-all -Wl,--gc-sections \
  -o "${1:-png.wasm}" \
  png.c libdeflate/lib/deflate_compress.c libdeflate/lib/zlib_compress.c \
  libdeflate/lib/adler32.c libdeflate/lib/crc32.c libdeflate/lib/utils.c
