"""Run the loopback OpenAI-compatible server alone: `python bench/fake_openai_server.py --delay 0.2`.

The server itself is a test helper (tests/support/fake_openai_server.py); benchmarks reuse it.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.fake_openai_server import main  # noqa: E402

if __name__ == "__main__":
    main()
