"""kbpy: ahead-of-time builds of KernelBench-format (.py, load_inline) submissions.

loadinline: the load_inline call as data (shared by build and runtime); extract: static reading
of a submission (never run); build: the builder (python -m kbpy.build). See docs/py-build.md.
"""
