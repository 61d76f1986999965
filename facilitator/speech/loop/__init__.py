"""The listen loop (routing only), the acceptance policy, half duplex, voice controls, captions,
settings, and voice play on real devices."""
