"""Chaos, the long version: `python bench/chaos.py --backend local --workers 2 --kills 50`.

The kill-and-resume loop and the store audit are test helpers (tests/support/chaos.py, whose
docstring lists every option); the test suite runs a short version of them.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.chaos import main  # noqa: E402

if __name__ == "__main__":
    main()
