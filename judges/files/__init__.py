"""Files in and out: JSON Lines, TOML configs checked by a schema, input-file problems, the shipped data."""
