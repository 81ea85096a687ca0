"""File-format versions for the records SSCBench writes beside a ledger and a run set.

Every record type that goes to a file (the hidden log, the scripted agents' truth, the
provider calls, the experiment's status log, the labels) carries ``schema_version``:

* version 1 is the first format, written *without* the field, so files written before
  versions existed read as what they are, and a version-1 line is byte for byte what it
  always was;
* a later version is written explicitly, and bumping it is the signal that a reader must
  upgrade older lines (frozen fixtures of every version under ``tests/fixtures/records``
  must keep loading);
* a line newer than this SSCBench knows is refused with one message that says so, rather
  than misread.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, Field, model_validator


class VersionedRecord(BaseModel):
    """Base of a record whose file format has a version (see the module docstring)."""

    SCHEMA: ClassVar[int] = 1
    """The newest version this SSCBench reads and writes for the record type."""

    schema_version: int = Field(default=1, ge=1, exclude_if=lambda version: version == 1)
    """Left out of a line when 1 (the first format had no field); a field-level exclusion
    rather than a wrap serializer, which cost a Python call and a dict edit per line."""

    @model_validator(mode="after")
    def _known_version(self) -> VersionedRecord:
        if self.schema_version > self.SCHEMA:
            raise ValueError(
                f"schema_version {self.schema_version} is newer than this SSCBench reads "
                f"({self.SCHEMA}); upgrade sscbench"
            )
        return self


class DerivedDocument(BaseModel):
    """Base of a whole-file result derived from ledgers (``analysis.json``,
    ``scores.json``, ``comparison.json``), which carries ``schema_version`` explicitly.

    Such a file is never upgraded: it is recomputed from the records it was derived from,
    which are. So a file of another version is refused before its fields are read — one
    message that names both versions and the command that regenerates it, instead of a
    validation error per renamed field.
    """

    SCHEMA: ClassVar[int] = 1
    """The version this SSCBench reads and writes."""
    REGENERATE: ClassVar[str] = "the command that wrote it"
    """How to regenerate the file from its run set, for the refusal message."""

    @model_validator(mode="before")
    @classmethod
    def _same_version(cls, data: Any) -> Any:
        if isinstance(data, dict):
            # Built in code without the field: the current version (every writer writes it).
            version = data.get("schema_version", cls.SCHEMA)
            if isinstance(version, int) and version > cls.SCHEMA:
                raise ValueError(
                    f"schema_version {version} is newer than this SSCBench reads "
                    f"({cls.SCHEMA}); upgrade sscbench"
                )
            if isinstance(version, int) and version < cls.SCHEMA:
                raise ValueError(
                    f"schema_version {version} was written by an older SSCBench (this one "
                    f"reads {cls.SCHEMA}); it is derived from the run set, so regenerate it "
                    f"with {cls.REGENERATE}"
                )
        return data
