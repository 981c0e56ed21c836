"""Human-labelled data: the labelled-item schema (`judges.labels.schema`), adapters for the shared sets, column
mappings and hub loaders."""
