"""Claims and verdicts: the registry of experiments and claims, the papers' reported values, each paper's claims, the summary."""
