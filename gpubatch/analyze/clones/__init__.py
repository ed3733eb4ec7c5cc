"""Duplicate code (`analyze --duplicates`, GB301): per-file node features, then one similarity search over all
files at once (sorted-hash joins of node windows on the engine's array module), then verification and groups."""
