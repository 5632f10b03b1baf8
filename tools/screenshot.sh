#!/bin/sh
# SPDX-License-Identifier: MIT
# screenshot.sh: renders an SVG (a `rooflint --plot` chart) to a PNG with
# headless Chromium, at the SVG's own width and height, so the picture in
# the README is exactly what a browser shows.  Chromium is large, so it is
# installed here, on first use, and never by `make deps`.
#
#   tools/screenshot.sh chart.svg chart.png
set -eu

if [ $# -ne 2 ]; then
  echo "usage: tools/screenshot.sh FILE.svg FILE.png" >&2
  exit 2
fi
svg=$1
png=$2
[ -r "$svg" ] || { echo "screenshot.sh: cannot read $svg" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
  sh "$here/deps.sh" chromium
  browser=chromium
fi

# The size of the page is the size of the drawing: width="980" height="640".
w=$(sed -n 's/.*<svg[^>]* width="\([0-9]*\)".*/\1/p' "$svg" | head -n 1)
h=$(sed -n 's/.*<svg[^>]* height="\([0-9]*\)".*/\1/p' "$svg" | head -n 1)
[ -n "$w" ] && [ -n "$h" ] || { echo "screenshot.sh: $svg has no numeric width/height" >&2; exit 1; }

abs_svg=$(cd "$(dirname "$svg")" && pwd)/$(basename "$svg")
abs_png=$(cd "$(dirname "$png")" && pwd)/$(basename "$png")
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# --no-sandbox: CI containers run as root, where Chromium's sandbox refuses.
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --user-data-dir="$profile" --force-device-scale-factor=1 \
  --window-size="$w,$h" --screenshot="$abs_png" "file://$abs_svg" >/dev/null 2>&1
[ -s "$abs_png" ] || { echo "screenshot.sh: chromium wrote no $png" >&2; exit 1; }
echo "screenshot.sh: wrote $png (${w}x$h)"
