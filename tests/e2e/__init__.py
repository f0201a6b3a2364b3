"""Browser tests: the course as a learner uses it, in JupyterLab in headless Chromium.

Run with ``make e2e`` (or, once ``scripts/e2e_setup.sh`` has installed Chromium and Playwright,
``CHUNKLAB_E2E=1 .venv/bin/python -m pytest tests/e2e``). Without ``CHUNKLAB_E2E=1`` nothing here
is collected, so the normal test run stays browser-free.

* ``test_notebooks.py``: every ``notebooks/*.ipynb`` is opened, run through Run -> Run All Cells,
  checked for exceptions, and each `chunklab.viz.explorer` widget is checked in its opening state
  (its main control moves the boundaries), dragged with the mouse and stepped with the keyboard,
  and its deciding dropdowns switched to check that disabled controls and size sliders follow them
  (``explorer.py`` says what is checked).
* ``test_selfcheck.py``: the runner passes a working fixture notebook and reports FAILURE, with the
  right reason, for deliberately broken ones (a widget callback that raises, a slider that no longer
  moves the boundaries, an explorer that opens where its main control shows nothing, disabled
  controls or size sliders that do not follow the unit, a cell that raises), all in
  ``fixture_notebooks/``.

Screenshots go to ``e2e-screenshots/`` (git-ignored).
"""
