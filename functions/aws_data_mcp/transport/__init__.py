"""The edges: HTTP (local and Lambda) and stdio. They know nothing of AWS data."""
