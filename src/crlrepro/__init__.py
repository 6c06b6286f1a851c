"""crlrepro: reproducible theory of contrastive representation learning."""
__version__ = "0.1.0"
