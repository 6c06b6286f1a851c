"""The pipeline's plumbing: config validation, the adapter for workflow scripts, figures, publishing, verification "
"and the command line."""
