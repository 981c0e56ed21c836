"""Agreement of a judge with human labels: statistics by label type, bootstrap intervals, ceilings, policies."""
