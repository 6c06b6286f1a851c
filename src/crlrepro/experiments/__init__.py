"""The experiments that join theory and learning: the papers' trainings and their evaluations."""
