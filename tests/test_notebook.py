"""examples/quickstart.ipynb runs as committed (issue 45, part 8): executed here with nbclient
on a Python kernel of this interpreter, every cell, so the notebook never goes stale. It is
stored without outputs: what it shows is what this fcsim computes when it runs."""

from __future__ import annotations

import sys

import nbformat
from nbclient import NotebookClient

from conftest import ROOT

NOTEBOOK = ROOT / "examples" / "quickstart.ipynb"


def test_the_notebook_is_stored_without_outputs() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)


def test_the_quickstart_notebook_runs() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    # This interpreter's kernel (the one with this fcsim), whatever kernels Jupyter knows of.
    client.km_kwargs = {"kernel_cmd": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]}
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    # The sections it promises: a table, a plot, a summary with intervals, epochs, an SSD, an MRC.
    text = "\n".join(
        str(o.get("data", {}).get("text/plain", "")) for c in nb.cells for o in c.get("outputs", [])
    )
    for expected in ("hit_ratio_ci95", "flash_page_writes", "axis_cflru_window", "Float64"):
        assert expected in text, expected
    images = sum("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))
    assert images >= 4
