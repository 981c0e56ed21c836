"""Cascaded selective evaluation: judges that keep only the verdicts they can vouch for, and escalate the rest."""
