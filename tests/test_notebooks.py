"""Every notebook in notebooks/ runs top to bottom (nbclient) with this interpreter's kernel,
and the committed notebooks are clean (no outputs) and match notebooks/build.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.fixture(scope="session")
def kernel_env(tmp_path_factory):
    """A 'python3' kernelspec pointing at sys.executable, first on JUPYTER_PATH."""
    import os

    from ipykernel.kernelspec import install

    prefix = tmp_path_factory.mktemp("kernel")
    install(prefix=str(prefix), kernel_name="python3", display_name="Python 3 (logitgeom)")
    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        [str(prefix / "share" / "jupyter")] + ([old] if old else []))
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    assert Path(spec.argv[0]).resolve() == Path(sys.executable).resolve(), spec.argv
    yield
    if old is None:
        os.environ.pop("JUPYTER_PATH", None)
    else:
        os.environ["JUPYTER_PATH"] = old


def test_there_are_nine_and_they_match_the_generator():
    assert len(NOTEBOOKS) == 9
    proc = subprocess.run([sys.executable, str(ROOT / "notebooks" / "build.py"), "--check"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout
    for p in NOTEBOOKS:
        nb = nbformat.read(p, as_version=4)
        assert all(not c.get("outputs") and c.get("execution_count") is None
                   for c in nb.cells if c.cell_type == "code"), p.name


@pytest.mark.slow  # a Jupyter kernel runs each notebook top to bottom
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, kernel_env):
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=300,
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    images = sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code"
                 for o in c.get("outputs", []))
    assert images >= 1, f"{path.name} draws no figure"


def test_executed_copies_have_outputs(tmp_path, kernel_env):
    """``build.py --execute`` (what ``make demo`` runs) writes notebooks with their outputs."""
    sys.path.insert(0, str(ROOT / "notebooks"))
    try:
        import build
    finally:
        sys.path.pop(0)
    (path,) = build.execute(tmp_path, names=["01_cosine_is_not_probability"])
    nb = nbformat.read(path, as_version=4)
    outs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert outs and not [o for o in outs if o.get("output_type") == "error"]
    assert any(o.get("output_type") == "display_data" for o in outs)  # the figure
    assert "build.py --execute reproduction/notebooks" in (ROOT / "Makefile").read_text()


def test_the_notebooks_extra_has_jupyterlab_and_pandas():
    text = (ROOT / "pyproject.toml").read_text()
    extra = text.split("notebooks = [", 1)[1].split("]", 1)[0]
    assert '"jupyterlab' in extra and '"pandas' in extra


def test_notebook_text_matches_reproduce():
    """The grid range the notebooks state is the one reproduce runs."""
    from logitgeom.reproduce._cosine_grid import GRID

    text = (ROOT / "notebooks" / "build.py").read_text()
    assert all(GRID[n][-1] == min(6, n) for n in GRID)
    assert "\\\\min(6, n)$" in text and "d\\\\le\\\\min(6, n-1)" not in text
    assert "seed 000" not in text.lower() and "seed 003" not in text.lower()
