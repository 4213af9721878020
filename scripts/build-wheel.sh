#!/usr/bin/env bash
# Builds the published Python package into DIR (default: dist): the release
# wheel, stripped, for CPython 3.9 and later (abi3), linked against glibc
# 2.17 (manylinux2014) with zig from PyPI's `ziglang`, checked with
# auditwheel; and the source distribution.
#
#   scripts/build-wheel.sh [DIR] [--target TRIPLE]
#
# --target builds for another platform with the same script (not built
# here): aarch64-unknown-linux-gnu (manylinux2014 as well, through zig);
# x86_64-apple-darwin or aarch64-apple-darwin on a Mac, and
# x86_64-pc-windows-msvc on Windows, where the platform's own toolchain
# links and no manylinux tag applies.
set -euo pipefail
cd "$(dirname "$0")/.."

out=dist
target=x86_64-unknown-linux-gnu
while [[ $# -gt 0 ]]; do
    case "$1" in
    --target) target="$2"; shift 2 ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    *) out="$1"; shift ;;
    esac
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# The build tools, from PyPI, in a virtual environment of their own.
tools="${TMPDIR:-/tmp}/sqlwitness-wheeltools"
if [[ ! -x "$tools/bin/maturin" ]] || ! "$tools/bin/python" -c 'import ziglang, auditwheel' 2>/dev/null; then
    python3 -m venv "$tools"
    "$tools/bin/pip" install -q "maturin>=1.9.4,<2" "ziglang>=0.13" "auditwheel>=6"
fi
export PATH="$tools/bin:$PATH"
# A target directory of its own: the wheel profile and the zig-linked
# target share nothing with the test build, and its first build (the
# bundled C and C++, optimised) is paid once per machine.
export CARGO_TARGET_DIR="${SQLWITNESS_WHEEL_TARGET_DIR:-$HOME/.cache/sqlwitness/wheel-target}"
rustup target list --installed 2>/dev/null | grep -qx "$target" || rustup target add "$target"

start=$SECONDS
case "$target" in
*-linux-gnu)
    maturin build --profile wheel --target "$target" --zig --compatibility manylinux2014 --out "$out"
    ;;
*)
    maturin build --profile wheel --target "$target" --out "$out"
    ;;
esac
maturin sdist --out "$out"

for wheel in "$out"/sqlwitness-*.whl; do
    echo "wheel: $(basename "$wheel"), $(du -h "$wheel" | cut -f1), built in $((SECONDS - start)) s"
    if [[ "$target" == *-linux-gnu ]]; then
        auditwheel show "$wheel"
    fi
done
ls -l "$out"/sqlwitness-*.tar.gz
# A build from the source distribution takes the workspace's build settings.
for sdist in "$out"/sqlwitness-*.tar.gz; do
    listing="$(tar tzf "$sdist")"
    if ! grep -q '^[^/]*/\.cargo/config\.toml$' <<<"$listing"; then
        echo "error: $(basename "$sdist") holds no .cargo/config.toml" >&2
        exit 1
    fi
done
