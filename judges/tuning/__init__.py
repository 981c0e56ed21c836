"""`judgelab tune`: search prompt variants per metric on the train split, then report once on the test split."""
