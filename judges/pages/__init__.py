"""Self-contained HTML pages (run reports, the leaderboard) rendered from the Jinja templates kept here."""
