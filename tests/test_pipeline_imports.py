"""The import closure of a workflow script (crlrepro.workflow.pipeline.imported_library_files), the inputs that make editing a
library module rerun exactly the rules whose scripts use it: modules of subpackages, the packages' __init__ files
on the way, relative imports, and names that are attributes rather than modules."""

from pathlib import Path

from crlrepro.workflow.pipeline import imported_library_files


def write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_closure_follows_subpackages_their_inits_and_relative_imports(tmp_path):
    pkg = tmp_path / "src" / "crlrepro"
    write(pkg / "__init__.py")
    write(pkg / "theory" / "__init__.py")
    write(pkg / "theory" / "numerics.py")
    write(pkg / "theory" / "spectral.py", "from .numerics import f\nfrom . import quadrature\n")
    write(pkg / "theory" / "quadrature.py", "import numpy\n")
    write(pkg / "learning" / "__init__.py")
    write(pkg / "learning" / "losses.py", "from crlrepro.theory.numerics import f\n")
    write(pkg / "learning" / "unused.py")
    write(pkg / "claims" / "__init__.py", "")
    write(pkg / "claims" / "verdicts.py", "from ..theory import spectral\n")
    script = write(tmp_path / "script.py", "from crlrepro.learning.losses import info_nce\nfrom crlrepro.claims import verdicts\n")
    closure = {str(Path(p).relative_to(pkg)) for p in imported_library_files(script, pkg)}
    assert closure == {"__init__.py", "learning/__init__.py", "learning/losses.py", "theory/__init__.py", "theory/numerics.py",
                       "claims/__init__.py", "claims/verdicts.py", "theory/spectral.py", "theory/quadrature.py"}
    # an attribute of a module is not a file; a module of the top package still resolves
    write(pkg / "registry.py")
    other = write(tmp_path / "other.py", "import crlrepro.registry\nfrom crlrepro.theory.numerics import f, g\n")
    assert {str(Path(p).relative_to(pkg)) for p in imported_library_files(other, pkg)} == {
        "__init__.py", "registry.py", "theory/__init__.py", "theory/numerics.py"}
