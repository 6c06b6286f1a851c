"""Claims and verdicts: what an experiment, a claim and a study are (spec), the decision of each claim kind
(verdicts), and the papers' reported values (reference). Each study's claims live in its own package (crlrepro.studies)."""
