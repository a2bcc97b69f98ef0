"""``python -m logitgeom`` runs the ``logitgeom`` command."""

import sys

from logitgeom.cli.main import main

sys.exit(main())
