"""Training pipeline (needs the `train` extra: torch, ultralytics). Never imported at run time."""
