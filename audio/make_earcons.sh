#!/usr/bin/env bash
# Regenerate the earcons with sox: short, distinct, 16 kHz mono 16-bit.
#   listening       two rising notes (the assistant is ready for a command)
#   understood      one bright note (a command was taken)
#   not-understood  two falling low notes (say again)
# Each sits at speech loudness: RMS about -21 dBFS, like espeak-ng speech at its
# own amplitude with pauses removed (tests/loop/test_sound.py measures both).
set -euo pipefail
cd "$(dirname "$0")"
fmt=(-r 16000 -c 1 -b 16)
sox -n "${fmt[@]}" listening.wav synth 0.09 sine 660 fade q 0.005 0.09 0.03 vol 0.145 : synth 0.12 sine 990 fade q 0.005 0.12 0.06 vol 0.145
sox -n "${fmt[@]}" understood.wav synth 0.18 sine 1320 sine 1980 remix 1,2 fade q 0.005 0.18 0.14 vol 0.23
sox -n "${fmt[@]}" not-understood.wav synth 0.12 square 392 fade q 0.005 0.12 0.04 vol 0.103 : synth 0.2 square 294 fade q 0.005 0.2 0.1 vol 0.103
