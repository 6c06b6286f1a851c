"""The pipeline's plumbing: config validation and the start checks, the adapter for workflow scripts, a results
folder's record, publishing, verification and the command line."""
