#!/usr/bin/env bash
# Does every Python dependency have a wheel for 64-bit Raspberry Pi OS (aarch64, CPython 3.11)?
# Downloads, without installing, what pip would pick for manylinux2014_aarch64 and lists
# each file; a dependency with no such wheel is named.  Writes benchmarks/aarch64/wheels.txt.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$here/benchmarks/aarch64/wheels.txt"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
pip=("${PYTHON:-python3}" -m pip download -q --only-binary=:all: --platform manylinux2014_aarch64
     --python-version 311 --implementation cp -d "$dir")
# The project's dependencies and its test extra, read from pyproject.toml.
mapfile -t deps < <("${PYTHON:-python3}" - "$here/pyproject.toml" <<'PY'
import sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
for dep in project["dependencies"] + project["optional-dependencies"]["test"]:
    print(dep)
PY
)
{
  echo "# aarch64 wheels for CPython 3.11 (pip download --only-binary=:all: --platform manylinux2014_aarch64)"
  echo "# made by benchmarks/aarch64/wheels.sh on $(date -u +%Y-%m-%d)"
  missing=()
  for dep in "${deps[@]}"; do
    if ! "${pip[@]}" "$dep" >"$dir/err" 2>&1; then
      # a dependency of $dep may lack a wheel: take $dep alone, then find which one
      if "${pip[@]}" --no-deps "$dep" >/dev/null 2>&1; then
        culprit="$(grep -o "requirement [^ ]* (from [^)]*)" "$dir/err" | head -1)"
        missing+=("$dep: its dependency has no aarch64 wheel: ${culprit:-see pip}")
      else
        missing+=("$dep: no aarch64 wheel")
      fi
    fi
  done
  echo "## wheels pip chose"
  (cd "$dir" && ls -1 ./*.whl | sed 's|^\./||' | sort)
  echo "## without a wheel"
  if [ ${#missing[@]} -eq 0 ]; then echo "(none)"; else printf '%s\n' "${missing[@]}"; fi
} > "$out"
cat "$out"
