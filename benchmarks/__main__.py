"""``python -m benchmarks``: the recognition benchmark (see ``benchmarks/run.py``);
``python -m benchmarks session``: the table-session benchmark (``benchmarks/session/``)."""

import sys

if len(sys.argv) > 1 and sys.argv[1] == "session":
    from benchmarks.session.run import main as session_main

    raise SystemExit(session_main(sys.argv[2:]))

from benchmarks.run import main

raise SystemExit(main())
