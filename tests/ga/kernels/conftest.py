"""The kernels' tests share tests/ga's Hypothesis strategies (ga_strategies.py, one folder up)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
