#!/usr/bin/env bash
# Installs, only when missing, what rendering needs: Chromium and the
# font stack it draws with (libs/fontstack finds the files by path), and
# the font subsetter and WOFF2 encoder that SVGs carry their fonts with
# (libs/subset: hb-subset, woff2_compress), and the compiler of the page's
# PNG encoder (clang 14 and lld 14). Both
# `make run` and `make test` call it; run as root or with sudo.
# One marker file per package: fonts-noto-cjk (Noto Sans CJK), fonts-noto-core
# (a Noto Sans face for every other script, the serif faces of the scripts
# with no sans face, Noto Sans Symbols, Symbols2 and Math, Noto Music) and
# fonts-noto-color-emoji. fonts-noto-extra adds only other weights.
set -euo pipefail
need=()
[ -x /usr/lib/chromium/chromium ] || command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v fc-list >/dev/null 2>&1 || need+=(fontconfig)
[ -e /usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc ] || need+=(fonts-noto-cjk)
[ -e /usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf ] || need+=(fonts-noto-core)
[ -e /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ] || need+=(fonts-noto-color-emoji)
command -v hb-subset >/dev/null 2>&1 || need+=(libharfbuzz-bin)
command -v woff2_compress >/dev/null 2>&1 || need+=(woff2)
# The page's PNG encoder is rebuilt from source by a test (libs/raster/pngwasm).
command -v clang-14 >/dev/null 2>&1 || need+=(clang-14)
command -v wasm-ld-14 >/dev/null 2>&1 || need+=(lld-14)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "installing for rendering: ${need[*]} (about a minute)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
