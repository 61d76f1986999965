"""What a Raspberry Pi 4 and 5 would spend on each recognition stage: guest instruction counts on
aarch64 (qemu-user's TCG plugin), calibrated on published Pi timings (``python -m benchmarks.pi_estimate``)."""
