#!/usr/bin/env bash
# Make (or bring up to date) the Debian 12 arm64 root that benchmarks/pi_estimate counts in, and
# put an instruction-counting qemu-user into it.
#
#   bash benchmarks/pi_estimate/make_root.sh ROOT
#
# The root is made as benchmarks/fresh-root/run.sh makes its own (debootstrap minbase with a
# CA store, run under qemu-user-static through binfmt_misc, a fresh clone of the committed
# project, a Raspberry Pi 4's /proc/cpuinfo), and the project is installed there by
# .ci/setup (the aarch64 lock, wheels only), without the test suite's extras.  Then the
# counter: Debian's dynamically linked qemu-aarch64 (qemu-user, which can load TCG plugins;
# qemu-user-static cannot) with its x86_64 libraries, which sit beside the root's arm64 ones
# (Debian's multiarch paths), and the plugins built from QEMU's own source package for the
# same version: stagecount.c (beside this script) and QEMU's tests/plugin/insn.c (for the
# check that both count alike).  Nothing of this is part of the product.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
root="${1:?usage: make_root.sh ROOT}"
say() { printf '[pi-estimate] %s\n' "$*" >&2; }
export DEBIAN_FRONTEND=noninteractive

need=()
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static binfmt-support)
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
command -v gcc >/dev/null || need+=(gcc libc6-dev)
pkg-config --exists glib-2.0 2>/dev/null || need+=(libglib2.0-dev pkg-config)
command -v dpkg-source >/dev/null || need+=(dpkg-dev)
if [ ${#need[@]} -gt 0 ]; then
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64

if [ ! -x "$root/usr/bin/apt-get" ]; then
  say "debootstrap bookworm arm64 into $root"
  debootstrap --arch arm64 --variant=minbase --include=ca-certificates bookworm "$root" >/dev/null
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
# the committed project at HEAD; a clone already there is moved on (its .venv, the slow part, stays)
if [ -d "$root/src/facilitator/.git" ]; then
  git -C "$root/src/facilitator" fetch -q "$here" HEAD
else
  mkdir -p "$root/src"
  git clone -q "$here" "$root/src/facilitator"
fi
git -C "$root/src/facilitator" checkout -q --detach "$(git -C "$here" rev-parse HEAD)"

for fs in proc sys dev; do mountpoint -q "$root/$fs" || mount --bind "/$fs" "$root/$fs"; done
# what a Pi 4 shows in /proc/cpuinfo (qemu-user shows the host's; onnxruntime's probe dies on x86's)
fake="$root/opt/pi-estimate/cpuinfo"
mkdir -p "$root/opt/pi-estimate"
for ((n = 0; n < 4; n++)); do
  printf 'processor\t: %d\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\n' "$n"
  printf 'CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n\n'
done > "$fake"
printf 'Hardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B (as shown to the emulated root)\n' >> "$fake"
mountpoint -q "$root/proc/cpuinfo" || mount --bind "$fake" "$root/proc/cpuinfo"
trap 'umount "$root/proc/cpuinfo" 2>/dev/null || true; for fs in dev sys proc; do umount -l "$root/$fs" 2>/dev/null || true; done' EXIT

say "installing the project from the aarch64 lock in the root (.ci/setup; slow under emulation)"
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  LANG=C.UTF-8 SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
  PIP_DISABLE_PIP_VERSION_CHECK=1 /bin/bash -c 'cd /src/facilitator && source .ci/setup'

say "the counting qemu-aarch64 and its plugins"
version="$(dpkg-query -W -f '${Version}' qemu-user)"
source_version="$(dpkg-query -W -f '${source:Version}' qemu-user)"
src="$(dirname "$root")/qemu-source-$source_version"
if [ ! -f "$src/include/qemu/qemu-plugin.h" ]; then
  # QEMU's plugin header and test plugins, from Debian's source package of the installed qemu-user
  tmp="$(mktemp -d)"
  (cd "$tmp" && apt-get source -qq --download-only "qemu=$source_version" >/dev/null 2>&1) || {
    say "apt-get source qemu=$source_version failed: add a deb-src line for deb.debian.org (bookworm, bookworm-security)"
    exit 1; }
  orig="$(ls "$tmp"/qemu_*.orig.tar.xz)"
  top="$({ tar -tJf "$orig" || true; } | head -1 | cut -d/ -f1)"   # tar meets a closed pipe: not a failure
  mkdir -p "$src"
  tar -xJf "$orig" -C "$src" --strip-components=1 "$top/include/qemu/qemu-plugin.h" "$top/tests/plugin"
  rm -rf "$tmp"
fi
glib="$(pkg-config --cflags --libs glib-2.0)"
# shellcheck disable=SC2086
gcc -O2 -Wall -shared -fPIC -I "$src/include/qemu" "$here/benchmarks/pi_estimate/stagecount.c" \
  -o "$root/opt/pi-estimate/libstagecount.so" $glib
# shellcheck disable=SC2086
gcc -O2 -shared -fPIC -I "$src/include/qemu" "$src/tests/plugin/insn.c" -o "$root/opt/pi-estimate/libinsn.so" $glib
cp /usr/bin/qemu-aarch64 "$root/opt/pi-estimate/qemu-aarch64"
mkdir -p "$root/lib64" "$root/usr/lib/x86_64-linux-gnu"
for lib in $(ldd /usr/bin/qemu-aarch64 "$root/opt/pi-estimate/libstagecount.so" \
             | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /ld-linux/ {print $1}' | sort -u); do
  case "$lib" in
    */ld-linux-x86-64.so.2) cp -L "$lib" "$root/lib64/ld-linux-x86-64.so.2" ;;
    *) cp -L "$lib" "$root/usr/lib/x86_64-linux-gnu/" ;;
  esac
done
echo "$version" > "$root/opt/pi-estimate/qemu-version"
say "ready: $root ($(chroot "$root" /opt/pi-estimate/qemu-aarch64 --version | head -1))"
