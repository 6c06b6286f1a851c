"""crlrepro: reproducible theory of contrastive representation learning.

The library is laid out by concern, each layer importing only those before it:

* ``crlrepro.runtime``: artifacts (the one writer and reader of result files) and the compute device;
* ``crlrepro.theory``: the papers' mathematics on exact and quadrature quantities (NumPy/SciPy only);
* ``crlrepro.learning``: losses, encoders, the trainer, metrics on samples, augmentations, image data (torch);
* ``crlrepro.experiments``: the papers' trainings and evaluations, joining theory and learning;
* ``crlrepro.claims``: the registry of experiments and claims, verdicts, each paper's claims, the summary;
* ``crlrepro.workflow``: config validation, the workflow scripts' adapter, figures, publishing, verification, the CLI.
"""

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__"]

try:
    __version__ = version("crlrepro")  # one place: pyproject.toml's [project] version
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"
