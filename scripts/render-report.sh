#!/usr/bin/env bash
# Renders a sqlwitness report.html to a PNG in headless Chromium, with the
# network features off (the report must need none), to check that it renders.
#
#   scripts/render-report.sh out/run/report.html /tmp/report.png [1400,2000]
#
# Exit 77 (and "SKIPPED" on stderr) when no Chromium is installed
# (Debian: apt-get install -y chromium); CI does not install it.
set -euo pipefail
html=${1:?usage: render-report.sh REPORT.html OUT.png [WIDTH,HEIGHT]}
out=${2:?usage: render-report.sh REPORT.html OUT.png [WIDTH,HEIGHT]}
size=${3:-1400,2000}
browser=""
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
    echo "SKIPPED: no chromium found" >&2
    exit 77
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
rm -f "$out"
timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
    --disable-background-networking --disable-component-update --disable-sync \
    --no-first-run --user-data-dir="$profile" \
    --screenshot="$(realpath -m "$out")" --window-size="$size" \
    "file://$(realpath "$html")" >/dev/null 2>&1 || true
if [ ! -s "$out" ]; then
    echo "render-report: no screenshot written" >&2
    exit 1
fi
echo "$out"
