"""Text to speech and its worker process."""
