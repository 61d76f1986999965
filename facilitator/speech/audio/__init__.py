"""Audio in and out: devices and channels, endpointing, push-to-talk, a session's mix, a spoken crew."""
