"""Build files converted in the same edit pipeline as sources: one module per build system.

``cmake.py``, ``make.py`` and ``setuptools_ext.py`` each declare their file names
(``registry.build_system``) and register rewrite passes for their file kind (phase
``build:<kind>``); they propose Edits and Findings like source rules do, so the dry-run diff,
the summary and ``check`` treat a CMakeLists.txt like any converted file.
"""
