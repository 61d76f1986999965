"""Who is speaking: speaker embeddings, voiceprints, the rules that hold a role's command to its seat."""
