"""The recognizers: pocketsphinx, Whisper, Vosk, the two engines' decision, the grammars built for
them, and the optional models."""
