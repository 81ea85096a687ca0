"""Persisted records, at the bottom of the import graph.

What SSCBench writes and reads back — the ledger (header, model-visible events,
``run_end``), the hidden log's state checks, and their readers and writers — lives here, so
that every layer above (agents, fault contracts, runs, reconstruction, analysis) can read
and write records without importing one another. Each file format carries a schema
version; readers accept every older version (frozen fixtures in ``tests/fixtures``).
"""
