"""``python -m benchmarks``: the recognition benchmark (see ``benchmarks/run.py``)."""

from benchmarks.run import main

raise SystemExit(main())
