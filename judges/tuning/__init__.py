"""`judgelab tune`: search prompt variants on the train split (or on labelled items), then report once on held-out data."""
