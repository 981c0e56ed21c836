"""Human labels for a team's own data: choose the items worth labelling, label them blind, export and import."""
