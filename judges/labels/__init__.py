"""Human-labelled data: the labelled-item schema, adapters for the shared sets, column mappings and hub loaders."""

from judges.labels.schema import LabelledItem, LabelledSet, LabelType

__all__ = ["LabelType", "LabelledItem", "LabelledSet"]
