"""docs/quickstart.ipynb runs from top to bottom without an error (select with ``-m notebook``)."""
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "quickstart.ipynb"


@pytest.mark.notebook
def test_quickstart_notebook_runs(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    shown = "".join(o.get("data", {}).get("text/markdown", "") for o in outputs)
    assert "**SimulationResult**" in shown and "**ExactResult**" in shown and "**HandGraphResult**" in shown
    assert any("image/png" in o.get("data", {}) for o in outputs)  # the heatmap
