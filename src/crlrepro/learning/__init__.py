"""Learning with torch: the contrastive losses, encoders, the trainer, metrics on samples, augmentations and image data."""
