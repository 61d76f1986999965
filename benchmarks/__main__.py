"""``python -m benchmarks``: the recognition benchmark of short clips (``benchmarks/run.py``);
``python -m benchmarks session``: whole table sessions (``benchmarks/session/``);
``python -m benchmarks engines``: the clip table of the engines, with the plain-JSGF
reference row (``benchmarks/engines.py``); ``python -m benchmarks phrasing``: natural
phrasing and table talk, typed and spoken (``benchmarks/phrasing/``)."""

import sys

if len(sys.argv) > 1 and sys.argv[1] == "session":
    from benchmarks.session.run import main as session_main

    raise SystemExit(session_main(sys.argv[2:]))

if len(sys.argv) > 1 and sys.argv[1] == "engines":
    from benchmarks.engines import main as engines_main

    raise SystemExit(engines_main(sys.argv[2:]))

if len(sys.argv) > 1 and sys.argv[1] == "phrasing":
    from benchmarks.phrasing.run import main as phrasing_main

    raise SystemExit(phrasing_main(sys.argv[2:]))

if len(sys.argv) > 1 and sys.argv[1] == "rejection":
    from benchmarks.rejection import main as rejection_main

    raise SystemExit(rejection_main(sys.argv[2:]))

from benchmarks.run import main

raise SystemExit(main())
