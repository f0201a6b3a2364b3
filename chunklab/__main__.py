"""``python -m chunklab``: the command line (see `chunklab.cli`)."""

from .cli import main

raise SystemExit(main())
