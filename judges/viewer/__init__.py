"""`judgelab view`: a local, read-only viewer over run folders and leaderboards (index, run, comparison)."""
