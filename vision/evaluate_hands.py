"""``python -m vision.evaluate_hands``: the held-out evaluation of the whole reader (``evaluation/held_out.py``).

A command only, never imported by the page, the CLIs or the API (tests/test_structure.py): it runs the
evaluation module, which needs the repository's evaluation code, as its own main.
"""

from __future__ import annotations

import runpy

if __name__ == "__main__":
    runpy.run_module("evaluation.held_out", run_name="__main__", alter_sys=True)
