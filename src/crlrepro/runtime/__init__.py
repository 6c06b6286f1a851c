"""Where results live and what runs them: the one writer and reader of artifacts, and the compute device."""
