#!/usr/bin/env bash
# Prove the project installs and passes its tests on 64-bit Raspberry Pi OS (aarch64): a
# fresh Debian bookworm arm64 root run through qemu-user-static, where the README's test
# command (bash .ci/run) installs everything and runs the suite.  The work is done by
# benchmarks/fresh-root/run.sh (which see); the result is appended to
# benchmarks/aarch64/results.txt.
#
#   bash benchmarks/aarch64/run.sh [--root DIR] [--fresh] [--shards N] [--env NAME=VALUE]... [-- PYTEST-ARGS...]
#
# Inside the root FACILITATOR_EMULATED=qemu-user is set: the tests listed in
# benchmarks/aarch64/emulation-skips.toml (what qemu-user cannot run) are skipped with
# their reasons, shown in pytest's summary; on real hardware (and in CI) all of them run.
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../fresh-root/run.sh" arm64 "$@"
