"""Speech: every microphone's utterances in, the referee's sentences out.

::

    audio/      audio in and out: devices and channels, endpointing, push-to-talk,
                a session's mix, a spoken crew (the demo's and the benchmarks' players)
    engines/    pocketsphinx, Whisper, Vosk, the two engines' decision, grammars for them, models
    voices/     speaker embeddings, voiceprints, who-is-speaking rules and turns
    voice_out/  text to speech and its worker
    loop/       the listen loop (routing only), policy, half duplex, controls, captions,
                settings, voice play on real devices
    base.py     the small interfaces the stages share (Segment, Hypothesis, Recognizer, Speaker)
    commands.py the speech subcommands of the command line (recognize, devices, models)
"""
