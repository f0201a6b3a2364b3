"""``python -m chunklab``: the command line (see `chunklab.pipeline.cli`)."""

from .pipeline.cli import main

raise SystemExit(main())
