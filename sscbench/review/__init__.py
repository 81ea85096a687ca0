"""Human review of reconstructed events (docs/measurement.md §7): masked packets, the
annotation page, reviewer agreement and the adjudicated reference.

Submodules are imported on use; the server pulls in Starlette and is only needed by
``review serve``.
"""
